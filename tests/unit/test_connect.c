/*
 * Tests of sshperf-connect against listeners made here: a port that
 * refuses for a while and then greets late, a server that closes before
 * greeting, timeouts and usage errors. Runs $BUILD_DIR/sshperf-connect
 * (default build/). Prints TAP.
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "tap.h"

extern char **environ;

/* What one run of the poller printed and how it exited. */
struct run {
	pid_t	 pid;
	int	 out_fd;
	int	 err_fd;
	char	 out[8192];
	char	 err[1024];
	int	 exit_code;
};

static char poller_path[PATH_MAX];

/*
 * How long the test waits for the poller to do something before it calls
 * it hung. Not a speed bound: only a guard so a broken poller cannot hold
 * the suite until its file timeout.
 */
#define HANG_MS 60000

static void
skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++test_num, what, why);
}

/* Starts the poller with args (NULL-terminated, without argv[0]). */
static void
start_poller(struct run *r, ...)
{
	posix_spawn_file_actions_t fa;
	va_list ap;
	char *argv[16];
	int outp[2], errp[2], argc = 0, e;

	memset(r, 0, sizeof(*r));
	argv[argc++] = poller_path;
	va_start(ap, r);
	while (argc < 15 && (argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	argv[argc] = NULL;
	if (pipe2(outp, O_CLOEXEC) == -1 || pipe2(errp, O_CLOEXEC) == -1)
		err(2, "pipe2");
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, outp[1], STDOUT_FILENO);
	posix_spawn_file_actions_adddup2(&fa, errp[1], STDERR_FILENO);
	if ((e = posix_spawn(&r->pid, poller_path, &fa, NULL, argv,
	    environ)) != 0) {
		errno = e;
		err(2, "%s", poller_path);
	}
	posix_spawn_file_actions_destroy(&fa);
	close(outp[1]);
	close(errp[1]);
	r->out_fd = outp[0];
	r->err_fd = errp[0];
}

static void
read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 &&
	    (n = read(fd, buf + len, size - 1 - len)) != 0) {
		if (n == -1) {
			if (errno == EINTR)
				continue;
			err(2, "read");
		}
		len += (size_t)n;
	}
	buf[len] = '\0';
	close(fd);
}

static void
finish_poller(struct run *r)
{
	int status;

	read_all(r->out_fd, r->out, sizeof(r->out));
	read_all(r->err_fd, r->err, sizeof(r->err));
	if (waitpid(r->pid, &status, 0) == -1)
		err(2, "waitpid");
	r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 +
	    WTERMSIG(status);
}

/* On a failed check, show what the poller said. */
static void
show_output(const struct run *r)
{
	printf("# exit %d\n# stdout:\n%s# stderr:\n%s", r->exit_code, r->out,
	    r->err);
}

/*
 * The value of key in the poller's key=value output, or "" if absent. The
 * result lives until the eighth call after this one, so that a few values
 * can be printed in one printf.
 */
static const char *
value(const struct run *r, const char *key)
{
	static char vals[8][1024];
	static unsigned int next;
	char *v = vals[next++ % 8];
	const char *p = r->out, *e;
	size_t klen = strlen(key), len;

	v[0] = '\0';
	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, klen) == 0 && p[klen] == '=') {
			p += klen + 1;
			e = strchr(p, '\n');
			len = e ? (size_t)(e - p) : strlen(p);
			if (len >= sizeof(vals[0]))
				len = sizeof(vals[0]) - 1;
			memcpy(v, p, len);
			v[len] = '\0';
			break;
		}
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return v;
}

static double
number(const struct run *r, const char *key)
{
	const char *v = value(r, key);

	return *v == '\0' ? -1 : strtod(v, NULL);
}

/* A bound TCP socket on loopback; port 0 picks a free one. */
static int
bind_loopback(int family, in_port_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		len = sizeof(*sin);
	} else {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		sin6->sin6_addr = in6addr_loopback;
		len = sizeof(*sin6);
	}
	if ((fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1 ||
	    bind(fd, (struct sockaddr *)&ss, len) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

static in_port_t
port_of(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		err(2, "getsockname");
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* A free port that refuses connections: bound to port 0, then closed. */
static in_port_t
refusing_port(char *buf, size_t size)
{
	in_port_t port;
	int fd;

	if ((fd = bind_loopback(AF_INET, 0)) == -1)
		err(2, "bind");
	port = port_of(fd);
	close(fd);
	snprintf(buf, size, "%u", port);
	return port;
}

static int
listen_on(int family, in_port_t port)
{
	int fd;

	if ((fd = bind_loopback(family, port)) == -1)
		return -1;
	if (listen(fd, 16) == -1)
		err(2, "listen");
	return fd;
}

/* Accepts one connection within timeout_ms, or returns -1. */
static int
accept_within(int lfd, int timeout_ms)
{
	struct pollfd pfd = { .fd = lfd, .events = POLLIN };

	if (poll(&pfd, 1, timeout_ms) != 1)
		return -1;
	return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

static void
send_text(int fd, const char *text)
{
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		err(2, "write");
}

/* 1 when the peer closes within timeout_ms without sending anything. */
static int
closed_silently(int fd, int timeout_ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	return poll(&pfd, 1, timeout_ms) == 1 && read(fd, &c, 1) == 0;
}

static void
test_late_greeting(void)
{
	struct run r;
	char port_s[16], t0_s[32];
	uint64_t t0_ns;
	in_port_t port;
	int lfd, cfd;

	port = refusing_port(port_s, sizeof(port_s));
	t0_ns = now_ns();
	snprintf(t0_s, sizeof(t0_s), "%llu", (unsigned long long)t0_ns);
	start_poller(&r, "-i", "1000", "-t", "5000", "-T", t0_s, "127.0.0.1",
	    port_s, NULL);
	sleep_until_ns(t0_ns + 200 * NS_PER_MS);
	if ((lfd = listen_on(AF_INET, port)) == -1)
		err(2, "listen on port %u", port);
	if ((cfd = accept_within(lfd, HANG_MS)) == -1)
		err(2, "no connection from the poller");
	send_text(cfd, "some banner line\r\n");
	sleep_until_ns(now_ns() + 100 * NS_PER_MS);
	send_text(cfd, "SSH-2.0-Test\r\n");
	ok(closed_silently(cfd, HANG_MS),
	    "late greeting: poller closes right after the greeting, sends nothing");
	close(cfd);
	close(lfd);
	finish_poller(&r);

	ok(r.exit_code == 0 && strcmp(value(&r, "status"), "ok") == 0,
	    "late greeting: exit 0, status=ok");
	ok(number(&r, "greeting_ms") >= 300,
	    "late greeting: greeting_ms %s >= 300 (from -T)",
	    value(&r, "greeting_ms"));
	ok(number(&r, "connect_ms") >= 200 &&
	    number(&r, "connect_ms") <= number(&r, "greeting_ms"),
	    "late greeting: connect_ms %s between 200 and greeting_ms",
	    value(&r, "connect_ms"));
	ok(strcmp(value(&r, "banner"), "SSH-2.0-Test") == 0,
	    "late greeting: banner without CR LF, line before it skipped");
	/*
	 * The interval it achieves on a quiet machine is a benchmark figure
	 * (tests/bench/poller.sh). What follows from the code: it polls
	 * again when a polling that began before the listener was refused,
	 * and attempt k never starts before start + k * interval, so the mean
	 * interval is never shorter than the one asked for.
	 */
	if (strtoull(value(&r, "start_mono_ns"), NULL, 10) <
	    t0_ns + 200 * NS_PER_MS)
		ok(number(&r, "attempts") >= 2,
		    "late greeting: refused first, so attempts %s >= 2",
		    value(&r, "attempts"));
	else
		skip("late greeting: attempts >= 2",
		    "the poller started after the listener");
	ok(number(&r, "attempts") < 2 || number(&r, "interval_us") >= 999.95,
	    "late greeting: achieved interval %s us, not shorter than asked "
	    "(1000)", value(&r, "interval_us"));
	ok(strtoull(value(&r, "greeting_mono_ns"), NULL, 10) >
	    strtoull(value(&r, "start_mono_ns"), NULL, 10) &&
	    strtoull(value(&r, "start_mono_ns"), NULL, 10) >= t0_ns,
	    "late greeting: absolute times in order");
	if (test_failed)
		show_output(&r);
}

static void
test_closed_before_greeting(void)
{
	struct run r;
	char port_s[16];
	int lfd, cfd;

	if ((lfd = listen_on(AF_INET, 0)) == -1)
		err(2, "listen");
	snprintf(port_s, sizeof(port_s), "%u", port_of(lfd));
	start_poller(&r, "-t", "5000", "127.0.0.1", port_s, NULL);
	if ((cfd = accept_within(lfd, HANG_MS)) == -1)
		err(2, "no connection from the poller");
	send_text(cfd, "not yet\r\n");
	close(cfd);
	if ((cfd = accept_within(lfd, HANG_MS)) == -1)
		err(2, "no second connection from the poller");
	send_text(cfd, "SSH-2.0-Second\n");
	finish_poller(&r);
	close(cfd);
	close(lfd);
	ok(r.exit_code == 0 && number(&r, "attempts") >= 2 &&
	    strcmp(value(&r, "banner"), "SSH-2.0-Second") == 0,
	    "closed before the greeting: tried again (attempts=%s, banner=%s)",
	    value(&r, "attempts"), value(&r, "banner"));
}

static void
test_timeouts(void)
{
	struct run r;
	char port_s[16];
	uint64_t start_ns, took_ns;
	int lfd;

	refusing_port(port_s, sizeof(port_s));
	start_ns = now_ns();
	start_poller(&r, "-t", "300", "127.0.0.1", port_s, NULL);
	finish_poller(&r);
	took_ns = now_ns() - start_ns;
	ok(r.exit_code == 1 && strcmp(value(&r, "status"), "timeout") == 0 &&
	    strcmp(value(&r, "last_error"), "Connection refused") == 0,
	    "refused until the timeout: exit 1, status=timeout, last_error=%s",
	    value(&r, "last_error"));
	/*
	 * "-t 300" waits at least 300 ms, and its last attempt starts at or
	 * after the deadline. How much longer it takes depends on the
	 * machine, so no upper bound is asserted.
	 */
	ok(took_ns >= 300 * NS_PER_MS && number(&r, "last_attempt_ms") >= 300 &&
	    number(&r, "attempts") >= 2,
	    "refused until the timeout: took %.0f ms, last attempt at %s ms, "
	    "%s attempts", ns_to_ms(took_ns), value(&r, "last_attempt_ms"),
	    value(&r, "attempts"));
	if (test_failed)
		show_output(&r);

	/* The kernel completes the handshake; nobody ever sends a line. */
	if ((lfd = listen_on(AF_INET, 0)) == -1)
		err(2, "listen");
	snprintf(port_s, sizeof(port_s), "%u", port_of(lfd));
	start_poller(&r, "-t", "300", "127.0.0.1", port_s, NULL);
	finish_poller(&r);
	close(lfd);
	ok(r.exit_code == 1 && strcmp(value(&r, "status"), "timeout") == 0 &&
	    number(&r, "attempts") == 1,
	    "silent server: exit 1 after one attempt, last_error=%s",
	    value(&r, "last_error"));
}
/*
 * The last attempt is made at the deadline itself. With an interval (10 s)
 * longer than the timeout (300 ms) the schedule has no tick before the
 * deadline: the first attempt is turned away, and only an attempt at the
 * deadline can find the server, which greets from then on.
 */
static void
test_attempt_at_deadline(void)
{
	struct run r;
	char port_s[16];
	int lfd, cfd;

	if ((lfd = listen_on(AF_INET, 0)) == -1)
		err(2, "listen");
	snprintf(port_s, sizeof(port_s), "%u", port_of(lfd));
	start_poller(&r, "-i", "10000000", "-t", "300", "127.0.0.1", port_s,
	    NULL);
	if ((cfd = accept_within(lfd, HANG_MS)) == -1)
		err(2, "no connection from the poller");
	close(cfd);
	if ((cfd = accept_within(lfd, HANG_MS)) != -1) {
		send_text(cfd, "SSH-2.0-Last\r\n");
		close(cfd);
	}
	finish_poller(&r);
	close(lfd);
	ok(r.exit_code == 0 && number(&r, "attempts") == 2 &&
	    strcmp(value(&r, "banner"), "SSH-2.0-Last") == 0 &&
	    number(&r, "greeting_ms") >= 300,
	    "a server that greets at the deadline is found by a last attempt "
	    "there (attempts=%s, greeting_ms=%s)", value(&r, "attempts"),
	    value(&r, "greeting_ms"));
	if (test_failed)
		show_output(&r);
}

static void
test_ipv6(void)
{
	struct run r;
	char port_s[16];
	int lfd, cfd;

	if ((lfd = listen_on(AF_INET6, 0)) == -1) {
		skip("IPv6 loopback greeting", "no IPv6 loopback here");
		return;
	}
	snprintf(port_s, sizeof(port_s), "%u", port_of(lfd));
	start_poller(&r, "::1", port_s, NULL);
	if ((cfd = accept_within(lfd, HANG_MS)) != -1) {
		send_text(cfd, "SSH-2.0-Six\r\n");
		close(cfd);
	}
	finish_poller(&r);
	close(lfd);
	ok(r.exit_code == 0 && number(&r, "attempts") == 1 &&
	    strcmp(value(&r, "banner"), "SSH-2.0-Six") == 0 &&
	    strcmp(value(&r, "interval_us"), "0.0") == 0,
	    "IPv6 loopback greeting at the first attempt");
}

static void
usage_case(const char *what, const char *needle, ...)
{
	struct run r;
	va_list ap;
	char *args[8] = { NULL };
	int n = 0;

	va_start(ap, needle);
	while (n < 7 && (args[n] = va_arg(ap, char *)) != NULL)
		n++;
	va_end(ap);
	args[n] = NULL;
	start_poller(&r, args[0], args[1], args[2], args[3], args[4], args[5],
	    args[6], NULL);
	finish_poller(&r);
	ok(r.exit_code == 2 && r.out[0] == '\0' && strstr(r.err, needle) &&
	    strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
	    "usage error, %s: exit 2, one line naming %s", what, needle);
	if (r.exit_code != 2)
		show_output(&r);
}

int
main(void)
{
	const char *dir;

	if ((dir = getenv("BUILD_DIR")) == NULL || *dir == '\0')
		dir = "build";
	snprintf(poller_path, sizeof(poller_path), "%s/sshperf-connect", dir);
	if (access(poller_path, X_OK) != 0)
		err(2, "%s: build it first (make)", poller_path);

	test_late_greeting();
	test_closed_before_greeting();
	test_timeouts();
	test_attempt_at_deadline();
	test_ipv6();
	usage_case("port 0", "port", "127.0.0.1", "0", NULL);
	usage_case("port 65536", "port", "127.0.0.1", "65536", NULL);
	usage_case("port 22x", "port", "127.0.0.1", "22x", NULL);
	usage_case("a host name", "host", "localhost", "22", NULL);
	usage_case("interval 0", "-i interval_us", "-i", "0", "127.0.0.1",
	    "22", NULL);
	usage_case("timeout -5", "-t timeout_ms", "-t", "-5", "127.0.0.1",
	    "22", NULL);
	usage_case("no port", "usage:", "127.0.0.1", NULL);
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
