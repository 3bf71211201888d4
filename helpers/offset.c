/*
 * sshperf-offset: how far another machine's wall clock is from this one's.
 * It runs a command that answers each line it reads with that machine's
 * clock as SECONDS.NANOSECONDS (the load mode runs ssh to the target with
 * `while read -r _; do date +%s.%N; done`), sends it a line at a time and
 * brackets each answer with this machine's clock. The remote clock was
 * read somewhere between the send and the answer, so the offset is the
 * remote time minus the middle of that round trip, and half the round
 * trip is the most it can be off: the sample with the shortest round
 * trip is the one printed (as NTP picks its best of several exchanges).
 * The first answer waits for the login and the remote shell, and is not
 * a sample.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proc.h"

#define DEFAULT_SAMPLES		10
#define DEFAULT_TIMEOUT_S	10.0
#define ANSWER_MAX		64

struct config {
	uint64_t	 samples;
	uint64_t	 timeout_ns;
	const char	*out_path;
};

/* One exchange: this machine's wall clock at the send, the round trip
 * (monotonic) and the remote clock's answer. */
struct exchange {
	uint64_t	 send_wall_ns;
	uint64_t	 round_trip_ns;
	uint64_t	 remote_ns;
};

/* The child and the two ends of its pipes that are ours. */
struct remote {
	pid_t		 pid;
	int		 to_fd;
	int		 from_fd;
	char		 buf[ANSWER_MAX * 4];
	size_t		 have;
};

/*
 * Parses "SECONDS.NANOSECONDS" (1 to 9 digits after the point, a
 * trailing carriage return allowed) into *ns. Returns 0, or -1.
 */
static int
parse_answer(const char *line, uint64_t *ns)
{
	const char *dot, *p;
	char secs[32];
	uint64_t s, frac = 0;
	size_t n, digits = 0;
	const char *errstr;

	if ((dot = strchr(line, '.')) == NULL)
		return -1;
	n = (size_t)(dot - line);
	if (n == 0 || n >= sizeof(secs))
		return -1;
	memcpy(secs, line, n);
	secs[n] = '\0';
	if (parse_u64(secs, 1, UINT64_MAX / NS_PER_S - 1, &s, &errstr) != 0)
		return -1;
	for (p = dot + 1; *p >= '0' && *p <= '9'; p++) {
		if (++digits > 9)
			return -1;
		frac = frac * 10 + (uint64_t)(*p - '0');
	}
	if (digits == 0 || (*p != '\0' && strcmp(p, "\r") != 0))
		return -1;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = s * NS_PER_S + frac;
	return 0;
}

/*
 * Reads one line from the child until deadline_ns into line (without the
 * newline). Returns 0, or -1 with why in errbuf: the deadline, or the
 * child's end of the pipe closed.
 */
static int
read_line(struct remote *r, uint64_t deadline_ns, char *line, size_t len,
    char *errbuf, size_t errlen)
{
	struct pollfd pfd;
	char *nl;
	uint64_t now;
	ssize_t got;
	size_t n;
	int ms;

	for (;;) {
		if ((nl = memchr(r->buf, '\n', r->have)) != NULL) {
			n = (size_t)(nl - r->buf);
			if (n >= len)
				n = len - 1;
			memcpy(line, r->buf, n);
			line[n] = '\0';
			n = (size_t)(nl - r->buf) + 1;
			memmove(r->buf, r->buf + n, r->have - n);
			r->have -= n;
			return 0;
		}
		if (r->have == sizeof(r->buf)) {
			snprintf(errbuf, errlen, "an answer longer than %zu "
			    "bytes", sizeof(r->buf));
			return -1;
		}
		now = now_ns();
		if (now >= deadline_ns) {
			snprintf(errbuf, errlen, "no answer within the "
			    "timeout");
			return -1;
		}
		ms = (int)((deadline_ns - now + NS_PER_MS - 1) / NS_PER_MS);
		pfd.fd = r->from_fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, ms) == -1) {
			if (errno == EINTR)
				continue;
			err(2, "poll");
		}
		if (pfd.revents == 0)
			continue;
		got = read(r->from_fd, r->buf + r->have,
		    sizeof(r->buf) - r->have);
		if (got == -1 && errno == EINTR)
			continue;
		if (got <= 0) {
			snprintf(errbuf, errlen, "the command ended before it "
			    "answered");
			return -1;
		}
		r->have += (size_t)got;
	}
}

/*
 * One exchange: a line to the child, its answer back, each end stamped.
 * Returns 0, or -1 with why in errbuf.
 */
static int
exchange(struct remote *r, uint64_t timeout_ns, struct exchange *x,
    char *errbuf, size_t errlen)
{
	char line[ANSWER_MAX];
	uint64_t send_mono;

	x->send_wall_ns = wall_ns();
	send_mono = now_ns();
	if (write(r->to_fd, "\n", 1) != 1) {
		snprintf(errbuf, errlen, "the command ended before it was "
		    "asked (%s)", strerror(errno));
		return -1;
	}
	if (read_line(r, send_mono + timeout_ns, line, sizeof(line), errbuf,
	    errlen) != 0)
		return -1;
	x->round_trip_ns = now_ns() - send_mono;
	if (parse_answer(line, &x->remote_ns) != 0) {
		snprintf(errbuf, errlen, "the answer \"%.40s\" is not "
		    "SECONDS.NANOSECONDS", line);
		return -1;
	}
	return 0;
}

/* The remote clock minus the middle of the round trip, in ns. */
static int64_t
offset_ns(const struct exchange *x)
{
	uint64_t mid = x->send_wall_ns + x->round_trip_ns / 2;

	return x->remote_ns >= mid ? (int64_t)(x->remote_ns - mid) :
	    -(int64_t)(mid - x->remote_ns);
}

/* Starts argv with a pipe on its stdin and one on its stdout. */
static void
remote_start(struct remote *r, char **argv)
{
	int to[2], from[2], e;

	memset(r, 0, sizeof(*r));
	if (pipe2(to, O_CLOEXEC) == -1 || pipe2(from, O_CLOEXEC) == -1)
		err(2, "pipe2");
	e = proc_spawn(&r->pid, argv, to[0], from[1], PROC_INHERIT, NULL,
	    NULL);
	if (e != 0) {
		errno = e;
		warn("cannot run %s", argv[0]);
		exit(e == ENOENT ? 127 : 126);
	}
	close(to[0]);
	close(from[1]);
	r->to_fd = to[1];
	r->from_fd = from[0];
}

/*
 * Closes the child's stdin (its read loop ends) and waits for it until
 * timeout_ns, then stops it. Returns its exit code.
 */
static int
remote_end(struct remote *r, uint64_t timeout_ns)
{
	int wstatus;

	close(r->to_fd);
	if (!proc_wait_until(r->pid, now_ns() + timeout_ns, &wstatus, NULL))
		(void)proc_stop(r->pid, PROC_KILL_GRACE_NS, &wstatus, NULL);
	close(r->from_fd);
	return exit_code_of(wstatus);
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-offset [-n samples] [-t timeout_s] "
	    "[-o samples.tsv]\n"
	    "                      -- command [arg ...]\n");
	exit(2);
}

/*
 * Measures the clock of the machine that the command reaches (above):
 * samples exchanges (-n, default 10) after a first one that is not a
 * sample, each answer awaited at most timeout_s (-t, 10). Prints
 * key=value lines on stdout: samples, offset_ms (remote minus local,
 * positive when the remote clock is ahead), uncertainty_ms (half the
 * round trip of that sample: the offset is within offset_ms plus or
 * minus it), round_trip_ms (its round trip) and round_trip_max_ms (the
 * longest of all samples). -o writes every sample (sample,
 * send_wall_ns, remote_wall_ns, round_trip_ms, offset_ms).
 * Exit 0, 1 when the command did not answer as asked (why on stderr),
 * 2 on a usage error, 127 (126) when it is not found (cannot be run).
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct config cf;
	struct remote r;
	struct exchange x, best;
	char why[160];
	double timeout_s = DEFAULT_TIMEOUT_S;
	uint64_t i, rt_max = 0;
	FILE *f = NULL;
	int ch, fd, code;

	memset(&cf, 0, sizeof(cf));
	memset(&best, 0, sizeof(best));
	cf.samples = DEFAULT_SAMPLES;
	while ((ch = getopt(argc, argv, "+n:o:t:")) != -1) {
		switch (ch) {
		case 'n':
			cf.samples = opt_u64("-n samples", optarg, 1, 1000);
			break;
		case 'o':
			cf.out_path = optarg;
			break;
		case 't':
			timeout_s = opt_double("-t timeout_s", optarg,
			    0.001, 3600);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		errx(2, "no command given: put it after --");
	cf.timeout_ns = (uint64_t)(timeout_s * (double)NS_PER_S);
	signal(SIGPIPE, SIG_IGN);
	if (cf.out_path != NULL) {
		if ((fd = open(cf.out_path, O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC, 0644)) == -1 || (f = fdopen(fd, "w")) == NULL)
			err(2, "%s", cf.out_path);
		fprintf(f, "sample\tsend_wall_ns\tremote_wall_ns"
		    "\tround_trip_ms\toffset_ms\n");
	}

	remote_start(&r, argv);
	if (exchange(&r, cf.timeout_ns, &x, why, sizeof(why)) != 0) {
		code = remote_end(&r, cf.timeout_ns);
		errx(1, "first answer: %s (the command's exit: %d)", why, code);
	}
	for (i = 1; i <= cf.samples; i++) {
		if (exchange(&r, cf.timeout_ns, &x, why, sizeof(why)) != 0) {
			code = remote_end(&r, cf.timeout_ns);
			errx(1, "sample %" PRIu64 ": %s (the command's exit: "
			    "%d)", i, why, code);
		}
		if (f != NULL)
			fprintf(f, "%" PRIu64 "\t%" PRIu64 "\t%" PRIu64
			    "\t%.3f\t%.3f\n", i, x.send_wall_ns, x.remote_ns,
			    ns_to_ms(x.round_trip_ns),
			    (double)offset_ns(&x) / (double)NS_PER_MS);
		if (i == 1 || x.round_trip_ns < best.round_trip_ns)
			best = x;
		if (x.round_trip_ns > rt_max)
			rt_max = x.round_trip_ns;
	}
	(void)remote_end(&r, cf.timeout_ns);
	if (f != NULL && fclose(f) == EOF)
		err(2, "%s", cf.out_path);
	printf("samples=%" PRIu64 "\noffset_ms=%.3f\nuncertainty_ms=%.3f\n"
	    "round_trip_ms=%.3f\nround_trip_max_ms=%.3f\n", cf.samples,
	    (double)offset_ns(&best) / (double)NS_PER_MS,
	    ns_to_ms(best.round_trip_ns) / 2, ns_to_ms(best.round_trip_ns),
	    ns_to_ms(rt_max));
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	return 0;
}
