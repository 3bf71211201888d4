/*
 * sshperf-clock: prints the CLOCK_MONOTONIC time in nanoseconds, the clock
 * every helper uses, so that a shell script can stamp an event (the moment
 * it sends SIGHUP) and hand it to another helper (sshperf-connect -T).
 * With -u it waits for a moment of the wall clock instead: the load
 * mode's common start, where several machines begin at the same second
 * and only the wall clock is shared between them.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

/* -m: how far ahead a start may be, by default (an hour). */
#define DEFAULT_MAX_AHEAD_S	3600
/*
 * The wait sleeps on the wall clock in slices of at most this long, and
 * checks the monotonic clock between them: a wall clock set back while
 * it waits cannot stretch the wait past its deadline.
 */
#define SLICE_NS		(500 * NS_PER_MS)
/* The wait's deadline: the start, as the monotonic clock saw it
 * coming, plus this much for a wall clock stepped back meanwhile. */
#define DEADLINE_SLACK_NS	(5 * NS_PER_S)

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-clock\n"
	    "       sshperf-clock -u epoch_s [-m max_ahead_s]\n");
	exit(2);
}

/*
 * Sleeps until the wall clock reads start_ns (at once when it has
 * passed). Returns 0, or -1 when the monotonic deadline came first (the
 * wall clock was set back while it waited).
 */
static int
wait_wall(uint64_t start_ns)
{
	struct timespec ts;
	uint64_t now, until, deadline_ns;

	now = wall_ns();
	deadline_ns = now_ns() + (start_ns > now ? start_ns - now : 0) +
	    DEADLINE_SLACK_NS;
	while ((now = wall_ns()) < start_ns) {
		if (now_ns() >= deadline_ns)
			return -1;
		until = start_ns - now > SLICE_NS ? now + SLICE_NS : start_ns;
		ts.tv_sec = (time_t)(until / NS_PER_S);
		ts.tv_nsec = (long)(until % NS_PER_S);
		/* TIMER_ABSTIME on CLOCK_REALTIME: a clock set forward
		 * ends the slice at once, as it should; a signal too (the
		 * loop looks again). */
		(void)clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts,
		    NULL);
	}
	return 0;
}

/*
 * Without options prints mono_ns=N (CLOCK_MONOTONIC, ns).
 * -u epoch_s: waits until the wall clock reads epoch_s (seconds since
 * the epoch; at once when that has passed), then prints start_wall_ns
 * (the moment asked for), woke_wall_ns (when the wait ended) and late_ms
 * (how much later than asked, 0 or more). A start more than max_ahead_s
 * (-m, 3600) ahead is refused.
 * Exit 0, 1 when the wall clock was set back during the wait (it ends at
 * its deadline instead), 2 on a usage error or a start too far ahead.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	uint64_t start_s = 0, max_ahead_s = DEFAULT_MAX_AHEAD_S, start_ns;
	uint64_t woke_ns, now;
	int ch, wait_for = 0;

	while ((ch = getopt(argc, argv, "m:u:")) != -1) {
		switch (ch) {
		case 'm':
			max_ahead_s = opt_u64("-m max_ahead_s", optarg, 1,
			    7 * 86400);
			break;
		case 'u':
			start_s = opt_u64("-u epoch_s", optarg, 1,
			    UINT64_MAX / NS_PER_S);
			wait_for = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (!wait_for) {
		printf("mono_ns=%llu\n", (unsigned long long)now_ns());
	} else {
		start_ns = start_s * NS_PER_S;
		now = wall_ns();
		if (start_ns > now && start_ns - now > max_ahead_s * NS_PER_S)
			errx(2, "-u %llu is %llu s ahead, more than %llu s",
			    (unsigned long long)start_s,
			    (unsigned long long)((start_ns - now) / NS_PER_S),
			    (unsigned long long)max_ahead_s);
		if (wait_wall(start_ns) != 0)
			errx(1, "the wall clock was set back while waiting "
			    "for %llu; gave up at the deadline",
			    (unsigned long long)start_s);
		woke_ns = wall_ns();
		printf("start_wall_ns=%llu\nwoke_wall_ns=%llu\n"
		    "late_ms=%.3f\n", (unsigned long long)start_ns,
		    (unsigned long long)woke_ns,
		    ns_to_ms(woke_ns - start_ns));
	}
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	return 0;
}
