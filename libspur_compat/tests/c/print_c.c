/* slurm_print_* / slurm_sprint_* for jobs, partitions and nodes: what `scontrol show` prints, from loaded
 * messages. Usage: print_c JOBID.  Built with: gcc print_c.c -o print_c -lslurm */
#include <stdio.h>
#include <stdlib.h>
#include <slurm/slurm.h>

int main(int argc, char **argv)
{
	job_info_msg_t *jobs = NULL;
	partition_info_msg_t *parts = NULL;
	node_info_msg_t *nodes = NULL;

	if (argc < 2)
		return 2;
	if (slurm_load_job(&jobs, strtoul(argv[1], NULL, 10), 0)) {
		slurm_perror("slurm_load_job");
		return 1;
	}
	slurm_print_job_info_msg(stdout, jobs, 0);
	printf("--- one-liner\n");
	/* libslurm's sprint result is xmalloc'd (only its own xfree may free it); this program just prints it. */
	printf("%s", slurm_sprint_job_info(&jobs->job_array[0], 1));
	/* A record copied out of its message (as pyslurm and Perl's API hold them) prints the same. */
	slurm_job_info_t copy = jobs->job_array[0];
	printf("--- copied record\n");
	printf("%s", slurm_sprint_job_info(&copy, 1));
	slurm_free_job_info_msg(jobs);
	printf("--- partitions\n");
	slurm_load_partitions(0, &parts, 0);
	slurm_print_partition_info_msg(stdout, parts, 0);
	slurm_free_partition_info_msg(parts);
	printf("--- nodes\n");
	slurm_load_node(0, &nodes, 0);
	slurm_print_node_table(stdout, &nodes->node_array[0], 1);
	slurm_free_node_info_msg(nodes);
	printf("--- config\n");
	slurm_conf_t *conf = NULL;
	slurm_load_ctl_conf(0, &conf);
	slurm_print_ctl_conf(stdout, conf);
	slurm_free_ctl_conf(conf);
	return 0;
}
