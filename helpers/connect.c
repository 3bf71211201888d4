/*
 * sshperf-connect: the connect poller. Tries a TCP connect every interval
 * until one succeeds and the server sends its "SSH-" line, the way
 * OpenSSH's ssh-keyscan reads a greeting: non-blocking connect, poll()
 * with a deadline, lines read until one starts with "SSH-".
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <err.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

/*
 * RFC 4253 4.2 limits the identification line to 255 characters with CR
 * LF; lines before it have no stated limit, so accept up to 1024 bytes per
 * line and 64 KiB in all before giving up on a connection.
 */
#define LINE_MAX_BYTES		1024
#define PREAMBLE_MAX_BYTES	(64 * 1024)

#define DEFAULT_INTERVAL_US	1000
#define DEFAULT_TIMEOUT_MS	10000
#define MAX_BEHIND_TICKS	10

enum attempt_result {
	ATTEMPT_GREETING,	/* the server sent its SSH- line */
	ATTEMPT_FAILED,		/* refused, reset or closed: try again */
	ATTEMPT_DEADLINE	/* the overall deadline passed during it */
};

struct poller {
	struct addrinfo	*addr;
	uint64_t	 interval_ns;
	uint64_t	 timeout_ns;
	uint64_t	 deadline_ns;		/* start_ns + timeout_ns */
	uint64_t	 start_ns;		/* when polling began */
	uint64_t	 last_attempt_ns;	/* when the last attempt began */
	uint64_t	 attempts;
	uint64_t	 connect_ns;	/* when the TCP connect completed */
	uint64_t	 greeting_ns;	/* when the SSH- line was complete */
	char		 banner[LINE_MAX_BYTES + 1];
	char		 last_error[128];
};

static void
set_error(struct poller *p, const char *what)
{
	snprintf(p->last_error, sizeof(p->last_error), "%s", what);
}

/*
 * Waits for events on fd until deadline_ns: 1 when ready, 0 at the deadline.
 * The fd is looked at once even when the deadline has passed, so that an
 * answer that is already there counts.
 */
static int
wait_fd(int fd, short events, uint64_t deadline_ns)
{
	struct pollfd pfd;
	struct timespec ts;
	uint64_t now, left_ns;
	int r;

	for (;;) {
		now = now_ns();
		left_ns = now < deadline_ns ? deadline_ns - now : 0;
		ts.tv_sec = (time_t)(left_ns / NS_PER_S);
		ts.tv_nsec = (long)(left_ns % NS_PER_S);
		pfd.fd = fd;
		pfd.events = events;
		pfd.revents = 0;
		r = ppoll(&pfd, 1, &ts, NULL);
		if (r == -1) {
			if (errno == EINTR)
				continue;
			err(2, "poll");
		}
		if (r > 0)
			return 1;
		if (left_ns == 0)
			return 0;
	}
}

/*
 * How long an attempt may wait for its connect and greeting: the deadline
 * plus one interval, so that the last attempt, which starts at the
 * deadline, has as long as any other for an answer already on its way.
 */
static uint64_t
attempt_end_ns(const struct poller *p)
{
	return p->deadline_ns + p->interval_ns;
}

/* Copies len bytes of line to dst, control characters replaced by '?'. */
static void
printable(char *dst, const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		dst[i] = ((unsigned char)line[i] < 0x20 || line[i] == 0x7f) ?
		    '?' : line[i];
	dst[len] = '\0';
}

/*
 * Reads lines until one starts with "SSH-" (RFC 4253 4.2 lets the server
 * send other lines first) and stores it without CR LF in p->banner.
 */
static enum attempt_result
read_greeting(struct poller *p, int fd)
{
	char chunk[4096], line[LINE_MAX_BYTES + 1];
	size_t len = 0, total = 0;
	ssize_t n, i;
	uint64_t read_ns;

	for (;;) {
		if (!wait_fd(fd, POLLIN, attempt_end_ns(p))) {
			set_error(p, "no greeting before the deadline");
			return ATTEMPT_DEADLINE;
		}
		n = read(fd, chunk, sizeof(chunk));
		read_ns = now_ns();
		if (n == -1) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			set_error(p, strerror(errno));
			return ATTEMPT_FAILED;
		}
		if (n == 0) {
			set_error(p, "connection closed before the greeting");
			return ATTEMPT_FAILED;
		}
		for (i = 0; i < n; i++) {
			if (++total > PREAMBLE_MAX_BYTES) {
				set_error(p, "more than 64 KiB before the greeting");
				return ATTEMPT_FAILED;
			}
			if (chunk[i] != '\n') {
				if (len == LINE_MAX_BYTES) {
					set_error(p, "line longer than 1024 bytes "
					    "before the greeting");
					return ATTEMPT_FAILED;
				}
				line[len++] = chunk[i];
				continue;
			}
			if (len > 0 && line[len - 1] == '\r')
				len--;
			line[len] = '\0';
			if (strncmp(line, "SSH-", 4) == 0) {
				printable(p->banner, line, len);
				p->greeting_ns = read_ns;
				return ATTEMPT_GREETING;
			}
			len = 0;
		}
	}
}

/* One non-blocking connect and, when it succeeds, the wait for the greeting. */
static enum attempt_result
attempt(struct poller *p)
{
	enum attempt_result r;
	socklen_t errlen;
	int fd, one = 1, soerr;

	fd = socket(p->addr->ai_family, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0);
	if (fd == -1)
		err(2, "socket");
	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1)
		err(2, "setsockopt TCP_NODELAY");
	if (connect(fd, p->addr->ai_addr, p->addr->ai_addrlen) == -1) {
		if (errno != EINPROGRESS) {
			set_error(p, strerror(errno));
			close(fd);
			return ATTEMPT_FAILED;
		}
		if (!wait_fd(fd, POLLOUT, attempt_end_ns(p))) {
			set_error(p, "connect not complete before the deadline");
			close(fd);
			return ATTEMPT_DEADLINE;
		}
		errlen = sizeof(soerr);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &errlen) == -1)
			err(2, "getsockopt SO_ERROR");
		if (soerr != 0) {
			set_error(p, strerror(soerr));
			close(fd);
			return ATTEMPT_FAILED;
		}
	}
	p->connect_ns = now_ns();
	r = read_greeting(p, fd);
	/* Nothing beyond the greeting: close at once. */
	close(fd);
	return r;
}

/*
 * Attempts on an absolute schedule: attempt k starts at start + k * interval,
 * so time spent in an attempt or a late wake-up does not stretch the
 * interval. A tick already past is served at once; when more than
 * MAX_BEHIND_TICKS are past (an attempt that waited long for a greeting),
 * they are skipped rather than made up in a burst.
 *
 * The last tick is the deadline itself: a tick that would fall past it is
 * moved onto it, and polling ends only after an attempt that began at or
 * after the deadline. So a timeout of N ms polls for at least N ms, and at
 * most N ms plus one attempt; a server that answers in the last interval
 * before the deadline is still found.
 */
static enum attempt_result
poll_until_greeting(struct poller *p)
{
	enum attempt_result r;
	uint64_t tick, now;

	p->start_ns = tick = now_ns();
	p->deadline_ns = p->start_ns + p->timeout_ns;
	for (;;) {
		p->last_attempt_ns = now_ns();
		p->attempts++;
		if ((r = attempt(p)) != ATTEMPT_FAILED)
			return r;
		if (p->last_attempt_ns >= p->deadline_ns)
			return ATTEMPT_DEADLINE;
		now = now_ns();
		tick += p->interval_ns;
		if (now > tick && (now - tick) / p->interval_ns > MAX_BEHIND_TICKS)
			tick += (now - tick) / p->interval_ns * p->interval_ns;
		if (tick > p->deadline_ns)
			tick = p->deadline_ns;
		sleep_until_ns(tick);
	}
}

/* Milliseconds from t0_ns to t_ns; negative when t_ns is earlier. */
static double
ms_since(uint64_t t0_ns, uint64_t t_ns)
{
	return t_ns >= t0_ns ? ns_to_ms(t_ns - t0_ns) : -ns_to_ms(t0_ns - t_ns);
}

/* Mean time between the starts of the attempts, in microseconds. */
static double
mean_interval_us(const struct poller *p)
{
	if (p->attempts < 2)
		return 0;
	return (double)(p->last_attempt_ns - p->start_ns) /
	    (double)(p->attempts - 1) / 1000.0;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: sshperf-connect [-i interval_us] "
	    "[-t timeout_ms] [-T t0_mono_ns] host port\n");
	exit(2);
}

/* --help: the usage line and what each option means. */
static void __attribute__((noreturn))
long_usage(void)
{
	fprintf(stderr, "usage: sshperf-connect [-i interval_us] "
	    "[-t timeout_ms] [-T t0_mono_ns] host port\n"
	    "  -i  start an attempt every interval_us microseconds "
	    "(default %d)\n"
	    "  -t  poll for at least timeout_ms milliseconds and at most "
	    "timeout_ms plus one\n"
	    "      interval: the last attempt starts at the deadline and "
	    "waits one interval\n"
	    "      for its greeting (default %d)\n"
	    "  -T  report times relative to this CLOCK_MONOTONIC time in "
	    "ns\n", DEFAULT_INTERVAL_US, DEFAULT_TIMEOUT_MS);
	exit(2);
}

/*
 * Polls host:port until the SSH server there sends its greeting, and prints
 * when that happened as key=value lines: status, start_mono_ns,
 * greeting_mono_ns, greeting_ms, connect_ms, attempts, interval_us, banner
 * (or status=timeout, attempts, last_attempt_ms, last_error: the last
 * attempt starts at or after the deadline). Times are relative to -T, an
 * absolute CLOCK_MONOTONIC time in ns, or else to the start of polling.
 * Exit 0 when greeted, 1 at the timeout, 2 on a usage error.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, long_usage);
	struct addrinfo hints;
	struct poller p;
	uint64_t timeout_ms = DEFAULT_TIMEOUT_MS, t0_ns = 0;
	int ch, gai, have_t0 = 0;

	memset(&p, 0, sizeof(p));
	p.interval_ns = DEFAULT_INTERVAL_US * 1000ULL;
	while ((ch = getopt(argc, argv, "i:t:T:")) != -1) {
		switch (ch) {
		case 'i':
			p.interval_ns = 1000ULL *
			    opt_u64("-i interval_us", optarg, 1, 60000000);
			break;
		case 't':
			timeout_ms = opt_u64("-t timeout_ms", optarg, 1,
			    86400000);
			break;
		case 'T':
			t0_ns = opt_u64("-T t0_mono_ns", optarg, 0, UINT64_MAX);
			have_t0 = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage();

	opt_u64("port", argv[1], 1, 65535);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if ((gai = getaddrinfo(argv[0], argv[1], &hints, &p.addr)) != 0)
		errx(2, "host: \"%s\" is not a numeric IPv4 or IPv6 address "
		    "(%s)", argv[0], gai_strerror(gai));

	p.timeout_ns = timeout_ms * NS_PER_MS;
	set_error(&p, "no attempt finished");
	if (poll_until_greeting(&p) == ATTEMPT_GREETING) {
		if (!have_t0)
			t0_ns = p.start_ns;
		printf("status=ok\n");
		printf("start_mono_ns=%llu\n", (unsigned long long)p.start_ns);
		printf("greeting_mono_ns=%llu\n",
		    (unsigned long long)p.greeting_ns);
		printf("greeting_ms=%.3f\n", ms_since(t0_ns, p.greeting_ns));
		printf("connect_ms=%.3f\n", ms_since(t0_ns, p.connect_ns));
		printf("attempts=%llu\n", (unsigned long long)p.attempts);
		printf("interval_us=%.1f\n", mean_interval_us(&p));
		printf("banner=%s\n", p.banner);
	} else {
		printf("status=timeout\n");
		printf("start_mono_ns=%llu\n", (unsigned long long)p.start_ns);
		printf("attempts=%llu\n", (unsigned long long)p.attempts);
		printf("last_attempt_ms=%.3f\n",
		    ms_since(p.start_ns, p.last_attempt_ns));
		printf("interval_us=%.1f\n", mean_interval_us(&p));
		printf("last_error=%s\n", p.last_error);
	}
	freeaddrinfo(p.addr);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	return p.greeting_ns != 0 ? 0 : 1;
}
