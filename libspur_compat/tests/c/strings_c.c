/* libslurm's text helpers that are exported but not declared in <slurm/slurm.h>: job and node state names,
 * job reasons, share/preempt/reservation/private-data/enforce/layout/binding texts, and the time printers and
 * parsers. Prints every answer; run with TZ=UTC against real libslurm.so.38 and against libspur_compat.so, the
 * outputs must be identical (strings_c.expected). Built with: gcc strings_c.c -o strings_c -lslurm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <slurm/slurm.h>

/* Prototypes as libslurm 22.05 defines them (src/common/slurm_protocol_defs.h, parse_time.h, ...). */
extern char *slurm_job_state_string(uint32_t inx);
extern char *slurm_job_state_string_compact(uint32_t inx);
extern uint32_t slurm_job_state_num(const char *state_name);
extern char *slurm_job_reason_string(uint32_t inx);
extern uint32_t slurm_job_reason_num(char *reason);
extern char *slurm_node_state_string(uint32_t inx);
extern char *slurm_node_state_string_compact(uint32_t inx);
extern char *slurm_node_state_string_complete(uint32_t inx);
extern const char *slurm_node_state_base_string(uint32_t state);
extern const char *slurm_node_state_flag_string_single(uint32_t *state);
extern char *slurm_node_state_flag_string(uint32_t state);
extern char *slurm_job_share_string(uint16_t shared);
extern const char *slurm_preempt_mode_string(uint16_t preempt_mode);
extern uint16_t slurm_preempt_mode_num(const char *preempt_mode);
extern char *slurm_reservation_flags_string(reserve_info_t *resv_ptr);
extern void slurm_private_data_string(uint16_t private_data, char *str, int str_len);
extern void slurm_accounting_enforce_string(uint16_t enforce, char *str, int str_len);
extern char *slurm_step_layout_type_name(uint32_t task_dist);
extern void slurm_sprint_cpu_bind_type(char *str, uint32_t cpu_bind_type);
extern char *slurm_xstr_mem_bind_type(uint32_t mem_bind_type);
extern void slurm_make_time_str(time_t *time, char *string, int size);
extern void slurm_secs2time_str(time_t time, char *string, int size);
extern void slurm_mins2time_str(uint32_t time, char *string, int size);
extern int slurm_time_str2secs(const char *string);
extern int slurm_time_str2mins(const char *string);
extern time_t slurm_parse_time(const char *time_str, int past);
extern char *slurm_mon_abbr(int mon);
extern void slurm_xfree(void **item);

static void put_free(const char *label, char *s)
{
	printf("%s=%s\n", label, s ? s : "(null)");
	slurm_xfree((void **)&s);
}

static void job_states(void)
{
	uint32_t flags[] = { 0, 0x100, 0x200, 0x400, 0x800, 0x1000, 0x2000, 0x4000, 0x8000, 0x10000, 0x20000,
			     0x40000, 0x80000, 0x100000, 0x200000, 0x400000, 0x800000, 0x8000 | 0x400,
			     0x4000 | 0x2000, 0x1000000 };
	const char *names[] = { "pending", "PD", "r", "CD", "completed", "ca", "oom", "OUT_OF_MEMORY",
				"completing", "cg", "REQUEUED", "rq", "SO", "stage_out", "resv_del_hold", "RD",
				"launch_failed", "nope", "?", "" };
	for (uint32_t b = 0; b < 14; b++)
		for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
			uint32_t s = b | flags[f];
			printf("job %#x %s %s\n", s, slurm_job_state_string(s), slurm_job_state_string_compact(s));
		}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		printf("job_state_num(%s)=%#x\n", names[i], slurm_job_state_num(names[i]));
	printf("job_state_num(NULL)=%#x\n", slurm_job_state_num(NULL));
}

static void node_states(void)
{
	uint32_t flags[] = { 0, 0x10, 0x20, 0x40, 0x80, 0x100, 0x200, 0x400, 0x800, 0x1000, 0x2000, 0x4000,
			     0x8000, 0x10000, 0x20000, 0x40000, 0x80000, 0x100000, 0x200000, 0x400000, 0x800000,
			     0x1000000, 0x2000000, 0x4000000, 0x8000000, 0x80000000, 0x200 | 0x800, 0x200 | 0x400,
			     0x2000 | 0x400, 0x2000 | 0x800, 0x8000 | 0x800, 0x10000 | 0x800, 0x100000 | 0x200,
			     0x200 | 0x1000, 0x400 | 0x800, 0x200000 | 0x800, 0x10 | 0x800, 0x20 | 0x40000,
			     0x200 | 0x400 | 0x800 | 0x1000 | 0x4000 | 0x8000 | 0x80000000 };
	for (uint32_t b = 0; b < 9; b++)
		for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
			uint32_t s = b | flags[f];
			uint32_t rest = s;
			const char *one;
			printf("node %#x %s %s base=%s ", s, slurm_node_state_string(s),
			       slurm_node_state_string_compact(s), slurm_node_state_base_string(s));
			put_free("complete", slurm_node_state_string_complete(s));
			put_free("  flags", slurm_node_state_flag_string(s));
			printf("  single:");
			while ((one = slurm_node_state_flag_string_single(&rest)))
				printf(" %s(%#x)", one, rest);
			printf("\n");
		}
}

static void reasons(void)
{
	const char *names[] = { "None", "priority", "RESOURCES", "PartitionDown", "SchedDefer", "QOSMinBilling",
				"ReservationDeleted", "AssocMaxBBMinutesPerJob", "nothing", "" };
	for (uint32_t r = 0; r < 202; r++)
		printf("reason %u %s\n", r, slurm_job_reason_string(r));
	printf("reason 5000 %s\n", slurm_job_reason_string(5000));
	printf("reason -1 %s\n", slurm_job_reason_string(0xffffffff));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		printf("job_reason_num(%s)=%u\n", names[i], slurm_job_reason_num((char *)names[i]));
}

static void modes_and_flags(void)
{
	uint16_t modes[] = { 0, 1, 2, 3, 4, 8, 16, 0x4000, 0x8000, 0x8001, 0x8002, 0x8008, 0x8003, 0x4001,
			     0x4002, 0x4008, 0x4010, 0xc000, 0xfffe };
	const char *words[] = { "off", "cluster", "SUSPEND", "on", "requeue", "cancel", "gang", "GANG,suspend",
				"within,cancel", "gang,within", "cancel,requeue", "suspend,gang,gang", "off,off",
				"bogus", "gang,", ",cancel", "", "GANG,CANCEL,WITHIN" };
	char buf[256];
	reserve_info_t resv;

	for (uint16_t s = 0; s < 6; s++)
		printf("share %u %s\n", s, slurm_job_share_string(s));
	printf("share %u %s\n", 0xfffe, slurm_job_share_string(0xfffe));
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		printf("preempt %#x %s\n", modes[i], slurm_preempt_mode_string(modes[i]));
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		printf("preempt_num(%s)=%#x\n", words[i], slurm_preempt_mode_num(words[i]));
	printf("preempt_num(NULL)=%#x\n", slurm_preempt_mode_num(NULL));

	memset(&resv, 0, sizeof(resv));
	for (int bit = 0; bit < 40; bit++) {
		resv.flags = (uint64_t)1 << bit;
		put_free("resv_flags", slurm_reservation_flags_string(&resv));
	}
	resv.flags = ~(uint64_t)0;
	put_free("resv_flags all", slurm_reservation_flags_string(&resv));
	resv.purge_comp_time = 90061;
	put_free("resv_flags purge", slurm_reservation_flags_string(&resv));
	resv.flags = (uint64_t)1 << 20;
	resv.purge_comp_time = 300;
	put_free("resv_flags purge only", slurm_reservation_flags_string(&resv));
	resv.flags = 0;
	put_free("resv_flags none", slurm_reservation_flags_string(&resv));

	for (uint16_t p = 0; p < 0x200; p += 0x3d) {
		slurm_private_data_string(p, buf, sizeof(buf));
		printf("private %#x %s\n", p, buf);
	}
	slurm_private_data_string(0xffff, buf, sizeof(buf));
	printf("private all %s\n", buf);
	strcpy(buf, "untouched");
	slurm_private_data_string(1, buf, 68);
	printf("private small [%s]\n", buf);
	for (uint16_t e = 0; e < 0x100; e += 0x13) {
		slurm_accounting_enforce_string(e, buf, sizeof(buf));
		printf("enforce %#x %s\n", e, buf);
	}
	strcpy(buf, "untouched");
	slurm_accounting_enforce_string(3, buf, 49);
	printf("enforce small [%s]\n", buf);
	slurm_accounting_enforce_string(3, buf, 0);
	printf("enforce zero [%s]\n", buf);

	{
		uint32_t dists[] = { 0, 1, 2, 3, 4, 5, 0x11, 0x21, 0x31, 0x12, 0x22, 0x32, 0x111, 0x211, 0x311, 0x121,
				     0x221, 0x321, 0x131, 0x231, 0x331, 0x112, 0x212, 0x312, 0x122, 0x222, 0x322,
				     0x132, 0x232, 0x332, 0x2000, 0x800001, 0x400002, 0xc00004, 0x800000, 0x1ffff };
		for (size_t i = 0; i < sizeof(dists) / sizeof(dists[0]); i++) {
			printf("dist %#x ", dists[i]);
			put_free("name", slurm_step_layout_type_name(dists[i]));
		}
	}
	for (uint32_t b = 0; b < 0x100000; b = b ? b * 2 : 1) {
		slurm_sprint_cpu_bind_type(buf, b);
		printf("cpu_bind %#x %s\n", b, buf);
	}
	slurm_sprint_cpu_bind_type(buf, 0xfffff);
	printf("cpu_bind all %s\n", buf);
	for (uint32_t b = 0; b < 0x200; b = b ? b * 2 : 1) {
		printf("mem_bind %#x ", b);
		put_free("text", slurm_xstr_mem_bind_type(b));
	}
	printf("mem_bind all ");
	put_free("text", slurm_xstr_mem_bind_type(0xff));
}

static void times(void)
{
	time_t ts[] = { 0, 1, 86399, 1796050685, 4294967294, 4294967295, 2000000000 };
	time_t secs[] = { 0, 59, 3600, 86399, 86400, 90061, 1000000, -1, -90061, 4294967295, 4294967294 };
	uint32_t mins[] = { 0, 59, 60, 1439, 1440, 1441, 100000, 4294967294, 4294967295 };
	const char *specs[] = { "", "0", "1", "61", "1:30", "0:61", "1:2:3", "1-0", "1-", "2-3", "2-3:04",
				"2-3:4:5", "-1", "INFINITE", "unlimited", "Infinite", "-5", "1::2", ":5", "5:",
				"1:2:3:4", "1-2-3", "1:2-3", "abc", "1a", " 5", "99999999", "3000000000", "1-2:3",
				"12-", "0-0:0:1", "--1" };
	const char *absolute[] = { "2026-12-24T18:00:00", "2026-12-24T18:00", "2026-12-24", "12/25/27",
				   "12/25/2027", "uts1800000000", "uts12", "uts", "2027-01-01T00:00:00",
				   "bogus", "25:00", "2026-13-01", "now+", "tomorrowish", "" };
	const char *relative[] = { "now", "now+1hour", "now+90minutes", "now+2days", "now+1week", "now-1hour",
				   "now+30", "now+30seconds", "NOW+1HOUR", "now+1hours" };
	const char *daily[] = { "midnight", "noon", "teatime", "fika", "today", "tomorrow", "16:00",
				"16:00:30", "4pm", "4:30PM", "elevenses" };
	char buf[64];

	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		slurm_make_time_str(&ts[i], buf, sizeof(buf));
		printf("make_time_str %ld %s\n", (long)ts[i], buf);
	}
	slurm_make_time_str(&ts[3], buf, 8);
	printf("make_time_str short [%s]\n", buf);
	slurm_make_time_str(&ts[0], buf, 4);
	printf("make_time_str unknown short [%s]\n", buf);
	for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
		slurm_secs2time_str(secs[i], buf, sizeof(buf));
		printf("secs2time %ld %s\n", (long)secs[i], buf);
	}
	slurm_secs2time_str(90061, buf, 5);
	printf("secs2time short [%s]\n", buf);
	for (size_t i = 0; i < sizeof(mins) / sizeof(mins[0]); i++) {
		slurm_mins2time_str(mins[i], buf, sizeof(buf));
		printf("mins2time %u %s\n", mins[i], buf);
	}
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		printf("str2secs(%s)=%d str2mins=%d\n", specs[i], slurm_time_str2secs(specs[i]),
		       slurm_time_str2mins(specs[i]));
	printf("str2secs(NULL)=%d str2mins=%d\n", slurm_time_str2secs(NULL), slurm_time_str2mins(NULL));
	for (size_t i = 0; i < sizeof(absolute) / sizeof(absolute[0]); i++) {
		time_t t;
		fflush(stdout);
		t = slurm_parse_time(absolute[i], 0);
		printf("parse_time(%s)=%ld\n", absolute[i], (long)t);
	}
	for (size_t i = 0; i < sizeof(relative) / sizeof(relative[0]); i++) {
		time_t before, t, after;
		/* Relative to the clock: the offset from now, read within one second. */
		do {
			before = time(NULL);
			t = slurm_parse_time(relative[i], 0);
			after = time(NULL);
		} while (before != after);
		printf("parse_time(%s)=now%+ld\n", relative[i], (long)(t - before));
	}
	for (size_t i = 0; i < sizeof(daily) / sizeof(daily[0]); i++) {
		time_t t, now = time(NULL);
		long d;
		t = slurm_parse_time(daily[i], 0);
		d = (long)(t - now);
		/* With TZ=UTC: the time of day, and where it falls from now (not the date, which moves). */
		printf("parse_time(%s)=%s %02ld:%02ld:%02ld\n", daily[i],
		       !t ? "0" : d <= -86400 ? "older" : d <= 0 ? "last24h" : d <= 86400 ? "next24h" : "later",
		       (long)(t % 86400) / 3600, (long)(t % 3600) / 60, (long)t % 60);
	}
	for (int m = -1; m < 13; m++)
		printf("mon_abbr(%d)=%s\n", m, slurm_mon_abbr(m));
}

int main(int argc, char **argv)
{
	/* libslurm logs errors on stderr; interleave them with the answers. */
	setvbuf(stdout, NULL, _IONBF, 0);
	dup2(1, 2);
	if (argc > 1) {
		/* SLURM_TIME_FORMAT is read once per process: one format per run. */
		time_t ts[] = { 1796050685, 0, 4294967294 };
		char buf[64];
		for (size_t i = 0; i < 3; i++) {
			slurm_make_time_str(&ts[i], buf, sizeof(buf));
			printf("format %s %ld [%s]\n", argv[1], (long)ts[i], buf);
		}
		slurm_make_time_str(&ts[0], buf, 6);
		printf("format %s short [%s]\n", argv[1], buf);
		return 0;
	}
	job_states();
	node_states();
	reasons();
	modes_and_flags();
	times();
	return 0;
}
