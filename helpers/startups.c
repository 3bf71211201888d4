/*
 * sshperf-startups: the connections sshd holds unauthenticated, as its
 * listener counts them. sshd writes the count into its own process title
 * each time it changes ("sshd: ... [listener] 3 of 10-100 startups": 3
 * connections not yet authenticated, MaxStartups' start 10 and full 100);
 * this reads /proc/PID/cmdline of the listener on a fixed schedule and
 * keeps every sample.
 */
#include <sys/types.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "stats.h"

#define TITLE_BYTES	4096
#define DEFAULT_INTERVAL_MS	10
#define DEFAULT_TIMEOUT_S	600
#define TITLE_MARK	"[listener] "

struct config {
	pid_t		 pid;		/* -p: the listener */
	uint64_t	 interval_ns;	/* -i */
	uint64_t	 timeout_ns;	/* -t */
	const char	*tsv;		/* -o: one row per sample */
};

/* What one title says. */
struct title {
	long		 startups;
	long		 begin, full;
};

static volatile sig_atomic_t stop_signal;

static void
on_signal(int sig)
{
	stop_signal = sig;
}

/*
 * Reads the listener's title. 0 when it holds the count, 1 when the
 * process has another title (not a listener, or one that has not set it
 * yet), -1 when the process is gone.
 */
static int
read_title(pid_t pid, struct title *t)
{
	char path[64], buf[TITLE_BYTES + 1], *p;
	ssize_t n, i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(fd, buf, TITLE_BYTES);
	close(fd);
	if (n <= 0)
		return -1;	/* a zombie has no command line */
	for (i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	buf[n] = '\0';
	if ((p = strstr(buf, TITLE_MARK)) == NULL)
		return 1;
	p += strlen(TITLE_MARK);
	if (sscanf(p, "%ld of %ld-%ld", &t->startups, &t->begin, &t->full) != 3
	    || t->startups < 0)
		return 1;
	return 0;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-startups -p listener_pid [-i interval_ms] "
	    "[-t timeout_s] [-o samples.tsv]\n");
	exit(2);
}

/*
 * Samples the listener's count of unauthenticated connections every -i ms
 * (10; on an absolute schedule, so a late sample does not shift the
 * others) until SIGTERM or SIGINT, the -t deadline (600 s), or the end of
 * the listener. -o FILE gets one row per sample (t_ms after the first
 * sample, startups). Then prints key=value lines: samples, untitled (the
 * samples whose title held no count), begin and full (MaxStartups' start
 * and full as the title gives them), and startups_max, startups_p50,
 * startups_mean (the mean over equally spaced samples: the time average),
 * startups_ms (the count over time, each sample held until the next:
 * connection-milliseconds unauthenticated; divided by the connections
 * that came, the mean time each stayed unauthenticated, Little's law),
 * ended (signal, deadline or gone).
 * Exit 0 when at least one sample held a count, 1 when none did, 2 on a
 * usage error.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct config cf = { .interval_ns = DEFAULT_INTERVAL_MS * NS_PER_MS,
	    .timeout_ns = DEFAULT_TIMEOUT_S * NS_PER_S };
	struct samples counts;
	struct sigaction sa;
	struct title t = { 0 }, last = { .begin = -1, .full = -1 };
	uint64_t t0_ns, due_ns, prev_ns, deadline_ns, untitled = 0;
	double area_ms = 0;	/* the count over time: connection-ms */
	long held = -1;		/* the count of the sample before */
	const char *ended = "deadline";
	FILE *tsv = NULL;
	int ch, r;

	while ((ch = getopt(argc, argv, "i:o:p:t:")) != -1) {
		switch (ch) {
		case 'i':
			cf.interval_ns = NS_PER_MS * opt_u64("-i interval_ms",
			    optarg, 1, 60000);
			break;
		case 'o':
			cf.tsv = optarg;
			break;
		case 'p':
			cf.pid = (pid_t)opt_u64("-p listener_pid", optarg, 1,
			    INT_MAX);
			break;
		case 't':
			cf.timeout_ns = NS_PER_S * opt_u64("-t timeout_s",
			    optarg, 1, 86400);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || cf.pid == 0)
		usage();
	if (cf.tsv != NULL) {
		if ((tsv = fopen(cf.tsv, "we")) == NULL)
			err(2, "-o %s", cf.tsv);
		fprintf(tsv, "t_ms\tstartups\n");
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1)
		err(2, "sigaction");

	samples_init(&counts);
	t0_ns = due_ns = now_ns();
	deadline_ns = t0_ns + cf.timeout_ns;
	while (!stop_signal) {
		r = read_title(cf.pid, &t);
		prev_ns = due_ns;
		if (r < 0) {
			ended = "gone";
			break;
		}
		if (r == 0) {
			if (samples_add(&counts, (double)t.startups) != 0)
				err(2, "samples");
			last = t;
			held = t.startups;
			if (tsv != NULL)
				fprintf(tsv, "%.3f\t%ld\n",
				    ns_to_ms(due_ns - t0_ns), t.startups);
		} else
			untitled++;
		due_ns += cf.interval_ns;
		if (due_ns > deadline_ns)
			break;
		/* A late sample is not made up for: the next due one. */
		while (due_ns < now_ns())
			due_ns += cf.interval_ns;
		/* The count holds until the next sample. */
		if (held >= 0)
			area_ms += (double)held * ns_to_ms(due_ns - prev_ns);
		{
			struct timespec ts = {
				.tv_sec = (time_t)(due_ns / NS_PER_S),
				.tv_nsec = (long)(due_ns % NS_PER_S) };

			/* EINTR: a signal, seen at the loop's top. */
			(void)clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
			    &ts, NULL);
		}
	}
	if (stop_signal)
		ended = "signal";
	if (tsv != NULL && fclose(tsv) == EOF)
		err(2, "-o %s", cf.tsv);

	printf("samples=%zu\nuntitled=%llu\n", counts.n,
	    (unsigned long long)untitled);
	printf("begin=%ld\nfull=%ld\n", last.begin, last.full);
	if (counts.n > 0)
		printf("startups_max=%.0f\nstartups_p50=%.0f\n"
		    "startups_mean=%.3f\n", samples_max(&counts),
		    samples_percentile(&counts, 50), samples_mean(&counts));
	else
		printf("startups_max=-\nstartups_p50=-\nstartups_mean=-\n");
	printf("startups_ms=%.1f\ninterval_ms=%.3f\nended=%s\n", area_ms,
	    ns_to_ms(cf.interval_ns), ended);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	r = counts.n > 0 ? 0 : 1;
	samples_free(&counts);
	return r;
}
