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
 *   tcp     a plain TCP echo server (the floor: the timer without SSH),
 *           such as the fixture tests/bench/echo-server.c.
 * Timing a whole command run after run is sshperf-repeat's job.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libssh/libssh.h>

#include "common.h"
#include "proc.h"
#include "stats.h"

#define DEFAULT_RATE		100
#define DEFAULT_COUNT		500
#define DEFAULT_TIMEOUT_S	10.0
#define START_LEAD_NS		(NS_PER_MS)		/* first byte after the probe */
#define PROBE_QUIET_NS		(200 * NS_PER_MS)	/* extra echoes of the probe */
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
	MODE_TCP
};

struct config {
	enum mode	 mode;
	const char	*host;
	const char	*user;
	const char	*key_path;
	const char	*known_hosts;
	const char	*out_path;
	uint64_t	 port;
	uint64_t	 rate;		/* bytes per second */
	uint64_t	 count;
	uint64_t	 timeout_ns;	/* login, and echoes after the last send */
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
 * Matches n bytes that came back at now to the bytes sent, in order, from
 * *pos on (run_timer).
 */
static void
take_echoes(struct echo_run *r, const char *buf, ssize_t n, uint64_t now,
    uint64_t start_ns, uint64_t *pos)
{
	uint64_t seq, want = r->count * r->echo_bytes;
	ssize_t i;

	for (i = 0; i < n && *pos < want; i++, (*pos)++) {
		seq = *pos / r->echo_bytes;
		if (seq >= r->sent || (r->echo_bytes == 1 &&
		    buf[i] != byte_for(seq))) {
			r->mismatched++;
			continue;
		}
		if (*pos % r->echo_bytes == r->echo_bytes - 1) {
			r->echo_ns[seq] = now - (start_ns + r->sched_ns[seq]);
			r->echoed++;
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
	uint64_t start_ns, now, until, end_ns, pos = 0, want;
	ssize_t n;

	want = r->count * r->echo_bytes;
	start_ns = now_ns() + START_LEAD_NS;
	end_ns = start_ns + r->sched_ns[r->count - 1] + r->timeout_ns;
	while (pos < want && !r->closed) {
		now = now_ns();
		if (r->sent < r->count && now >= start_ns + r->sched_ns[r->sent]) {
			if (link_write(l, byte_for(r->sent)) != 0) {
				/*
				 * The far end went away; what it echoed
				 * before, and this timer had not read yet
				 * (it was late), still counts.
				 */
				while ((n = link_read(l, buf, sizeof(buf),
				    now_ns())) > 0)
					take_echoes(r, buf, n, now_ns(),
					    start_ns, &pos);
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
		take_echoes(r, buf, n, now_ns(), start_ns, &pos);
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

/* ---- TCP: the plain client ------------------------------------------- */

static struct addrinfo *
resolve(const char *host, uint64_t port)
{
	struct addrinfo hints, *res;
	char service[24];
	int gai;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
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

static int
tcp_connect(const char *host, uint64_t port)
{
	struct addrinfo *res = resolve(host, port);
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

/* Hangs up the PTY and waits (with a deadline) for the client: its status. */
static int
pty_close(struct link *l)
{
	int wstatus;

	close(l->fd);
	l->fd = -1;
	if (!proc_wait_until(l->pid, now_ns() + PROC_KILL_GRACE_NS, &wstatus,
	    NULL))
		(void)proc_stop(l->pid, PROC_KILL_GRACE_NS, &wstatus, NULL);
	return exit_code_of(wstatus);
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
	    "[-o samples.tsv]\n");
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
	if (strcmp(s, "repeat") == 0)
		errx(2, "-m repeat: the command timer is sshperf-repeat now "
		    "(same options, without -m)");
	errx(2, "-m %s: unknown mode (libssh, ssh or tcp)", s);
}

/*
 * Times the echo of COUNT single bytes sent at RATE per second (see the top
 * of the file for the modes). Prints key=value lines on stdout: mode, the
 * login's facts (libssh: connect_ms, kex, cipher_out, auth_ms, session_ms;
 * ssh: ready_ms, client_exit), echo_bytes, sent, lost, n, min, p50, p90,
 * p95, p99, max, mean (ms, from the scheduled send time), send_lag_max_ms;
 * -o writes every sample (seq, scheduled_ns, send_lag_ms, echo_ms; "-" for
 * a lost echo).
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
	int ch, copies, client_exit = -1, e;

	memset(&cf, 0, sizeof(cf));
	memset(&l, 0, sizeof(l));
	l.fd = -1;
	cf.mode = MODE_LIBSSH;
	cf.rate = DEFAULT_RATE;
	cf.count = DEFAULT_COUNT;
	while ((ch = getopt(argc, argv, "+h:k:K:m:n:o:p:r:t:u:")) != -1) {
		switch (ch) {
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
			break;
		case 'r':
			cf.rate = opt_u64("-r rate", optarg, 1, 100000);
			break;
		case 't':
			timeout_s = opt_double("-t timeout_s", optarg,
			    0.001, 86400);
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
		/* stty raw -echo; ssh's messages go to our stderr. */
		if ((e = proc_spawn_pty(&l.pid, argv, PTY_RAW, PROC_INHERIT,
		    &l.fd)) != 0) {
			fflush(stdout);
			warnx("cannot run %s", argv[0]);
			return e == ENOENT ? 127 : 126;
		}
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
