/*
 * sshperf-echo: the keystroke echo timer. Sends single bytes at a fixed
 * rate through a session whose far end writes every byte back, and times
 * each echo from the moment the byte was SCHEDULED to be sent (as wrk
 * does), so a stall shows in the samples after it instead of hiding.
 *
 * The far end is one of:
 *   libssh  a session over libssh with a PTY; the remote command sets the
 *           PTY to raw mode without echo and runs cat, so each byte comes
 *           back exactly once, written by cat (a program echoing what it
 *           reads, as a shell's line editor does);
 *   ssh     the real ssh client (-- ssh -tt ... cat) in a local PTY in raw
 *           mode without echo; ssh passes those modes to the server's PTY;
 *   tcp     a plain TCP echo server (the floor: the timer without SSH);
 * and tcp-server is that echo server, optionally stalling every Nth byte.
 * A last mode, repeat, times a whole command run N times one after another
 * (the session test's commands over an open connection).
 */
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <libssh/libssh.h>

#include "common.h"
#include "stats.h"

extern char **environ;

#define DEFAULT_RATE		100
#define DEFAULT_COUNT		500
#define DEFAULT_TIMEOUT_S	10.0
#define START_LEAD_NS		(NS_PER_MS)		/* first byte after the probe */
#define PROBE_QUIET_NS		(200 * NS_PER_MS)	/* extra echoes of the probe */
#define KILL_GRACE_NS		(2 * NS_PER_S)
#define PROBE_BYTE		'Z'
#define NOT_ECHOED		UINT64_MAX
#define MAX_ECHO_BYTES		2

/* Run on the server in libssh mode; the marker says the PTY is raw. */
#define READY_MARKER		"sshperf-echo-ready"
#define REMOTE_COMMAND \
	"stty raw -echo && printf " READY_MARKER " && exec cat"

enum mode {
	MODE_LIBSSH,
	MODE_SSH,
	MODE_TCP,
	MODE_TCP_SERVER,
	MODE_REPEAT
};

struct config {
	enum mode	 mode;
	const char	*host;
	const char	*user;
	const char	*key_path;
	const char	*known_hosts;
	const char	*out_path;
	uint64_t	 port;
	int		 port_given;
	uint64_t	 rate;		/* bytes per second */
	uint64_t	 count;
	uint64_t	 timeout_ns;	/* login, and echoes after the last send */
	uint64_t	 give_up;	/* repeat -g: stop after this many time-outs */
	uint64_t	 stall_every;	/* tcp-server: stall every Nth byte */
	uint64_t	 stall_ns;
	char		**argv;		/* ssh mode: the client command */
};

/* The byte stream to the echoing side. */
struct link {
	int		 fd;		/* polled for input */
	ssh_session	 ssh;		/* libssh mode */
	ssh_channel	 channel;
	pid_t		 pid;		/* ssh mode: the client */
};

/* One timed run: the schedule and what came back. */
struct echo_run {
	uint64_t	 count;
	uint64_t	 rate;
	uint64_t	 timeout_ns;
	unsigned	 echo_bytes;	/* bytes back per byte sent */
	uint64_t	*sched_ns;	/* offset from the start */
	uint64_t	*send_lag_ns;	/* sent this late; NOT_ECHOED: unsent */
	uint64_t	*echo_ns;	/* echo - schedule; NOT_ECHOED: lost */
	uint64_t	 sent;
	uint64_t	 echoed;
	uint64_t	 mismatched;	/* a byte came back that was not sent */
	int		 closed;	/* the far end closed or failed */
};

/* The byte sent as keystroke seq: letters only, never changed by a PTY. */
static char
byte_for(uint64_t seq)
{
	return (char)('a' + seq % 26);
}

static void
echo_run_init(struct echo_run *r, uint64_t count, uint64_t rate,
    uint64_t timeout_ns, unsigned echo_bytes)
{
	uint64_t i;

	memset(r, 0, sizeof(*r));
	r->count = count;
	r->rate = rate;
	r->timeout_ns = timeout_ns;
	r->echo_bytes = echo_bytes;
	if ((r->sched_ns = calloc(count, sizeof(uint64_t))) == NULL ||
	    (r->send_lag_ns = calloc(count, sizeof(uint64_t))) == NULL ||
	    (r->echo_ns = calloc(count, sizeof(uint64_t))) == NULL)
		err(2, "calloc");
	for (i = 0; i < count; i++) {
		r->sched_ns[i] = i * NS_PER_S / rate;
		r->send_lag_ns[i] = NOT_ECHOED;
		r->echo_ns[i] = NOT_ECHOED;
	}
}

static void
echo_run_free(struct echo_run *r)
{
	free(r->sched_ns);
	free(r->send_lag_ns);
	free(r->echo_ns);
	memset(r, 0, sizeof(*r));
}

/* Waits until fd is readable or until_ns: 1 readable, 0 time is up. */
static int
wait_readable(int fd, uint64_t until_ns)
{
	struct pollfd pfd;
	struct timespec ts;
	uint64_t now, left;

	for (;;) {
		now = now_ns();
		if (now >= until_ns)
			return 0;
		left = until_ns - now;
		ts.tv_sec = (time_t)(left / NS_PER_S);
		ts.tv_nsec = (long)(left % NS_PER_S);
		pfd.fd = fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		switch (ppoll(&pfd, 1, &ts, NULL)) {
		case -1:
			if (errno == EINTR)
				continue;
			err(2, "poll");
		case 0:
			return 0;
		default:
			return 1;
		}
	}
}

static int
link_write(struct link *l, char c)
{
	ssize_t n;

	if (l->channel != NULL)
		return ssh_channel_write(l->channel, &c, 1) == 1 ? 0 : -1;
	for (;;) {
		n = write(l->fd, &c, 1);
		if (n == 1)
			return 0;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = l->fd, .events = POLLOUT };

			if (poll(&pfd, 1, 1000) <= 0)
				return -1;
			continue;
		}
		return -1;
	}
}

/*
 * Reads what has come back, waiting at most until until_ns: the number of
 * bytes, 0 when nothing came, -1 when the far end closed or failed.
 */
static ssize_t
link_read(struct link *l, char *buf, size_t size, uint64_t until_ns)
{
	ssize_t n;
	int r;

	for (;;) {
		if (l->channel != NULL) {
			/* Also handles whatever libssh has buffered already. */
			r = ssh_channel_read_nonblocking(l->channel, buf,
			    (uint32_t)size, 0);
			if (r > 0)
				return r;
			if (r < 0 || ssh_channel_is_eof(l->channel) ||
			    ssh_channel_is_closed(l->channel))
				return -1;
		} else {
			n = read(l->fd, buf, size);
			if (n > 0)
				return n;
			if (n == 0)
				return -1;
			if (errno != EAGAIN && errno != EINTR)
				return -1;	/* EIO: the PTY's other side closed */
		}
		if (!wait_readable(l->fd, until_ns))
			return 0;
	}
}

/*
 * Sends one probe byte and counts how many copies come back: 1 when only
 * the far end's program echoes, 2 when a PTY echoes as well. Bytes before
 * the first copy (a login banner) are skipped. Returns the count, 0 when
 * nothing came back by deadline_ns, -1 when the far end closed or sent
 * something else after the probe.
 */
static int
probe_echo(struct link *l, uint64_t deadline_ns, uint64_t *echoed_ns)
{
	char buf[512];
	ssize_t n, i;
	uint64_t quiet_until = 0;
	int copies = 0;

	if (link_write(l, PROBE_BYTE) != 0)
		return -1;
	for (;;) {
		n = link_read(l, buf, sizeof(buf),
		    copies ? quiet_until : deadline_ns);
		if (n < 0)
			return -1;
		if (n == 0)
			return copies;
		for (i = 0; i < n; i++) {
			if (buf[i] == PROBE_BYTE) {
				if (copies++ == 0) {
					*echoed_ns = now_ns();
					quiet_until = *echoed_ns +
					    PROBE_QUIET_NS;
				}
			} else if (copies > 0)
				return -1;
		}
	}
}

/*
 * The timer: byte seq is due at start + seq / rate and sent then (late
 * if the timer was busy); whatever comes back is matched to the bytes in
 * order, echo_bytes per byte, and each echo is timed from its byte's
 * scheduled time. Sending follows the schedule whether or not the earlier
 * echoes are back. Ends when every echo is back, when the far end closes,
 * or timeout_ns after the last byte was due; what has not come back then
 * is lost.
 */
static void
run_timer(struct link *l, struct echo_run *r)
{
	char buf[4096];
	uint64_t start_ns, now, until, end_ns, pos = 0, seq, want;
	ssize_t n, i;

	want = r->count * r->echo_bytes;
	start_ns = now_ns() + START_LEAD_NS;
	end_ns = start_ns + r->sched_ns[r->count - 1] + r->timeout_ns;
	while (pos < want && !r->closed) {
		now = now_ns();
		if (r->sent < r->count && now >= start_ns + r->sched_ns[r->sent]) {
			if (link_write(l, byte_for(r->sent)) != 0) {
				r->closed = 1;
				break;
			}
			r->send_lag_ns[r->sent] = now - (start_ns +
			    r->sched_ns[r->sent]);
			r->sent++;
			continue;
		}
		until = r->sent < r->count ? start_ns + r->sched_ns[r->sent] :
		    end_ns;
		if (now >= until)
			break;		/* everything sent, the wait is over */
		if ((n = link_read(l, buf, sizeof(buf), until)) < 0) {
			r->closed = 1;
			break;
		}
		now = now_ns();
		for (i = 0; i < n && pos < want; i++, pos++) {
			seq = pos / r->echo_bytes;
			if (seq >= r->sent || (r->echo_bytes == 1 &&
			    buf[i] != byte_for(seq))) {
				r->mismatched++;
				continue;
			}
			if (pos % r->echo_bytes == r->echo_bytes - 1) {
				r->echo_ns[seq] = now - (start_ns +
				    r->sched_ns[seq]);
				r->echoed++;
			}
		}
	}
}

static void
write_samples(const char *path, const struct echo_run *r)
{
	FILE *f;
	uint64_t i;
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1)
		err(2, "%s", path);
	if ((f = fdopen(fd, "w")) == NULL)
		err(2, "%s", path);
	fprintf(f, "seq\tscheduled_ns\tsend_lag_ms\techo_ms\n");
	for (i = 0; i < r->count; i++) {
		fprintf(f, "%llu\t%llu\t", (unsigned long long)i,
		    (unsigned long long)r->sched_ns[i]);
		if (r->send_lag_ns[i] == NOT_ECHOED)
			fprintf(f, "-\t");
		else
			fprintf(f, "%.3f\t", ns_to_ms(r->send_lag_ns[i]));
		if (r->echo_ns[i] == NOT_ECHOED)
			fprintf(f, "-\n");
		else
			fprintf(f, "%.3f\n", ns_to_ms(r->echo_ns[i]));
	}
	if (fclose(f) == EOF)
		err(2, "%s", path);
}

/* n, lost and the percentiles of the echoes, as key=value lines. */
static void
print_run(FILE *out, const struct echo_run *r)
{
	struct samples s;
	uint64_t i, lag_max = 0;

	samples_init(&s);
	for (i = 0; i < r->count; i++) {
		if (r->echo_ns[i] != NOT_ECHOED &&
		    samples_add(&s, ns_to_ms(r->echo_ns[i])) != 0)
			err(2, "samples_add");
		if (r->send_lag_ns[i] != NOT_ECHOED &&
		    r->send_lag_ns[i] > lag_max)
			lag_max = r->send_lag_ns[i];
	}
	fprintf(out, "rate=%llu\ncount=%llu\necho_bytes=%u\nsent=%llu\n"
	    "lost=%llu\nmismatched=%llu\nclosed=%s\n",
	    (unsigned long long)r->rate, (unsigned long long)r->count,
	    r->echo_bytes, (unsigned long long)r->sent,
	    (unsigned long long)(r->count - r->echoed),
	    (unsigned long long)r->mismatched, r->closed ? "yes" : "no");
	samples_print(out, "", &s);
	fprintf(out, "send_lag_max_ms=%.3f\n", ns_to_ms(lag_max));
	samples_free(&s);
}

/* ---- TCP: the echo server and the plain client ------------------------ */

static struct addrinfo *
resolve(const char *host, uint64_t port, int passive)
{
	struct addrinfo hints, *res;
	char service[16];
	int gai;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
	snprintf(service, sizeof(service), "%llu", (unsigned long long)port);
	if ((gai = getaddrinfo(host, service, &hints, &res)) != 0)
		errx(2, "%s: %s", host, gai_strerror(gai));
	return res;
}

static void
set_nodelay(int fd)
{
	int one = 1;

	if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == -1)
		err(2, "setsockopt TCP_NODELAY");
}

/* A listening socket on host:port (port 0: any free one). */
static int
tcp_listen(const char *host, uint64_t port)
{
	struct addrinfo *res = resolve(host, port, 1);
	int fd, one = 1;

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
local_port(int fd)
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
 * stall_every-th byte (counted from 1, probe included) is held stall_ns
 * first. Returns when the client closes.
 */
static void
serve_one(int fd, uint64_t stall_every, uint64_t stall_ns)
{
	char buf[4096];
	uint64_t nbytes = 0;
	ssize_t n, i, from;

	set_nodelay(fd);
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

static void
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

static int
tcp_connect(const char *host, uint64_t port)
{
	struct addrinfo *res = resolve(host, port, 0);
	int fd;

	if ((fd = socket(res->ai_family, res->ai_socktype | SOCK_CLOEXEC,
	    res->ai_protocol)) == -1)
		err(2, "socket");
	if (connect(fd, res->ai_addr, res->ai_addrlen) == -1) {
		warn("connect %s port %llu", host, (unsigned long long)port);
		close(fd);
		fd = -1;
	} else {
		set_nodelay(fd);
		if (fcntl(fd, F_SETFL, O_NONBLOCK) == -1)
			err(2, "fcntl");
	}
	freeaddrinfo(res);
	return fd;
}

/* ---- libssh ------------------------------------------------------------ */

static const char *
known_hosts_problem(enum ssh_known_hosts_e state)
{
	switch (state) {
	case SSH_KNOWN_HOSTS_CHANGED:
		return "the server's host key differs from the pinned one "
		    "(a regenerated key, or another server on the port)";
	case SSH_KNOWN_HOSTS_OTHER:
		return "the server offered a key type that is not pinned";
	case SSH_KNOWN_HOSTS_UNKNOWN:
		return "no entry for the server";
	case SSH_KNOWN_HOSTS_NOT_FOUND:
		return "the file does not exist";
	default:
		return "the check failed";
	}
}

/*
 * Logs in with libssh and starts the remote cat in a raw PTY. Prints kex,
 * cipher_out, connect_ms, auth_ms and session_ms. Exits 1 when the login
 * fails or the host key is not the pinned one.
 */
static void
libssh_open(const struct config *cf, struct link *l)
{
	ssh_key key = NULL;
	char buf[256];
	size_t have = 0;
	ssize_t n;
	uint64_t t_ns, deadline_ns;
	long timeout_s = (long)(cf->timeout_ns / NS_PER_S) + 1;
	unsigned int port = (unsigned int)cf->port;
	int nodelay = 1, rc;
	enum ssh_known_hosts_e known;

	if ((l->ssh = ssh_new()) == NULL)
		errx(2, "ssh_new failed");
	if (ssh_options_set(l->ssh, SSH_OPTIONS_HOST, cf->host) != 0)
		errx(2, "-h %s: %s", cf->host, ssh_get_error(l->ssh));
	/* First: reading the configuration may set the port (and, on RHEL,
	 * brings the crypto policy). Our options below win over it. */
	if (ssh_options_parse_config(l->ssh, NULL) != 0)
		errx(2, "reading the ssh client configuration: %s",
		    ssh_get_error(l->ssh));
	if (ssh_options_set(l->ssh, SSH_OPTIONS_PORT, &port) != 0 ||
	    ssh_options_set(l->ssh, SSH_OPTIONS_USER, cf->user) != 0 ||
	    ssh_options_set(l->ssh, SSH_OPTIONS_KNOWNHOSTS,
	    cf->known_hosts) != 0 ||
	    ssh_options_set(l->ssh, SSH_OPTIONS_GLOBAL_KNOWNHOSTS,
	    "/dev/null") != 0 ||
	    ssh_options_set(l->ssh, SSH_OPTIONS_NODELAY, &nodelay) != 0 ||
	    ssh_options_set(l->ssh, SSH_OPTIONS_TIMEOUT, &timeout_s) != 0)
		errx(2, "setting libssh options: %s", ssh_get_error(l->ssh));

	t_ns = now_ns();
	if (ssh_connect(l->ssh) != SSH_OK)
		errx(1, "connecting to %s port %u: %s", cf->host, port,
		    ssh_get_error(l->ssh));
	printf("connect_ms=%.3f\n", ns_to_ms(now_ns() - t_ns));
	printf("kex=%s\n", ssh_get_kex_algo(l->ssh) ?
	    ssh_get_kex_algo(l->ssh) : "-");
	printf("cipher_out=%s\n", ssh_get_cipher_out(l->ssh) ?
	    ssh_get_cipher_out(l->ssh) : "-");

	if ((known = ssh_session_is_known_server(l->ssh)) !=
	    SSH_KNOWN_HOSTS_OK)
		errx(1, "refusing to log in: host key of [%s]:%u not accepted "
		    "by %s: %s; run ./start-ssh.sh to pin the test server's "
		    "keys again", cf->host, port, cf->known_hosts,
		    known_hosts_problem(known));

	if (ssh_pki_import_privkey_file(cf->key_path, NULL, NULL, NULL,
	    &key) != SSH_OK)
		errx(2, "-k %s: cannot read the private key", cf->key_path);
	t_ns = now_ns();
	rc = ssh_userauth_publickey(l->ssh, NULL, key);
	ssh_key_free(key);
	if (rc != SSH_AUTH_SUCCESS)
		errx(1, "public key authentication as %s failed: %s",
		    cf->user, ssh_get_error(l->ssh));
	printf("auth_ms=%.3f\n", ns_to_ms(now_ns() - t_ns));

	t_ns = now_ns();
	if ((l->channel = ssh_channel_new(l->ssh)) == NULL ||
	    ssh_channel_open_session(l->channel) != SSH_OK ||
	    ssh_channel_request_pty_size(l->channel, "xterm", 80, 24) !=
	    SSH_OK ||
	    ssh_channel_request_exec(l->channel, REMOTE_COMMAND) != SSH_OK)
		errx(1, "opening the session (PTY, cat): %s",
		    ssh_get_error(l->ssh));
	l->fd = ssh_get_fd(l->ssh);
	/* Wait until the remote PTY is raw: no byte may go out before. */
	deadline_ns = t_ns + cf->timeout_ns;
	for (;;) {
		if ((n = link_read(l, buf + have, sizeof(buf) - 1 - have,
		    deadline_ns)) <= 0)
			errx(1, "the remote \"%s\" did not start within the "
			    "timeout", REMOTE_COMMAND);
		have += (size_t)n;
		buf[have] = '\0';
		if (strstr(buf, READY_MARKER) != NULL)
			break;
		if (have == sizeof(buf) - 1)
			errx(1, "the remote command printed something else: "
			    "%.60s", buf);
	}
	printf("session_ms=%.3f\n", ns_to_ms(now_ns() - t_ns));
}

static void
libssh_close(struct link *l)
{
	if (l->channel != NULL) {
		ssh_channel_close(l->channel);
		ssh_channel_free(l->channel);
	}
	if (l->ssh != NULL) {
		ssh_disconnect(l->ssh);
		ssh_free(l->ssh);
	}
	l->channel = NULL;
	l->ssh = NULL;
}

/* ---- The real ssh client in a PTY -------------------------------------- */

/* Starts argv on a new PTY in raw mode without echo (stty raw -echo). */
static void
pty_spawn(char **argv, struct link *l)
{
	struct termios tio;
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	char name[128];
	int master, slave;

	if ((master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1 ||
	    grantpt(master) == -1 || unlockpt(master) == -1 ||
	    ptsname_r(master, name, sizeof(name)) != 0)
		err(2, "creating a PTY");
	if ((slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1)
		err(2, "%s", name);
	if (tcgetattr(slave, &tio) == -1)
		err(2, "tcgetattr");
	cfmakeraw(&tio);
	if (tcsetattr(slave, TCSANOW, &tio) == -1 ||
	    ioctl(slave, TIOCSWINSZ, &ws) == -1)
		err(2, "setting the PTY's modes");
	fflush(stdout);
	switch (l->pid = fork()) {
	case -1:
		err(2, "fork");
	case 0:
		if (setsid() == -1 || ioctl(slave, TIOCSCTTY, 0) == -1 ||
		    dup2(slave, STDIN_FILENO) == -1 ||
		    dup2(slave, STDOUT_FILENO) == -1)
			_exit(126);
		/* stderr stays ours: ssh's messages go to the caller. */
		execvp(argv[0], argv);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(slave);
	if (fcntl(master, F_SETFL, O_NONBLOCK) == -1)
		err(2, "fcntl");
	l->fd = master;
}

/* Hangs up the PTY and waits (with a deadline) for the client: its status. */
static int
pty_close(struct link *l)
{
	uint64_t deadline_ns;
	int wstatus, killed = 0;
	pid_t r;

	close(l->fd);
	l->fd = -1;
	deadline_ns = now_ns() + KILL_GRACE_NS;
	for (;;) {
		if ((r = waitpid(l->pid, &wstatus, WNOHANG)) == l->pid)
			break;
		if (r == -1 && errno != EINTR)
			err(2, "waitpid");
		if (now_ns() >= deadline_ns) {
			kill(l->pid, killed ? SIGKILL : SIGTERM);
			killed++;
			deadline_ns = now_ns() + KILL_GRACE_NS;
		}
		sleep_until_ns(now_ns() + 10 * NS_PER_MS);
	}
	return exit_code_of(wstatus);
}

/* ---- repeat: a command's run time, run after run --------------------- */

/* A descriptor that becomes readable when pid exits, or -1 (kernel < 5.3). */
static int
open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd != -1 && fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
		err(2, "fcntl");
	return fd;
#else
	(void)pid;
	return -1;
#endif
}

/*
 * Runs argv once with stdin and stdout on /dev/null (stderr is ours) and
 * waits for it, killing it at timeout_ns. Sets *total_ns; returns its exit
 * code (128 + signal), -1 when it was killed at the timeout, or 126/127
 * when it could not be run.
 */
static int
run_command(char **argv, uint64_t timeout_ns, uint64_t *total_ns)
{
	posix_spawn_file_actions_t fa;
	uint64_t t0_ns, deadline_ns;
	pid_t pid;
	int r, pidfd, wstatus, timed_out = 0;

	if ((r = posix_spawn_file_actions_init(&fa)) != 0 ||
	    (r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO,
	    "/dev/null", O_RDONLY, 0)) != 0 ||
	    (r = posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO,
	    "/dev/null", O_WRONLY, 0)) != 0)
		errno = r, err(2, "posix_spawn_file_actions");
	t0_ns = now_ns();
	r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0) {
		errno = r;
		warn("cannot run %s", argv[0]);
		return r == ENOENT ? 127 : 126;
	}
	deadline_ns = t0_ns + timeout_ns;
	pidfd = open_pidfd(pid);
	for (;;) {
		if ((r = waitpid(pid, &wstatus, WNOHANG)) == pid)
			break;
		if (r == -1 && errno != EINTR)
			err(2, "waitpid");
		if (now_ns() >= deadline_ns) {
			/* Only our child: its pid is not reaped yet. */
			kill(pid, timed_out ? SIGKILL : SIGTERM);
			timed_out = 1;
			deadline_ns = now_ns() + KILL_GRACE_NS;
		}
		if (pidfd != -1)
			wait_readable(pidfd, deadline_ns);
		else
			sleep_until_ns(now_ns() + NS_PER_MS / 4);
	}
	*total_ns = now_ns() - t0_ns;
	if (pidfd != -1)
		close(pidfd);
	if (timed_out)
		return -1;
	return exit_code_of(wstatus);
}

/*
 * Runs argv count times, one after another; each run's time to -o (seq,
 * exit, total_ms), and runs, ok, failed, not_run and the percentiles of
 * the ok runs on stdout. With give_up, stops once that many runs in a row
 * were killed at the timeout. Returns 0 when every run exited 0.
 */
static int
repeat(const struct config *cf, char **argv)
{
	struct samples s;
	FILE *f = NULL;
	uint64_t i, total_ns, failed = 0, runs = 0, silent = 0;
	int code, fd;

	if (cf->out_path != NULL) {
		if ((fd = open(cf->out_path, O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC, 0644)) == -1 || (f = fdopen(fd, "w")) == NULL)
			err(2, "%s", cf->out_path);
		fprintf(f, "seq\texit\ttotal_ms\n");
	}
	samples_init(&s);
	for (i = 1; i <= cf->count; i++) {
		code = run_command(argv, cf->timeout_ns, &total_ns);
		if (code == 126 || code == 127)
			exit(code);
		runs++;
		silent = code == -1 ? silent + 1 : 0;
		if (code != 0)
			failed++;
		else if (samples_add(&s, ns_to_ms(total_ns)) != 0)
			err(2, "samples_add");
		if (f != NULL && code == -1)
			fprintf(f, "%llu\ttimeout\t%.3f\n",
			    (unsigned long long)i, ns_to_ms(total_ns));
		else if (f != NULL)
			fprintf(f, "%llu\t%d\t%.3f\n", (unsigned long long)i,
			    code, ns_to_ms(total_ns));
		if (f != NULL)
			fflush(f);
		if (cf->give_up != 0 && silent >= cf->give_up &&
		    i < cf->count) {
			warnx("%llu runs in a row got no answer within %.1f s; "
			    "the other %llu were not run",
			    (unsigned long long)silent,
			    (double)cf->timeout_ns / NS_PER_S,
			    (unsigned long long)(cf->count - i));
			break;
		}
	}
	if (f != NULL && fclose(f) == EOF)
		err(2, "%s", cf->out_path);
	printf("mode=repeat\nruns=%llu\nok=%llu\nfailed=%llu\n"
	    "not_run=%llu\n", (unsigned long long)runs,
	    (unsigned long long)(runs - failed), (unsigned long long)failed,
	    (unsigned long long)(cf->count - runs));
	samples_print(stdout, "", &s);
	samples_free(&s);
	return failed == 0 ? 0 : 1;
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-echo -m libssh -h host -p port -u user -k key "
	    "-K known_hosts\n"
	    "                    [-r rate] [-n count] [-t timeout_s] "
	    "[-o samples.tsv]\n"
	    "       sshperf-echo -m ssh [-r rate] [-n count] [-t timeout_s] "
	    "[-o samples.tsv]\n"
	    "                    -- ssh -tt -F config host cat\n"
	    "       sshperf-echo -m tcp -h host -p port [-r rate] [-n count] "
	    "[-o samples.tsv]\n"
	    "       sshperf-echo -m tcp-server [-h host] -p port "
	    "[-d every:stall_ms]\n"
	    "       sshperf-echo -m repeat [-n count] [-t timeout_s] "
	    "[-g no_answers] [-o runs.tsv]\n"
	    "                    -- command ...\n");
	exit(2);
}

static enum mode
parse_mode(const char *s)
{
	if (strcmp(s, "libssh") == 0)
		return MODE_LIBSSH;
	if (strcmp(s, "ssh") == 0)
		return MODE_SSH;
	if (strcmp(s, "tcp") == 0)
		return MODE_TCP;
	if (strcmp(s, "tcp-server") == 0)
		return MODE_TCP_SERVER;
	if (strcmp(s, "repeat") == 0)
		return MODE_REPEAT;
	errx(2, "-m %s: unknown mode (libssh, ssh, tcp, tcp-server or "
	    "repeat)", s);
}

/* "-d 10:20": stall every 10th byte for 20 ms. */
static void
parse_stall(struct config *cf, const char *s)
{
	char every[32];
	const char *colon = strchr(s, ':');
	double ms;
	const char *errstr;

	if (colon == NULL || (size_t)(colon - s) >= sizeof(every))
		errx(2, "-d %s: expected every:stall_ms, e.g. 10:20", s);
	memcpy(every, s, (size_t)(colon - s));
	every[colon - s] = '\0';
	cf->stall_every = opt_u64("-d every", every, 1, UINT32_MAX);
	if (parse_double(colon + 1, 0, 60000, &ms, &errstr) != 0)
		errx(2, "-d stall_ms: \"%s\" is %s (allowed: 0 to 60000)",
		    colon + 1, errstr);
	cf->stall_ns = (uint64_t)(ms * (double)NS_PER_MS);
}

/*
 * Times the echo of COUNT single bytes sent at RATE per second (see the top
 * of the file for the modes). Prints key=value lines on stdout: mode, the
 * login's facts (libssh: connect_ms, kex, cipher_out, auth_ms, session_ms;
 * ssh: ready_ms, client_exit), echo_bytes, sent, lost, n, min, p50, p90,
 * p95, p99, max, mean (ms, from the scheduled send time), send_lag_max_ms;
 * -o writes every sample (seq, scheduled_ns, send_lag_ms, echo_ms; "-" for
 * a lost echo). tcp-server prints port=N and serves until it is killed.
 * repeat prints runs, ok, failed, not_run and the statistics of the ok
 * runs' times, -o every run (seq, exit or "timeout", total_ms); -g N stops
 * it once N runs in a row were killed at the timeout (the rest are
 * not_run); it exits 1 when a run failed.
 * Exit 0 when every echo came back, 1 when the login failed, the host key
 * was refused or echoes were lost, 2 on a usage or setup error, 127 (126)
 * when the ssh client cannot be found (run).
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct config cf;
	struct link l;
	struct echo_run r;
	uint64_t deadline_ns, t_ns, echoed_ns = 0;
	double timeout_s = DEFAULT_TIMEOUT_S;
	const char *errstr;
	int ch, copies, lfd, client_exit = -1, e;

	memset(&cf, 0, sizeof(cf));
	memset(&l, 0, sizeof(l));
	l.fd = -1;
	cf.mode = MODE_LIBSSH;
	cf.rate = DEFAULT_RATE;
	cf.count = DEFAULT_COUNT;
	while ((ch = getopt(argc, argv, "+d:g:h:k:K:m:n:o:p:r:t:u:")) != -1) {
		switch (ch) {
		case 'd':
			parse_stall(&cf, optarg);
			break;
		case 'g':
			cf.give_up = opt_u64("-g no_answers", optarg, 1, 1000000);
			break;
		case 'h':
			cf.host = optarg;
			break;
		case 'k':
			cf.key_path = optarg;
			break;
		case 'K':
			cf.known_hosts = optarg;
			break;
		case 'm':
			cf.mode = parse_mode(optarg);
			break;
		case 'n':
			cf.count = opt_u64("-n count", optarg, 1, 10000000);
			break;
		case 'o':
			cf.out_path = optarg;
			break;
		case 'p':
			cf.port = opt_u64("-p port", optarg, 0, 65535);
			cf.port_given = 1;
			break;
		case 'r':
			cf.rate = opt_u64("-r rate", optarg, 1, 100000);
			break;
		case 't':
			if (parse_double(optarg, 0.001, 86400, &timeout_s,
			    &errstr) != 0)
				errx(2, "-t timeout_s: \"%s\" is %s (allowed: "
				    "0.001 to 86400)", optarg, errstr);
			break;
		case 'u':
			cf.user = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	cf.timeout_ns = (uint64_t)(timeout_s * (double)NS_PER_S);
	signal(SIGPIPE, SIG_IGN);
	/* Wake up on time: the default 50 us slack would blur the schedule. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	switch (cf.mode) {
	case MODE_TCP_SERVER:
		if (argc != 0 || !cf.port_given)
			errx(2, "-m tcp-server needs -p port (0: any free "
			    "port)");
		lfd = tcp_listen(cf.host ? cf.host : "127.0.0.1", cf.port);
		printf("port=%llu\n", (unsigned long long)local_port(lfd));
		fflush(stdout);
		serve(lfd, cf.stall_every, cf.stall_ns);
		return 0;
	case MODE_REPEAT:
		if (argc == 0)
			errx(2, "-m repeat needs the command after --");
		return repeat(&cf, argv);
	case MODE_TCP:
		if (argc != 0 || cf.host == NULL || cf.port == 0)
			errx(2, "-m tcp needs -h host and -p port");
		t_ns = now_ns();
		if ((l.fd = tcp_connect(cf.host, cf.port)) == -1)
			return 1;
		printf("mode=tcp\nconnect_ms=%.3f\n", ns_to_ms(now_ns() - t_ns));
		break;
	case MODE_LIBSSH:
		if (argc != 0 || cf.host == NULL || cf.port == 0 ||
		    cf.user == NULL || cf.key_path == NULL ||
		    cf.known_hosts == NULL)
			errx(2, "-m libssh needs -h host -p port -u user "
			    "-k private_key -K known_hosts");
		printf("mode=libssh\n");
		libssh_open(&cf, &l);
		break;
	case MODE_SSH:
		if (argc == 0)
			errx(2, "-m ssh needs the client command after --, "
			    "e.g. -- ssh -tt -F config host cat");
		printf("mode=ssh\n");
		pty_spawn(argv, &l);
		break;
	}

	t_ns = now_ns();
	deadline_ns = t_ns + cf.timeout_ns;
	copies = probe_echo(&l, deadline_ns, &echoed_ns);
	if (cf.mode == MODE_SSH && copies > 0)
		printf("ready_ms=%.3f\n", ns_to_ms(echoed_ns - t_ns));
	if (copies < 1 || copies > MAX_ECHO_BYTES) {
		if (cf.mode == MODE_SSH) {
			client_exit = pty_close(&l);
			if (client_exit == 126 || client_exit == 127) {
				warnx("cannot run %s", argv[0]);
				return client_exit;
			}
		}
		if (copies == 0)
			errx(1, "no echo of a probe byte within %.1f s",
			    timeout_s);
		errx(1, "the far end does not echo each byte once or twice "
		    "(closed, or wrote something else)");
	}

	echo_run_init(&r, cf.count, cf.rate, cf.timeout_ns, (unsigned)copies);
	run_timer(&l, &r);
	if (cf.out_path != NULL)
		write_samples(cf.out_path, &r);
	print_run(stdout, &r);

	switch (cf.mode) {
	case MODE_LIBSSH:
		libssh_close(&l);
		break;
	case MODE_SSH:
		client_exit = pty_close(&l);
		printf("client_exit=%d\n", client_exit);
		break;
	default:
		close(l.fd);
	}
	e = r.echoed == r.count && r.mismatched == 0 ? 0 : 1;
	if (e != 0)
		warnx("%llu of %llu echoes did not come back%s",
		    (unsigned long long)(r.count - r.echoed),
		    (unsigned long long)r.count,
		    r.mismatched ? " or were not the bytes sent" : "");
	echo_run_free(&r);
	return e;
}
