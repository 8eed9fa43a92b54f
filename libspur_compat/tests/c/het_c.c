/* Heterogeneous jobs through the C API: slurm_het_job_will_run, slurm_submit_batch_het_job, slurm_load_job's
 * het_job_* fields, slurm_het_job_lookup of a het job, slurm_allocate_het_job_blocking, and their refusals.
 * Job ids are printed relative to the leader, so the output does not depend on the cluster's next id.
 * Usage: het_c WORKDIR (a directory every node sees). Needs a cluster of three nodes or more.
 * Built with: gcc het_c.c -o het_c -lslurm */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static char *env_vars[] = { "PATH=/usr/bin:/bin", NULL };

static job_desc_msg_t *component(const char *workdir, int nodes, int tasks, int batch)
{
	job_desc_msg_t *d = malloc(sizeof(*d));

	slurm_init_job_desc_msg(d);
	d->name = "hetc";
	d->min_nodes = nodes;
	d->num_tasks = tasks;
	d->time_limit = 5;
	d->user_id = getuid();
	d->group_id = getgid();
	d->work_dir = (char *)workdir;
	if (batch) {
		d->script = "#!/bin/sh\nsleep 60\n";
		d->std_out = "/dev/null";
		d->environment = env_vars;
		d->env_size = 1;
	}
	return d;
}

static List het_request(const char *workdir, int batch)
{
	List l = slurm_list_create(NULL);

	slurm_list_append(l, component(workdir, 1, 1, batch));
	slurm_list_append(l, component(workdir, 2, 2, batch));
	return l;
}

static void free_request(List l)
{
	job_desc_msg_t *d;

	while ((d = slurm_list_pop(l)))
		free(d);
	slurm_list_destroy(l);
}

static int wait_running(uint32_t job)
{
	for (int i = 0; i < 350; i++) {
		job_info_msg_t *msg = NULL;
		int running = 0;

		if (slurm_load_job(&msg, job, SHOW_ALL) == SLURM_SUCCESS) {
			running = msg->record_count > 0 && msg->job_array[0].job_state == JOB_RUNNING;
			slurm_free_job_info_msg(msg);
		}
		if (running)
			return 1;
		usleep(200000);
	}
	return 0;
}

static void show_job(uint32_t leader)
{
	job_info_msg_t *msg = NULL;
	int rc = slurm_load_job(&msg, leader, SHOW_ALL);

	printf("load_job rc=%d count=%u\n", rc, msg ? msg->record_count : 0);
	for (uint32_t i = 0; msg && i < msg->record_count; i++) {
		slurm_job_info_t *j = &msg->job_array[i];

		printf("  job=+%u het_job_id=+%u offset=%u id_set_set=%d nodes=%u tasks=%u state=%u\n",
		       j->job_id - leader, j->het_job_id - leader, j->het_job_offset,
		       j->het_job_id_set != NULL, j->num_nodes, j->num_tasks, j->job_state);
	}
	slurm_free_job_info_msg(msg);
	msg = NULL;
	rc = slurm_load_job(&msg, leader + 1, SHOW_ALL);
	printf("load_job component rc=%d count=%u offset=%u\n", rc, msg ? msg->record_count : 0,
	       msg && msg->record_count ? msg->job_array[0].het_job_offset : 99);
	slurm_free_job_info_msg(msg);
}

static void show_allocations(const char *what, List l, uint32_t leader)
{
	ListIterator it;
	resource_allocation_response_msg_t *a;

	printf("%s count=%d", what, slurm_list_count(l));
	it = slurm_list_iterator_create(l);
	while ((a = slurm_list_next(it)))
		printf(" [+%u nodes=%u]", a->job_id - leader, a->node_cnt);
	slurm_list_iterator_destroy(it);
	printf("\n");
}

int main(int argc, char **argv)
{
	const char *workdir = argc > 1 ? argv[1] : "/tmp";
	submit_response_msg_t *resp = NULL;
	List req, allocs, looked = NULL;
	uint32_t leader;
	int rc;

	req = het_request(workdir, 1);
	slurm_seterrno(0);
	rc = slurm_het_job_will_run(req);
	printf("het_job_will_run rc=%d errno=%d\n", rc, slurm_get_errno());

	rc = slurm_submit_batch_het_job(req, &resp);
	printf("submit_batch_het_job rc=%d errno=%d resp=%s\n", rc, slurm_get_errno(), resp ? "set" : "NULL");
	free_request(req);
	if (!resp)
		return 1;
	leader = resp->job_id;
	printf("  step_id=%#x error_code=%u user_msg=%s\n", resp->step_id, resp->error_code,
	       resp->job_submit_user_msg ? resp->job_submit_user_msg : "(null)");
	slurm_free_submit_response_response_msg(resp);
	printf("running=%d\n", wait_running(leader));
	show_job(leader);

	rc = slurm_het_job_lookup(leader, &looked);
	printf("het_job_lookup rc=%d errno=%d\n", rc, slurm_get_errno());
	if (looked) {
		show_allocations("  lookup", looked, leader);
		slurm_list_destroy(looked);
	}
	rc = slurm_kill_job(leader, SIGKILL, 0);
	printf("kill rc=%d\n", rc);

	req = het_request(workdir, 0);
	slurm_seterrno(0);
	allocs = slurm_allocate_het_job_blocking(req, 60, NULL);
	printf("allocate_het_job_blocking %s errno=%d\n", allocs ? "list" : "NULL", slurm_get_errno());
	free_request(req);
	if (allocs) {
		ListIterator it = slurm_list_iterator_create(allocs);
		resource_allocation_response_msg_t *first = slurm_list_next(it);

		slurm_list_iterator_destroy(it);
		leader = first ? first->job_id : 0;
		show_allocations("  granted", allocs, leader);
		show_job(leader);
		rc = slurm_kill_job(leader, SIGKILL, 0);
		printf("kill rc=%d\n", rc);
		slurm_list_destroy(allocs);
	}

	req = slurm_list_create(NULL);
	slurm_seterrno(0);
	resp = NULL;
	rc = slurm_submit_batch_het_job(req, &resp);
	printf("submit empty list rc=%d errno=%d resp=%s\n", rc, slurm_get_errno(), resp ? "set" : "NULL");
	slurm_seterrno(0);
	rc = slurm_het_job_will_run(req);
	printf("will_run empty list rc=%d errno=%d\n", rc, slurm_get_errno());
	slurm_list_destroy(req);
	return 0;
}
