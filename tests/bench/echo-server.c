/*
 * echo-server: a plain TCP echo server for tests/bench/echo.sh (the echo
 * timer's floor without SSH) and the echo timer's unit test. Listens on
 * host:port (port 0: any free one), prints port=N, and writes every byte
 * of one connection at a time back at once, except that with -d
 * every:stall_ms every Nth byte (counted from 1, probe included) is held
 * stall_ms first. Serves until it is killed. Not installed.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <err.h>
#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static void
server_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1)
		err(2, "setsockopt TCP_NODELAY");
}

/* A listening socket on host:port (port 0: any free one). */
static int
server_listen(const char *host, uint64_t port)
{
	struct addrinfo hints, *res;
	char service[16];
	int fd, gai, one = 1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | AI_PASSIVE;
	snprintf(service, sizeof(service), "%llu", (unsigned long long)port);
	if ((gai = getaddrinfo(host, service, &hints, &res)) != 0)
		errx(2, "%s: %s", host, gai_strerror(gai));
	if ((fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC,
	    res->ai_protocol)) == -1)
		err(2, "socket");
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1)
		err(2, "setsockopt SO_REUSEADDR");
	if (bind(fd, res->ai_addr, res->ai_addrlen) == -1)
		err(2, "bind %s port %llu", host, (unsigned long long)port);
	if (listen(fd, 8) == -1)
		err(2, "listen");
	freeaddrinfo(res);
	return fd;
}

static uint64_t
server_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == -1)
		err(2, "getsockname");
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/*
 * Echoes every byte of one connection back at once, except that every
 * stall_every-th byte is held stall_ns first. Returns when the client
 * closes.
 */
static void
serve_one(int fd, uint64_t stall_every, uint64_t stall_ns)
{
	char buf[4096];
	uint64_t nbytes = 0;
	ssize_t n, i, from;

	server_nodelay(fd);
	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		for (from = 0, i = 0; i < n; i++) {
			if (stall_every == 0 || ++nbytes % stall_every != 0)
				continue;
			/* Everything before the stalled byte goes first. */
			if (i > from && write(fd, buf + from,
			    (size_t)(i - from)) != i - from)
				return;
			sleep_until_ns(now_ns() + stall_ns);
			from = i;
		}
		if (n > from && write(fd, buf + from, (size_t)(n - from)) !=
		    n - from)
			return;
	}
}

static void __attribute__((noreturn))
serve(int lfd, uint64_t stall_every, uint64_t stall_ns)
{
	int fd;

	for (;;) {
		if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) == -1) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			err(2, "accept");
		}
		serve_one(fd, stall_every, stall_ns);
		close(fd);
	}
}

static void __attribute__((noreturn))
server_usage(void)
{
	fprintf(stderr, "usage: echo-server [-h host] -p port "
	    "[-d every:stall_ms]\n");
	exit(2);
}

/* "-d 10:20": stall every 10th byte for 20 ms. */
static void
server_parse_stall(const char *s, uint64_t *every_out, uint64_t *stall_ns)
{
	char every[32];
	const char *colon = strchr(s, ':');
	double ms;

	if (colon == NULL || (size_t)(colon - s) >= sizeof(every))
		errx(2, "-d %s: expected every:stall_ms, e.g. 10:20", s);
	memcpy(every, s, (size_t)(colon - s));
	every[colon - s] = '\0';
	*every_out = opt_u64("-d every", every, 1, UINT32_MAX);
	ms = opt_double("-d stall_ms", colon + 1, 0, 60000);
	*stall_ns = (uint64_t)(ms * (double)NS_PER_MS);
}

int
main(int argc, char *argv[])
{
	help_option(argc, argv, server_usage);
	const char *host = "127.0.0.1";
	uint64_t port = 0, stall_every = 0, stall_ns = 0;
	int ch, lfd, port_given = 0;

	while ((ch = getopt(argc, argv, "d:h:p:")) != -1) {
		switch (ch) {
		case 'd':
			server_parse_stall(optarg, &stall_every, &stall_ns);
			break;
		case 'h':
			host = optarg;
			break;
		case 'p':
			port = opt_u64("-p port", optarg, 0, 65535);
			port_given = 1;
			break;
		default:
			server_usage();
		}
	}
	if (optind != argc || !port_given)
		errx(2, "needs -p port (0: any free port)");
	signal(SIGPIPE, SIG_IGN);
	/* Stall on time: the default 50 us timer slack would blur it. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	lfd = server_listen(host, port);
	printf("port=%llu\n", (unsigned long long)server_port(lfd));
	fflush(stdout);
	serve(lfd, stall_every, stall_ns);
}
