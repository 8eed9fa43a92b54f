/* Job and cluster calls answered by the controller: accounting cache (assoc_mgr) and federation on a cluster
 * without slurmdbd, burst buffer status, job priorities, token, scontrol top, slurm_het_job_lookup of regular jobs,
 * suspend/resume by job id text and step layouts.
 * Usage: jobctl_c RUNNING_JOB PENDING_HELD_JOB (the running job has srun step 0 with two tasks).
 * Built with: gcc jobctl_c.c -o jobctl_c -lslurm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

/* Exported by libslurm (not declared in its public headers): frees what libslurm xmalloc'd. */
extern void slurm_xfree(void **item);

static void show_array(const char *what, int rc, job_array_resp_msg_t *ar)
{
	printf("%s rc=%d errno=%d", what, rc, slurm_get_errno());
	if (ar) {
		for (uint32_t i = 0; i < ar->job_array_count; i++)
			printf(" [%s %u]", ar->job_array_id[i], ar->error_code[i]);
		slurm_free_job_array_resp(ar);
	} else {
		printf(" resp=NULL");
	}
	printf("\n");
}

static void show_layout(const char *what, uint32_t job, uint32_t step)
{
	slurm_step_id_t id = { .job_id = job, .step_id = step, .step_het_comp = NO_VAL };
	slurm_step_layout_t *l;

	slurm_seterrno(0);
	l = slurm_job_step_layout_get(&id);
	if (!l) {
		printf("layout %s NULL errno=%d\n", what, slurm_get_errno());
		return;
	}
	printf("layout %s front_end=%s node_cnt=%u node_list=%s plane=%u protocol=%u task_cnt=%u dist=%#x\n", what,
	       l->front_end ? l->front_end : "(null)", l->node_cnt, l->node_list, l->plane_size,
	       l->start_protocol_ver, l->task_cnt, l->task_dist);
	for (uint32_t n = 0; n < l->node_cnt; n++) {
		printf("  node %u tasks=%u:", n, l->tasks[n]);
		for (uint32_t t = 0; t < l->tasks[n]; t++)
			printf(" %u", l->tids[n][t]);
		printf("\n");
	}
	slurm_job_step_layout_free(l);
}

static void het_lookup(const char *what, uint32_t job)
{
	List resp = NULL;
	resource_allocation_response_msg_t *a;
	int rc;

	slurm_seterrno(0);
	rc = slurm_het_job_lookup(job, &resp);
	printf("het_job_lookup %s rc=%d errno=%d", what, rc, slurm_get_errno());
	if (resp) {
		printf(" count=%d", slurm_list_count(resp));
		a = slurm_list_pop(resp);
		printf(" node_list=%s node_cnt=%u", a->node_list, a->node_cnt);
		slurm_free_resource_allocation_response_msg(a);
		slurm_list_destroy(resp);
	}
	printf("\n");
}

static void accounting(void)
{
	assoc_mgr_info_request_msg_t req;
	assoc_mgr_info_msg_t *am = NULL;
	void *fed = (void *)1;
	char *status = (char *)1;
	int rc;

	memset(&req, 0, sizeof(req));
	req.user_list = slurm_list_create(free);
	slurm_list_append(req.user_list, strdup("root"));
	req.acct_list = slurm_list_create(NULL);
	rc = slurm_load_assoc_mgr_info(&req, &am);
	printf("assoc_mgr rc=%d assoc_list=%s qos_list=%s user_list=%s tres:", rc, am->assoc_list ? "set" : "NULL",
	       am->qos_list ? "set" : "NULL", am->user_list ? "set" : "NULL");
	for (uint32_t i = 0; i < am->tres_cnt; i++)
		printf(" %s", am->tres_names[i]);
	printf("\n");
	slurm_free_assoc_mgr_info_msg(am);
	slurm_free_assoc_mgr_info_request_members(&req);
	printf("request members: %p %p %p\n", (void *)req.acct_list, (void *)req.qos_list, (void *)req.user_list);

	rc = slurm_load_federation(&fed);
	printf("federation rc=%d fed=%s\n", rc, fed ? "set" : "NULL");
	slurm_print_federation(fed);
	slurm_destroy_federation_rec(fed);
	rc = slurm_load_burst_buffer_stat(0, NULL, &status);
	printf("bb stat rc=%d status=%s\n", rc, status ? status : "NULL");
}

static void priorities(uint32_t pending)
{
	priority_factors_response_msg_t *pf = NULL;
	List ids = slurm_list_create(NULL);
	int rc;

	rc = slurm_load_job_prio(&pf, NULL, NULL, NULL, 0);
	printf("job_prio rc=%d list=%s count=%d\n", rc, pf->priority_factors_list ? "set" : "NULL",
	       slurm_list_count(pf->priority_factors_list));
	slurm_free_priority_factors_response_msg(pf);
	slurm_list_append(ids, &pending);
	pf = NULL;
	rc = slurm_load_job_prio(&pf, ids, "debug", NULL, 0);
	printf("job_prio filtered rc=%d count=%d\n", rc, slurm_list_count(pf->priority_factors_list));
	slurm_free_priority_factors_response_msg(pf);
	slurm_list_destroy(ids);
}

int main(int argc, char **argv)
{
	char *run, *pend, *token;
	job_array_resp_msg_t *ar;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: jobctl_c RUNNING_JOB PENDING_JOB\n");
		return 2;
	}
	run = argv[1];
	pend = argv[2];
	accounting();
	priorities(atoi(pend));

	token = slurm_fetch_token(NULL, 60);
	printf("token %s\n", token && strlen(token) > 20 ? "issued" : "missing");
	slurm_xfree((void **)&token);

	slurm_seterrno(0);
	rc = slurm_top_job(pend);
	printf("top held rc=%d errno=%d\n", rc, slurm_get_errno());
	slurm_seterrno(0);
	rc = slurm_top_job(run);
	printf("top running rc=%d errno=%d\n", rc, slurm_get_errno());
	slurm_seterrno(0);
	rc = slurm_top_job("xyz");
	printf("top xyz rc=%d errno=%d\n", rc, slurm_get_errno());

	het_lookup("running", atoi(run));
	het_lookup("pending", atoi(pend));
	het_lookup("unknown", 4000000);
	show_layout("batch", atoi(run), SLURM_BATCH_SCRIPT);
	show_layout("step0", atoi(run), 0);
	show_layout("step7", atoi(run), 7);
	show_layout("pending", atoi(pend), 0);
	show_layout("unknown", 4000000, 0);

	slurm_seterrno(0);
	ar = NULL;
	rc = slurm_suspend2(run, &ar);
	show_array("suspend2 running", rc, ar);
	slurm_seterrno(0);
	ar = NULL;
	rc = slurm_resume2(run, &ar);
	show_array("resume2 suspended", rc, ar);
	slurm_seterrno(0);
	ar = NULL;
	rc = slurm_resume2(run, &ar);
	show_array("resume2 running", rc, ar);
	slurm_seterrno(0);
	ar = NULL;
	rc = slurm_suspend2(pend, &ar);
	show_array("suspend2 pending", rc, ar);
	slurm_seterrno(0);
	ar = NULL;
	rc = slurm_suspend2("4000000", &ar);
	show_array("suspend2 unknown", rc, ar);
	slurm_seterrno(0);
	ar = NULL;
	rc = slurm_suspend2("abc", &ar);
	show_array("suspend2 abc", rc, ar);
	return 0;
}
