/*
 * Unit tests of sshperf-echo's timer against loopback TCP echo servers run
 * in child processes (the bench fixture tests/bench/echo-server.c): a
 * plain one, one that stalls every 10th byte, one that echoes twice (a PTY
 * with echo on, plus cat) and one that hangs up early. Prints TAP.
 */
#define main echo_main
#include "../../helpers/echo.c"
#undef main
#define main echo_server_main
#include "../bench/echo-server.c"
#undef main

#include <stdarg.h>

static int test_num, test_failed;

static void
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++test_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!cond)
		test_failed++;
}

enum server_kind {
	SERVE_PLAIN,
	SERVE_STALL,	/* every 10th byte held 20 ms */
	SERVE_TWICE,	/* every byte written back twice */
	SERVE_HANGUP	/* closes after 11 bytes (the probe and 10) */
};

struct server {
	pid_t		 pid;
	uint64_t	 port;
};

static void
serve_kind(int fd, enum server_kind kind)
{
	char c, two[2];
	uint64_t n = 0;

	switch (kind) {
	case SERVE_PLAIN:
		serve_one(fd, 0, 0);
		return;
	case SERVE_STALL:
		serve_one(fd, 10, 20 * NS_PER_MS);
		return;
	case SERVE_TWICE:
	case SERVE_HANGUP:
		set_nodelay(fd);
		while (read(fd, &c, 1) == 1) {
			two[0] = two[1] = c;
			if (write(fd, two, kind == SERVE_TWICE ? 2 : 1) < 1)
				return;
			if (kind == SERVE_HANGUP && ++n == 11)
				return;
		}
	}
}

static struct server
server_start(enum server_kind kind)
{
	struct server s;
	int lfd, fd;

	lfd = server_listen("127.0.0.1", 0);
	s.port = server_port(lfd);
	fflush(stdout);
	if ((s.pid = fork()) == -1)
		err(2, "fork");
	if (s.pid == 0) {
		if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) == -1)
			_exit(2);
		serve_kind(fd, kind);
		close(fd);
		_exit(0);
	}
	close(lfd);
	return s;
}

static void
server_stop(struct server *s)
{
	kill(s->pid, SIGTERM);
	waitpid(s->pid, NULL, 0);
}

/* Connects, probes and times count bytes at rate; returns the probe. */
static int
timed_run(enum server_kind kind, uint64_t count, uint64_t rate,
    struct echo_run *r)
{
	struct server s = server_start(kind);
	struct link l;
	uint64_t echoed_ns;
	int copies;

	memset(&l, 0, sizeof(l));
	if ((l.fd = tcp_connect("127.0.0.1", s.port)) == -1)
		errx(2, "cannot connect to the test echo server");
	copies = probe_echo(&l, now_ns() + 5 * NS_PER_S, &echoed_ns);
	if (copies < 1)
		copies = 1;
	/* 30 s before a byte counts as lost: a hang guard, not a speed bound. */
	echo_run_init(r, count, rate, 30 * NS_PER_S, (unsigned)copies);
	run_timer(&l, r);
	close(l.fd);
	server_stop(&s);
	return copies;
}

static double
percentile(const struct echo_run *r, double p)
{
	struct samples s;
	uint64_t i;
	double v;

	samples_init(&s);
	for (i = 0; i < r->count; i++)
		if (r->echo_ns[i] != NOT_ECHOED)
			samples_add(&s, ns_to_ms(r->echo_ns[i]));
	v = samples_percentile(&s, p);
	samples_free(&s);
	return v;
}

static double
echo_ms(const struct echo_run *r, uint64_t seq)
{
	return r->echo_ns[seq] == NOT_ECHOED ? -1 : ns_to_ms(r->echo_ns[seq]);
}

static void
test_schedule(void)
{
	struct echo_run r;

	echo_run_init(&r, 5, 100, NS_PER_S, 1);
	ok(r.sched_ns[0] == 0 && r.sched_ns[1] == 10 * NS_PER_MS &&
	    r.sched_ns[4] == 40 * NS_PER_MS,
	    "100 per second: bytes due every 10 ms from 0");
	ok(byte_for(0) == 'a' && byte_for(25) == 'z' && byte_for(26) == 'a',
	    "keystrokes are the letters a-z, in turn");
	echo_run_free(&r);
}

static void
test_plain(void)
{
	struct echo_run r;
	int copies;

	copies = timed_run(SERVE_PLAIN, 100, 200, &r);
	ok(copies == 1, "probe: a plain echo server sends each byte once "
	    "(got %d)", copies);
	ok(r.sent == 100 && r.echoed == 100 && r.mismatched == 0 &&
	    !r.closed, "plain: 100 sent, 100 echoed, none lost or wrong "
	    "(sent %llu echoed %llu)", (unsigned long long)r.sent,
	    (unsigned long long)r.echoed);
	/* The latency itself is a benchmark figure (tests/bench/echo.sh). */
	printf("# plain: p50 %.3f ms\n", percentile(&r, 50));
	echo_run_free(&r);
}

static void
test_stall(void)
{
	struct echo_run r;
	double p99, max;

	/* Byte 1 is the probe, so the 10th, 20th ... are seq 8, 18 ... */
	timed_run(SERVE_STALL, 50, 100, &r);
	p99 = percentile(&r, 99);
	max = percentile(&r, 100);
	ok(r.echoed == 50 && r.mismatched == 0, "stall: every echo came back");
	ok(p99 >= 19.0 && max >= 19.0, "stall: p99 %.3f and max %.3f ms show "
	    "the 20 ms stalls", p99, max);
	ok(echo_ms(&r, 8) >= 19.0 && echo_ms(&r, 18) >= 19.0,
	    "stall: the stalled bytes take 20 ms (%.3f, %.3f)",
	    echo_ms(&r, 8), echo_ms(&r, 18));
	/*
	 * How fast it catches up after a stall depends on the machine (the
	 * echo benchmark shows it); what follows from timing against the
	 * schedule is that the next byte carries the stall it waited for.
	 */
	ok(echo_ms(&r, 9) >= 9.0,
	    "stall: the byte after a stall is late against its schedule "
	    "(%.3f ms), though its own trip was quick", echo_ms(&r, 9));
	echo_run_free(&r);
}

static void
test_twice(void)
{
	struct echo_run r;
	int copies;

	copies = timed_run(SERVE_TWICE, 30, 100, &r);
	ok(copies == 2, "probe: an echoing PTY plus cat sends each byte "
	    "twice (got %d)", copies);
	ok(r.echo_bytes == 2 && r.echoed == 30 && !r.closed,
	    "twice: each echo waits for both copies, all 30 came back");
	echo_run_free(&r);
}

static void
test_hangup(void)
{
	struct echo_run r;

	timed_run(SERVE_HANGUP, 30, 200, &r);
	ok(r.closed && r.echoed == 10, "hang-up: the timer stops, 10 echoed "
	    "(got %llu)", (unsigned long long)r.echoed);
	ok(r.count - r.echoed == 20 && r.echo_ns[10] == NOT_ECHOED &&
	    r.echo_ns[29] == NOT_ECHOED,
	    "hang-up: the other 20 are counted as lost, not dropped");
	echo_run_free(&r);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	test_schedule();
	test_plain();
	test_stall();
	test_twice();
	test_hangup();
	printf("1..%d\n", test_num);
	return test_failed ? 1 : 0;
}
