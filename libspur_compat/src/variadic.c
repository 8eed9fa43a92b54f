/*
 * The variadic entry points of libslurm's C API, which stable Rust cannot define: each formats its message with
 * vsnprintf (after log.rs has expanded Slurm's own %m/%t/%T/%M for the logging ones) and hands the text to a
 * non-variadic Rust function. build.rs compiles this file; variadic.rs holds the exported names.
 * Memory is libc's, as everywhere in libspur_compat.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each is reached through a Rust trampoline of the public name (variadic.rs): a cdylib exports only what rustc
 * knows of, so these stay hidden and are jumped to with the caller's registers and stack untouched. */
#define SPUR_HIDDEN __attribute__((visibility("hidden")))

/* In log.rs and xstring.rs. */
extern int spur_log_wants(int level);
extern void spur_log_emit(int level, int sched, int spank, const char *msg);
extern char *spur_log_expand(const char *fmt, int errno_at_call, int *printf_left);
extern void slurm_xstrcat(char **str, const char *add);
extern void slurm_xstrcatat(char **str, char **pos, const char *add);

enum { LEVEL_FATAL = 1, LEVEL_ERROR, LEVEL_INFO, LEVEL_VERBOSE, LEVEL_DEBUG,
       LEVEL_DEBUG2, LEVEL_DEBUG3, LEVEL_DEBUG4, LEVEL_DEBUG5 };

/* slurm_prog_name is libslurm's global (defined by this library's conf module when present): log_init records
 * the first program name there, log_fini frees it. Weak, so this file links whether or not it is defined. */
extern char *slurm_prog_name __attribute__((weak));

SPUR_HIDDEN void spur_c_set_prog_name(const char *name)
{
	if (&slurm_prog_name && !slurm_prog_name && name && *name)
		slurm_prog_name = strdup(name);
}

SPUR_HIDDEN void spur_c_clear_prog_name(void)
{
	if (&slurm_prog_name) {
		free(slurm_prog_name);
		slurm_prog_name = NULL;
	}
}

SPUR_HIDDEN void spur_c_write_stderr(const char *line)
{
	if (fileno(stderr) < 0)
		return;
	fflush(stdout);
	fputs(line, stderr);
	fflush(stderr);
}

SPUR_HIDDEN FILE *spur_c_stderr(void)
{
	return stderr;
}

/* printf into a new malloc'd string; NULL when out of memory or on a bad format. */
static char *vformat(const char *fmt, va_list ap)
{
	va_list cp;
	int n;
	char *out;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0 || !(out = malloc((size_t)n + 1)))
		return NULL;
	vsnprintf(out, (size_t)n + 1, fmt, ap);
	return out;
}

/* A log message: Slurm's conversions first, then printf's when any are left (as libslurm's vxstrfmt). */
static char *log_format(const char *fmt, va_list ap, int errno_at_call)
{
	int printf_left = 0;
	char *expanded = spur_log_expand(fmt ? fmt : "", errno_at_call, &printf_left);
	char *out;

	if (!expanded || !printf_left)
		return expanded;
	out = vformat(expanded, ap);
	free(expanded);
	return out;
}

static void log_va(int level, int sched, int spank, const char *fmt, va_list ap, int errno_at_call)
{
	char *msg = log_format(fmt, ap, errno_at_call);

	if (msg) {
		spur_log_emit(level, sched, spank, msg);
		free(msg);
	}
	errno = errno_at_call;
}

#define LOG_BODY(level, sched) do {                                     \
		int saved = errno;                                      \
		if (spur_log_wants(level)) {                            \
			va_list ap;                                     \
			va_start(ap, fmt);                              \
			log_va(level, sched, 0, fmt, ap, saved);        \
			va_end(ap);                                     \
		}                                                       \
	} while (0)

SPUR_HIDDEN int spur_va_slurm_error(const char *fmt, ...) { LOG_BODY(LEVEL_ERROR, 0); return -1; }
SPUR_HIDDEN void spur_va_slurm_info(const char *fmt, ...) { LOG_BODY(LEVEL_INFO, 0); }
SPUR_HIDDEN void spur_va_slurm_verbose(const char *fmt, ...) { LOG_BODY(LEVEL_VERBOSE, 0); }
SPUR_HIDDEN void spur_va_slurm_debug(const char *fmt, ...) { LOG_BODY(LEVEL_DEBUG, 0); }
SPUR_HIDDEN void spur_va_slurm_debug2(const char *fmt, ...) { LOG_BODY(LEVEL_DEBUG2, 0); }
SPUR_HIDDEN void spur_va_slurm_debug3(const char *fmt, ...) { LOG_BODY(LEVEL_DEBUG3, 0); }
SPUR_HIDDEN void spur_va_slurm_debug4(const char *fmt, ...) { LOG_BODY(LEVEL_DEBUG4, 0); }
SPUR_HIDDEN void spur_va_slurm_debug5(const char *fmt, ...) { LOG_BODY(LEVEL_DEBUG5, 0); }
/* The scheduler log is never set up in a client, so these reach the main log only, with their "sched: " word. */
SPUR_HIDDEN int spur_va_slurm_sched_error(const char *fmt, ...) { LOG_BODY(LEVEL_ERROR, 1); return -1; }
SPUR_HIDDEN void spur_va_slurm_sched_info(const char *fmt, ...) { LOG_BODY(LEVEL_INFO, 1); }
SPUR_HIDDEN void spur_va_slurm_sched_verbose(const char *fmt, ...) { LOG_BODY(LEVEL_VERBOSE, 1); }

SPUR_HIDDEN void spur_va_slurm_log_var(int level, const char *fmt, ...)
{
	LOG_BODY(level, 0);
	if (level == LEVEL_FATAL)
		exit(1);
}

SPUR_HIDDEN void spur_va_slurm_fatal(const char *fmt, ...)
{
	LOG_BODY(LEVEL_FATAL, 0);
	exit(1);
}

SPUR_HIDDEN void spur_va_slurm_fatal_abort(const char *fmt, ...)
{
	LOG_BODY(LEVEL_FATAL, 0);
	abort();
}

/* error() without the "error: " word and program name, for SPANK plugins; not filtered by the first check. */
SPUR_HIDDEN void spur_va_slurm_spank_log(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	log_va(LEVEL_ERROR, 0, 1, fmt, ap, saved);
	va_end(ap);
}

/* xstring's printf family: plain vsnprintf, as libslurm's (glibc's own %m is strerror(errno)). */
SPUR_HIDDEN char *spur_va_slurm_xstrdup_printf(const char *fmt, ...)
{
	va_list ap;
	char *out;

	va_start(ap, fmt);
	out = vformat(fmt, ap);
	va_end(ap);
	return out;
}

SPUR_HIDDEN void spur_va_slurm_xstrfmtcat(char **str, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = vformat(fmt, ap);
	va_end(ap);
	if (!p)
		return;
	if (!*str) {
		*str = p;
		return;
	}
	slurm_xstrcat(str, p);
	free(p);
}

SPUR_HIDDEN void spur_va_slurm_xstrfmtcatat(char **str, char **pos, const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = vformat(fmt, ap);
	va_end(ap);
	if (!p)
		return;
	slurm_xstrcatat(str, pos, p);
	free(p);
}

/* The env family's printf forms (env.c): the value is formatted into a buffer of ENV_BUFSIZE (256 KiB) and cut
 * there, as libslurm's vsnprintf into its fixed buffer cuts it, then handed to the non-variadic Rust exports. */
#define SPUR_ENV_BUFSIZE (256 * 1024)
#define SPUR_MAX_ENV_STRLEN (128 * 1024)
extern int slurm_env_array_append(char ***array_ptr, const char *name, const char *value);
extern int slurm_env_array_overwrite(char ***array_ptr, const char *name, const char *value);

static char *env_value(const char *fmt, va_list ap)
{
	char *value = malloc(SPUR_ENV_BUFSIZE);

	if (value)
		vsnprintf(value, SPUR_ENV_BUFSIZE, fmt, ap);
	return value;
}

SPUR_HIDDEN int spur_va_slurm_env_array_append_fmt(char ***array_ptr, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *value;
	int rc;

	va_start(ap, fmt);
	value = env_value(fmt, ap);
	va_end(ap);
	if (!value)
		return 0;
	rc = slurm_env_array_append(array_ptr, name, value);
	free(value);
	return rc;
}

SPUR_HIDDEN int spur_va_slurm_env_array_overwrite_fmt(char ***array_ptr, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *value;
	int rc;

	va_start(ap, fmt);
	value = env_value(fmt, ap);
	va_end(ap);
	if (!value)
		return 0;
	rc = slurm_env_array_overwrite(array_ptr, name, value);
	free(value);
	return rc;
}

/* A het job component's variable: set under both the old (_PACK_GROUP_N) and the current (_HET_GROUP_N) name;
 * the result is the second's. Offset -1 means a job that is not heterogeneous: the plain name. */
SPUR_HIDDEN int spur_va_slurm_env_array_overwrite_het_fmt(char ***array_ptr, const char *name, int het_job_offset,
							  const char *fmt, ...)
{
	va_list ap;
	char *value, *het_name;
	int rc = 0;

	va_start(ap, fmt);
	value = env_value(fmt, ap);
	va_end(ap);
	if (!value)
		return 0;
	if (het_job_offset == -1) {
		rc = slurm_env_array_overwrite(array_ptr, name, value);
	} else {
		if ((het_name = spur_va_slurm_xstrdup_printf("%s_PACK_GROUP_%d", name, het_job_offset))) {
			slurm_env_array_overwrite(array_ptr, het_name, value);
			free(het_name);
		}
		if ((het_name = spur_va_slurm_xstrdup_printf("%s_HET_GROUP_%d", name, het_job_offset))) {
			rc = slurm_env_array_overwrite(array_ptr, het_name, value);
			free(het_name);
		}
	}
	free(value);
	return rc;
}

/* setenvf: into the array when there is one (0 when the overwrite took, 1 otherwise), else the process's own
 * environment; an empty name is EINVAL and a NAME=value past MAX_ENV_STRLEN is refused with libslurm's error. */
SPUR_HIDDEN int spur_va_slurm_setenvpf(char ***envp, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *value;
	size_t size;
	int rc;

	if (!name || name[0] == '\0')
		return EINVAL;
	va_start(ap, fmt);
	value = env_value(fmt, ap);
	va_end(ap);
	if (!value)
		return ENOMEM;
	size = strlen(name) + strlen(value) + 2;
	if (size >= SPUR_MAX_ENV_STRLEN) {
		spur_va_slurm_error("environment variable %s is too long", name);
		free(value);
		return ENOMEM;
	}
	if (envp && *envp)
		rc = slurm_env_array_overwrite(envp, name, value) == 1 ? 0 : 1;
	else
		rc = setenv(name, value, 1);
	free(value);
	return rc;
}
