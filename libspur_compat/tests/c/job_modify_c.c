/* slurmdb_job_modify as pyslurm's Jobs.modify uses it: the answer (one "JOBID submitted at TIME" per job), the change
 * held by the connection until slurmdb_connection_commit(conn, 1), dropped by commit(conn, 0) and by closing the
 * connection, and its refusals (another user's job, a non-operator's admin comment, nothing to set, no such job).
 * Usage: job_modify_c owner JOB       (the caller owns JOB: the staging and commit checks)
 *        job_modify_c intruder JOB    (JOB is another user's and the caller no operator: every edit refused)
 * Times and errno texts that legitimately differ are printed as relations.
 * Built with: gcc job_modify_c.c -o job_modify_c -lslurm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>
#include <slurm/slurm_errno.h>

/* Exported by libslurm, declared only in its private headers (pyslurm declares them likewise). */
extern void slurm_xfree_ptr(void *);
extern slurmdb_job_rec_t *slurmdb_create_job_rec(void);
extern void *slurm_xcalloc(size_t, size_t, bool, bool, const char *, int, const char *) __attribute__((weak));
extern char *slurm_xstrdup(const char *) __attribute__((weak));

/* What the destroy functions free must come from libslurm's allocator (xfree checks its header); a library
 * without it (a shim whose allocations are plain malloc) takes calloc/strdup. */
static void *xcalloc1(size_t size)
{
	return slurm_xcalloc ? slurm_xcalloc(1, size, true, false, __FILE__, __LINE__, __func__) : calloc(1, size);
}

static char *xstrdup(const char *s)
{
	return slurm_xstrdup ? slurm_xstrdup(s) : strdup(s);
}

static unsigned job_id;
static uint16_t persist_flags; /* libslurm writes through the pointer slurmdb_connection_get gets */

static slurmdb_job_cond_t *cond(void)
{
	slurmdb_job_cond_t *c = xcalloc1(sizeof(*c));
	slurm_selected_step_t *a = xcalloc1(sizeof(*a));

	a->step_id.job_id = job_id;
	a->step_id.step_id = NO_VAL;
	a->step_id.step_het_comp = NO_VAL;
	a->array_task_id = NO_VAL;
	a->het_job_offset = NO_VAL;
	c->step_list = slurm_list_create(slurm_xfree_ptr);
	slurm_list_append(c->step_list, a);
	c->usage_start = 1;
	c->usage_end = time(NULL) + 3600;
	c->db_flags = SLURMDB_JOB_FLAG_NOTSET;
	return c;
}

/* The record's comment and admin comment as a fresh connection reads them. */
static void show(const char *when)
{
	void *db = slurmdb_connection_get(&persist_flags);
	slurmdb_job_cond_t *c = cond();
	List jobs = slurmdb_jobs_get(db, c);
	ListIterator it = jobs ? slurm_list_iterator_create(jobs) : NULL;
	slurmdb_job_rec_t *j = it ? slurm_list_next(it) : NULL;

	if (!j)
		printf("%s: no record\n", when);
	else
		printf("%s: comment=%s admin_comment=%s\n", when, j->derived_es ? j->derived_es : "(null)",
		       j->admin_comment ? j->admin_comment : "(null)");
	if (it)
		slurm_list_iterator_destroy(it);
	if (jobs)
		slurm_list_destroy(jobs);
	slurmdb_destroy_job_cond(c);
	slurmdb_connection_close(&db);
}

/* One slurmdb_job_modify on `db`: what it answered. */
static void modify(void *db, const char *what, const char *comment, const char *admin_comment)
{
	slurmdb_job_cond_t *c = cond();
	slurmdb_job_rec_t *rec = slurmdb_create_job_rec();
	List out;

	if (comment)
		rec->derived_es = xstrdup(comment);
	if (admin_comment)
		rec->admin_comment = xstrdup(admin_comment);
	errno = 0;
	out = slurmdb_job_modify(db, c, rec);
	if (!out) {
		printf("%s: NULL errno=%d (%s)\n", what, slurm_get_errno(), slurm_strerror(slurm_get_errno()));
	} else {
		ListIterator it = slurm_list_iterator_create(out);
		char *line;
		printf("%s: %d modified\n", what, slurm_list_count(out));
		while ((line = slurm_list_next(it))) {
			unsigned id = 0;
			char rest[64] = "";
			sscanf(line, "%u %63[a-z ]", &id, rest);
			printf("  id is the job's=%d then=\"%s\"\n", id == job_id, rest);
		}
		slurm_list_iterator_destroy(it);
		slurm_list_destroy(out);
	}
	slurmdb_destroy_job_cond(c);
	slurmdb_destroy_job_rec(rec);
}

int main(int argc, char **argv)
{
	void *db;

	if (argc != 3)
		return 2;
	job_id = strtoul(argv[2], NULL, 10);
	/* Unbuffered, so libslurm's log lines on stderr fall between the lines they belong to. */
	setvbuf(stdout, NULL, _IONBF, 0);
	slurm_init(NULL);
	if (!strcmp(argv[1], "owner")) {
		show("before");
		db = slurmdb_connection_get(&persist_flags);
		modify(db, "staged", "staged note", NULL);
		show("before commit");
		printf("commit rc=%d\n", slurmdb_connection_commit(db, 1));
		show("after commit");
		modify(db, "rolled back", "rolled back note", NULL);
		printf("rollback rc=%d\n", slurmdb_connection_commit(db, 0));
		show("after rollback");
		modify(db, "closed", "closed note", NULL);
		slurmdb_connection_close(&db);
		show("after close");
		db = slurmdb_connection_get(&persist_flags);
		modify(db, "admin comment", NULL, "mine");
		modify(db, "nothing set", NULL, NULL);
		slurmdb_connection_close(&db);
	} else {
		db = slurmdb_connection_get(&persist_flags);
		modify(db, "foreign comment", "stolen", NULL);
		modify(db, "foreign admin comment", NULL, "stolen");
		/* (No commit: after refused edits real libslurm's commit fails to resolve a symbol of its slurmdbd
		 * plugin, slurmdbd_msg_type_2_str, and the program exits 127.) */
		slurmdb_connection_close(&db);
		show("after intruder");
	}
	slurm_fini();
	return 0;
}
