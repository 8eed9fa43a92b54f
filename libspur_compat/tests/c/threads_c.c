/* Several threads calling libslurm at once: job, node and partition loads with their frees, priorities and the
 * accounting cache, and hostlists.
 * Built with: gcc threads_c.c -o threads_c -lslurm -lpthread.  Prints "failures=0" when every call succeeded. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <slurm/slurm.h>

#define THREADS 8
#define ROUNDS 20

static int failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void fail(const char *what)
{
	pthread_mutex_lock(&lock);
	failures++;
	fprintf(stderr, "%s failed: %s\n", what, slurm_strerror(slurm_get_errno()));
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		job_info_msg_t *jobs = NULL;
		node_info_msg_t *nodes = NULL;
		partition_info_msg_t *parts = NULL;
		priority_factors_response_msg_t *prio = NULL;
		assoc_mgr_info_msg_t *assoc = NULL;
		assoc_mgr_info_request_msg_t req = { 0 };
		if (slurm_load_jobs(0, &jobs, SHOW_ALL)) fail("slurm_load_jobs"); else slurm_free_job_info_msg(jobs);
		if (slurm_load_node(0, &nodes, SHOW_ALL)) fail("slurm_load_node"); else slurm_free_node_info_msg(nodes);
		if (slurm_load_partitions(0, &parts, SHOW_ALL)) fail("slurm_load_partitions");
		else slurm_free_partition_info_msg(parts);
		if (slurm_load_job_prio(&prio, NULL, NULL, NULL, 0)) fail("slurm_load_job_prio");
		else slurm_free_priority_factors_response_msg(prio);
		if (slurm_load_assoc_mgr_info(&req, &assoc)) fail("slurm_load_assoc_mgr_info");
		else slurm_free_assoc_mgr_info_msg(assoc);
		hostlist_t hl = slurm_hostlist_create("t[1-100]");
		if (slurm_hostlist_count(hl) != 100) fail("slurm_hostlist_count");
		slurm_hostlist_destroy(hl);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("failures=%d\n", failures);
	return failures != 0;
}
