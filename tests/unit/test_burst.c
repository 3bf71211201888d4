/*
 * Tests of sshperf-burst and sshperf-gate without ssh: the clients are
 * this program in its "fake-ssh" mode, which runs its ProxyCommand the way
 * ssh does (sh -c "exec ...", the socket passed back on stdout) and reads
 * the greeting from a listener made here. The listener greets the first
 * clients it accepts and answers the rest as a full sshd does ("Exceeded
 * MaxStartups", close). Runs $BUILD_DIR/sshperf-burst and sshperf-gate
 * (default build/). Prints TAP.
 *
 * Fork-bomb guard: sshperf-burst puts its gate options right after the
 * command's name, so a client's argv[1] is "-o", not "fake-ssh". The
 * client role is therefore decided by SSHPERF_GATE_DIR in the environment
 * (every burst client has it), never by argv; a copy of this program that
 * finds TEST_BURST_RUNNING set without being a client refuses to run the
 * tests again. Every forked child ends in _exit().
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "tap.h"

static char burst_path[PATH_MAX], gate_path[PATH_MAX], self_path[PATH_MAX];
static char tmp_dir[64];

#define RUNNING_VAR	"TEST_BURST_RUNNING"
/*
 * Deadlines (s) for clients that should all succeed: only a guard against
 * a hang, long enough for a machine that is slow or busy.
 */
#define HANG_S		"120"

/*
 * ssh's part, reduced: "-o ProxyCommand=CMD" with %h and %p replaced, run
 * by sh with the socket pair on stdout, one descriptor received; then the
 * first line from the server decides the exit, with ssh's messages.
 */
static int
fake_ssh(int argc, char *argv[])
{
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} control;
	struct msghdr msg;
	struct cmsghdr *cmsg;
	struct iovec iov;
	char cmd[PATH_MAX * 2], line[256], byte, *p, *o;
	const char *proxy = NULL, *port = NULL;
	ssize_t n;
	size_t len = 0;
	pid_t pid;
	int sp[2], fd, i, status;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc &&
		    strncmp(argv[i + 1], "ProxyCommand=", 13) == 0)
			proxy = argv[i + 1] + 13;
		else if (strcmp(argv[i], "-p") == 0 && i + 1 < argc)
			port = argv[i + 1];
	}
	if (proxy == NULL || port == NULL)
		errx(255, "fake-ssh: no ProxyCommand or -p");
	for (p = (char *)proxy, o = cmd; *p != '\0' &&
	    o < cmd + sizeof(cmd) - 16; p++) {
		if (p[0] == '%' && p[1] == 'h') {
			o += sprintf(o, "127.0.0.1");
			p++;
		} else if (p[0] == '%' && p[1] == 'p') {
			o += sprintf(o, "%s", port);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			*o++ = '%';
			p++;
		} else
			*o++ = *p;
	}
	*o = '\0';
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == -1)
		err(255, "socketpair");
	if ((pid = fork()) == -1)
		err(255, "fork");
	if (pid == 0) {
		dup2(sp[0], STDOUT_FILENO);
		close(sp[0]);
		close(sp[1]);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	close(sp[0]);
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = &byte;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control.buf;
	msg.msg_controllen = sizeof(control.buf);
	n = recvmsg(sp[1], &msg, 0);
	waitpid(pid, &status, 0);
	if (n != 1 || (cmsg = CMSG_FIRSTHDR(&msg)) == NULL ||
	    cmsg->cmsg_type != SCM_RIGHTS)
		errx(255, "proxy dialer did not pass back a connection");
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(fd));
	while (len < sizeof(line) - 1 && (n = read(fd, line + len, 1)) == 1 &&
	    line[len] != '\n')
		len++;
	line[len] = '\0';
	if (strncmp(line, "SSH-", 4) == 0)
		return 0;
	if (strncmp(line, "Exceeded MaxStartups", 20) == 0) {
		fprintf(stderr, "kex_exchange_identification: Connection "
		    "closed by remote host\r\nConnection closed by 127.0.0.1 "
		    "port %s\r\n", port);
		return 255;
	}
	fprintf(stderr, "something else went wrong\n");
	return 255;
}

/* A listener on a free loopback port: greets `greet` clients, refuses the rest. */
static pid_t
start_listener(int greet, int *port)
{
	struct sockaddr_in sa;
	socklen_t len = sizeof(sa);
	pid_t pid;
	int s, c, accepted = 0, one = 1;

	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		err(2, "socket");
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(s, 256) == -1 ||
	    getsockname(s, (struct sockaddr *)&sa, &len) == -1)
		err(2, "listener");
	*port = ntohs(sa.sin_port);
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid > 0) {
		close(s);
		return pid;
	}
	/* The listener child never forks and never returns: KILLed or 60 s. */
	alarm(60);
	for (;;) {
		if ((c = accept(s, NULL, NULL)) == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			_exit(1);
		}
		if (accepted++ < greet)
			(void)!write(c, "SSH-2.0-test\r\n", 14);
		else
			(void)!write(c, "Exceeded MaxStartups\r\n", 22);
		close(c);
	}
	_exit(0);
}

/* Runs burst with args; its stdout to out (NUL-terminated), exit code back. */
static int
run_burst(char *out, size_t size, char *const args[])
{
	char *argv[32];
	int pipefd[2], i = 0, status;
	ssize_t n;
	size_t len = 0;
	pid_t pid;

	argv[i++] = burst_path;
	while (*args != NULL && i < 31)
		argv[i++] = *args++;
	argv[i] = NULL;
	if (pipe(pipefd) == -1)
		err(2, "pipe");
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		dup2(pipefd[1], STDOUT_FILENO);
		close(pipefd[0]);
		close(pipefd[1]);
		execv(burst_path, argv);
		_exit(127);
	}
	close(pipefd[1]);
	while (len < size - 1 && (n = read(pipefd[0], out + len,
	    size - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(pipefd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The value of key in a key=value file, as a string ("" when missing). */
static const char *
summary_value(const char *path, const char *key)
{
	static char value[256];
	char line[512];
	size_t klen = strlen(key);
	FILE *f;

	value[0] = '\0';
	if ((f = fopen(path, "r")) == NULL)
		return value;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == '=') {
			line[strcspn(line, "\n")] = '\0';
			snprintf(value, sizeof(value), "%s", line + klen + 1);
		}
	fclose(f);
	return value;
}

/* The releaser's output as TAP comments, to see why a test failed. */
static void
diag(const char *out)
{
	const char *p = out, *nl;

	while (*p != '\0') {
		nl = strchr(p, '\n');
		printf("# %.*s\n", nl ? (int)(nl - p) : (int)strlen(p), p);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
}

static int
count_rows(const char *out, const char *outcome)
{
	char pat[64];
	const char *p = out;
	int n = 0;

	snprintf(pat, sizeof(pat), "\t%s\t", outcome);
	while ((p = strstr(p, pat)) != NULL) {
		n++;
		p++;
	}
	return n;
}

/*
 * Every row's last two columns (local_port, local_addr: 8, 9) are the
 * local end of its connection, as the gate reported it: a port, and the
 * source address, each pair a different one. many = 0: every client from
 * first; many = 1: client i from first + i - 1 (IPv4).
 */
static int
all_rows_sourced(const char *out, int rows, const char *first, int many)
{
	char copy[65536], *line, *save = NULL, *f[9], *fs, want[INET_ADDRSTRLEN];
	char seen[256][64];
	struct in_addr a;
	long port, client;
	int n = 0, k, i;

	snprintf(copy, sizeof(copy), "%s", out);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "client\t", 7) == 0)
			continue;
		for (k = 0, fs = line; k < 9 && (f[k] = strsep(&fs, "\t")) !=
		    NULL; k++)
			;
		if (k < 9 || fs != NULL || n >= 256)
			return 0;
		port = strtol(f[7], NULL, 10);
		client = strtol(f[0], NULL, 10);
		if (port < 1 || port > 65535 || client < 1)
			return 0;
		snprintf(want, sizeof(want), "%s", first);
		if (many) {
			if (inet_pton(AF_INET, first, &a) != 1)
				return 0;
			a.s_addr = htonl(ntohl(a.s_addr) + (uint32_t)(client - 1));
			inet_ntop(AF_INET, &a, want, sizeof(want));
		}
		if (strcmp(f[8], want) != 0)
			return 0;
		snprintf(seen[n], sizeof(seen[n]), "%s:%ld", f[8], port);
		for (i = 0; i < n; i++)
			if (strcmp(seen[i], seen[n]) == 0)
				return 0;
		n++;
	}
	return n == rows;
}

/* Every row's woke_ms and connect_ms (columns 4, 5) are numbers >= 0. */
static int
all_rows_timed(const char *out, int rows)
{
	char copy[65536], *line, *save = NULL, *f[8], *fs;
	double woke, conn;
	int n = 0, k;

	snprintf(copy, sizeof(copy), "%s", out);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "client\t", 7) == 0)
			continue;
		for (k = 0, fs = line; k < 7 && (f[k] = strsep(&fs, "\t")) !=
		    NULL; k++)
			;
		if (k < 7)
			return 0;
		woke = strtod(f[3], NULL);
		conn = strtod(f[4], NULL);
		if (f[4][0] == '-' || woke < 0 || conn < woke)
			return 0;
		n++;
	}
	return n == rows;
}

static void
test_all_released(void)
{
	char out[65536], port_s[16], summary[PATH_MAX];
	const char *spread;
	pid_t lpid;
	int port, rc;

	lpid = start_listener(1000, &port);
	snprintf(port_s, sizeof(port_s), "%d", port);
	snprintf(summary, sizeof(summary), "%s/s1", tmp_dir);
	rc = run_burst(out, sizeof(out), (char *[]){ "-H", "-n", "20", "-g",
	    gate_path, "-s", summary, "-t", HANG_S, "-w", HANG_S, "--", self_path,
	    "fake-ssh", "-p", port_s, NULL });
	ok(rc == 0, "20 clients that all get a greeting: exit 0 (got %d)", rc);
	if (rc != 0)
		diag(out);
	ok(strcmp(summary_value(summary, "ready"), "20") == 0 &&
	    strcmp(summary_value(summary, "connected"), "20") == 0 &&
	    strcmp(summary_value(summary, "ok"), "20") == 0,
	    "all 20 were ready, released, connected and ok");
	ok(strncmp(out, "client\toutcome\texit\twoke_ms\tconnect_ms\tdone_ms\t"
	    "message\n", 52) == 0 && count_rows(out, "ok") == 20,
	    "one TSV row per client after the header");
	ok(strstr(out, "\tmessage\tlocal_port\tlocal_addr\n") != NULL &&
	    all_rows_sourced(out, 20, "127.0.0.1", 0), "every row ends with "
	    "the local port and address of its connection, each a different "
	    "one (no source given: 127.0.0.1)");
	ok(all_rows_timed(out, 20), "every client's wake and connect are "
	    "timed from the release (>= 0, connect after wake)");
	spread = summary_value(summary, "release_spread_ms");
	/* How small the spread is depends on the machine: make bench. */
	ok(spread[0] != '\0' && spread[0] != '-' && strtod(spread, NULL) >= 0,
	    "release spread measured: %s ms", spread);
	ok(strtod(summary_value(summary, "ready_ms"), NULL) > 0,
	    "ready_ms measured: %s", summary_value(summary, "ready_ms"));
	kill(lpid, SIGKILL);
	waitpid(lpid, NULL, 0);
}

/*
 * -R: the clients wait at their gates until the wall clock reads the
 * moment given (the load mode's common start), and not a moment less;
 * one too far ahead is refused before any client starts.
 */
static void
test_release_at(void)
{
	char out[65536], port_s[16], summary[PATH_MAX], at_s[32];
	unsigned long long at, released;
	double late;
	pid_t lpid;
	int port, rc;

	lpid = start_listener(1000, &port);
	snprintf(port_s, sizeof(port_s), "%d", port);
	snprintf(summary, sizeof(summary), "%s/s-at", tmp_dir);
	at = (unsigned long long)wall_ns() + 700 * NS_PER_MS;
	snprintf(at_s, sizeof(at_s), "%llu", at);
	rc = run_burst(out, sizeof(out), (char *[]){ "-H", "-n", "5", "-g",
	    gate_path, "-R", at_s, "-s", summary, "-t", HANG_S, "-w", HANG_S,
	    "--", self_path, "fake-ssh", "-p", port_s, NULL });
	released = strtoull(summary_value(summary, "release_wall_ns"), NULL,
	    10);
	late = strtod(summary_value(summary, "release_late_ms"), NULL);
	ok(rc == 0 && count_rows(out, "ok") == 5 && released >= at &&
	    strcmp(summary_value(summary, "release_at_wall_ns"), at_s) == 0,
	    "-R 0.7 s ahead: 5 clients released when the wall clock read it, "
	    "not before (exit %d, %.3f ms late)", rc, late);
	if (rc != 0)
		diag(out);
	/*
	 * How late depends on the machine (the clients' start under load
	 * took 0.8 s once): no bound on it, only that it is the release's
	 * distance from the moment asked, in ms.
	 */
	ok(late >= 0 && fabs(late - (double)((long long)released - (long long)at) / 1e6) < 0.01,
	    "release_late_ms %.3f: >= 0, the release's distance from the "
	    "moment asked (%.3f ms)", late, (double)((long long)released - (long long)at) / 1e6);
	snprintf(at_s, sizeof(at_s), "%llu", (unsigned long long)wall_ns() +
	    3 * 3600 * NS_PER_S);
	rc = run_burst(out, sizeof(out), (char *[]){ "-n", "2", "-R", at_s,
	    "--", "true", NULL });
	ok(rc == 2 && out[0] == '\0', "-R 3 h ahead: exit 2 before any "
	    "client starts (got %d)", rc);
	rc = run_burst(out, sizeof(out), (char *[]){ "-n", "2", "-s", summary,
	    "--", "true", NULL });
	ok(rc == 0 && strcmp(summary_value(summary, "release_late_ms"), "-")
	    == 0, "without -R: release_late_ms is - (exit %d)", rc);
	kill(lpid, SIGKILL);
	waitpid(lpid, NULL, 0);
}

/*
 * -S: every client connects from one source address (a controller, a
 * NAT); -M: client i from first + i - 1 (a fleet). Loopback 127/8 is all
 * local on Linux: no address to configure.
 */
static void
test_sources(void)
{
	char out[65536], port_s[16], summary[PATH_MAX];
	pid_t lpid;
	int port, rc;

	lpid = start_listener(1000, &port);
	snprintf(port_s, sizeof(port_s), "%d", port);
	snprintf(summary, sizeof(summary), "%s/s-src", tmp_dir);
	rc = run_burst(out, sizeof(out), (char *[]){ "-H", "-n", "5", "-g",
	    gate_path, "-S", "127.0.0.3", "-s", summary, "-t", HANG_S, "-w",
	    HANG_S, "--", self_path, "fake-ssh", "-p", port_s, NULL });
	ok(rc == 0 && all_rows_sourced(out, 5, "127.0.0.3", 0),
	    "-S 127.0.0.3: all 5 clients connect from 127.0.0.3 (exit %d)", rc);
	if (rc != 0)
		diag(out);
	rc = run_burst(out, sizeof(out), (char *[]){ "-H", "-n", "5", "-g",
	    gate_path, "-M", "127.1.0.254", "-s", summary, "-t", HANG_S, "-w",
	    HANG_S, "--", self_path, "fake-ssh", "-p", port_s, NULL });
	ok(rc == 0 && all_rows_sourced(out, 5, "127.1.0.254", 1),
	    "-M 127.1.0.254: client i from 127.1.0.254 + i - 1, over the "
	    "byte boundary (exit %d)", rc);
	if (rc != 0)
		diag(out);
	rc = run_burst(out, sizeof(out), (char *[]){ "-n", "2", "-M", "::1",
	    "--", "true", NULL });
	ok(rc == 2 && out[0] == '\0', "-M with an IPv6 address: exit 2 "
	    "before any client starts (got %d)", rc);
	kill(lpid, SIGKILL);
	waitpid(lpid, NULL, 0);
}

static void
test_refused_classified(void)
{
	char out[65536], port_s[16], summary[PATH_MAX];
	pid_t lpid;
	int port, rc;

	lpid = start_listener(3, &port);
	snprintf(port_s, sizeof(port_s), "%d", port);
	snprintf(summary, sizeof(summary), "%s/s2", tmp_dir);
	rc = run_burst(out, sizeof(out), (char *[]){ "-n", "6", "-g",
	    gate_path, "-s", summary, "--", self_path, "fake-ssh", "-p",
	    port_s, NULL });
	ok(rc == 1, "some clients refused: exit 1 (got %d)", rc);
	ok(count_rows(out, "ok") == 3 && count_rows(out, "refused") == 3 &&
	    count_rows(out, "failed") == 0, "3 ok and 3 refused by "
	    "MaxStartups, none counted as other failures");
	ok(strstr(out, "\t255\t") != NULL && strstr(out, "Connection closed by "
	    "127.0.0.1") != NULL, "a refused row has ssh's exit code and "
	    "its last message");
	ok(strcmp(summary_value(summary, "refused"), "3") == 0,
	    "the summary counts 3 refused");
	kill(lpid, SIGKILL);
	waitpid(lpid, NULL, 0);
}

static void
test_failures(void)
{
	char out[65536], summary[PATH_MAX];
	uint64_t t0;
	int rc;

	snprintf(summary, sizeof(summary), "%s/s3", tmp_dir);
	rc = run_burst(out, sizeof(out), (char *[]){ "-n", "2", "-s", summary,
	    "--", "/bin/sh", "-c", "echo no gate here >&2; exit 3", NULL });
	ok(rc == 1 && count_rows(out, "failed") == 2 &&
	    strstr(out, "\t3\t") != NULL && strstr(out, "no gate here") != NULL,
	    "clients that exit before their gate is ready: failed, exit code "
	    "and message kept");
	ok(strcmp(summary_value(summary, "ready"), "0") == 0,
	    "... and not counted as ready");

	t0 = now_ns();
	rc = run_burst(out, sizeof(out), (char *[]){ "-n", "2", "-s", summary,
	    "-w", "1", "-t", "1", "--", "/bin/sleep", "30", NULL });
	/* Ended by the helper (status timeout), not before the 1 s deadline. */
	ok(rc == 1 && count_rows(out, "timeout") == 2 &&
	    now_ns() - t0 >= NS_PER_S, "clients still running at the "
	    "deadline are ended and counted as timeout (%.1f s)",
	    ns_to_ms(now_ns() - t0) / 1000);

	rc = run_burst(out, sizeof(out), (char *[]){ "-n", "1", "-s", summary,
	    "--", "/nonexistent/ssh", NULL });
	ok(rc == 127, "a command that does not exist: exit 127 (got %d)", rc);
	rc = run_burst(out, sizeof(out), (char *[]){ "--", "/bin/true", NULL });
	ok(rc == 2, "no -n: usage error, exit 2 (got %d)", rc);
	rc = run_burst(out, sizeof(out), (char *[]){ "-n", "0", "--",
	    "/bin/true", NULL });
	ok(rc == 2, "-n 0: usage error, exit 2 (got %d)", rc);
	rc = run_burst(out, sizeof(out), (char *[]){ "-n", "2001", "--",
	    "/bin/true", NULL });
	ok(rc == 2, "-n 2001: more than the 2000 children allowed, exit 2 "
	    "(got %d)", rc);
	setenv("SSHPERF_GATE_DIR", "/nonexistent", 1);
	rc = run_burst(out, sizeof(out), (char *[]){ "-n", "1", "--",
	    "/bin/true", NULL });
	unsetenv("SSHPERF_GATE_DIR");
	ok(rc == 2, "a burst started inside a burst client refuses to run, "
	    "exit 2 (got %d)", rc);
}

/* The fork-bomb guard: a second copy of this test refuses to run. */
static void
test_no_recursion(void)
{
	int status;
	pid_t pid;

	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, STDOUT_FILENO);
		dup2(devnull, STDERR_FILENO);
		execl(self_path, self_path, "-o", "ProxyCommand=x", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 2, "this test started "
	    "again by itself (argv as a burst client has it) refuses, exit 2");
}

static void
test_gate_alone(void)
{
	int status;
	pid_t pid;

	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		dup2(devnull, STDERR_FILENO);
		unsetenv("SSHPERF_GATE_DIR");
		execl(gate_path, gate_path, "127.0.0.1", "22", (char *)NULL);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 2,
	    "the gate run without sshperf-burst: exit 2");
}

int
main(int argc, char *argv[])
{
	const char *build = getenv("BUILD_DIR");

	/* A burst client (see the guard above): the fake ssh, nothing else. */
	if (getenv("SSHPERF_GATE_DIR") != NULL)
		return fake_ssh(argc, argv);
	if (getenv(RUNNING_VAR) != NULL)
		errx(2, "%s is set: this is a copy started by the tests "
		    "themselves; refusing to run them again", RUNNING_VAR);
	if (setenv(RUNNING_VAR, "1", 1) == -1)
		err(2, "setenv");
	if (build == NULL)
		build = "build";
	if (realpath(argv[0], self_path) == NULL)
		err(2, "realpath %s", argv[0]);
	snprintf(burst_path, sizeof(burst_path), "%s/sshperf-burst", build);
	snprintf(gate_path, sizeof(gate_path), "%s/sshperf-gate", build);
	if (access(burst_path, X_OK) == -1 || access(gate_path, X_OK) == -1)
		errx(2, "%s or %s not built; run make", burst_path, gate_path);
	{
		char real[PATH_MAX];

		if (realpath(gate_path, real) == NULL)
			err(2, "realpath %s", gate_path);
		snprintf(gate_path, sizeof(gate_path), "%s", real);
	}
	tap_scratch(tmp_dir, sizeof(tmp_dir), "test_burst");
	if (mkdtemp(tmp_dir) == NULL)
		err(2, "mkdtemp");

	test_all_released();
	test_refused_classified();
	test_failures();
	test_gate_alone();
	test_sources();
	test_release_at();
	test_no_recursion();

	{
		const char *const files[] = { "s1", "s2", "s3", "s-src", "s-at" };
		char path[PATH_MAX + 8];
		size_t i;

		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
			snprintf(path, sizeof(path), "%s/%s", tmp_dir, files[i]);
			(void)unlink(path);
		}
		(void)rmdir(tmp_dir);
	}
	return test_failed != 0;
}
