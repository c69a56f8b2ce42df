/*
 * multi_anchor_sync.c - linked into benchmarks/iscsi_bare_loop.c (unchanged) by
 * bench_multi_drive.py with -Wl,--wrap=clock_gettime, so that several copies of the C
 * anchor running at once start their timed loops together and say when they ran.
 *
 * The loop's first CLOCK_MONOTONIC read is the start of its timed loop (after login,
 * REWIND and MODE SELECT): there it waits until ANCHOR_START_AT (CLOCK_MONOTONIC
 * seconds, the same clock as Python's time.monotonic on Linux). At exit it prints
 * "t0=<first read> t1=<last read>" on stdout after the loop's own line: the span of the
 * timed loop on the machine-wide clock, for an aggregate over all loops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int __real_clock_gettime(clockid_t id, struct timespec *ts);

static int reads;
static double first, last;

static double seconds(const struct timespec *ts)
{
	return ts->tv_sec + ts->tv_nsec / 1e9;
}

int __wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	int rc;

	if (id == CLOCK_MONOTONIC && reads == 0 && getenv("ANCHOR_START_AT")) {
		double at = atof(getenv("ANCHOR_START_AT"));
		struct timespec now;

		for (;;) {
			__real_clock_gettime(CLOCK_MONOTONIC, &now);
			double wait = at - seconds(&now);
			if (wait <= 0)
				break;
			struct timespec nap = { (time_t)wait, (long)((wait - (time_t)wait) * 1e9) };
			nanosleep(&nap, NULL);
		}
	}
	rc = __real_clock_gettime(id, ts);
	if (id == CLOCK_MONOTONIC) {
		if (reads++ == 0)
			first = seconds(ts);
		else
			last = seconds(ts);
	}
	return rc;
}

__attribute__((destructor)) static void report(void)
{
	if (reads >= 2)
		printf("t0=%.6f t1=%.6f\n", first, last);
	fflush(stdout);
}
