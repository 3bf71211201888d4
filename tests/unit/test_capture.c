/*
 * Unit tests of sshperf-capture on loopback, with its own listener: the
 * recorder sees both directions of a connection once each, with payload
 * lengths and no more; and "turns" finds the TCP wait that Nagle and a
 * delayed ACK make (two small writes in a row, the second held until the
 * peer's ACK), and none with TCP_NODELAY, while the parts of a login add
 * up to its total. Needs root (a packet socket); skipped otherwise. TAP.
 */
#define main capture_main
#include "../../helpers/capture.c"
#undef main

#include <sys/stat.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/wait.h>

#include "tap.h"

static char dir[] = "/tmp/sshperf-test-capture.XXXXXX";

static void
xwrite(int fd, size_t n)
{
	char buf[64];

	memset(buf, 'x', sizeof(buf));
	if (write(fd, buf, n) != (ssize_t)n)
		err(2, "write");
}

static void
xread(int fd, size_t n)
{
	char buf[64];
	ssize_t r;

	while (n > 0) {
		if ((r = read(fd, buf, n < sizeof(buf) ? n : sizeof(buf))) <= 0)
			err(2, "read");
		n -= (size_t)r;
	}
}

/*
 * One "login" between a client and the listener: four request/reply
 * rounds (so the receiver is in interactive mode and delays its ACKs),
 * then 16 and 44 bytes written back to back, a reply, and a close.
 * Writes its row of a login table (phases: connect, then the rest split
 * evenly) to f.
 */
static void
one_login(FILE *f, int sample, int lfd, struct sockaddr_in *sa, int nodelay)
{
	uint64_t t0, t_conn, t_end;
	int c, s, i, on = 1;
	double rest;

	t0 = now_ns();
	if ((c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(2, "socket");
	if (nodelay && setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &on,
	    sizeof(on)) == -1)
		err(2, "TCP_NODELAY");
	if (connect(c, (struct sockaddr *)sa, sizeof(*sa)) == -1)
		err(2, "connect");
	t_conn = now_ns();
	if ((s = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) == -1)
		err(2, "accept");
	for (i = 0; i < 4; i++) {
		xwrite(c, 10);
		xread(s, 10);
		xwrite(s, 10);
		xread(c, 10);
	}
	xwrite(c, 16);
	xwrite(c, 44);
	xread(s, 60);
	xwrite(s, 10);
	xread(c, 10);
	close(c);
	t_end = now_ns();
	close(s);
	rest = ns_to_ms(t_end - t_conn) / 4;
	fprintf(f, "%d\tok\t0\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t-\t-\n",
	    sample, ns_to_ms(t_conn - t0), rest, rest, rest, rest,
	    ns_to_ms(t_end - t0));
}

/* Sums the ms column of a turns table for one sample (and part, or all). */
static double
sum_parts(const char *path, int sample, const char *whose)
{
	char line[256], ph[32], wh[32];
	int smp;
	unsigned port;
	double ms, sum = 0;
	FILE *f = fopen(path, "re");

	if (f == NULL)
		err(2, "%s", path);
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%d\t%u\t%31s\t%31s\t%lf", &smp, &port, ph, wh,
		    &ms) == 5 && smp == sample &&
		    (whose == NULL || strcmp(wh, whose) == 0))
			sum += ms;
	fclose(f);
	return sum;
}

static double
login_total(const char *path, int sample)
{
	char line[256];
	double v[7];
	int smp;
	FILE *f = fopen(path, "re");
	double total = -1;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%d\tok\t0\t%lf\t%lf\t%lf\t%lf\t%lf\t%lf",
		    &smp, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 7 &&
		    smp == sample)
			total = v[5];
	if (f != NULL)
		fclose(f);
	return total;
}

static int
count_rows(const char *path, const char *dirname, unsigned len)
{
	char line[256], d[8], fl[8];
	unsigned long long t;
	unsigned port, seq, ack, l;
	int n = 0;
	FILE *f = fopen(path, "re");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%llu\t%u\t%7s\t%7s\t%u\t%u\t%u", &t, &port, d,
		    fl, &seq, &ack, &l) == 7 && strcmp(d, dirname) == 0 &&
		    l == len)
			n++;
	if (f != NULL)
		fclose(f);
	return n;
}

/* Runs "turns" on the two files; its exit code, the table in out. */
static int
run_turns(const char *packets, const char *logins, const char *out)
{
	char *argv[] = { "sshperf-capture", "turns", "-p", "22",
	    (char *)packets, (char *)logins, NULL };
	int status, fd;
	pid_t pid;

	fflush(stdout);
	if ((pid = fork()) == 0) {
		if ((fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
		    dup2(fd, 1) == -1 || (fd = open("/dev/null", O_WRONLY)) == -1 ||
		    dup2(fd, 2) == -1)
			_exit(2);
		exit(capture_main(6, argv));
	}
	if (pid == -1 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/*
 * A SYN sent again (lost, or the listener's queue was full) is the same
 * connection: one login still matches one connection. Two connections
 * for one login cannot be matched and say so (exit 1).
 */
static void
test_syn_again(void)
{
	char packets[PATH_MAX], logins[PATH_MAX], out[PATH_MAX];
	double total, server;
	FILE *f;
	int rc;

	snprintf(packets, sizeof(packets), "%s/syn.tsv", dir);
	snprintf(logins, sizeof(logins), "%s/syn-logins.tsv", dir);
	snprintf(out, sizeof(out), "%s/syn-parts.tsv", dir);
	if ((f = fopen(logins, "we")) == NULL)
		err(2, "%s", logins);
	fprintf(f, "sample\tstatus\texit\tconnect_ms\tgreeting_ms\tkex_ms"
	    "\tauth_ms\tsession_ms\ttotal_ms\tmethod\terror\n"
	    "1\tok\t0\t1001.1\t2\t3\t2\t3.9\t1012\t-\t-\n");
	fclose(f);
	if ((f = fopen(packets, "we")) == NULL)
		err(2, "%s", packets);
	fprintf(f, "%s", table_header);
	fprintf(f, "1000000\t40001\tc2s\tS\t100\t0\t0\n"
	    "1001000000\t40001\tc2s\tS\t100\t0\t0\n"
	    "1001050000\t40001\ts2c\tSA\t500\t101\t0\n"
	    "1001100000\t40001\tc2s\tA\t101\t501\t0\n"
	    "1002000000\t40001\tc2s\tPA\t101\t501\t20\n"
	    "1010000000\t40001\ts2c\tPA\t501\t121\t20\n"
	    "1011000000\t40001\tc2s\tFA\t121\t521\t0\n");
	fclose(f);
	rc = run_turns(packets, logins, out);
	total = rc == 0 ? sum_parts(out, 1, NULL) : -1;
	server = rc == 0 ? sum_parts(out, 1, "server") : -1;
	ok(rc == 0 && fabs(total - 1012) < 0.01 && fabs(server - 8.05) < 0.01,
	    "a SYN sent again: one connection, its parts add up (exit %d, %.3f "
	    "of 1012 ms, server %.3f of 8.05)", rc, total, server);
	if ((f = fopen(packets, "ae")) == NULL)
		err(2, "%s", packets);
	fprintf(f, "1020000000\t40002\tc2s\tS\t900\t0\t0\n"
	    "1020050000\t40002\ts2c\tSA\t300\t901\t0\n"
	    "1020100000\t40002\tc2s\tA\t901\t301\t0\n"
	    "1020200000\t40002\ts2c\tPA\t301\t901\t20\n"
	    "1020300000\t40002\tc2s\tFA\t901\t321\t0\n");
	fclose(f);
	rc = run_turns(packets, logins, out);
	total = rc == 0 ? sum_parts(out, 1, NULL) : -1;
	ok(rc == 0 && fabs(total - 1012) < 0.01, "a connection on which the "
	    "client sent nothing (a poller's): no login, the login's parts the "
	    "same (exit %d, %.3f of 1012 ms)", rc, total);
	if ((f = fopen(packets, "ae")) == NULL)
		err(2, "%s", packets);
	fprintf(f, "1030000000\t40003\tc2s\tS\t700\t0\t0\n"
	    "1030100000\t40003\tc2s\tPA\t701\t0\t20\n");
	fclose(f);
	rc = run_turns(packets, logins, out);
	ok(rc == 1, "a second connection with the client's data for one "
	    "login: not matched, exit 1 (got %d)", rc);
	unlink(packets);
	unlink(logins);
	unlink(out);
}

int
main(void)
{
	char packets[PATH_MAX], logins[PATH_MAX], parts[PATH_MAX], port[8];
	struct sockaddr_in sa;
	socklen_t slen = sizeof(sa);
	uint64_t deadline;
	int lfd, status, i, fd;
	pid_t pid;
	FILE *f;
	double wait_nagle, wait_nodelay, total, sum;

	if (geteuid() != 0) {
		printf("ok 1 - capture # SKIP needs root (a packet socket)\n1..1\n");
		return 0;
	}
	if (mkdtemp(dir) == NULL)
		err(2, "mkdtemp");
	snprintf(packets, sizeof(packets), "%s/packets.tsv", dir);
	snprintf(logins, sizeof(logins), "%s/logins.tsv", dir);
	snprintf(parts, sizeof(parts), "%s/parts.tsv", dir);
	if ((lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(2, "socket");
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    listen(lfd, 8) == -1 ||
	    getsockname(lfd, (struct sockaddr *)&sa, &slen) == -1)
		err(2, "listen");
	snprintf(port, sizeof(port), "%u", ntohs(sa.sin_port));

	fflush(stdout);
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		char *argv[] = { "sshperf-capture", "record", "-p", port, "-d",
		    "60", "-o", packets, NULL };

		if ((fd = open("/dev/null", O_WRONLY)) != -1)
			dup2(fd, 1);
		_exit(capture_main(8, argv));
	}
	/* Ready when its header is there. */
	for (deadline = now_ns() + 10 * NS_PER_S; now_ns() < deadline;) {
		struct stat st;

		if (stat(packets, &st) == 0 && st.st_size > 0)
			break;
		usleep(1000);
	}
	if ((f = fopen(logins, "we")) == NULL)
		err(2, "%s", logins);
	fprintf(f, "sample\tstatus\texit\tconnect_ms\tgreeting_ms\tkex_ms"
	    "\tauth_ms\tsession_ms\ttotal_ms\tmethod\terror\n");
	for (i = 1; i <= 3; i++)
		one_login(f, i, lfd, &sa, 0);
	for (i = 4; i <= 6; i++)
		one_login(f, i, lfd, &sa, 1);
	fclose(f);
	usleep(50 * 1000);	/* the last FINs */
	kill(pid, SIGTERM);
	if (waitpid(pid, &status, 0) != pid)
		err(2, "waitpid");
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "the recorder ends with 0 on SIGTERM (status %d)", status);
	ok(count_rows(packets, "c2s", 16) == 6 && count_rows(packets, "c2s", 44) == 6,
	    "each login's 16- and 44-byte writes seen once (%d, %d of 6)",
	    count_rows(packets, "c2s", 16), count_rows(packets, "c2s", 44));
	ok(count_rows(packets, "s2c", 10) == 30,
	    "the server's 5 replies of 10 bytes per login seen once (%d of 30)",
	    count_rows(packets, "s2c", 10));

	fflush(stdout);
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		char *argv[] = { "sshperf-capture", "turns", "-p", port, packets,
		    logins, NULL };

		if ((fd = open(parts, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
		    dup2(fd, 1) == -1)
			_exit(2);
		exit(capture_main(6, argv));
	}
	ok(waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "turns joins 6 logins to 6 connections");
	wait_nagle = wait_nodelay = 0;
	for (i = 1; i <= 3; i++)
		wait_nagle += sum_parts(parts, i, "tcp_wait");
	for (i = 4; i <= 6; i++)
		wait_nodelay += sum_parts(parts, i, "tcp_wait");
	ok(wait_nagle >= 3 * ns_to_ms(HELD_MIN_NS),
	    "Nagle on: each login has a TCP wait of at least %.0f ms "
	    "(%.1f ms in 3)", ns_to_ms(HELD_MIN_NS), wait_nagle);
	ok(wait_nodelay == 0, "TCP_NODELAY: no TCP wait (%.3f ms)",
	    wait_nodelay);
	for (i = 1; i <= 6; i++) {
		total = login_total(logins, i);
		sum = sum_parts(parts, i, NULL);
		ok(fabs(sum - total) < 0.01 * total,
		    "login %d: the parts add up to its total (%.3f of %.3f ms)",
		    i, sum, total);
	}
	test_syn_again();
	printf("1..%d\n", test_num);
	unlink(packets);
	unlink(logins);
	unlink(parts);
	rmdir(dir);
	return test_failed != 0;
}
