/* libslurm's exported helpers beyond <slurm/slurm.h> that pyslurm and the Perl API call: environment arrays,
 * the char/step list parsers, slurm_msg_t_init, the slurm_free_* of single records and messages, the slurmdb
 * record and report-window helpers and the deranged hostlist strings. Prints every answer; run with TZ=UTC
 * against real libslurm.so.38 and against libspur_compat.so, the outputs must be identical (helpers_c.expected).
 * Built with: gcc helpers_c.c -o helpers_c -lslurm */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <slurm/slurm.h>
#include <slurm/slurmdb.h>

/* Prototypes as libslurm 22.05 defines them (src/common/env.h, slurm_protocol_defs.h, slurmdb_defs.h, ...). */
extern char **slurm_env_array_create(void);
extern void slurm_env_array_free(char **env_array);
extern int slurm_env_array_append(char ***array_ptr, const char *name, const char *value);
extern int slurm_env_array_overwrite(char ***array_ptr, const char *name, const char *value);
extern void slurm_env_array_merge(char ***dest_array, const char **src_array);
extern char **slurm_env_array_copy(const char **array);
extern char *slurm_getenvp(char **env, const char *name);
extern void slurm_unsetenvp(char **env, const char *name);
extern int slurm_env_array_append_fmt(char ***array_ptr, const char *name, const char *fmt, ...);
extern int slurm_env_array_overwrite_fmt(char ***array_ptr, const char *name, const char *fmt, ...);
extern int slurm_env_array_overwrite_het_fmt(char ***array_ptr, const char *name, int het_job_offset,
					     const char *fmt, ...);
extern int slurm_setenvpf(char ***envp, const char *name, const char *fmt, ...);
extern int slurm_addto_char_list(List char_list, char *names);
extern int slurm_addto_char_list_with_case(List char_list, char *names, bool lower_case_normalization);
extern int slurm_addto_step_list(List step_list, char *names);
extern void slurm_destroy_selected_step(void *object);
extern int slurm_addto_id_char_list(List char_list, char *names, bool gid);
extern int slurm_addto_mode_char_list(List char_list, char *names, int mode);
extern slurm_selected_step_t *slurm_parse_step_str(char *name);
extern void slurm_env_unset_environment(void);
extern time_t slurm_mktime(struct tm *tp);
extern char *slurm_ctime2(const time_t *timep);
extern char *slurm_ctime2_r(const time_t *timep, char *time_str);
extern ssize_t slurm_hostlist_deranged_string_dims(hostlist_t hl, size_t n, char *buf, int dims);
extern char *slurm_hostlist_deranged_string_xmalloc_dims(hostlist_t hl, int dims);
extern void slurm_msg_t_init(void *msg);
extern void slurm_free_return_code_msg(void *msg);
extern void slurm_free_update_step_msg(step_update_request_msg_t *msg);
extern void slurm_free_update_node_msg(update_node_msg_t *msg);
extern void slurm_free_stats_response_msg(stats_info_response_msg_t *msg);
extern void slurm_free_job_info(job_info_t *job);
extern void slurm_free_job_step_info_members(job_step_info_t *msg);
extern void slurm_free_node_info_members(node_info_t *node);
extern void slurm_free_partition_info_members(partition_info_t *part);
extern slurmdb_job_rec_t *slurmdb_create_job_rec(void);
extern uint64_t slurmdb_find_tres_count_in_string(char *tres_str_in, int id);
extern void slurmdb_job_cond_def_start_end(slurmdb_job_cond_t *job_cond);
extern int slurmdb_report_set_start_end_time(time_t *start, time_t *end);
extern char *slurm_hostlist_deranged_string_malloc(hostlist_t hl);
extern char *slurm_hostlist_deranged_string_xmalloc(hostlist_t hl);
extern ssize_t slurm_hostlist_deranged_string(hostlist_t hl, size_t n, char *buf);
extern void slurm_xfree(void **item);

/* Records handed to the library's free functions must come from its allocator: libslurm's slurm_xcalloc
 * (looked up at run time, so the program also runs where only the shim provides it), else malloc's. */
static void *xalloc(size_t count, size_t size)
{
	void *(*xcalloc)(size_t, size_t, bool, bool, const char *, int, const char *) =
		(void *(*)(size_t, size_t, bool, bool, const char *, int, const char *))dlsym(RTLD_DEFAULT,
											  "slurm_xcalloc");
	return xcalloc ? xcalloc(count, size, true, false, __FILE__, __LINE__, __func__) : calloc(count, size);
}

static void print_env(const char *label, char **env)
{
	printf("%s:", label);
	if (!env) {
		printf(" (null)\n");
		return;
	}
	for (int i = 0; env[i]; i++)
		printf(" [%s]", env[i]);
	printf("\n");
}

static void env_arrays(void)
{
	char **env = slurm_env_array_create(), **none = NULL, **copy;
	const char *src[] = { "A=from_src", "NEW=1", "noequals", "EMPTY=", "=novalue", "B=x=y", NULL };

	print_env("create", env);
	printf("append A=%d\n", slurm_env_array_append(&env, "A", "1"));
	printf("append B=%d\n", slurm_env_array_append(&env, "B", "two words"));
	printf("append A again=%d\n", slurm_env_array_append(&env, "A", "other"));
	printf("overwrite A=%d\n", slurm_env_array_overwrite(&env, "A", "3"));
	printf("overwrite C=%d\n", slurm_env_array_overwrite(&env, "C", ""));
	printf("append AB=%d\n", slurm_env_array_append(&env, "AB", "prefix"));
	print_env("after updates", env);
	printf("getenvp A=%s AB=%s C=[%s] Z=%s empty=%s\n", slurm_getenvp(env, "A"), slurm_getenvp(env, "AB"),
	       slurm_getenvp(env, "C"), slurm_getenvp(env, "Z") ? "set" : "(null)",
	       slurm_getenvp(env, "") ? "set" : "(null)");
	slurm_env_array_merge(&env, src);
	print_env("merged", env);
	copy = slurm_env_array_copy((const char **)env);
	slurm_unsetenvp(copy, "A");
	slurm_unsetenvp(copy, "missing");
	print_env("copy without A", copy);
	print_env("original", env);
	printf("append to NULL=%d\n", slurm_env_array_append(&none, "X", "1"));
	print_env("from NULL", none);
	printf("append NULL ptr=%d\n", slurm_env_array_append(NULL, "X", "1"));
	print_env("copy of NULL", slurm_env_array_copy(NULL));
	slurm_env_array_merge(&none, NULL);
	print_env("merge NULL", none);
	slurm_env_array_free(copy);
	slurm_env_array_free(env);
	slurm_env_array_free(none);

	/* The printf forms. */
	env = slurm_env_array_create();
	printf("append_fmt N=%d\n", slurm_env_array_append_fmt(&env, "N", "%d-%s", 7, "x"));
	printf("append_fmt N again=%d\n", slurm_env_array_append_fmt(&env, "N", "%d", 8));
	printf("overwrite_fmt N=%d\n", slurm_env_array_overwrite_fmt(&env, "N", "%05.1f", 2.5));
	printf("het_fmt -1=%d\n", slurm_env_array_overwrite_het_fmt(&env, "SLURM_JOB_ID", -1, "%u", 42u));
	printf("het_fmt 1=%d\n", slurm_env_array_overwrite_het_fmt(&env, "SLURM_JOB_ID", 1, "%u", 43u));
	printf("setenvpf array=%d\n", slurm_setenvpf(&env, "S", "%s=%d", "k", 1));
	printf("setenvpf empty name=%d\n", slurm_setenvpf(&env, "", "v"));
	print_env("fmt", env);
	slurm_env_array_free(env);
	none = NULL;
	printf("setenvpf process=%d\n", slurm_setenvpf(&none, "SPUR_SETENVPF_TEST", "v%d", 9));
	printf("getenv=%s\n", getenv("SPUR_SETENVPF_TEST"));
	slurm_env_array_free(NULL);
	/* A long array grows one slot at a time. */
	env = NULL;
	for (int i = 0; i < 200; i++) {
		char name[16];
		snprintf(name, sizeof(name), "V%d", i);
		slurm_env_array_overwrite(&env, name, name);
	}
	printf("V0=%s V199=%s\n", slurm_getenvp(env, "V0"), slurm_getenvp(env, "V199"));
	slurm_env_array_free(env);
}

static void print_list(const char *label, int rc, List l)
{
	ListIterator it = slurm_list_iterator_create(l);
	char *s;
	printf("%s rc=%d count=%d:", label, rc, slurm_list_count(l));
	while ((s = slurm_list_next(it)))
		printf(" [%s]", s);
	printf("\n");
	slurm_list_iterator_destroy(it);
}

static void xfree_item(void *x)
{
	slurm_xfree(&x);
}

static void char_lists(void)
{
	const char *inputs[] = { "a,b,c", "Alpha,BETA", "a,,b,", "'quoted,list',x", "\"dq\",y", "x'y", "",
				 ",", ",,this", "linux[0-2],other", "n[1-2]", "n[1,3],z", "A,a", "solo", "a,b,A",
				 "'", "'unterminated", "p[0-1]q", "sp ace,tab\there" };
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		List l = slurm_list_create(xfree_item);
		char *names = strdup(inputs[i]);
		int rc;
		rc = slurm_addto_char_list(l, names);
		printf("input [%s] now [%s] ", inputs[i], names);
		print_list("lower", rc, l);
		strcpy(names, inputs[i]);
		rc = slurm_addto_char_list_with_case(l, names, false);
		print_list("  again keep-case", rc, l);
		free(names);
		slurm_list_destroy(l);
	}
	{
		List l = slurm_list_create(xfree_item);
		print_list("NULL names", slurm_addto_char_list(l, NULL), l);
		slurm_list_destroy(l);
	}
	printf("NULL list rc=%d\n", slurm_addto_char_list(NULL, "a"));
}

static void step_lists(void)
{
	const char *inputs[] = { "12", "12.0", "12.batch", "12.extern", "12.interactive", "12_3", "12_3.4",
				 "12+1", "12+1.2", "12.2+1", "12.0,12.0,13", "'14,15'", "16,,17,", "19_0,19_0",
				 "20.1+x", "\"21\"", "" };
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		List l = slurm_list_create(slurm_destroy_selected_step);
		ListIterator it;
		slurm_selected_step_t *s;
		char *names = strdup(inputs[i]);
		int rc = slurm_addto_step_list(l, names);
		printf("steps [%s] rc=%d count=%d:", inputs[i], rc, slurm_list_count(l));
		it = slurm_list_iterator_create(l);
		while ((s = slurm_list_next(it)))
			printf(" {job=%u step=%#x comp=%#x task=%#x offset=%#x}", s->step_id.job_id, s->step_id.step_id,
			       s->step_id.step_het_comp, s->array_task_id, s->het_job_offset);
		printf("\n");
		slurm_list_iterator_destroy(it);
		slurm_list_destroy(l);
		free(names);
	}
	printf("steps NULL list rc=%d\n", slurm_addto_step_list(NULL, "1"));
}

static void id_and_mode_lists(void)
{
	const char *ids[] = { "root", "0", "root,0", "'root'", "nosuchuser_spur", "root,nosuchuser_spur",
			      "4000000000", "-1", "" };
	const char *modes[] = { "a,b", "+a,-b", "a,+b", "+a,b", "a,a,A", "-x", "" };
	int mode_args[] = { 0, '+', '-' };
	const char *steps[] = { "12", "12.3", "12_4.5", "12+1", "12.3+2", "12+1.2", "7_3" };

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		for (int gid = 0; gid < 2; gid++) {
			List l = slurm_list_create(xfree_item);
			char label[64];
			slurm_list_append(l, strcpy(xalloc(1, 8), "keep"));
			snprintf(label, sizeof(label), "ids [%s] gid=%d", ids[i], gid);
			print_list(label, slurm_addto_id_char_list(l, (char *)ids[i], gid), l);
			slurm_list_destroy(l);
		}
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		for (size_t m = 0; m < 3; m++) {
			List l = slurm_list_create(xfree_item);
			char label[64];
			snprintf(label, sizeof(label), "modes [%s] mode=%d", modes[i], mode_args[m]);
			print_list(label, slurm_addto_mode_char_list(l, (char *)modes[i], mode_args[m]), l);
			slurm_list_destroy(l);
		}
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		char *name = strdup(steps[i]);
		slurm_selected_step_t *s = slurm_parse_step_str(name);
		printf("parse_step_str(%s) name=[%s] job=%u step=%#x comp=%#x task=%#x offset=%#x\n", steps[i], name,
		       s->step_id.job_id, s->step_id.step_id, s->step_id.step_het_comp, s->array_task_id,
		       s->het_job_offset);
		slurm_destroy_selected_step(s);
		free(name);
	}
}

static void time_helpers(void)
{
	struct tm tm;
	time_t t = 1796050685;
	char buf[32];

	memset(&tm, 0, sizeof(tm));
	tm.tm_year = 126;
	tm.tm_mon = 11;
	tm.tm_mday = 32;
	tm.tm_hour = 25;
	tm.tm_isdst = 1;
	t = slurm_mktime(&tm);
	printf("mktime=%ld isdst=%d mday=%d hour=%d\n", (long)t, tm.tm_isdst, tm.tm_mday, tm.tm_hour);
	t = 1796050685;
	printf("ctime2=[%s]\n", slurm_ctime2(&t));
	memset(buf, 'x', sizeof(buf));
	printf("ctime2_r=[%s]\n", slurm_ctime2_r(&t, buf));
}

static void msg_init(void)
{
	unsigned char msg[376];
	memset(msg, 0xaa, sizeof(msg));
	slurm_msg_t_init(msg);
	printf("slurm_msg_t_init:");
	for (size_t i = 0; i < sizeof(msg); i++) {
		if (i % 32 == 0)
			printf("\n  %3zu:", i);
		printf(" %02x", msg[i]);
	}
	printf("\n");
}

#define XALLOC(type) ((type *)xalloc(1, sizeof(type)))
#define XSTR(s) strcpy(xalloc(1, strlen(s) + 1), s)

static void frees(void)
{
	/* Records the caller allocated with libslurm's allocator, released by the library. */
	update_node_msg_t *un = XALLOC(update_node_msg_t);
	job_info_t *job = XALLOC(job_info_t);
	job_step_info_t step;
	node_info_t node;
	partition_info_t part;
	stats_info_response_msg_t *stats = XALLOC(stats_info_response_msg_t);

	un->node_names = XSTR("n1");
	un->reason = XSTR("why");
	slurm_free_update_node_msg(un);
	slurm_free_update_node_msg(NULL);
	slurm_free_update_step_msg(XALLOC(step_update_request_msg_t));
	slurm_free_update_step_msg(NULL);
	slurm_free_return_code_msg(XALLOC(uint32_t));
	slurm_free_return_code_msg(NULL);
	job->name = XSTR("job");
	job->account = XSTR("acct");
	slurm_free_job_info(job);
	slurm_free_job_info(NULL);
	memset(&step, 0, sizeof(step));
	step.name = XSTR("step");
	step.nodes = XSTR("n[1-2]");
	slurm_free_job_step_info_members(&step);
	slurm_free_job_step_info_members(NULL);
	memset(&node, 0, sizeof(node));
	node.name = XSTR("n1");
	node.reason = XSTR("r");
	slurm_free_node_info_members(&node);
	slurm_free_node_info_members(NULL);
	memset(&part, 0, sizeof(part));
	part.name = XSTR("p");
	part.nodes = XSTR("n1");
	slurm_free_partition_info_members(&part);
	slurm_free_partition_info_members(NULL);
	stats->rpc_dump_count = 2;
	stats->rpc_dump_hostlist = xalloc(2, sizeof(char *));
	stats->rpc_dump_hostlist[0] = XSTR("a");
	stats->rpc_dump_hostlist[1] = XSTR("b");
	stats->rpc_type_id = xalloc(4, sizeof(uint16_t));
	slurm_free_stats_response_msg(stats);
	slurm_free_stats_response_msg(NULL);
	printf("frees done\n");
}

static void slurmdb_helpers(void)
{
	slurmdb_job_rec_t *job = slurmdb_create_job_rec();
	const char *tres[] = { "1=100,2=2048,4=3", "1=100,2=2048,4=3", "1=100,2=2048,4=3", "", "10=5", "1=7",
			       "2", "2=x", "1=18446744073709551615", " 3=9", "3=1,3=2" };
	int ids[] = { 1, 4, 3, 1, 1, 10, 2, 2, 1, 3, 3 };
	slurmdb_job_cond_t cond;
	time_t start, end;
	struct tm tm;

	printf("job_rec array_task_id=%#x derived_ec=%#x state=%u requid=%#x lft=%#x resvid=%#x steps=%d "
	       "jobid=%u exitcode=%u\n", job->array_task_id, job->derived_ec, job->state, job->requid, job->lft,
	       job->resvid, job->steps ? slurm_list_count(job->steps) : -1, job->jobid, job->exitcode);
	slurm_list_destroy(job->steps);
	slurm_xfree((void **)&job);

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		printf("tres_count(%s, %d)=%llu\n", tres[i], ids[i],
		       (unsigned long long)slurmdb_find_tres_count_in_string((char *)tres[i], ids[i]));
	printf("tres_count(NULL)=%llu\n", (unsigned long long)slurmdb_find_tres_count_in_string(NULL, 1));

	/* Explicit windows, then the defaults (relative to the clock, printed as offsets from midnight). */
	memset(&cond, 0, sizeof(cond));
	cond.usage_start = 1796000000;
	cond.usage_end = 1796050000;
	slurmdb_job_cond_def_start_end(&cond);
	printf("cond explicit %ld %ld\n", (long)cond.usage_start, (long)cond.usage_end);
	cond.usage_end = cond.usage_start;
	slurmdb_job_cond_def_start_end(&cond);
	printf("cond equal %ld %ld\n", (long)cond.usage_start, (long)cond.usage_end);
	memset(&cond, 0, sizeof(cond));
	cond.flags = 1 << 3;
	slurmdb_job_cond_def_start_end(&cond);
	printf("cond runaway %ld %ld\n", (long)cond.usage_start, (long)cond.usage_end);
	{
		time_t now, midnight;
		do {
			now = time(NULL);
			memset(&cond, 0, sizeof(cond));
			slurmdb_job_cond_def_start_end(&cond);
		} while (now != time(NULL));
		midnight = now - now % 86400;
		printf("cond default start=midnight%+ld end=now%+ld\n", (long)(cond.usage_start - midnight),
		       (long)(cond.usage_end - now));
		memset(&cond, 0, sizeof(cond));
		cond.step_list = slurm_list_create(NULL);
		slurm_list_append(cond.step_list, &now);
		slurmdb_job_cond_def_start_end(&cond);
		printf("cond with steps start=%ld end=now%+ld\n", (long)cond.usage_start, (long)(cond.usage_end - now));
		slurm_list_destroy(cond.step_list);
		memset(&cond, 0, sizeof(cond));
		cond.state_list = slurm_list_create(NULL);
		slurm_list_append(cond.state_list, "CD");
		slurmdb_job_cond_def_start_end(&cond);
		printf("cond with states start=now%+ld end=now%+ld\n", (long)(cond.usage_start - now),
		       (long)(cond.usage_end - now));
		slurm_list_destroy(cond.state_list);
	}

	start = 1796050685;
	end = 1796100000;
	printf("report rc=%d ", slurmdb_report_set_start_end_time(&start, &end));
	printf("%ld %ld\n", (long)start, (long)end);
	start = 1796050685;
	end = 1796051000;
	printf("report short rc=%d ", slurmdb_report_set_start_end_time(&start, &end));
	printf("%ld %ld\n", (long)start, (long)end);
	start = 1796049000;
	end = 1796049000 + 1799;
	printf("report round rc=%d ", slurmdb_report_set_start_end_time(&start, &end));
	printf("%ld %ld\n", (long)start, (long)end);
	start = 0;
	end = 0;
	slurmdb_report_set_start_end_time(&start, &end);
	{
		time_t now = time(NULL), midnight = now - now % 86400;
		printf("report default start=midnight%+ld end=midnight%+ld\n", (long)(start - midnight),
		       (long)(end - midnight));
	}
	(void)tm;
}

static void deranged(void)
{
	const char *lists[] = { "n[1-3],m5", "a,b,a", "x[01-03]", "single" };
	char buf[8];
	for (size_t i = 0; i < sizeof(lists) / sizeof(lists[0]); i++) {
		hostlist_t hl = slurm_hostlist_create(lists[i]);
		char *m = slurm_hostlist_deranged_string_malloc(hl);
		char *x = slurm_hostlist_deranged_string_xmalloc(hl);
		ssize_t n = slurm_hostlist_deranged_string(hl, sizeof(buf), buf);
		printf("deranged %s malloc=%s xmalloc=%s buf=%zd[%s]\n", lists[i], m, x, n, buf);
		free(m);
		slurm_xfree((void **)&x);
		n = slurm_hostlist_deranged_string_dims(hl, sizeof(buf), buf, 1);
		x = slurm_hostlist_deranged_string_xmalloc_dims(hl, 0);
		printf("  dims buf=%zd[%s] xmalloc=%s\n", n, buf, x);
		slurm_xfree((void **)&x);
		slurm_hostlist_destroy(hl);
	}
}

static void unset_environment(void)
{
	extern char **environ;
	int n = 0;
	setenv("SPUR_A", "1", 1);
	setenv("SPUR_LONG_VALUE", "x", 1);
	putenv("=noname");
	putenv("NOEQUALS");
	slurm_env_unset_environment();
	for (char **e = environ; *e; e++, n++)
		printf("  left [%s]\n", *e);
	printf("unset_environment left=%d SPUR_A=%s\n", n, getenv("SPUR_A") ? "set" : "(null)");
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	dup2(1, 2);
	if (argc > 1) {
		/* A bad step id is fatal in libslurm: the line, then exit status 1. */
		List l = slurm_list_create(slurm_destroy_selected_step);
		printf("rc=%d\n", slurm_addto_step_list(l, argv[1]));
		return 0;
	}
	env_arrays();
	char_lists();
	step_lists();
	msg_init();
	frees();
	slurmdb_helpers();
	deranged();
	id_and_mode_lists();
	time_helpers();
	/* Last: it empties the environment (TZ included). */
	unset_environment();
	return 0;
}
