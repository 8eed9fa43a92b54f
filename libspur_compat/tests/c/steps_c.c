/* Lists a job's running steps with slurm_get_job_steps, then cancels step 0 with slurm_kill_job_step(SIGKILL),
 * as scancel JOB.0 does. Usage: steps_c JOB_ID */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

int main(int argc, char **argv)
{
	job_step_info_response_msg_t *steps = NULL;
	uint32_t job_id;
	int rc;

	if (argc != 2)
		return 2;
	job_id = (uint32_t) strtoul(argv[1], NULL, 10);
	slurm_init(NULL);
	if (slurm_get_job_steps(0, job_id, NO_VAL, &steps, SHOW_ALL)) {
		printf("slurm_get_job_steps: %s\n", slurm_strerror(slurm_get_errno()));
		return 1;
	}
	printf("step_count=%u\n", steps->job_step_count);
	for (uint32_t i = 0; i < steps->job_step_count; i++) {
		job_step_info_t *s = &steps->job_steps[i];
		if (s->step_id.step_id == SLURM_BATCH_SCRIPT)
			printf("step=batch");
		else
			printf("step=%u", s->step_id.step_id);
		printf(" name=%s nodes=%s tasks=%u cpus=%u partition=%s state=%u\n", s->name, s->nodes,
		       s->num_tasks, s->num_cpus, s->partition, s->state);
	}
	slurm_free_job_step_info_response_msg(steps);
	printf("kill_step0=%d\n", slurm_kill_job_step(job_id, 0, SIGKILL));
	rc = slurm_kill_job_step(job_id, 7, SIGKILL);
	printf("kill_step7=%d errno=%d\n", rc, slurm_get_errno());
	slurm_fini();
	return 0;
}
