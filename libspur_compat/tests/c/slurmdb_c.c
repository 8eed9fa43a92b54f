/* The slurmdb side of the C API as pyslurm and Slurmdb.so use it: a connection, the jobs of a condition (with
 * their steps), QOS, associations, users, clusters, TRES and reservations, association changes, the first
 * available cluster, the usage and job size reports, and every list and condition released with
 * slurmdb_destroy_*. Conditions are built as consumers build them: slurm_xcalloc'd records holding
 * slurm_list_create(slurm_xfree_ptr) lists of slurm_xstrdup'd strings.
 * Usage: slurmdb_c COMPLETED_JOB FAILED_JOB QOS_NAME ACCOUNT (the first job ran `srun sleep 1`, the second slept a
 * second and exited 3, so both ran at least a second; the QOS and account were made by the caller). Values that
 * legitimately differ between clusters (ids, times, host addresses) are printed as relations, not values.
 * Built with: gcc slurmdb_c.c -o slurmdb_c -lslurm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>
#include <slurm/slurm_errno.h>

/* Exported by libslurm, declared only in its private headers. */
extern void slurm_xfree_ptr(void *);
extern void *slurm_xcalloc(size_t, size_t, bool, bool, const char *, int, const char *) __attribute__((weak));
extern char *slurm_xstrdup(const char *) __attribute__((weak));

/* Consumers' allocations: libslurm's xmalloc; a library without it (a shim whose allocations are plain malloc)
 * takes calloc/strdup, which its destructors free alike. */
static void *xcalloc1(size_t size)
{
	return slurm_xcalloc ? slurm_xcalloc(1, size, true, false, __FILE__, __LINE__, __func__) : calloc(1, size);
}

static char *xstrdup(const char *s)
{
	return slurm_xstrdup ? slurm_xstrdup(s) : strdup(s);
}

static List str_list(const char *a, const char *b)
{
	List l = slurm_list_create(slurm_xfree_ptr);
	if (a)
		slurm_list_append(l, xstrdup(a));
	if (b)
		slurm_list_append(l, xstrdup(b));
	return l;
}

static const char *s(const char *p)
{
	return p ? p : "(null)";
}

static const char *limit(uint32_t v, char *buf)
{
	if (v == INFINITE)
		return "INFINITE";
	if (v == NO_VAL)
		return "NO_VAL";
	sprintf(buf, "%u", v);
	return buf;
}

static uint32_t job_a, job_b;

static const char *which(uint32_t id)
{
	return id == job_a ? "A" : id == job_b ? "B" : "other";
}

static const char *step_name(uint32_t id, char *buf)
{
	if (id == SLURM_BATCH_SCRIPT)
		return "batch";
	if (id == SLURM_EXTERN_CONT)
		return "extern";
	sprintf(buf, "%u", id);
	return buf;
}

static void print_jobs(const char *what, List jobs)
{
	ListIterator it;
	slurmdb_job_rec_t *j;

	if (!jobs) {
		printf("%s: NULL errno=%d\n", what, slurm_get_errno());
		return;
	}
	printf("%s: %d jobs\n", what, slurm_list_count(jobs));
	it = slurm_list_iterator_create(jobs);
	while ((j = slurm_list_next(it))) {
		char b1[32], b2[32];
		printf(" job %s name=%s user=%s uid_is_me=%d gid_ok=%d account=%s partition=%s cluster_set=%d\n",
		       which(j->jobid), s(j->jobname), s(j->user), j->uid == getuid(), j->gid == getgid(),
		       s(j->account), s(j->partition), j->cluster != NULL);
		printf("  state=%u exitcode=%u derived_ec=%u alloc_nodes=%u nodes_set=%d req_cpus=%u timelimit=%s "
		       "array_job_id=%u array_task_id=%s het_job_offset=%s requid=%s\n",
		       j->state, j->exitcode, j->derived_ec, j->alloc_nodes, j->nodes && *j->nodes, j->req_cpus,
		       limit(j->timelimit, b1), j->array_job_id, limit(j->array_task_id, b2),
		       j->het_job_offset == NO_VAL ? "NO_VAL" : "set", j->requid == (uint32_t)-1 ? "-1" : "set");
		printf("  times: submit<=start=%d start<=end=%d eligible_set=%d elapsed_ok=%d\n",
		       j->submit <= j->start, j->start <= j->end, j->eligible != 0,
		       (time_t)j->elapsed == j->end - j->start);
		printf("  tres_req=%s tres_alloc=%s work_dir_set=%d\n", s(j->tres_req_str), s(j->tres_alloc_str),
		       j->work_dir != NULL);
		if (j->steps) {
			ListIterator si = slurm_list_iterator_create(j->steps);
			slurmdb_step_rec_t *st;
			printf("  steps=%d\n", slurm_list_count(j->steps));
			while ((st = slurm_list_next(si))) {
				char b[32];
				printf("   step %s name=%s job=%s job_ptr_ok=%d het_comp=%s state=%u exitcode=%d "
				       "nnodes=%u ntasks=%u nodes_set=%d tres_alloc=%s start<=end=%d\n",
				       step_name(st->step_id.step_id, b), s(st->stepname), which(st->step_id.job_id),
				       st->job_ptr == j, st->step_id.step_het_comp == NO_VAL ? "NO_VAL" : "set",
				       st->state, st->exitcode, st->nnodes, st->ntasks, st->nodes && *st->nodes,
				       s(st->tres_alloc_str), st->start <= st->end);
			}
			slurm_list_iterator_destroy(si);
		}
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(jobs);
}

static slurmdb_job_cond_t *job_cond(void)
{
	slurmdb_job_cond_t *c = xcalloc1(sizeof(*c));
	slurm_selected_step_t *a = xcalloc1(sizeof(*a)), *b = xcalloc1(sizeof(*b));

	a->step_id.job_id = job_a;
	b->step_id.job_id = job_b;
	a->step_id.step_id = b->step_id.step_id = NO_VAL;
	a->step_id.step_het_comp = b->step_id.step_het_comp = NO_VAL;
	a->array_task_id = b->array_task_id = NO_VAL;
	a->het_job_offset = b->het_job_offset = NO_VAL;
	c->step_list = slurm_list_create(slurm_xfree_ptr);
	slurm_list_append(c->step_list, a);
	slurm_list_append(c->step_list, b);
	c->usage_start = 1;
	c->usage_end = time(NULL) + 3600;
	c->flags = JOBCOND_FLAG_NO_TRUNC;
	c->db_flags = SLURMDB_JOB_FLAG_NOTSET; /* as sacct and pyslurm set it: zero selects only unflagged jobs */
	return c;
}

static void jobs(void *db)
{
	slurmdb_job_cond_t *c = job_cond();
	char uid[16];

	print_jobs("jobs by id", slurmdb_jobs_get(db, c));
	slurmdb_destroy_job_cond(c);

	c = job_cond();
	c->flags |= JOBCOND_FLAG_NO_STEP;
	c->state_list = str_list("5", NULL); /* JOB_FAILED */
	print_jobs("failed, no steps", slurmdb_jobs_get(db, c));
	slurmdb_destroy_job_cond(c);

	c = job_cond();
	sprintf(uid, "%u", getuid());
	c->userid_list = str_list(uid, NULL);
	c->acct_list = str_list("no_such_account", NULL);
	print_jobs("other account", slurmdb_jobs_get(db, c));
	slurmdb_destroy_job_cond(c);

	c = job_cond();
	c->db_flags = SLURMDB_JOB_FLAG_NONE;
	print_jobs("db_flags NONE", slurmdb_jobs_get(db, c));
	slurmdb_destroy_job_cond(c);
}

static void qos(void *db, const char *name)
{
	slurmdb_qos_cond_t *c = xcalloc1(sizeof(*c));
	List l;
	ListIterator it;
	slurmdb_qos_rec_t *q;
	uint32_t normal_id = 0;

	c->name_list = str_list("normal", name);
	l = slurmdb_qos_get(db, c);
	slurmdb_destroy_qos_cond(c);
	if (!l) {
		printf("qos: NULL errno=%d\n", slurm_get_errno());
		return;
	}
	printf("qos: %d\n", slurm_list_count(l));
	it = slurm_list_iterator_create(l);
	while ((q = slurm_list_next(it))) {
		char b1[16], b2[16], b3[16], b4[16], b5[16], b6[16];
		if (!strcmp(q->name, "normal"))
			normal_id = q->id;
		printf(" %s id_set=%d desc=%s priority=%u flags=%#x preempt_mode=%u grace=%u usage_factor=%g "
		       "max_wall=%s max_jobs_pu=%s max_submit_pu=%s grp_jobs=%s grp_submit=%s max_jobs_pa=%s\n",
		       q->name, q->id > 0, s(q->description), q->priority, q->flags, q->preempt_mode, q->grace_time,
		       q->usage_factor, limit(q->max_wall_pj, b1), limit(q->max_jobs_pu, b2),
		       limit(q->max_submit_jobs_pu, b3), limit(q->grp_jobs, b4), limit(q->grp_submit_jobs, b5),
		       limit(q->max_jobs_pa, b6));
		printf("  max_tres_pj=%s max_tres_pu=%s grp_tres=%s\n", s(q->max_tres_pj), s(q->max_tres_pu),
		       s(q->grp_tres));
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(l);
	printf(" normal found=%d\n", normal_id != 0);
}

static void print_assocs(const char *what, List l)
{
	ListIterator it;
	slurmdb_assoc_rec_t *a;

	if (!l) {
		printf("%s: NULL errno=%d\n", what, slurm_get_errno());
		return;
	}
	printf("%s: %d\n", what, slurm_list_count(l));
	it = slurm_list_iterator_create(l);
	while ((a = slurm_list_next(it))) {
		char b1[16], b2[16], b3[16], b4[16];
		int nq = a->qos_list ? slurm_list_count(a->qos_list) : -1;
		printf(" acct=%s user=%s partition=%s parent=%s cluster_set=%d id_set=%d shares=%u is_def=%u "
		       "uid_ok=%d qos=%d def_qos_set=%d max_jobs=%s max_submit=%s grp_jobs=%s max_wall=%s "
		       "grp_tres=%s max_tres_pj=%s\n",
		       s(a->acct), s(a->user), s(a->partition), s(a->parent_acct), a->cluster != NULL, a->id > 0,
		       a->shares_raw, a->is_def, a->user ? a->uid == 0 || a->uid != NO_VAL : 1, nq,
		       a->def_qos_id != 0, limit(a->max_jobs, b1), limit(a->max_submit_jobs, b2),
		       limit(a->grp_jobs, b3), limit(a->max_wall_pj, b4), s(a->grp_tres), s(a->max_tres_pj));
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(l);
}

static void assocs(void *db, const char *account)
{
	slurmdb_assoc_cond_t *c = xcalloc1(sizeof(*c));

	c->acct_list = str_list(account, NULL);
	print_assocs("assocs of account", slurmdb_associations_get(db, c));
	slurmdb_destroy_assoc_cond(c);

	c = xcalloc1(sizeof(*c));
	c->acct_list = str_list(account, NULL);
	c->user_list = str_list("root", NULL);
	print_assocs("assocs of root in account", slurmdb_associations_get(db, c));
	slurmdb_destroy_assoc_cond(c);
}

static void print_strings(const char *what, List l)
{
	ListIterator it;
	char *line;

	if (!l) {
		printf("%s: NULL errno=%d\n", what, slurm_get_errno());
		return;
	}
	printf("%s: %d errno=%d\n", what, slurm_list_count(l), slurm_get_errno());
	it = slurm_list_iterator_create(l);
	while ((line = slurm_list_next(it)))
		printf(" [%s]\n", line);
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(l);
}

static void modify(void *db, const char *account)
{
	slurmdb_assoc_cond_t *c = xcalloc1(sizeof(*c));
	slurmdb_assoc_rec_t rec;

	c->acct_list = str_list(account, NULL);
	c->user_list = str_list("root", NULL);
	slurmdb_init_assoc_rec(&rec, 0);
	rec.max_jobs = 3;
	rec.grp_jobs = 6;
	rec.grp_tres = xstrdup("1=3");
	slurm_seterrno(0);
	print_strings("modify root in account", slurmdb_associations_modify(db, c, &rec));
	printf("commit rc=%d\n", slurmdb_connection_commit(db, 1));
	print_assocs("after modify", slurmdb_associations_get(db, c));
	slurmdb_init_assoc_rec(&rec, 1);
	slurmdb_destroy_assoc_cond(c);

	c = xcalloc1(sizeof(*c));
	c->acct_list = str_list(account, NULL);
	rec.max_submit_jobs = 9;
	slurm_seterrno(0);
	print_strings("modify account", slurmdb_associations_modify(db, c, &rec));
	printf("commit rc=%d\n", slurmdb_connection_commit(db, 1));
	slurmdb_init_assoc_rec(&rec, 0);
	slurm_seterrno(0);
	print_strings("modify nothing set", slurmdb_associations_modify(db, c, &rec));
	slurmdb_destroy_assoc_cond(c);
}

static void users(void *db, const char *account)
{
	slurmdb_user_cond_t *c = xcalloc1(sizeof(*c));
	List l;
	ListIterator it;
	slurmdb_user_rec_t *u;

	c->assoc_cond = xcalloc1(sizeof(*c->assoc_cond));
	c->assoc_cond->user_list = str_list("root", NULL);
	c->with_assocs = 1;
	c->with_coords = 1;
	l = slurmdb_users_get(db, c);
	slurmdb_destroy_user_cond(c);
	if (!l) {
		printf("users: NULL errno=%d\n", slurm_get_errno());
		return;
	}
	printf("users: %d\n", slurm_list_count(l));
	it = slurm_list_iterator_create(l);
	while ((u = slurm_list_next(it))) {
		printf(" %s uid=%u admin_level=%u default_acct=%s coords=%d\n", s(u->name), u->uid, u->admin_level,
		       s(u->default_acct), u->coord_accts ? slurm_list_count(u->coord_accts) : -1);
		if (u->assoc_list) {
			ListIterator ai = slurm_list_iterator_create(u->assoc_list);
			slurmdb_assoc_rec_t *a;
			while ((a = slurm_list_next(ai)))
				if (!strcmp(a->acct, "root") || !strcmp(a->acct, account))
					printf("  assoc acct=%s user=%s\n", s(a->acct), s(a->user));
			slurm_list_iterator_destroy(ai);
		}
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(l);
}

static void clusters(void *db)
{
	slurmdb_cluster_cond_t *c = xcalloc1(sizeof(*c));
	List l;
	ListIterator it;
	slurmdb_cluster_rec_t *r;
	char *name = NULL;

	slurmdb_init_cluster_cond(c, 0);
	l = slurmdb_clusters_get(db, c);
	slurmdb_destroy_cluster_cond(c);
	if (!l) {
		printf("clusters: NULL errno=%d\n", slurm_get_errno());
		return;
	}
	printf("clusters: %d\n", slurm_list_count(l));
	it = slurm_list_iterator_create(l);
	while ((r = slurm_list_next(it))) {
		printf(" name_set=%d control_host_set=%d port_ok=%d rpc_version=%u dimensions=%u plugin_id_select=%u "
		       "classification=%u\n",
		       r->name != NULL, r->control_host != NULL, r->control_port > 0, r->rpc_version, r->dimensions,
		       r->plugin_id_select, r->classification);
		if (!name && r->name)
			name = strdup(r->name);
	}
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(l);

	c = xcalloc1(sizeof(*c));
	slurmdb_init_cluster_cond(c, 0);
	c->cluster_list = str_list("no_such_cluster", NULL);
	l = slurmdb_clusters_get(db, c);
	slurmdb_destroy_cluster_cond(c);
	printf("clusters named no_such_cluster: %d\n", l ? slurm_list_count(l) : -1);
	if (l)
		slurm_list_destroy(l);

	if (name) {
		job_desc_msg_t desc;
		slurmdb_cluster_rec_t *rec = NULL;
		int rc;

		slurm_init_job_desc_msg(&desc);
		rc = slurmdb_get_first_avail_cluster(&desc, name, &rec);
		printf("first_avail_cluster(own) rc=%d same=%d\n", rc, rec && rec->name && !strcmp(rec->name, name));
		slurmdb_destroy_cluster_rec(rec);
		free(name);
	}
}

static void tres(void *db)
{
	slurmdb_tres_cond_t *c = xcalloc1(sizeof(*c));
	List l;
	ListIterator it;
	slurmdb_tres_rec_t *t;

	slurmdb_init_tres_cond(c, 0);
	c->type_list = str_list("cpu", "mem");
	slurm_list_append(c->type_list, xstrdup("node"));
	l = slurmdb_tres_get(db, c);
	slurmdb_destroy_tres_cond(c);
	if (!l) {
		printf("tres: NULL errno=%d\n", slurm_get_errno());
		return;
	}
	printf("tres: %d\n", slurm_list_count(l));
	it = slurm_list_iterator_create(l);
	while ((t = slurm_list_next(it)))
		printf(" id=%u type=%s name=%s\n", t->id, s(t->type), s(t->name));
	slurm_list_iterator_destroy(it);
	slurm_list_destroy(l);
}

static void resv_and_events(void *db)
{
	slurmdb_reservation_cond_t *r = xcalloc1(sizeof(*r));
	slurmdb_event_cond_t *e = xcalloc1(sizeof(*e));
	List l;

	r->name_list = str_list("no_such_resv", NULL);
	l = slurmdb_reservations_get(db, r);
	printf("reservations named no_such_resv: %d\n", l ? slurm_list_count(l) : -1);
	if (l)
		slurm_list_destroy(l);
	slurmdb_destroy_reservation_cond(r);

	/* slurmdb_events_get is not called: libslurm's slurmdbd plugin needs a symbol only slurmdbd's own library
	 * has (slurmdbd_msg_type_2_str) on that path, and the program dies. The condition is still released. */
	e->node_list = xstrdup("no_such_node");
	e->cluster_list = str_list("c", NULL);
	slurmdb_destroy_event_cond(e);
}

static void reports(void *db)
{
	/* Zeroed conditions take the default window, yesterday: the cluster was not there, so no rollup has usage. */
	slurmdb_assoc_cond_t *c = xcalloc1(sizeof(*c));
	List l;

	l = slurmdb_report_cluster_account_by_user(db, c);
	printf("report account_by_user: %d\n", l ? slurm_list_count(l) : -1);
	if (l)
		slurm_list_destroy(l);
	l = slurmdb_report_cluster_user_by_account(db, c);
	printf("report user_by_account: %d\n", l ? slurm_list_count(l) : -1);
	if (l)
		slurm_list_destroy(l);
	slurmdb_destroy_assoc_cond(c);
	l = slurmdb_report_user_top_usage(db, NULL, 1);
	printf("report user_top_usage: %d\n", l ? slurm_list_count(l) : -1);
	if (l)
		slurm_list_destroy(l);
}

static void print_sizes(const char *what, List l)
{
	ListIterator ci, ai, gi;
	slurmdb_report_cluster_grouping_t *c;
	slurmdb_report_acct_grouping_t *a;
	slurmdb_report_job_grouping_t *g;

	if (!l) {
		printf("%s: NULL errno=%d\n", what, slurm_get_errno());
		return;
	}
	printf("%s: %d clusters\n", what, slurm_list_count(l));
	ci = slurm_list_iterator_create(l);
	while ((c = slurm_list_next(ci))) {
		printf(" cluster_set=%d count=%u accounts=%d\n", c->cluster != NULL, c->count,
		       slurm_list_count(c->acct_list));
		ai = slurm_list_iterator_create(c->acct_list);
		while ((a = slurm_list_next(ai))) {
			printf("  acct=%s count=%u groups=%d\n", s(a->acct), a->count, slurm_list_count(a->groups));
			gi = slurm_list_iterator_create(a->groups);
			while ((g = slurm_list_next(gi))) {
				slurmdb_tres_rec_t *cpu = NULL, *t;
				ListIterator ti;
				char b[16];
				if (g->tres_list) {
					ti = slurm_list_iterator_create(g->tres_list);
					while ((t = slurm_list_next(ti)))
						if (t->id == 1)
							cpu = t;
					slurm_list_iterator_destroy(ti);
				}
				printf("   group %u-%s count=%u jobs=%d cpu=%s\n", g->min_size, limit(g->max_size, b),
				       g->count, g->jobs ? slurm_list_count(g->jobs) : -1,
				       !cpu ? "none" : cpu->count == 1 && cpu->alloc_secs >= g->count ? "ok" : "wrong");
			}
			slurm_list_iterator_destroy(gi);
		}
		slurm_list_iterator_destroy(ai);
	}
	slurm_list_iterator_destroy(ci);
	slurm_list_destroy(l);
}

static void sizes(void *db)
{
	slurmdb_job_cond_t *c = job_cond();
	List groups;

	print_sizes("sizes flat", slurmdb_report_job_sizes_grouped_by_account(db, c, NULL, 1, 0));
	/* root's jobs run in account root: under root only c481acct is an account, so nothing counts. */
	print_sizes("sizes under root", slurmdb_report_job_sizes_grouped_by_account(db, c, NULL, 0, 1));
	groups = slurm_list_create(slurm_xfree_ptr);
	print_sizes("sizes flat individual", slurmdb_report_job_sizes_grouped_by_account(db, c, groups, 1, 0));
	slurm_list_destroy(groups);
	groups = str_list("2", "4");
	print_sizes("sizes by account", slurmdb_report_job_sizes_grouped_by_account(db, c, groups, 0, 0));
	slurm_list_destroy(groups);
	slurmdb_destroy_job_cond(c);
}

static void caller_records(void)
{
	/* Records a consumer builds and frees itself. */
	slurmdb_assoc_rec_t *a = xcalloc1(sizeof(*a));
	slurmdb_qos_rec_t *q = xcalloc1(sizeof(*q));
	slurmdb_tres_rec_t *t = xcalloc1(sizeof(*t));
	slurmdb_job_rec_t *j = xcalloc1(sizeof(*j));
	slurmdb_step_rec_t *st = xcalloc1(sizeof(*st));

	slurmdb_init_assoc_rec(a, 0);
	a->acct = xstrdup("x");
	a->qos_list = str_list("1", "2");
	slurmdb_destroy_assoc_rec(a);
	slurmdb_init_qos_rec(q, 0, NO_VAL);
	q->name = xstrdup("x");
	q->description = xstrdup("d");
	slurmdb_destroy_qos_rec(q);
	t->type = xstrdup("gres");
	t->name = xstrdup("gpu");
	slurmdb_destroy_tres_rec(t);
	st->stepname = xstrdup("s");
	slurmdb_destroy_step_rec(st);
	j->jobname = xstrdup("j");
	j->steps = slurm_list_create(slurmdb_destroy_step_rec);
	st = xcalloc1(sizeof(*st));
	st->nodes = xstrdup("n");
	slurm_list_append(j->steps, st);
	slurmdb_destroy_job_rec(j);
	slurmdb_destroy_job_rec(NULL);
	slurmdb_destroy_assoc_cond(NULL);
	printf("caller records released\n");
}

int main(int argc, char **argv)
{
	uint16_t flags = 7;
	void *db;

	if (argc != 5) {
		fprintf(stderr, "usage: %s COMPLETED_JOB FAILED_JOB QOS ACCOUNT\n", argv[0]);
		return 2;
	}
	job_a = strtoul(argv[1], NULL, 10);
	job_b = strtoul(argv[2], NULL, 10);
	slurm_init(NULL);
	db = slurmdb_connection_get(&flags);
	printf("connection %s flags=%u\n", db ? "open" : "NULL", flags);
	jobs(db);
	qos(db, argv[3]);
	assocs(db, argv[4]);
	modify(db, argv[4]);
	users(db, argv[4]);
	clusters(db);
	tres(db);
	resv_and_events(db);
	reports(db);
	sizes(db);
	caller_records();
	printf("commit rc=%d\n", slurmdb_connection_commit(db, 1));
	printf("close rc=%d\n", slurmdb_connection_close(&db));
	printf("closed=%d\n", db == NULL);
	slurm_fini();
	return 0;
}
