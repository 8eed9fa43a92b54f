/*
 * Concurrent batch submission through Slurm's C API, for the benchmark suite (spur-conformance bench).
 * The same program runs against real Slurm (libslurm.so.38) and Spur (libspur_compat.so as libslurm.so.38,
 * found first on LD_LIBRARY_PATH), so both sides pay the same client cost.
 *
 *   submit_api JOBS THREADS held|run
 *
 * Prints one line: "<submitted> <failed> <seconds>". Exit status 0 when every submission succeeded.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

static int per_thread;
static int hold;
static int failed;
static pthread_mutex_t failed_lock = PTHREAD_MUTEX_INITIALIZER;

static void *submitter(void *arg)
{
	(void)arg;
	char *env[] = {"PATH=/usr/bin:/bin", NULL};
	for (int i = 0; i < per_thread; i++) {
		job_desc_msg_t desc;
		submit_response_msg_t *resp = NULL;
		slurm_init_job_desc_msg(&desc);
		desc.name = "bench";
		desc.script = "#!/bin/sh\ntrue\n";
		desc.work_dir = "/tmp";
		desc.std_out = "/dev/null";
		desc.std_err = "/dev/null";
		desc.user_id = getuid();
		desc.group_id = getgid();
		desc.environment = env;
		desc.env_size = 1;
		desc.min_cpus = 1;
		if (hold)
			desc.priority = 0;
		if (slurm_submit_batch_job(&desc, &resp) != SLURM_SUCCESS) {
			pthread_mutex_lock(&failed_lock);
			if (failed++ == 0)
				fprintf(stderr, "submit_api: %s\n", slurm_strerror(slurm_get_errno()));
			pthread_mutex_unlock(&failed_lock);
		}
		slurm_free_submit_response_response_msg(resp);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[3], "held") && strcmp(argv[3], "run"))) {
		fprintf(stderr, "usage: submit_api JOBS THREADS held|run\n");
		return 2;
	}
	int jobs = atoi(argv[1]), threads = atoi(argv[2]);
	if (jobs < 1 || threads < 1 || threads > 256) {
		fprintf(stderr, "submit_api: JOBS and THREADS must be positive (THREADS at most 256)\n");
		return 2;
	}
	hold = !strcmp(argv[3], "held");
	per_thread = (jobs + threads - 1) / threads;
	slurm_init(NULL);

	pthread_t tids[256];
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int t = 0; t < threads; t++)
		pthread_create(&tids[t], NULL, submitter, NULL);
	for (int t = 0; t < threads; t++)
		pthread_join(tids[t], NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);

	double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	printf("%d %d %.6f\n", per_thread * threads - failed, failed, secs);
	slurm_fini();
	return failed ? 1 : 0;
}
