/* Load/free cycles of the functions added in the second round, for leak checkers (gcc -fsanitize=address's
 * LeakSanitizer, valgrind): every result is released by its free function and the program must end with nothing
 * unreachable. Usage: leaks_c RUNNING_JOB (its batch step gives a layout).
 * Built with: gcc -fsanitize=address leaks_c.c -o leaks_c -lslurm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

/* Exported by libslurm (not declared in its public headers): frees what libslurm xmalloc'd. */
extern void slurm_xfree(void **item);

#define CYCLES 20

int main(int argc, char **argv)
{
	int failures = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: leaks_c RUNNING_JOB\n");
		return 2;
	}
	for (int i = 0; i < CYCLES; i++) {
		assoc_mgr_info_request_msg_t req;
		assoc_mgr_info_msg_t *am = NULL;
		priority_factors_response_msg_t *pf = NULL;
		slurm_step_id_t id = { .job_id = atoi(argv[1]), .step_id = SLURM_BATCH_SCRIPT,
				       .step_het_comp = NO_VAL };
		slurm_step_layout_t *layout;
		List het = NULL;
		slurmdb_assoc_rec_t assoc;
		void *fed = NULL;
		char *status = NULL, *token, *text;
		front_end_info_t fe;

		memset(&req, 0, sizeof(req));
		req.user_list = slurm_list_create(free);
		slurm_list_append(req.user_list, strdup("root"));
		failures += slurm_load_assoc_mgr_info(&req, &am) != 0;
		slurm_free_assoc_mgr_info_msg(am);
		slurm_free_assoc_mgr_info_request_members(&req);

		failures += slurm_load_job_prio(&pf, NULL, NULL, NULL, 0) != 0;
		slurm_free_priority_factors_response_msg(pf);

		failures += slurm_load_federation(&fed) != 0;
		slurm_destroy_federation_rec(fed);
		failures += slurm_load_burst_buffer_stat(0, NULL, &status) != 0;
		slurm_xfree((void **)&status);

		token = slurm_fetch_token(NULL, 60);
		failures += token == NULL;
		slurm_xfree((void **)&token);

		failures += slurm_het_job_lookup(id.job_id, &het) != 0;
		slurm_list_destroy(het);

		layout = slurm_job_step_layout_get(&id);
		failures += layout == NULL;
		slurm_job_step_layout_free(layout);

		memset(&fe, 0, sizeof(fe));
		fe.name = "fe1";
		text = slurm_sprint_front_end_table(&fe, i % 2);
		slurm_xfree((void **)&text);

		slurmdb_init_assoc_rec(&assoc, 0);
		assoc.qos_list = slurm_list_create(NULL);
		slurmdb_init_assoc_rec(&assoc, 1);
	}
	printf("cycles=%d failures=%d\n", CYCLES, failures);
	return failures != 0;
}
