/* slurm_load_job_prio under priority/multifactor: every field of the factors objects (TRES columns included; site
 * and nice are stored offset by NICE_OFFSET) of the given jobs, all partitions and then only PARTITIONS. Usage: prio_c PARTITIONS JOB...
 * Built with: gcc prio_c.c -o prio_c -lslurm */
#include <stdio.h>
#include <stdlib.h>
#include <slurm/slurm.h>

static int by_job_id(void *a, void *b)
{
	uint32_t x = (*(priority_factors_object_t **)a)->job_id, y = (*(priority_factors_object_t **)b)->job_id;
	return (x > y) - (x < y);
}

static void show(List ids, char *partitions)
{
	priority_factors_response_msg_t *pf = NULL;
	priority_factors_object_t *o;
	ListIterator it;
	int rc = slurm_load_job_prio(&pf, ids, partitions, NULL, 0);

	printf("partitions=%s rc=%d count=%d\n", partitions ? partitions : "(all)", rc,
	       slurm_list_count(pf->priority_factors_list));
	slurm_list_sort(pf->priority_factors_list, by_job_id);
	it = slurm_list_iterator_create(pf->priority_factors_list);
	while ((o = slurm_list_next(it))) {
		printf("job=%u partition=%s uid=%u cluster=%s age=%.2f assoc=%.2f fs=%.2f js=%.2f part=%.2f qos=%.2f"
		       " direct=%.2f site=%lld nice=%lld tres_cnt=%u\n",
		       o->job_id, o->partition, o->user_id, o->cluster_name ? o->cluster_name : "(null)",
		       o->priority_age, o->priority_assoc, o->priority_fs, o->priority_js, o->priority_part,
		       o->priority_qos, o->direct_prio, (long long)o->priority_site - NICE_OFFSET,
		       (long long)o->nice - NICE_OFFSET, o->tres_cnt);
		for (uint32_t i = 0; i < o->tres_cnt; i++)
			printf("  %s factor=%.2f weight=%.2f\n", o->tres_names[i], o->priority_tres[i],
			       o->tres_weights[i]);
	}
	slurm_list_iterator_destroy(it);
	slurm_free_priority_factors_response_msg(pf);
}

int main(int argc, char **argv)
{
	List ids = slurm_list_create(free);

	if (argc < 3) {
		fprintf(stderr, "usage: prio_c PARTITIONS JOB...\n");
		return 2;
	}
	for (int i = 2; i < argc; i++) {
		uint32_t *id = malloc(sizeof(*id));
		*id = atoi(argv[i]);
		slurm_list_append(ids, id);
	}
	show(ids, NULL);
	show(ids, argv[1]);
	slurm_list_destroy(ids);
	return 0;
}
