/* libslurm's logging as a program sees it: stderr lines by level and options, the log file, %m, return values
 * and fatal's exit; run against the real libslurm.so.38 and libspur_compat.so (tests/helpers_c.rs), same expected
 * output. Prototypes and log_options_t from Slurm 22.05's src/common/log.h (not in <slurm/slurm.h>). The log
 * file's timestamps are replaced by "[TS]" when printed. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
	int stderr_level;
	int syslog_level;
	int logfile_level;
	bool prefix_level;
	bool buffered;
	bool raw;
} log_options_t;

int slurm_log_init(char *argv0, log_options_t opts, int fac, char *logfile);
int slurm_log_alter(log_options_t opts, int fac, char *logfile);
void slurm_log_fini(void);
int slurm_get_log_level(void);
int slurm_get_sched_log_level(void);
void slurm_log_var(int level, const char *fmt, ...);
int slurm_error(const char *fmt, ...);
void slurm_info(const char *fmt, ...);
void slurm_verbose(const char *fmt, ...);
void slurm_debug(const char *fmt, ...);
void slurm_debug2(const char *fmt, ...);
void slurm_debug3(const char *fmt, ...);
void slurm_debug4(const char *fmt, ...);
void slurm_debug5(const char *fmt, ...);
void slurm_fatal(const char *fmt, ...);
void slurm_spank_log(const char *fmt, ...);
int slurm_sched_error(const char *fmt, ...);
void slurm_sched_info(const char *fmt, ...);
FILE *slurm_log_fp(void);
bool slurm_log_has_data(void);
void slurm_log_flush(void);
void slurm_log_set_fpfx(char **pfx);
char *slurm_xstrdup(const char *s);

/* The program's own openlog/syslog/closelog take the place of libc's for the library (the executable comes first in
 * symbol lookup), so what the library sends to syslog is printed; the messages are cut short here to keep lines
 * short. */
static char syslog_ident[64];

void openlog(const char *ident, int option, int facility)
{
	snprintf(syslog_ident, sizeof(syslog_ident), "%s", ident ? ident : "(null)");
	printf("openlog(%s, %d, %d)\n", syslog_ident, option, facility);
}

void syslog(int priority, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("syslog(%d) %s: [%.60s] (%zu bytes)\n", priority, syslog_ident, msg, strlen(msg));
}

/* What glibc's fortified builds (libslurm's) call instead of syslog. */
void __syslog_chk(int priority, int flag, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	(void)flag;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	printf("syslog(%d) %s: [%.60s] (%zu bytes)\n", priority, syslog_ident, msg, strlen(msg));
}

void closelog(void)
{
	printf("closelog\n");
}

static void all_levels(const char *tag)
{
	int rc = slurm_error("%s error %d", tag, 1);
	slurm_info("%s info", tag);
	slurm_verbose("%s verbose", tag);
	slurm_debug("%s debug", tag);
	slurm_debug2("%s debug2", tag);
	slurm_debug3("%s debug3", tag);
	slurm_debug4("%s debug4", tag);
	slurm_debug5("%s debug5", tag);
	printf("-- %s: error() returned %d, log level %d\n", tag, rc, slurm_get_log_level());
}

static void show_file(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f)) {
		char *end = strchr(line, ']');
		printf("file: [TS]%s", (line[0] == '[' && end) ? end + 1 : line);
	}
	if (f)
		fclose(f);
	unlink(path);
}

int main(void)
{
	char logfile[] = "/tmp/spur_log_c.XXXXXX";
	int fd = mkstemp(logfile);

	close(fd);
	dup2(1, 2);
	setvbuf(stdout, NULL, _IONBF, 0);

	/* Before log_init. */
	printf("level before init %d sched %d\n", slurm_get_log_level(), slurm_get_sched_log_level());
	slurm_debug("not shown: the first message sets up stderr at info");
	printf("level after first message %d\n", slurm_get_log_level());
	all_levels("default");

	log_options_t opts = { 5, 0, 0, true, false, false };
	slurm_log_init("/usr/sbin/my-prog", opts, 0, NULL);
	all_levels("debug-level");

	opts.stderr_level = 9;
	slurm_log_alter(opts, 0, NULL);
	all_levels("debug5-level");
	slurm_log_var(3, "log_var info %s", "x");
	slurm_log_var(2, "log_var error");
	slurm_log_var(10, "log_var end");
	slurm_log_var(0, "log_var quiet");

	errno = ENOENT;
	slurm_error("open failed: %m");
	errno = 2017;
	slurm_error("slurm errno: %m (%d)", 7);
	errno = EACCES;
	slurm_info("100%% sure %s: %m", "x");
	printf("errno kept: %d\n", errno);
	slurm_info("percent in text %s", "50%d");
	slurm_info("no conversions");
	slurm_info("%s", "");

	opts.prefix_level = false;
	slurm_log_alter(opts, 0, NULL);
	all_levels("no-prefix");

	opts = (log_options_t){ 2, 0, 0, true, false, false };
	slurm_log_alter(opts, 0, NULL);
	all_levels("error-only");
	opts = (log_options_t){ 0, 0, 0, true, false, false };
	slurm_log_alter(opts, 0, NULL);
	all_levels("quiet");
	slurm_spank_log("spank line %d", 5);

	/* A log file at debug, stderr at info. */
	opts = (log_options_t){ 3, 0, 5, true, false, false };
	slurm_log_init("prog2", opts, 0, logfile);
	printf("log_fp is stderr: %d, has_data %d\n", slurm_log_fp() == stderr, slurm_log_has_data());
	all_levels("file");
	char *pfx = slurm_xstrdup("PFX ");
	slurm_log_set_fpfx(&pfx);
	printf("fpfx slot after set: %p\n", (void *)pfx);
	slurm_info("with prefix");
	slurm_sched_info("sched info");
	printf("sched_error returned %d\n", slurm_sched_error("sched error"));
	slurm_log_flush();
	show_file(logfile);
	printf("bad log file rc=%d\n", slurm_log_init("prog3", opts, 0, "/nonexistent/dir/file.log"));
	slurm_info("after bad log file");

	/* syslog at verbose, as pam_slurm_adopt sets it up (stderr quiet). */
	opts = (log_options_t){ 0, 4, 0, true, false, false };
	slurm_log_init("pam_slurm_adopt", opts, 10 << 3, NULL);
	all_levels("syslog");
	char big[700];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	slurm_info("%s", big);
	opts = (log_options_t){ 3, 0, 0, false, false, false };
	slurm_log_alter(opts, 0, NULL);
	all_levels("syslog off, no prefix");
	opts = (log_options_t){ 3, 0, 0, true, false, false };
	slurm_log_alter(opts, 0, NULL);

	/* fatal logs and exits 1. */
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		slurm_fatal("fatal %s", "end");
		_exit(3);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("fatal child exit %d\n", WEXITSTATUS(status));
	pid = fork();
	if (pid == 0) {
		slurm_log_var(1, "log_var fatal");
		_exit(3);
	}
	waitpid(pid, &status, 0);
	printf("log_var fatal child exit %d\n", WEXITSTATUS(status));

	slurm_log_fini();
	printf("level after fini %d\n", slurm_get_log_level());
	slurm_info("after fini: default again");
	all_levels("after-fini");
	return 0;
}
