/* The smaller libslurm calls: empty loads (reservations, licenses, front ends, topology, burst buffers,
 * triggers), node readiness, allocation lookup, job id translation, batch script, stdio paths, key pairs and the
 * init functions' markers. Built with: gcc misc_c.c -o misc_c -lslurm */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

typedef struct { char *name; char *value; } key_pair_t; /* libslurm's config_key_pair_t */
/* Exported by libslurm (not declared in its public headers): frees what libslurm xmalloc'd. */
extern void slurm_xfree(void **item);

static void del_pair(void *x)
{
	key_pair_t *k = x;
	free(k->name);
	free(k->value);
	free(k);
}

static uint32_t submit(const char *name, uint32_t priority)
{
	job_desc_msg_t d;
	submit_response_msg_t *r = NULL;
	char cwd[4096];
	char *env[] = { "PATH=/usr/bin:/bin", NULL };

	slurm_init_job_desc_msg(&d);
	d.name = (char *)name;
	d.script = "#!/bin/sh\n# misc_c\necho $$ > pid-$SLURM_JOB_ID\nsleep 60\n";
	d.user_id = getuid();
	d.group_id = getgid();
	d.work_dir = getcwd(cwd, sizeof(cwd));
	d.environment = env;
	d.env_size = 1;
	d.std_out = "o-%x-%j.txt";
	d.time_limit = 5;
	d.priority = priority;
	if (slurm_submit_batch_job(&d, &r)) {
		slurm_perror("submit");
		exit(1);
	}
	uint32_t id = r->job_id;
	slurm_free_submit_response_response_msg(r);
	return id;
}

static int running(uint32_t id)
{
	for (int i = 0; i < 100; i++) {
		job_info_msg_t *m = NULL;
		if (!slurm_load_job(&m, id, 0)) {
			int run = (m->job_array[0].job_state & JOB_STATE_BASE) == JOB_RUNNING;
			slurm_free_job_info_msg(m);
			if (run)
				return 1;
		}
		usleep(200000);
	}
	return 0;
}

int main(void)
{
	reserve_info_msg_t *resv = NULL;
	license_info_msg_t *lic = NULL;
	front_end_info_msg_t *fe = NULL;
	topo_info_response_msg_t *topo = NULL;
	burst_buffer_info_msg_t *bb = NULL;
	trigger_info_msg_t *trig = NULL;
	resource_allocation_response_msg_t *alloc = NULL;
	job_info_msg_t *jobs = NULL;
	char buf[512], idtext[32];
	int rc;

	rc = slurm_load_reservations(0, &resv);
	printf("reservations rc=%d count=%u\n", rc, resv->record_count);
	slurm_free_reservation_info_msg(resv);
	rc = slurm_load_licenses(0, &lic, 0);
	printf("licenses rc=%d count=%u\n", rc, lic->num_lic);
	slurm_free_license_info_msg(lic);
	rc = slurm_load_front_end(0, &fe);
	printf("front_end rc=%d count=%u\n", rc, fe->record_count);
	slurm_free_front_end_info_msg(fe);
	rc = slurm_load_topo(&topo);
	printf("topo rc=%d count=%u\n", rc, topo->record_count);
	slurm_free_topo_info_msg(topo);
	rc = slurm_load_burst_buffer_info(&bb);
	printf("burst_buffer rc=%d count=%u\n", rc, bb->record_count);
	slurm_free_burst_buffer_info_msg(bb);
	rc = slurm_get_triggers(&trig);
	printf("triggers rc=%d count=%u\n", rc, trig->record_count);
	slurm_free_trigger_msg(trig);

	/* First, while the node is free: libslurm then allocates at once and logs nothing. */
	{
		job_desc_msg_t d;
		char cwd[4096];
		slurm_init_job_desc_msg(&d);
		d.name = "malloc";
		d.min_nodes = 1;
		d.time_limit = 5;
		d.user_id = getuid();
		d.group_id = getgid();
		d.work_dir = getcwd(cwd, sizeof(cwd));
		alloc = slurm_allocate_resources_blocking(&d, 60, NULL);
		printf("allocate_blocking ok=%d node_cnt=%u has_nodes=%d\n", alloc != NULL, alloc ? alloc->node_cnt : 0,
		       alloc && alloc->node_list != NULL);
		if (alloc) {
			uint32_t id = alloc->job_id;
			slurm_free_resource_allocation_response_msg(alloc);
			rc = slurm_complete_job(id, 0);
			printf("complete_job rc=%d\n", rc);
			int done = 0;
			for (int i = 0; i < 50 && !done; i++) {
				jobs = NULL;
				if (!slurm_load_job(&jobs, id, 0)) {
					done = (jobs->job_array[0].job_state & JOB_STATE_BASE) == JOB_COMPLETE;
					slurm_free_job_info_msg(jobs);
				}
				if (!done)
					usleep(100000);
			}
			printf("allocation completed=%d\n", done);
		}
	}
	uint32_t held = submit("mheld", 0);
	uint32_t run = submit("mrun", NO_VAL);
	printf("running=%d\n", running(run));
	printf("node_ready held=%d run=%d unknown=%d\n", slurm_job_node_ready(held), slurm_job_node_ready(run),
	       slurm_job_node_ready(999999));
	rc = slurm_allocation_lookup(held, &alloc);
	printf("allocation_lookup(held) rc=%d errno=%d\n", rc, slurm_get_errno());
	rc = slurm_allocation_lookup(run, &alloc);
	printf("allocation_lookup(run) rc=%d node_cnt=%u has_nodes=%d\n", rc, alloc->node_cnt, alloc->node_list != NULL);
	slurm_free_resource_allocation_response_msg(alloc);
	{
		char path[64];
		unsigned pid = 0;
		uint32_t found = 0;
		snprintf(path, sizeof(path), "pid-%u", run);
		for (int i = 0; i < 50 && !pid; i++) {
			FILE *f = fopen(path, "r");
			if (f) {
				if (fscanf(f, "%u", &pid) != 1)
					pid = 0;
				fclose(f);
			}
			if (!pid)
				usleep(100000);
		}
		rc = slurm_pid2jobid((pid_t)pid, &found);
		printf("pid2jobid rc=%d same=%d\n", rc, found == run);
		rc = slurm_pid2jobid(getpid(), &found);
		printf("pid2jobid(self) rc=%d errno=%d\n", rc, slurm_get_errno());
	}
	{
		job_step_info_response_msg_t *steps = NULL;
		char prefix[96];
		rc = slurm_get_job_steps(0, run, NO_VAL, &steps, SHOW_ALL);
		job_step_info_t *st = &steps->job_steps[0];
		printf("steps rc=%d count=%u name=%s cpus=%u tasks=%u state=%u time_limit=%u tres=%s dist=%u freq=%u het=%u\n",
		       rc, steps->job_step_count, st->name, st->num_cpus, st->num_tasks, st->state, st->time_limit,
		       st->tres_alloc_str ? st->tres_alloc_str : "(null)", st->task_dist, st->cpu_freq_min,
		       st->step_id.step_het_comp);
		/* Printed into memory (libslurm's sprint result is xmalloc'd, which a program cannot free()). */
		char *line = NULL;
		size_t line_len = 0;
		FILE *mem = open_memstream(&line, &line_len);
		slurm_print_job_step_info(mem, st, 1);
		fclose(mem);
		snprintf(prefix, sizeof(prefix), "StepId=%u.batch UserId=%u StartTime=", run, (unsigned)getuid());
		char *limit = strstr(line, " TimeLimit="), *nodelist = strstr(line, " NodeList="), *nodes = strstr(line, " Nodes=");
		printf("step prefix_ok=%d", !strncmp(line, prefix, strlen(prefix)));
		printf("%.*s%s", (int)(nodelist - limit), limit, nodes);
		free(line);
		slurm_free_job_step_info_response_msg(steps);
	}
	{
		node_info_msg_t *nodes = NULL;
		uint16_t alloc_cpus = 0, idle_cpus = 9;
		uint64_t alloc_mem = 0;
		char *tres = NULL;
		double weighted = -1;
		slurm_load_node(0, &nodes, SHOW_ALL);
		void *sel = nodes->node_array[0].select_nodeinfo;
		int r1 = slurm_get_select_nodeinfo(sel, SELECT_NODEDATA_SUBCNT, NODE_STATE_ALLOCATED, &alloc_cpus);
		int r2 = slurm_get_select_nodeinfo(sel, SELECT_NODEDATA_SUBCNT, NODE_STATE_IDLE, &idle_cpus);
		int r3 = slurm_get_select_nodeinfo(sel, SELECT_NODEDATA_MEM_ALLOC, NODE_STATE_ALLOCATED, &alloc_mem);
		int r4 = slurm_get_select_nodeinfo(sel, SELECT_NODEDATA_TRES_ALLOC_FMT_STR, NODE_STATE_ALLOCATED, &tres);
		int r5 = slurm_get_select_nodeinfo(sel, SELECT_NODEDATA_TRES_ALLOC_WEIGHTED, NODE_STATE_ALLOCATED, &weighted);
		printf("select_nodeinfo rc=%d%d%d%d%d alloc_cpus=%u idle=%u mem_positive=%d tres_cpu=%d weighted=%.0f\n",
		       r1, r2, r3, r4, r5, alloc_cpus, idle_cpus, alloc_mem > 0, tres && !strncmp(tres, "cpu=1,", 6), weighted);
		slurm_xfree((void **)&tres);
		slurm_free_node_info_msg(nodes);
	}
	slurm_load_job(&jobs, run, SHOW_DETAIL);
	slurm_job_info_t *rj = &jobs->job_array[0];
	printf("cpus_on_node=%d nosuch=%d id0=%d id5=%d\n", slurm_job_cpus_allocated_on_node(rj->job_resrcs, rj->nodes),
	       slurm_job_cpus_allocated_on_node(rj->job_resrcs, "nosuch"),
	       slurm_job_cpus_allocated_on_node_id(rj->job_resrcs, 0),
	       slurm_job_cpus_allocated_on_node_id(rj->job_resrcs, 5));
	rc = slurm_job_cpus_allocated_str_on_node(buf, sizeof(buf), rj->job_resrcs, rj->nodes);
	printf("cpu_ids rc=%d ids=%s\n", rc, buf);
	rc = slurm_job_cpus_allocated_str_on_node_id(buf, sizeof(buf), rj->job_resrcs, 0);
	printf("cpu_ids(id0) rc=%d ids=%s\n", rc, buf);
	slurm_free_job_info_msg(jobs);
	jobs = NULL;
	slurm_load_job(&jobs, run, 0);
	printf("without_detail=%d\n", slurm_job_cpus_allocated_on_node(jobs->job_array[0].job_resrcs, "x"));
	slurm_free_job_info_msg(jobs);
	jobs = NULL;
	snprintf(idtext, sizeof(idtext), "%u", run);
	printf("xlate same=%d unknown=%u\n", slurm_xlate_job_id(idtext) == run, slurm_xlate_job_id("999999"));
	fflush(stdout);
	rc = slurm_job_batch_script(stdout, held);
	fflush(stdout);
	printf("batch_script rc=%d\n", rc);
	rc = slurm_job_batch_script(stdout, 999999);
	printf("batch_script(unknown) rc=%d errno=%d\n", rc, slurm_get_errno());
	slurm_load_job(&jobs, held, 0);
	slurm_get_job_stdout(buf, sizeof(buf), &jobs->job_array[0]);
	printf("stdout_named=%d", strstr(buf, "/o-mheld-") != NULL);
	snprintf(idtext, sizeof(idtext), "-%u.txt", held);
	printf(" ends_with_id=%d absolute=%d\n", strstr(buf, idtext) != NULL, buf[0] == '/');
	slurm_get_job_stderr(buf, sizeof(buf), &jobs->job_array[0]);
	printf("stderr_same_as_stdout=%d\n", strstr(buf, idtext) != NULL);
	slurm_get_job_stdin(buf, sizeof(buf), &jobs->job_array[0]);
	printf("stdin=%s\n", buf);
	slurm_free_job_info_msg(jobs);
	slurm_kill_job(held, SIGKILL, 0);
	slurm_kill_job(run, SIGKILL, 0);

	List pairs = slurm_list_create(del_pair);
	key_pair_t *k = malloc(sizeof(*k));
	k->name = strdup("Alpha");
	k->value = strdup("1");
	slurm_list_append(pairs, k);
	k = malloc(sizeof(*k));
	k->name = strdup("LongerKeyName");
	k->value = strdup("two words");
	slurm_list_append(pairs, k);
	fflush(stdout);
	slurm_print_key_pairs(stdout, pairs, "Title\n");
	fflush(stdout);
	slurm_list_destroy(pairs);

	resv_desc_msg_t resv_desc;
	slurm_init_resv_desc_msg(&resv_desc);
	printf("resv_desc duration=%u flags=%llu start=%lld\n", resv_desc.duration,
	       (unsigned long long)resv_desc.flags, (long long)resv_desc.start_time);
	trigger_info_t t;
	slurm_init_trigger_msg(&t);
	printf("trigger user_id=%u\n", t.user_id);
	update_front_end_msg_t f;
	slurm_init_update_front_end_msg(&f);
	printf("front_end node_state=%u\n", f.node_state);
	step_update_request_msg_t s;
	slurm_init_update_step_msg(&s);
	printf("step job_id=%u step_id=%u time_limit=%u\n", s.job_id, s.step_id, s.time_limit);
	update_node_msg_t n;
	slurm_init_update_node_msg(&n);
	printf("node node_state=%u weight=%u\n", n.node_state, n.weight);
	update_part_msg_t p;
	slurm_init_part_desc_msg(&p);
	printf("part max_time=%u state_up=%u max_nodes=%u\n", p.max_time, p.state_up, p.max_nodes);
	return 0;
}
