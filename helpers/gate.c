/*
 * sshperf-gate: the barrier an ssh client waits at during a burst. ssh runs
 * it as its ProxyCommand with ProxyUseFdpass=yes, after ssh has been
 * executed, linked and has read its configuration; the gate reports ready
 * to sshperf-burst, waits until the burst is released, then makes the TCP
 * connection and hands the connected socket to ssh (SCM_RIGHTS on stdout).
 *
 * The releaser's side (two FIFOs in a private folder, as in perf bench
 * sched messaging's pipe barrier):
 *   DIR/ready  each gate writes "R client pid\n" when it waits; records
 *              are shorter than PIPE_BUF, so they never interleave.
 *   DIR/connects  a plain file; each gate appends (O_APPEND, one write)
 *              "C client woke_ns connect_ns errno local_port local_addr\n"
 *              after its
 *              connect, CLOCK_MONOTONIC ns. A file, not a pipe: the write wakes
 *              nobody while the other gates are still connecting.
 *   DIR/go     each gate holds it open for reading; the releaser holds the
 *              only writer and closes it: every gate sees the hang-up at
 *              the same moment.
 * DIR and the client number come from the environment (SSHPERF_GATE_DIR,
 * SSHPERF_GATE_CLIENT), which sshperf-burst sets for every client and ssh
 * passes on to its ProxyCommand; so does the source address the client
 * connects from (SSHPERF_GATE_SOURCE, numeric; unset: the kernel's choice).
 * Per-source limits (OpenSSH 9.8's PerSourcePenalties, PerSourceMaxStartups)
 * count by that address: a burst from one address is one controller, a
 * burst from many is a fleet.
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define DEFAULT_TIMEOUT_MS	60000

struct gate {
	const char	*dir;
	const char	*client;	/* a number, as the releaser gave it */
	uint64_t	 deadline_ns;	/* for the barrier and the connect */
	int		 pass_fd;	/* 1: SCM_RIGHTS on stdout (ssh) */
	int		 ready_fd;	/* write end of DIR/ready */
	int		 connects_fd;	/* DIR/connects, O_APPEND */
	int		 go_fd;		/* read end of DIR/go */
};

/* Opens DIR/name with flags; exits 1 naming the file on failure. */
static int
open_in_dir(const struct gate *g, const char *name, int flags)
{
	char path[PATH_MAX];
	int fd;

	if (snprintf(path, sizeof(path), "%s/%s", g->dir, name) >=
	    (int)sizeof(path))
		errx(2, "SSHPERF_GATE_DIR is too long");
	if ((fd = open(path, flags | O_NONBLOCK | O_CLOEXEC)) == -1)
		err(1, "%s (the burst was released or ended before this "
		    "client was ready)", path);
	return fd;
}

/* One record in one write; to a pipe it blocks, so a full pipe only delays it. */
static void
report(int fd, const char *record, size_t len)
{
	ssize_t n;

	do {
		n = write(fd, record, len);
	} while (n == -1 && errno == EINTR);
	if (n != (ssize_t)len)
		err(1, "writing to the releaser");
}

/* Waits on fd for events until the gate's deadline: 1 ready, 0 expired. */
static int
wait_fd(const struct gate *g, int fd, short events)
{
	struct pollfd pfd;
	struct timespec ts;
	uint64_t now, left_ns;
	int r;

	for (;;) {
		now = now_ns();
		left_ns = now < g->deadline_ns ? g->deadline_ns - now : 0;
		ts.tv_sec = (time_t)(left_ns / NS_PER_S);
		ts.tv_nsec = (long)(left_ns % NS_PER_S);
		pfd.fd = fd;
		pfd.events = events;
		pfd.revents = 0;
		r = ppoll(&pfd, 1, &ts, NULL);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			err(1, "poll");
		if (r > 0)
			return 1;
		if (left_ns == 0)
			return 0;
	}
}

/*
 * Non-blocking connect with the gate's deadline. Returns the socket, or -1
 * with errno set (ETIMEDOUT at the deadline).
 */
/*
 * The socket, made before the barrier so that the release only connects;
 * bound to source (numeric, or NULL: the kernel's choice). The port is
 * left to connect() (IP_BIND_ADDRESS_NO_PORT), so that a thousand gates
 * on one source address share the ports as unbound sockets would.
 */
static int
make_socket(const struct addrinfo *ai, const char *source)
{
	struct addrinfo hints, *sa;
	int fd, one = 1, gai;

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1)
		err(1, "socket");
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (source == NULL)
		return fd;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = ai->ai_family;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
	if ((gai = getaddrinfo(source, "0", &hints, &sa)) != 0)
		errx(2, "SSHPERF_GATE_SOURCE: \"%s\" is not a numeric address "
		    "of the server's family (%s)", source, gai_strerror(gai));
#ifdef IP_BIND_ADDRESS_NO_PORT
	(void)setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one,
	    sizeof(one));
#endif
	if (bind(fd, sa->ai_addr, sa->ai_addrlen) == -1)
		err(1, "bind to the source address %s (a loopback address "
		    "such as 127.0.0.2 needs no configuration on Linux)",
		    source);
	freeaddrinfo(sa);
	return fd;
}

static int
connect_to(const struct gate *g, int fd, const struct addrinfo *ai)
{
	socklen_t len;
	int soerr;

	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS)
		goto fail;
	if (!wait_fd(g, fd, POLLOUT)) {
		errno = ETIMEDOUT;
		goto fail;
	}
	len = sizeof(soerr);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1)
		goto fail;
	if (soerr == 0)
		return fd;
	errno = soerr;
fail:
	soerr = errno;
	close(fd);
	errno = soerr;
	return -1;
}

/* Hands fd to ssh: one byte with the descriptor attached, on stdout. */
static void
pass_fd(int fd)
{
	union {
		char		buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr	align;
	} control;
	struct msghdr msg;
	struct cmsghdr *cmsg;
	struct iovec iov;
	char byte = '\0';
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	memset(&control, 0, sizeof(control));
	iov.iov_base = &byte;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control.buf;
	msg.msg_controllen = sizeof(control.buf);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	do {
		n = sendmsg(STDOUT_FILENO, &msg, 0);
	} while (n == -1 && errno == EINTR);
	if (n != 1)
		err(1, "passing the socket to ssh on stdout (run me as a "
		    "ProxyCommand with ProxyUseFdpass=yes)");
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: sshperf-gate [-N] [-t timeout_ms] host port\n"
	    "  (as ssh -o 'ProxyCommand=sshperf-gate %%h %%p' "
	    "-o ProxyUseFdpass=yes, with SSHPERF_GATE_DIR and "
	    "SSHPERF_GATE_CLIENT set by sshperf-burst)\n");
	exit(2);
}

/*
 * Reports ready to the burst releaser, waits for the release, connects to
 * host:port (numeric), reports when the connect completed and passes the
 * socket to ssh on stdout (-N: closes it instead, for tests without ssh).
 * Exit 0 when connected and passed, 1 when the release or the connect
 * failed or timed out (-t, from the gate's start), 2 on a usage error.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct addrinfo hints, *ai;
	struct gate g;
	char record[224], addr[INET6_ADDRSTRLEN];
	uint64_t timeout_ms = DEFAULT_TIMEOUT_MS, woke_ns, connect_ns;
	int ch, gai, fd, len, saved, sock;
	unsigned lport;

	memset(&g, 0, sizeof(g));
	g.pass_fd = 1;
	while ((ch = getopt(argc, argv, "Nt:")) != -1) {
		switch (ch) {
		case 'N':
			g.pass_fd = 0;
			break;
		case 't':
			timeout_ms = opt_u64("-t timeout_ms", optarg, 1,
			    86400000);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage();
	g.deadline_ns = now_ns() + timeout_ms * NS_PER_MS;
	if ((g.dir = getenv("SSHPERF_GATE_DIR")) == NULL ||
	    (g.client = getenv("SSHPERF_GATE_CLIENT")) == NULL)
		errx(2, "SSHPERF_GATE_DIR and SSHPERF_GATE_CLIENT are not set: "
		    "run me through sshperf-burst");
	opt_u64("SSHPERF_GATE_CLIENT", g.client, 1, 1000000);
	opt_u64("port", argv[1], 1, 65535);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	if ((gai = getaddrinfo(argv[0], argv[1], &hints, &ai)) != 0)
		errx(2, "host: \"%s\" is not a numeric IPv4 or IPv6 address "
		    "(%s)", argv[0], gai_strerror(gai));

	sock = make_socket(ai, getenv("SSHPERF_GATE_SOURCE"));
	/* The barrier first, so that "ready" means "will see the release". */
	g.go_fd = open_in_dir(&g, "go", O_RDONLY);
	g.connects_fd = open_in_dir(&g, "connects", O_WRONLY | O_APPEND);
	g.ready_fd = open_in_dir(&g, "ready", O_WRONLY);
	if (fcntl(g.ready_fd, F_SETFL, 0) == -1)
		err(1, "fcntl");
	len = snprintf(record, sizeof(record), "R %s %ld\n", g.client,
	    (long)getpid());
	report(g.ready_fd, record, (size_t)len);
	close(g.ready_fd);

	/* Released when the releaser closes the only writer of DIR/go. */
	if (!wait_fd(&g, g.go_fd, POLLIN))
		errx(1, "not released within %llu ms",
		    (unsigned long long)timeout_ms);
	woke_ns = now_ns();
	fd = connect_to(&g, sock, ai);
	saved = fd == -1 ? errno : 0;
	connect_ns = now_ns();
	/*
	 * Done with the part that is timed: from here on, run only when the
	 * gates still waiting for a CPU have had theirs, so that this one's
	 * hand-over and exit do not stretch the others' connects.
	 */
	{
		struct sched_param sp = { .sched_priority = 0 };

		(void)sched_setscheduler(0, SCHED_IDLE, &sp);
		/*
		 * The policy change alone does not give the CPU away (the
		 * nice level stays the same, so no reschedule): yield.
		 */
		(void)sched_yield();
	}
	/*
	 * The connection's local address and port: sshd names them in its
	 * log ("drop connection #N from [127.0.0.5]:PORT", "Connection from
	 * 127.0.0.5 port PORT"), which is how the releaser matches the
	 * server's words to this client. Port 0 and address "-" when there
	 * is no connection.
	 */
	lport = 0;
	strcpy(addr, "-");
	if (fd != -1) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
		    getnameinfo((struct sockaddr *)&ss, sl, addr, sizeof(addr),
		    NULL, 0, NI_NUMERICHOST) == 0) {
			if (ss.ss_family == AF_INET)
				lport = ntohs(((struct sockaddr_in *)&ss)->sin_port);
			else if (ss.ss_family == AF_INET6)
				lport = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
		} else
			strcpy(addr, "-");
	}
	len = snprintf(record, sizeof(record), "C %s %llu %llu %d %u %s\n",
	    g.client, (unsigned long long)woke_ns,
	    (unsigned long long)connect_ns, saved, lport, addr);
	report(g.connects_fd, record, (size_t)len);
	close(g.connects_fd);
	close(g.go_fd);
	if (fd == -1) {
		errno = saved;
		err(1, "connect to %s port %s", argv[0], argv[1]);
	}
	/* ssh gets a plain blocking socket, as from any other ProxyCommand. */
	if (fcntl(fd, F_SETFL, 0) == -1)
		err(1, "fcntl");
	if (g.pass_fd)
		pass_fd(fd);
	close(fd);
	freeaddrinfo(ai);
	return 0;
}
