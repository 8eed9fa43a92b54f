/* A running step's processes and tasks through slurm_job_step_get_pids and slurm_job_step_stat (what sstat -i
 * reads), then the same calls for a step that does not run. Usage: step_stat_c JOB_ID */
#include <stdio.h>
#include <stdlib.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static void show_pids(const char *what, job_step_pids_t *p)
{
	printf("%s node=%s pids=%s\n", what, p->node_name, p->pid_cnt > 0 && p->pid[0] > 1 ? "yes" : "no");
}

static void query(uint32_t job_id, uint32_t step_id, char *nodes, int with_stat)
{
	slurm_step_id_t id = { .job_id = job_id, .step_het_comp = NO_VAL, .step_id = step_id };
	job_step_pids_response_msg_t *pids = NULL;
	job_step_stat_response_msg_t *stats = NULL;
	ListIterator it;
	void *item;
	int rc;

	rc = slurm_job_step_get_pids(&id, nodes, &pids);
	printf("get_pids rc=%d", rc);
	if (rc) {
		printf(" errno=%d %s\n", slurm_get_errno(), slurm_strerror(slurm_get_errno()));
	} else {
		printf(" step=%u count=%d\n", pids->step_id.step_id == SLURM_BATCH_SCRIPT ? 9999 : pids->step_id.step_id,
		       slurm_list_count(pids->pid_list));
		it = slurm_list_iterator_create(pids->pid_list);
		while ((item = slurm_list_next(it)))
			show_pids("  pids", item);
		slurm_list_iterator_destroy(it);
		slurm_job_step_pids_response_msg_free(pids);
	}
	if (!with_stat)
		return;
	rc = slurm_job_step_stat(&id, nodes, (38 << 8) /* 22.05's protocol version */, &stats);
	printf("stat rc=%d", rc);
	if (rc) {
		printf(" errno=%d %s\n", slurm_get_errno(), slurm_strerror(slurm_get_errno()));
		return;
	}
	printf(" count=%d\n", slurm_list_count(stats->stats_list));
	it = slurm_list_iterator_create(stats->stats_list);
	while ((item = slurm_list_next(it))) {
		job_step_stat_t *s = item;
		printf("  tasks=%u return_code=%u\n", s->num_tasks, s->return_code);
		show_pids("  step_pids", s->step_pids);
	}
	slurm_list_iterator_destroy(it);
	slurm_job_step_stat_response_msg_free(stats);
}

int main(int argc, char **argv)
{
	uint32_t job_id;

	if (argc != 2)
		return 2;
	job_id = (uint32_t) strtoul(argv[1], NULL, 10);
	slurm_init(NULL);
	query(job_id, 0, NULL, 1);
	/* Slurm 22.05's slurm_job_step_stat cannot reach a batch step from a client (its stepd answers in protocol
	 * version 0), so only the pids of the batch step are asked for. */
	query(job_id, SLURM_BATCH_SCRIPT, NULL, 0);
	query(job_id, 7, NULL, 1);
	slurm_fini();
	return 0;
}
