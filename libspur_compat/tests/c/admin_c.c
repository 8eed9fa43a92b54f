/* Partition, node, step and notify administration through the C API: slurm_create_partition,
 * slurm_update_partition, slurm_delete_partition, slurm_create_node, slurm_update_step, slurm_notify_job, with
 * Slurm's error numbers, as root and (in a child that became nobody) as an unprivileged user.
 * Usage: admin_c NODE RUNNING_JOB HELD_JOB_IN_P410 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static void report(const char *what, int rc)
{
	if (rc == SLURM_SUCCESS)
		printf("%s: ok\n", what);
	else
		printf("%s: rc=%d errno=%d %s\n", what, rc, slurm_get_errno(),
		       slurm_strerror(slurm_get_errno()));
}

static void show_partition(const char *name)
{
	partition_info_msg_t *msg = NULL;
	if (slurm_load_partitions(0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		printf("load: errno=%d\n", slurm_get_errno());
		return;
	}
	int found = 0;
	for (uint32_t i = 0; i < msg->record_count; i++) {
		partition_info_t *p = &msg->partition_array[i];
		if (strcmp(p->name, name))
			continue;
		found = 1;
		printf("%s nodes=%s max_time=%u default_time=%u min_nodes=%u max_nodes=%u state_up=%u "
		       "default=%d hidden=%d root_only=%d tier=%u job_factor=%u max_share=%#x total_nodes=%u\n",
		       p->name, p->nodes ? p->nodes : "(null)", p->max_time, p->default_time, p->min_nodes,
		       p->max_nodes, p->state_up, !!(p->flags & PART_FLAG_DEFAULT),
		       !!(p->flags & PART_FLAG_HIDDEN), !!(p->flags & PART_FLAG_ROOT_ONLY), p->priority_tier,
		       p->priority_job_factor, p->max_share, p->total_nodes);
	}
	if (!found)
		printf("%s: not found\n", name);
	slurm_free_partition_info_msg(msg);
}

static void show_step_limit(uint32_t job, uint32_t step)
{
	job_step_info_response_msg_t *msg = NULL;
	if (slurm_get_job_steps(0, job, step, &msg, SHOW_ALL) != SLURM_SUCCESS) {
		printf("steps: errno=%d\n", slurm_get_errno());
		return;
	}
	for (uint32_t i = 0; i < msg->job_step_count; i++)
		if (msg->job_steps[i].step_id.step_id == step)
			printf("step %u time_limit=%u\n", step, msg->job_steps[i].time_limit);
	slurm_free_job_step_info_response_msg(msg);
}

/* What an unprivileged user gets: each call in a child running as nobody, before the parent's first call. */
static void as_nobody(uint32_t job)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		update_part_msg_t part;
		slurm_init_part_desc_msg(&part);
		part.name = "p410x";
		report("nobody create_partition", slurm_create_partition(&part));
		part.name = "p410";
		part.max_time = 5;
		report("nobody update_partition", slurm_update_partition(&part));
		delete_part_msg_t del = { .name = "p410" };
		report("nobody delete_partition", slurm_delete_partition(&del));
		update_node_msg_t node;
		slurm_init_update_node_msg(&node);
		node.extra = "NodeName=n410 CPUs=1 State=FUTURE";
		report("nobody create_node", slurm_create_node(&node));
		step_update_request_msg_t step;
		slurm_init_update_step_msg(&step);
		step.job_id = job;
		step.step_id = 0;
		step.time_limit = 3;
		report("nobody update_step", slurm_update_step(&step));
		fflush(stdout);
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: %s NODE RUNNING_JOB HELD_JOB\n", argv[0]);
		return 2;
	}
	char *node_name = argv[1];
	uint32_t running = strtoul(argv[2], NULL, 10), held = strtoul(argv[3], NULL, 10);
	/* First: a process must not call the library after fork() once it has called it (see libspur_compat.md). */
	as_nobody(running);

	update_part_msg_t part;
	slurm_init_part_desc_msg(&part);
	part.name = "p410b";
	part.nodes = node_name;
	part.max_time = 30;
	report("create p410b", slurm_create_partition(&part));
	show_partition("p410b");
	report("create p410b again", slurm_create_partition(&part));

	slurm_init_part_desc_msg(&part);
	part.name = "p410b";
	part.max_time = INFINITE;
	part.state_up = PARTITION_DOWN;
	part.priority_tier = 5;
	part.max_share = 2 | SHARED_FORCE;
	part.flags = PART_FLAG_ROOT_ONLY;
	report("update p410b", slurm_update_partition(&part));
	show_partition("p410b");
	part.name = "nosuch410";
	report("update nosuch410", slurm_update_partition(&part));

	/* p410 holds a held job: in use until it is cancelled. */
	delete_part_msg_t del = { .name = "p410" };
	report("delete p410 with a job", slurm_delete_partition(&del));
	report("notify held job", slurm_notify_job(held, "hello"));
	report("cancel held job", slurm_kill_job(held, SIGKILL, 0));
	for (int i = 0; i < 100; i++) {
		job_info_msg_t *jobs = NULL;
		int done = 1;
		if (slurm_load_job(&jobs, held, SHOW_ALL) == SLURM_SUCCESS) {
			done = jobs->record_count == 0 || (jobs->job_array[0].job_state & JOB_STATE_BASE) > JOB_SUSPENDED;
			slurm_free_job_info_msg(jobs);
		}
		if (done)
			break;
		usleep(100000);
	}
	report("delete p410", slurm_delete_partition(&del));
	report("delete p410 again", slurm_delete_partition(&del));
	show_partition("p410");
	del.name = "p410b";
	report("delete p410b", slurm_delete_partition(&del));
	show_partition("p410b");

	update_node_msg_t node;
	slurm_init_update_node_msg(&node);
	node.extra = "NodeName=n410 CPUs=1";
	report("create_node without State=FUTURE", slurm_create_node(&node));

	step_update_request_msg_t step;
	slurm_init_update_step_msg(&step);
	step.job_id = running;
	step.step_id = 0;
	step.time_limit = 10;
	report("update_step 0", slurm_update_step(&step));
	show_step_limit(running, 0);
	step.step_id = 7;
	report("update_step 7", slurm_update_step(&step));
	step.job_id = 999999;
	step.step_id = 0;
	report("update_step of an unknown job", slurm_update_step(&step));

	report("notify running job", slurm_notify_job(running, "hello from admin_c"));
	report("notify unknown job", slurm_notify_job(999999, "hello"));

	return 0;
}
