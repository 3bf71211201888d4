/*
 * sshperf-wireprobe: measures the wire the kit made, before anything is
 * measured across it. As a server (-l) it listens on the kit's end of the
 * wire and writes every byte back at once; as a client it opens -n TCP
 * connections one after the other, timing each connect (one round trip:
 * SYN out, SYN-ACK back), then sends -n single bytes through one more
 * connection and times each until it is back (one round trip each, with
 * TCP_NODELAY at both ends). Prints the connect and echo figures as
 * key=value lines: connect_ms_p50, echo_ms_p50, echo_ms_p99 and so on.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "stats.h"

#define DEFAULT_COUNT		20
#define DEFAULT_DEADLINE_S	60
#define DEFAULT_PORT		11099
#define DEFAULT_WAIT_MS		5000
#define GIVE_UP_FAILURES	3	/* in a row: the wire is down */

static uint64_t deadline_ns;
static char bulk[256 * 1024];	/* what -b sends and -k reads */
static uint64_t wait_ms = DEFAULT_WAIT_MS;	/* -w: one attempt at most */

/* What one attempt may wait: -w, or less when the deadline is nearer. */
static int
ms_left(void)
{
	uint64_t now = now_ns(), left;

	if (now >= deadline_ns)
		return 0;
	left = (deadline_ns - now) / NS_PER_MS + 1;
	return (int)(left < wait_ms ? left : wait_ms);
}

static void
nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1)
		err(2, "setsockopt TCP_NODELAY");
}

static struct sockaddr_in
address_of(const char *host, uint64_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	if (inet_pton(AF_INET, host, &sin.sin_addr) != 1)
		errx(2, "%s: not an IPv4 address", host);
	return sin;
}

/* Serves one connection at a time until the deadline: every byte back,
 * or with sink (-k) every byte read and dropped, then at the client's
 * end of sending one line with the count. */
static int
serve(const char *host, uint64_t port, int sink)
{
	struct sockaddr_in sin = address_of(host, port);
	int one = 1, lfd;

	signal(SIGPIPE, SIG_IGN);
	if ((lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		err(2, "socket");
	(void)setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		err(2, "bind %s:%llu", host, (unsigned long long)port);
	if (listen(lfd, 64) == -1)
		err(2, "listen");
	if (port == 0) {
		socklen_t len = sizeof(sin);

		if (getsockname(lfd, (struct sockaddr *)&sin, &len) == -1)
			err(2, "getsockname");
	}
	printf("port=%u\nready=1\n", ntohs(sin.sin_port));
	fflush(stdout);
	for (;;) {
		struct pollfd p = { .fd = lfd, .events = POLLIN };
		char buf[4096];
		int cfd, left;

		if ((left = ms_left()) == 0)
			return 0;
		if (poll(&p, 1, left) <= 0)
			continue;
		if ((cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) == -1)
			continue;
		nodelay(cfd);
		for (uint64_t got = 0;;) {
			struct pollfd q = { .fd = cfd, .events = POLLIN };
			ssize_t n;

			if ((left = ms_left()) == 0 || poll(&q, 1, left) <= 0)
				break;
			if ((n = read(cfd, sink ? bulk : buf, sink ? sizeof(bulk) : sizeof(buf))) <= 0) {
				if (n == 0 && sink)
					dprintf(cfd, "%llu\n", (unsigned long long)got);
				break;
			}
			got += (uint64_t)n;
			if (!sink && write(cfd, buf, (size_t)n) != n)
				break;
		}
		close(cfd);
	}
}

/* One connect, timed from the SYN to the established socket; -1 on failure. */
static double
timed_connect(const struct sockaddr_in *sin, int *fd_out)
{
	struct pollfd p;
	uint64_t t0;
	socklen_t len = sizeof(int);
	int fd, e = 0;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
		err(2, "socket");
	t0 = now_ns();
	if (connect(fd, (const struct sockaddr *)sin, sizeof(*sin)) == -1 &&
	    errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	p = (struct pollfd){ .fd = fd, .events = POLLOUT };
	if (poll(&p, 1, ms_left()) != 1 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == -1 || e != 0) {
		close(fd);
		return -1;
	}
	*fd_out = fd;
	return ns_to_ms(now_ns() - t0);
}

/* One byte out and back; -1 on failure. */
static double
timed_echo(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint64_t t0 = now_ns();
	char c = 'x';

	if (write(fd, &c, 1) != 1)
		return -1;
	if (poll(&p, 1, ms_left()) != 1 || read(fd, &c, 1) != 1)
		return -1;
	return ns_to_ms(now_ns() - t0);
}

static int
probe(const char *host, uint64_t port, uint64_t count)
{
	struct sockaddr_in sin = address_of(host, port);
	struct samples connect_ms, echo_ms;
	uint64_t i, failed = 0, in_a_row = 0;
	double v;
	int fd;

	signal(SIGPIPE, SIG_IGN);
	samples_init(&connect_ms);
	samples_init(&echo_ms);
	for (i = 0; i < count && ms_left() > 0 && in_a_row < GIVE_UP_FAILURES; i++) {
		if ((v = timed_connect(&sin, &fd)) < 0) {
			failed++;
			in_a_row++;
			continue;
		}
		in_a_row = 0;
		samples_add(&connect_ms, v);
		close(fd);
	}
	if (in_a_row < GIVE_UP_FAILURES && (v = timed_connect(&sin, &fd)) >= 0) {
		int fl;

		nodelay(fd);
		/* blocking from here: poll bounds every wait */
		if ((fl = fcntl(fd, F_GETFL)) != -1)
			(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		/* the first byte also wakes the server's read: not counted */
		if (timed_echo(fd) < 0)
			failed++;
		for (i = 0; i < count && ms_left() > 0; i++) {
			if ((v = timed_echo(fd)) < 0) {
				failed++;
				break;
			}
			samples_add(&echo_ms, v);
		}
		close(fd);
	} else
		failed++;
	samples_print(stdout, "connect_ms_", &connect_ms);
	samples_print(stdout, "echo_ms_", &echo_ms);
	printf("failed=%llu\n", (unsigned long long)failed);
	return failed > 0 || connect_ms.n == 0 || echo_ms.n == 0;
}

/* -b: bytes sent through one connection to a sink (-k), timed until the
 * sink says how many it got; prints bulk_bytes, bulk_seconds, bulk_mbs. */
static int
send_bulk(const char *host, uint64_t port, uint64_t bytes)
{
	struct sockaddr_in sin = address_of(host, port);
	uint64_t t0, sent = 0;
	char line[32] = "";
	ssize_t n;
	int fd, fl;

	signal(SIGPIPE, SIG_IGN);
	if (timed_connect(&sin, &fd) < 0)
		errx(1, "connect to %s:%llu failed", host, (unsigned long long)port);
	if ((fl = fcntl(fd, F_GETFL)) != -1)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	t0 = now_ns();
	while (sent < bytes && now_ns() < deadline_ns) {
		size_t chunk = bytes - sent < sizeof(bulk) ? (size_t)(bytes - sent) : sizeof(bulk);

		if ((n = write(fd, bulk, chunk)) <= 0)
			err(1, "write");
		sent += (uint64_t)n;
	}
	shutdown(fd, SHUT_WR);
	{
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, ms_left()) != 1 || (n = read(fd, line, sizeof(line) - 1)) <= 0)
			errx(1, "the sink did not say what it got");
		line[n] = '\0';
	}
	{
		double s = (double)(now_ns() - t0) / 1e9;

		printf("bulk_bytes=%llu\nbulk_received=%s", (unsigned long long)sent, line);
		printf("bulk_seconds=%.3f\nbulk_mbs=%.1f\n", s, (double)sent / 1e6 / s);
	}
	close(fd);
	return 0;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-wireprobe -l address [-k] [-p port] [-t seconds]\n"
	    "       sshperf-wireprobe [-n count] [-p port] [-t seconds] [-w ms] address\n"
	    "       sshperf-wireprobe -b bytes [-p port] [-t seconds] address\n"
	    "  -l  serve: echo every byte back, one connection at a time\n"
	    "  -k  with -l, a sink: drop what comes, then send its count\n"
	    "  -b  send this many bytes to a sink (-k) and time it (bench)\n"
	    "  -n  connects and one-byte echoes to time (default %d)\n"
	    "  -p  the TCP port (default %d; 0 with -l: any free one, printed as port=)\n"
	    "  -t  deadline in seconds (default %d)\n"
	    "  -w  the longest wait of one connect or echo in ms (default %d); %d\n"
	    "      failed connects in a row end the probe\n",
	    DEFAULT_COUNT, DEFAULT_PORT, DEFAULT_DEADLINE_S, DEFAULT_WAIT_MS, GIVE_UP_FAILURES);
	exit(2);
}

/* Times TCP connects and one-byte echoes across the wire, or serves them. */
int
main(int argc, char *argv[])
{
	const char *listen_on = NULL;
	uint64_t port = DEFAULT_PORT, count = DEFAULT_COUNT, seconds = DEFAULT_DEADLINE_S, bytes = 0;
	int ch, sink = 0;

	help_option(argc, argv, usage);
	while ((ch = getopt(argc, argv, "b:kl:n:p:t:w:")) != -1) {
		switch (ch) {
		case 'b':
			bytes = opt_u64("-b", optarg, 1, UINT64_MAX / 2);
			break;
		case 'k':
			sink = 1;
			break;
		case 'l':
			listen_on = optarg;
			break;
		case 'n':
			count = opt_u64("-n", optarg, 1, 100000);
			break;
		case 'p':
			port = opt_u64("-p", optarg, 0, 65535);
			break;
		case 't':
			seconds = opt_u64("-t", optarg, 1, 86400);
			break;
		case 'w':
			wait_ms = opt_u64("-w", optarg, 1, 600000);
			break;
		default:
			usage();
		}
	}
	deadline_ns = now_ns() + seconds * NS_PER_S;
	if (listen_on != NULL) {
		if (optind != argc)
			usage();
		return serve(listen_on, port, sink);
	}
	if (optind + 1 != argc)
		usage();
	if (bytes > 0)
		return send_bulk(argv[optind], port, bytes);
	return probe(argv[optind], port, count);
}
