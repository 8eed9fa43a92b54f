/* time() and gettimeofday() stubs returning $FAKE_NOW, so Slurm's parse_time() can be called at a fixed instant.
 * Built and preloaded by slurm_oracle.py (parse_time vector). */
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static time_t fake_now(void)
{
	const char *e = getenv("FAKE_NOW");
	return e ? (time_t) strtoll(e, NULL, 10) : 0;
}

time_t time(time_t *t)
{
	time_t v = fake_now();
	if (t)
		*t = v;
	return v;
}

int gettimeofday(struct timeval *tv, void *tz)
{
	(void) tz;
	tv->tv_sec = fake_now();
	tv->tv_usec = 0;
	return 0;
}
