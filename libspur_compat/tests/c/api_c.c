/* Exercises libslurm's job, node, partition, config and error API the way site tools use it; prints one line per
 * check with values that do not depend on the cluster (so real Slurm and Spur print the same).
 * Built with: gcc api_c.c -o api_c -lslurm
 * Usage: api_c   (SLURM_CONF names the cluster; the current directory must be writable for job output) */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#define CHECK(what, call) do { int rc_ = (call); \
	printf("%s rc=%d errno=%d (%s)\n", what, rc_, rc_ ? slurm_get_errno() : 0, \
	       rc_ ? slurm_strerror(slurm_get_errno()) : "ok"); } while (0)

static uint32_t submit(const char *name, const char *script, uint32_t priority)
{
	job_desc_msg_t desc;
	submit_response_msg_t *resp = NULL;
	char cwd[4096];
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	uint32_t id;

	slurm_init_job_desc_msg(&desc);
	desc.name = (char *)name;
	desc.script = (char *)script;
	desc.min_nodes = 1;
	desc.num_tasks = 1;
	desc.time_limit = 10;
	desc.user_id = getuid();
	desc.group_id = getgid();
	desc.work_dir = getcwd(cwd, sizeof(cwd));
	desc.environment = env;
	desc.env_size = 1;
	desc.std_out = "c-%j.out";
	if (priority != NO_VAL)
		desc.priority = priority;
	if (slurm_submit_batch_job(&desc, &resp) != SLURM_SUCCESS) {
		slurm_perror("slurm_submit_batch_job");
		exit(1);
	}
	id = resp->job_id;
	printf("submit %s ok error_code=%u step_id=%u\n", name, resp->error_code, resp->step_id);
	slurm_free_submit_response_response_msg(resp);
	return id;
}

static const char *base(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path ? path : "(null)";
}

static void show_job(uint32_t id, const char *label)
{
	job_info_msg_t *msg = NULL;
	if (slurm_load_job(&msg, id, SHOW_DETAIL) != SLURM_SUCCESS) {
		slurm_perror("slurm_load_job");
		return;
	}
	slurm_job_info_t *j = &msg->job_array[0];
	printf("%s count=%u name=%s partition=%s time_limit=%u num_tasks=%u batch_flag=%u state_base=%u "
	       "priority_zero=%d std_out_suffix=%s\n", label, msg->record_count, j->name, j->partition,
	       j->time_limit, j->num_tasks, j->batch_flag, j->job_state & JOB_STATE_BASE, j->priority == 0,
	       base(j->std_out));
	slurm_free_job_info_msg(msg);
}

static int wait_state(uint32_t id, uint32_t state, int tries)
{
	for (int i = 0; i < tries; i++) {
		job_info_msg_t *msg = NULL;
		if (slurm_load_job(&msg, id, 0) == SLURM_SUCCESS) {
			uint32_t s = msg->job_array[0].job_state & JOB_STATE_BASE;
			slurm_free_job_info_msg(msg);
			if (s == state)
				return 1;
		}
		usleep(200 * 1000);
	}
	return 0;
}

int main(void)
{
	job_info_msg_t *jobs = NULL;
	node_info_msg_t *nodes = NULL;
	partition_info_msg_t *parts = NULL;
	slurm_conf_t *conf = NULL;
	job_desc_msg_t upd;
	time_t end = 0;
	uint32_t held, run;

	printf("api_version=%ld\n", slurm_api_version());
	CHECK("ping", slurm_ping(0));

	CHECK("load_job(invalid)", slurm_load_job(&jobs, 999999, 0));
	CHECK("kill_job(invalid)", slurm_kill_job(999999, SIGKILL, 0));
	CHECK("get_end_time(invalid)", slurm_get_end_time(999999, &end));
	printf("get_rem_time(invalid)=%ld errno=%d\n", slurm_get_rem_time(999999), slurm_get_errno());
	printf("strerror(2017)=%s\n", slurm_strerror(2017));

	held = submit("c-held", "#!/bin/sh\nsleep 60\n", 0);
	show_job(held, "held");
	slurm_init_job_desc_msg(&upd);
	upd.job_id = held;
	upd.time_limit = 5;
	CHECK("update_job(time_limit)", slurm_update_job(&upd));
	show_job(held, "updated");
	slurm_init_job_desc_msg(&upd);
	upd.job_id = held;
	upd.priority = INFINITE;
	CHECK("update_job(release)", slurm_update_job(&upd));
	CHECK("kill_job(held)", slurm_kill_job(held, SIGKILL, 0));
	printf("held cancelled=%d\n", wait_state(held, JOB_CANCELLED, 50));

	run = submit("c-run", "#!/bin/sh\nsleep 60\n", NO_VAL);
	printf("run running=%d\n", wait_state(run, JOB_RUNNING, 100));
	CHECK("get_end_time", slurm_get_end_time(run, &end));
	long rem = slurm_get_rem_time(run);
	printf("rem_time_in_range=%d\n", rem > 0 && rem <= 600);
	job_step_info_response_msg_t *steps = NULL;
	CHECK("get_job_steps", slurm_get_job_steps(0, run, NO_VAL, &steps, SHOW_ALL));
	if (steps) {
		int batch = 0;
		for (uint32_t i = 0; i < steps->job_step_count; i++)
			if (steps->job_steps[i].step_id.step_id == SLURM_BATCH_SCRIPT)
				batch++;
		printf("steps batch=%d\n", batch);
		slurm_free_job_step_info_response_msg(steps);
	}
	/* Real Slurm answers 2017 when the signal beats the batch step's launch on the node; let it start. */
	sleep(1);
	/* SIGCONT: the call is what is checked here; which processes a signal reaches differs (docs/compatibility.md,
	 * scancel -s), and a deadly one would race the kill below. */
	CHECK("signal_job(SIGCONT)", slurm_signal_job(run, SIGCONT));
	CHECK("kill_job(run)", slurm_kill_job(run, SIGKILL, 0));
	printf("run cancelled=%d\n", wait_state(run, JOB_CANCELLED, 100));
	CHECK("kill_job(again)", slurm_kill_job(run, SIGKILL, 0));

	CHECK("load_job_user", slurm_load_job_user(&jobs, getuid(), 0));
	if (jobs) {
		printf("user_jobs>=2 %d\n", jobs->record_count >= 2);
		slurm_free_job_info_msg(jobs);
	}

	CHECK("load_node", slurm_load_node(0, &nodes, SHOW_ALL));
	if (nodes) {
		node_info_t *n = &nodes->node_array[0];
		printf("nodes count=%u cpus_positive=%d real_memory_positive=%d state_base_idle_or_mixed=%d\n",
		       nodes->record_count, n->cpus > 0, n->real_memory > 0,
		       (n->node_state & NODE_STATE_BASE) == NODE_STATE_IDLE ||
		       (n->node_state & NODE_STATE_BASE) == NODE_STATE_MIXED ||
		       (n->node_state & NODE_STATE_BASE) == NODE_STATE_ALLOCATED);
		slurm_free_node_info_msg(nodes);
	}
	nodes = NULL;
	CHECK("load_node_single(nosuch)", slurm_load_node_single(&nodes, "nosuchnode", 0));
	if (nodes) {
		printf("nosuch count=%u\n", nodes->record_count);
		slurm_free_node_info_msg(nodes);
	}
	CHECK("load_partitions", slurm_load_partitions(0, &parts, SHOW_ALL));
	if (parts) {
		partition_info_t *p = &parts->partition_array[0];
		printf("partitions count=%u name=%s default=%d max_time=%u state_up=%u total_nodes=%u\n",
		       parts->record_count, p->name, !!(p->flags & PART_FLAG_DEFAULT), p->max_time,
		       p->state_up, p->total_nodes);
		slurm_free_partition_info_msg(parts);
	}
	CHECK("load_ctl_conf", slurm_load_ctl_conf(0, &conf));
	if (conf) {
		printf("conf control_cnt=%u select_type=%s has_cluster=%d\n", conf->control_cnt,
		       conf->select_type, conf->cluster_name != NULL);
		slurm_free_ctl_conf(conf);
	}
	return 0;
}
