/*
 * sshperf-burst: the burst releaser. Starts N clients (ssh with
 * sshperf-gate as its ProxyCommand), waits until every one is ready and
 * waiting at the gate, releases all of them at the same moment by closing
 * the only writer of a FIFO (the pipe barrier of perf bench sched
 * messaging), and times every client from that release.
 */
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "proc.h"
#include "stats.h"

extern char **environ;

#define DEFAULT_TIMEOUT_S	60
#define DEFAULT_READY_S		60
#define LINE_MAX_BYTES		1024		/* longer lines are cut */
#define MESSAGE_BYTES		256
#define MAX_CLIENTS		2000		/* hard cap on children, all runs */
#define PIPE_BYTES		(1024 * 1024)	/* DIR/ready, best effort */
/* -R: a release at most this far ahead of the wall clock (the load mode's
 * start is at most an hour ahead); the wait ends this much later by the
 * monotonic clock at the latest, if the wall clock is set back meanwhile. */
#define RELEASE_AHEAD_MAX_S	7200
#define RELEASE_SLACK_S		60
/* The last of the wait for -R sleeps on the wall clock alone. */
#define RELEASE_FINE_NS		(20 * NS_PER_MS)

enum outcome {
	OUTCOME_OK,
	OUTCOME_REFUSED,	/* refused by the server's MaxStartups */
	OUTCOME_FAILED,
	OUTCOME_TIMEOUT
};

static const char *const outcome_name[] = { "ok", "refused", "failed",
	"timeout" };

/*
 * What a client prints when the server dropped it before its greeting:
 * sshd >= 8.2 sends "Exceeded MaxStartups" and closes (the client sees the
 * line with -v, and otherwise the close or the reset); OpenSSH < 8.0
 * called the function ssh_exchange_identification.
 */
static const char *const refusal_marks[] = {
	"Exceeded MaxStartups",
	"Not allowed at this time",	/* sshd >= 9.8 */
	"exchange_identification: Connection closed by remote host",
	"exchange_identification: read: Connection reset by peer",
	"exchange_identification: Connection reset by peer",
};

struct client {
	pid_t		 pid;		/* 0 once reaped */
	int		 err_fd;	/* its stderr, -1 once at EOF */
	char		 line[LINE_MAX_BYTES + 1];
	size_t		 len;		/* of the partial line */
	int		 overlong;	/* the rest of a cut line is dropped */
	char		 message[MESSAGE_BYTES];	/* last non-routine line */
	char		 gate_message[MESSAGE_BYTES];	/* from sshperf-gate */
	int		 refusal_seen;
	int		 ready;
	int		 connected;	/* the gate reported its connect */
	int		 connect_errno;
	unsigned	 local_port;	/* of its connection, 0 unknown */
	char		 local_addr[INET6_ADDRSTRLEN];	/* "" unknown */
	int		 exit_code;	/* 0..255 or 128+signal */
	int		 timed_out;
	uint64_t	 ready_ns, woke_ns, connect_ns, done_ns;
};

struct burst {
	uint64_t	 n;
	uint64_t	 timeout_ns;	/* after the release */
	uint64_t	 ready_timeout_ns;
	const char	*gate;		/* -g: add it as ProxyCommand */
	const char	*source;	/* -S/-M: the first source address */
	int		 many;		/* -M: one address per client */
	const char	*summary_path;
	int		 header;
	char		 dir[PATH_MAX - 16];
	char		 ready_path[PATH_MAX];
	char		 go_path[PATH_MAX];
	char		 connects_path[PATH_MAX];
	int		 ready_fd;	/* DIR/ready, read end (O_RDWR) */
	int		 go_fd;		/* DIR/go, the only writer, until release */
	int		 connects_fd;	/* DIR/connects, read at the end */
	int		 sig_fd;
	int		 ep_fd;
	uint64_t	 n_open;	/* client stderr pipes not at EOF */
	char		 records[8192];	/* partial record from DIR/ready */
	size_t		 records_len;
	struct client	*c;
	uint64_t	 spawn_ns;	/* when the first client was started */
	uint64_t	 release_ns;	/* 0 until released */
	uint64_t	 release_at_wall_ns;	/* -R, 0: when all are ready */
	int		 wall_set_back;	/* -R's wait gave up: release at once */
	uint64_t	 release_wall_ns;	/* the release, by the wall clock */
	uint64_t	 n_ready;
	uint64_t	 n_live;	/* not yet reaped */
	int		 stop;		/* a signal asked us to stop */
};

static int
is_refusal(const char *line)
{
	size_t i;

	for (i = 0; i < sizeof(refusal_marks) / sizeof(refusal_marks[0]); i++)
		if (strstr(line, refusal_marks[i]) != NULL)
			return 1;
	return 0;
}

/* One complete stderr line of a client. */
static void
client_line(struct client *c, char *line, size_t len)
{
	size_t i;

	if (len > 0 && line[len - 1] == '\r')
		len--;
	line[len] = '\0';
	for (i = 0; i < len; i++)
		if (line[i] == '\t' || (unsigned char)line[i] < 0x20)
			line[i] = ' ';
	if (is_refusal(line))
		c->refusal_seen = 1;
	if (len == 0 || is_routine_line(line))
		return;
	if (strncmp(line, "sshperf-gate: ", 14) == 0)
		snprintf(c->gate_message, sizeof(c->gate_message), "%s", line);
	snprintf(c->message, sizeof(c->message), "%s", line);
}

/* Reads what a client wrote to stderr; splits it into lines. */
static void
read_stderr(struct burst *b, struct client *c)
{
	char *nl, *start;
	size_t left;
	ssize_t n;

	if (c->err_fd == -1)	/* a stale event; the pipe is done */
		return;
	for (;;) {
		n = read(c->err_fd, c->line + c->len, LINE_MAX_BYTES - c->len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0) {
			if (n == -1)
				warn("reading a client's stderr");
			if (c->len > 0 && !c->overlong)
				client_line(c, c->line, c->len);
			/*
			 * Out of the epoll set explicitly: close() alone leaves
			 * it there while any other reference to the pipe lives
			 * (epoll(7)), and it would report the hang-up again.
			 */
			(void)epoll_ctl(b->ep_fd, EPOLL_CTL_DEL, c->err_fd, NULL);
			close(c->err_fd);
			c->err_fd = -1;
			b->n_open--;
			return;
		}
		c->len += (size_t)n;
		start = c->line;
		left = c->len;
		while ((nl = memchr(start, '\n', left)) != NULL) {
			if (!c->overlong)
				client_line(c, start, (size_t)(nl - start));
			c->overlong = 0;
			left -= (size_t)(nl - start) + 1;
			start = nl + 1;
		}
		if (left == LINE_MAX_BYTES) {
			if (!c->overlong)
				client_line(c, start, left);
			c->overlong = 1;
			left = 0;
		}
		memmove(c->line, start, left);
		c->len = left;
	}
}

static struct client *
client_of(struct burst *b, const char *number)
{
	const char *errstr;
	uint64_t i;

	if (parse_u64(number, 1, b->n, &i, &errstr) != 0)
		return NULL;
	return &b->c[i - 1];
}

/*
 * One record from a gate: "R client pid" or "C client woke connect errno
 * [port [addr]]".
 */
static void
gate_record(struct burst *b, char *rec, uint64_t arrived_ns)
{
	struct client *c;
	char *f[8], *save = NULL;
	const char *errstr;
	uint64_t woke, conn, e, port = 0;
	int nf = 0;

	for (f[nf] = strtok_r(rec, " ", &save); f[nf] != NULL && nf < 7;
	    f[nf] = strtok_r(NULL, " ", &save))
		nf++;
	if (nf < 2 || (c = client_of(b, f[1])) == NULL) {
		warnx("ignoring a malformed gate record \"%s\"", rec);
		return;
	}
	if (strcmp(f[0], "R") == 0 && nf == 3) {
		if (!c->ready) {
			c->ready = 1;
			c->ready_ns = arrived_ns;
			b->n_ready++;
		}
	} else if (strcmp(f[0], "C") == 0 && nf >= 5 && nf <= 7 &&
	    parse_u64(f[2], 0, UINT64_MAX, &woke, &errstr) == 0 &&
	    parse_u64(f[3], 0, UINT64_MAX, &conn, &errstr) == 0 &&
	    parse_u64(f[4], 0, 4095, &e, &errstr) == 0 &&
	    (nf == 5 || parse_u64(f[5], 0, 65535, &port, &errstr) == 0)) {
		c->local_port = (unsigned)port;
		if (nf == 7 && strcmp(f[6], "-") != 0)
			snprintf(c->local_addr, sizeof(c->local_addr), "%s",
			    f[6]);
		c->woke_ns = woke;
		c->connect_ns = conn;
		c->connect_errno = (int)e;
		c->connected = e == 0;
	} else
		warnx("ignoring a malformed gate record");
}

static void
read_records(struct burst *b)
{
	char *nl, *start;
	size_t left;
	ssize_t n;
	uint64_t now;

	for (;;) {
		n = read(b->ready_fd, b->records + b->records_len,
		    sizeof(b->records) - 1 - b->records_len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n == -1)
			err(2, "reading %s", b->ready_path);
		if (n == 0)
			return;
		now = now_ns();
		b->records_len += (size_t)n;
		start = b->records;
		left = b->records_len;
		while ((nl = memchr(start, '\n', left)) != NULL) {
			*nl = '\0';
			gate_record(b, start, now);
			left -= (size_t)(nl - start) + 1;
			start = nl + 1;
		}
		if (left == sizeof(b->records) - 1) {
			warnx("a gate record is too long; dropped");
			left = 0;
		}
		memmove(b->records, start, left);
		b->records_len = left;
	}
}

/*
 * The gates' connect records, appended to DIR/connects (a plain file: a
 * write there wakes nobody, so the releaser does not compete with the
 * gates for the CPU while they connect).
 */
static void
read_connects(struct burst *b)
{
	char *buf = NULL, *start, *nl;
	size_t size = 0, len = 0;
	ssize_t n;

	for (;;) {
		if (size - len < 4096) {
			size = size ? size * 2 : 65536;
			if ((buf = realloc(buf, size + 1)) == NULL)
				err(2, "realloc");
		}
		n = pread(b->connects_fd, buf + len, size - len, (off_t)len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			err(2, "reading %s", b->connects_path);
		if (n == 0)
			break;
		len += (size_t)n;
	}
	for (start = buf; len > 0 && (nl = memchr(start, '\n',
	    len - (size_t)(start - buf))) != NULL; start = nl + 1) {
		*nl = '\0';
		gate_record(b, start, 0);
	}
	free(buf);
}

/* Reaps every child that exited; their stderr is read to the end first. */
static void
reap(struct burst *b)
{
	uint64_t i, now;
	pid_t pid;
	int wstatus;

	while ((pid = waitpid(-1, &wstatus, WNOHANG)) > 0) {
		now = now_ns();
		for (i = 0; i < b->n; i++)
			if (b->c[i].pid == pid)
				break;
		if (i == b->n)
			continue;
		b->c[i].pid = 0;
		b->c[i].done_ns = now;
		b->c[i].exit_code = exit_code_of(wstatus);
		b->n_live--;
	}
	if (pid == -1 && errno != ECHILD)
		err(2, "waitpid");
}

/* Signals arrive on sig_fd: SIGCHLD reaps, the others stop the run. */
static void
read_signals(struct burst *b)
{
	struct signalfd_siginfo si;
	ssize_t n;

	while ((n = read(b->sig_fd, &si, sizeof(si))) == sizeof(si))
		if (si.ssi_signo != SIGCHLD)
			b->stop = 1;
	reap(b);
}

#define EV_READY	UINT64_MAX		/* epoll data of DIR/ready */
#define EV_SIGNAL	(UINT64_MAX - 1)	/* of the signalfd */
#define EV_BATCH	64

/*
 * Waits for one round of events until until_ns: ready records, client
 * output, exits. epoll, so that a wake-up costs the same for 5 clients and
 * for 5000. Returns 0 when until_ns has passed.
 */
static int
wait_events(struct burst *b, uint64_t until_ns)
{
	struct epoll_event ev[EV_BATCH];
	uint64_t now, left;
	int r, i, timeout_ms;

	now = now_ns();
	left = now < until_ns ? until_ns - now : 0;
	/* Round up: epoll_wait counts whole ms; 0 only at the deadline. */
	timeout_ms = left > (uint64_t)INT_MAX * NS_PER_MS ? INT_MAX :
	    (int)((left + NS_PER_MS - 1) / NS_PER_MS);
	r = epoll_wait(b->ep_fd, ev, EV_BATCH, timeout_ms);
	if (r == -1 && errno != EINTR)
		err(2, "epoll_wait");
	for (i = 0; i < r; i++) {
		if (ev[i].data.u64 == EV_READY)
			read_records(b);
		else if (ev[i].data.u64 == EV_SIGNAL)
			read_signals(b);
		else
			read_stderr(b, &b->c[ev[i].data.u64]);
	}
	return left > 0;
}

static void
watch(struct burst *b, int fd, uint64_t data)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = data;
	if (epoll_ctl(b->ep_fd, EPOLL_CTL_ADD, fd, &ev) == -1)
		err(2, "epoll_ctl");
}

/* Clients that exited and whose gate never got ready count as settled. */
static int
all_settled_before_release(const struct burst *b)
{
	uint64_t i;

	for (i = 0; i < b->n; i++)
		if (!b->c[i].ready && b->c[i].pid != 0)
			return 0;
	return 1;
}

/* Sends sig (0: none) to every client not reaped yet. */
static void
signal_live(struct burst *b, int sig)
{
	uint64_t i;

	for (i = 0; sig != 0 && i < b->n; i++)
		if (b->c[i].pid != 0) {
			/* Only our own child: its pid is not reaped yet. */
			kill(b->c[i].pid, sig);
			if (sig == SIGTERM)
				b->c[i].timed_out = 1;
		}
}

/*
 * Runs until every client exited; from the deadline on (or a stop) the
 * clients go down proc.c's ladder together.
 */
static void
wait_all(struct burst *b, uint64_t deadline_ns)
{
	struct proc_ladder stop;

	proc_ladder_init(&stop, deadline_ns, PROC_KILL_GRACE_NS);
	for (;;) {
		if (b->n_live == 0 && b->n_open == 0)
			break;
		if (b->n_live == 0) {
			/* Only a grandchild holds stderr: read what is there. */
			(void)wait_events(b, now_ns());
			break;
		}
		if (b->stop)
			proc_ladder_hurry(&stop, now_ns());
		if (!wait_events(b, stop.due_ns)) {
			if (b->n_live == 0)
				break;
			signal_live(b, proc_ladder_due(&stop, now_ns()));
		}
	}
	read_records(b);
	read_connects(b);
}

/* 'path' for a shell command, quoted, and with % doubled for ssh. */
static char *
proxy_command(const char *gate, uint64_t timeout_ms)
{
	size_t len = strlen(gate), i, o = 0;
	char *q, *cmd;

	if ((q = malloc(len * 5 + 3)) == NULL)
		err(2, "malloc");
	q[o++] = '\'';
	for (i = 0; i < len; i++) {
		if (gate[i] == '\'') {
			memcpy(q + o, "'\\''", 4);
			o += 4;
		} else if (gate[i] == '%') {
			q[o++] = '%';
			q[o++] = '%';
		} else
			q[o++] = gate[i];
	}
	q[o++] = '\'';
	q[o] = '\0';
	if (asprintf(&cmd, "ProxyCommand=%s -t %llu %%h %%p", q,
	    (unsigned long long)timeout_ms) == -1)
		err(2, "asprintf");
	free(q);
	return cmd;
}

/* environ without SSHPERF_GATE_*, plus the three for client i (set later). */
static char **
client_env(size_t *slot)
{
	char **env;
	size_t n = 0, o = 0, i;

	while (environ[n] != NULL)
		n++;
	if ((env = calloc(n + 4, sizeof(*env))) == NULL)
		err(2, "calloc");
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "SSHPERF_GATE_", 13) != 0)
			env[o++] = environ[i];
	*slot = o;
	return env;
}

/*
 * Every child this process starts goes through here: never more than
 * MAX_CLIENTS in the life of the process, whatever the caller asks.
 * posix_spawn: the child execs or ends with 127 inside libc, it never
 * returns into this program.
 */
static int
spawn_one(pid_t *pid, char **argv, int err_fd, const posix_spawnattr_t *attr,
    char **env)
{
	static uint64_t spawned;

	if (spawned >= MAX_CLIENTS)
		errx(2, "refusing to start more than %d children", MAX_CLIENTS);
	spawned++;
	return proc_spawn(pid, argv, PROC_DEVNULL, PROC_DEVNULL, err_fd, attr,
	    env);
}

/*
 * The source address of client i (from 0): -S's for every client, or -M's
 * plus i (IPv4, checked in main), or "" without either.
 */
static void
source_of(const struct burst *b, uint64_t i, char *buf, size_t len)
{
	struct in_addr a;

	if (b->source == NULL) {
		buf[0] = '\0';
		return;
	}
	if (!b->many || inet_pton(AF_INET, b->source, &a) != 1) {
		snprintf(buf, len, "%s", b->source);
		return;
	}
	a.s_addr = htonl(ntohl(a.s_addr) + (uint32_t)i);
	if (inet_ntop(AF_INET, &a, buf, (socklen_t)len) == NULL)
		err(2, "inet_ntop");
}

static void
spawn_all(struct burst *b, char **argv)
{
	posix_spawnattr_t attr;
	sigset_t none, dflt;
	char **env, dir_var[PATH_MAX + 16], client_var[64], source_var[80];
	char source[INET6_ADDRSTRLEN];
	size_t slot;
	uint64_t i;
	int pipefd[2], r;

	env = client_env(&slot);
	snprintf(dir_var, sizeof(dir_var), "SSHPERF_GATE_DIR=%s", b->dir);
	env[slot] = dir_var;
	env[slot + 1] = client_var;
	env[slot + 2] = b->source != NULL ? source_var : NULL;
	sigemptyset(&none);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE);
	sigaddset(&dflt, SIGINT);
	sigaddset(&dflt, SIGTERM);
	sigaddset(&dflt, SIGHUP);
	if ((r = posix_spawnattr_init(&attr)) != 0 ||
	    (r = posix_spawnattr_setsigmask(&attr, &none)) != 0 ||
	    (r = posix_spawnattr_setsigdefault(&attr, &dflt)) != 0 ||
	    (r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF)) != 0)
		errno = r, err(2, "posix_spawnattr");
	b->spawn_ns = now_ns();
	for (i = 0; i < b->n; i++) {
		snprintf(client_var, sizeof(client_var),
		    "SSHPERF_GATE_CLIENT=%llu", (unsigned long long)(i + 1));
		source_of(b, i, source, sizeof(source));
		snprintf(source_var, sizeof(source_var),
		    "SSHPERF_GATE_SOURCE=%s", source);
		if (pipe2(pipefd, O_CLOEXEC) == -1)
			err(2, "pipe2 (client %llu)", (unsigned long long)i + 1);
		if (fcntl(pipefd[0], F_SETFL, O_NONBLOCK) == -1)
			err(2, "fcntl");
		r = spawn_one(&b->c[i].pid, argv, pipefd[1], &attr, env);
		close(pipefd[1]);
		if (r != 0) {
			errno = r;
			warn("cannot run %s", argv[0]);
			/* The ones already started are ended by the caller. */
			b->c[i].pid = 0;
			close(pipefd[0]);
			b->stop = r == ENOENT ? 127 : 126;
			break;
		}
		b->c[i].err_fd = pipefd[0];
		watch(b, pipefd[0], i);
		b->n_live++;
		b->n_open++;
	}
	posix_spawnattr_destroy(&attr);
	free(env);
}

static void
make_barrier(struct burst *b)
{
	const char *tmp = getenv("TMPDIR");

	if (tmp == NULL || *tmp != '/')
		tmp = "/tmp";
	if (snprintf(b->dir, sizeof(b->dir), "%s/sshperf-burst.XXXXXX", tmp) >=
	    (int)sizeof(b->dir) - 8)
		errx(2, "TMPDIR is too long");
	if (mkdtemp(b->dir) == NULL)
		err(2, "mkdtemp %s", b->dir);
	snprintf(b->ready_path, sizeof(b->ready_path), "%s/ready", b->dir);
	snprintf(b->go_path, sizeof(b->go_path), "%s/go", b->dir);
	snprintf(b->connects_path, sizeof(b->connects_path), "%s/connects",
	    b->dir);
	if ((b->connects_fd = open(b->connects_path, O_RDWR | O_CREAT |
	    O_EXCL | O_CLOEXEC, 0600)) == -1)
		err(2, "%s", b->connects_path);
	if (mkfifo(b->ready_path, 0600) == -1 || mkfifo(b->go_path, 0600) == -1)
		err(2, "mkfifo in %s", b->dir);
	/* O_RDWR: neither open blocks, and DIR/ready never reads EOF. */
	if ((b->ready_fd = open(b->ready_path, O_RDWR | O_NONBLOCK |
	    O_CLOEXEC)) == -1 || (b->go_fd = open(b->go_path, O_RDWR |
	    O_CLOEXEC)) == -1)
		err(2, "opening the FIFOs in %s", b->dir);
	(void)fcntl(b->ready_fd, F_SETPIPE_SZ, PIPE_BYTES);
}

static void
remove_barrier(struct burst *b)
{
	if (b->go_fd != -1)
		close(b->go_fd);
	close(b->ready_fd);
	close(b->connects_fd);
	(void)unlink(b->go_path);
	(void)unlink(b->ready_path);
	(void)unlink(b->connects_path);
	if (rmdir(b->dir) == -1)
		warn("rmdir %s", b->dir);
}

/*
 * The barrier opens: DIR/go is removed first (a gate that comes too late
 * fails at once instead of waiting for a writer), then its only writer is
 * closed and every waiting gate sees the hang-up. Closing wakes the gates
 * one by one; as root the releaser does that at a real-time priority, so
 * that a woken gate cannot preempt it before the others are woken.
 */
static void
release(struct burst *b)
{
	struct sched_param rt = { .sched_priority = 1 }, normal = { 0 };
	uint64_t left;
	int raised;

	(void)unlink(b->go_path);
	raised = sched_setscheduler(0, SCHED_FIFO, &rt) == 0;
	/*
	 * -R's last RELEASE_FINE_NS (at most), at real-time priority where
	 * allowed, to the moment's distance on the wall clock slept on the
	 * monotonic one (TIMER_ABSTIME): over 20 ms the two agree within
	 * microseconds, and a wall clock set back meanwhile cannot stretch
	 * the sleep past its deadline.
	 */
	if (b->release_at_wall_ns != 0 && !b->stop && !b->wall_set_back) {
		struct timespec ts;
		uint64_t wall = wall_ns(), at;

		if (wall < b->release_at_wall_ns) {
			left = b->release_at_wall_ns - wall;
			if (left > RELEASE_FINE_NS)
				left = RELEASE_FINE_NS;
			at = now_ns() + left;
			ts.tv_sec = (time_t)(at / NS_PER_S);
			ts.tv_nsec = (long)(at % NS_PER_S);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME,
			    &ts, NULL) == EINTR)
				;
		}
	}
	b->release_ns = now_ns();
	b->release_wall_ns = wall_ns();
	close(b->go_fd);
	b->go_fd = -1;
	if (raised && sched_setscheduler(0, SCHED_OTHER, &normal) == -1)
		err(2, "sched_setscheduler SCHED_OTHER");
}

/*
 * -R: once the clients are ready, waits until the wall clock is
 * RELEASE_FINE_NS short of release_at_wall_ns, still reading the
 * clients' output and exits; release() sleeps the rest. A stop ends the
 * wait; so does the monotonic deadline, RELEASE_SLACK_S after the moment
 * was due, when the wall clock was set back meanwhile (and then the
 * release is at once).
 */
static void
wait_release(struct burst *b)
{
	uint64_t now, left, deadline_ns;

	if (b->release_at_wall_ns == 0 || (now = wall_ns()) >=
	    b->release_at_wall_ns)
		return;
	deadline_ns = now_ns() + (b->release_at_wall_ns - now) +
	    RELEASE_SLACK_S * NS_PER_S;
	while (!b->stop && (now = wall_ns()) < b->release_at_wall_ns) {
		left = b->release_at_wall_ns - now;
		if (left <= RELEASE_FINE_NS)
			break;
		if (now_ns() >= deadline_ns) {
			warnx("the wall clock was set back while waiting for "
			    "the release; releasing now");
			b->wall_set_back = 1;
			return;
		}
		(void)wait_events(b, now_ns() + left - RELEASE_FINE_NS);
	}
}

static double
ms_after(uint64_t t0_ns, uint64_t t_ns)
{
	return t_ns >= t0_ns ? ns_to_ms(t_ns - t0_ns) : -ns_to_ms(t0_ns - t_ns);
}

static enum outcome
outcome_of(const struct client *c)
{
	if (c->timed_out)
		return OUTCOME_TIMEOUT;
	if (c->exit_code == 0)
		return OUTCOME_OK;
	if (c->refusal_seen)
		return OUTCOME_REFUSED;
	return OUTCOME_FAILED;
}

static void
print_ms(FILE *out, int known, uint64_t t0_ns, uint64_t t_ns)
{
	if (known && t0_ns != 0)
		fprintf(out, "\t%.3f", ms_after(t0_ns, t_ns));
	else
		fprintf(out, "\t-");
}

static void
print_rows(const struct burst *b, FILE *out)
{
	const struct client *c;
	const char *msg;
	enum outcome o;
	uint64_t i;

	if (b->header)
		fprintf(out, "client\toutcome\texit\twoke_ms\tconnect_ms\t"
		    "done_ms\tmessage\tlocal_port\tlocal_addr\n");
	for (i = 0; i < b->n; i++) {
		c = &b->c[i];
		o = outcome_of(c);
		fprintf(out, "%llu\t%s\t", (unsigned long long)i + 1,
		    outcome_name[o]);
		if (c->timed_out)
			fprintf(out, "-");
		else
			fprintf(out, "%d", c->exit_code);
		print_ms(out, c->woke_ns != 0, b->release_ns, c->woke_ns);
		print_ms(out, c->connected, b->release_ns, c->connect_ns);
		print_ms(out, c->done_ns != 0, b->release_ns, c->done_ns);
		if (o == OUTCOME_OK)
			msg = "-";
		else if (c->gate_message[0] != '\0')
			msg = c->gate_message;
		else if (c->message[0] != '\0')
			msg = c->message;
		else if (!c->ready)
			msg = "not ready at the release";
		else if (o == OUTCOME_TIMEOUT)
			msg = "still running at the deadline";
		else
			msg = "no message";
		fprintf(out, "\t%s", msg);
		if (c->local_port != 0)
			fprintf(out, "\t%u", c->local_port);
		else
			fprintf(out, "\t-");
		fprintf(out, "\t%s\n", c->local_addr[0] != '\0' ?
		    c->local_addr : "-");
	}
	if (fflush(out) == EOF || ferror(out))
		err(2, "writing the result");
}

static void
print_summary(const struct burst *b, FILE *out)
{
	struct samples connect_ms;
	uint64_t count[4] = { 0 }, i, connected = 0, last_connect = 0;
	uint64_t last_woke = 0, last_ready = 0, last_done = 0;
	const struct client *c;

	samples_init(&connect_ms);
	for (i = 0; i < b->n; i++) {
		c = &b->c[i];
		count[outcome_of(c)]++;
		if (c->ready && c->ready_ns > last_ready)
			last_ready = c->ready_ns;
		if (c->woke_ns > last_woke)
			last_woke = c->woke_ns;
		if (c->done_ns > last_done)
			last_done = c->done_ns;
		if (!c->connected)
			continue;
		connected++;
		if (c->connect_ns > last_connect)
			last_connect = c->connect_ns;
		if (samples_add(&connect_ms, ms_after(b->release_ns,
		    c->connect_ns)) != 0)
			err(2, "samples_add");
	}
	fprintf(out, "clients=%llu\nready=%llu\nconnected=%llu\n",
	    (unsigned long long)b->n, (unsigned long long)b->n_ready,
	    (unsigned long long)connected);
	for (i = 0; i < 4; i++)
		fprintf(out, "%s=%llu\n", outcome_name[i],
		    (unsigned long long)count[i]);
	fprintf(out, "release_mono_ns=%llu\n",
	    (unsigned long long)b->release_ns);
	fprintf(out, "release_wall_ns=%llu\n",
	    (unsigned long long)b->release_wall_ns);
	if (b->release_at_wall_ns != 0 && b->release_wall_ns != 0)
		fprintf(out, "release_at_wall_ns=%llu\nrelease_late_ms=%.3f\n",
		    (unsigned long long)b->release_at_wall_ns,
		    ms_after(b->release_at_wall_ns, b->release_wall_ns));
	else
		fprintf(out, "release_at_wall_ns=-\nrelease_late_ms=-\n");
	if (last_ready != 0)
		fprintf(out, "ready_ms=%.3f\n", ms_after(b->spawn_ns,
		    last_ready));
	else
		fprintf(out, "ready_ms=-\n");
	if (last_woke != 0)
		fprintf(out, "woke_spread_ms=%.3f\n",
		    ms_after(b->release_ns, last_woke));
	else
		fprintf(out, "woke_spread_ms=-\n");
	if (connected > 0) {
		fprintf(out, "release_spread_ms=%.3f\n",
		    ms_after(b->release_ns, last_connect));
		fprintf(out, "connect_p50_ms=%.3f\n",
		    samples_percentile(&connect_ms, 50));
	} else
		fprintf(out, "release_spread_ms=-\nconnect_p50_ms=-\n");
	if (last_done != 0 && b->release_ns != 0)
		fprintf(out, "done_max_ms=%.3f\n", ms_after(b->release_ns,
		    last_done));
	else
		fprintf(out, "done_max_ms=-\n");
	samples_free(&connect_ms);
	if (fflush(out) == EOF || ferror(out))
		err(2, "writing the summary");
}

/*
 * n clients need a stderr pipe each, and some to spare; the soft limit is
 * raised only that far, as the clients inherit it.
 */
static void
raise_fd_limit(uint64_t n)
{
	uint64_t need = n + 64, limit = proc_raise_nofile(need);

	if (limit < need)
		errx(2, "-n %llu needs %llu open files; the hard limit is %llu "
		    "(raise it with ulimit -Hn)", (unsigned long long)n,
		    (unsigned long long)need, (unsigned long long)limit);
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-burst [-H] -n clients [-g gate] [-S source | -M "
	    "first_source]\n"
	    "                     [-R release_wall_ns] [-s summary_file] "
	    "[-t timeout_s]\n"
	    "                     [-w ready_timeout_s] "
	    "-- command [arg ...]\n");
	exit(2);
}

/*
 * Starts `clients` copies of the command (normally "ssh ... host true"),
 * each with SSHPERF_GATE_DIR and SSHPERF_GATE_CLIENT in its environment;
 * -g GATE adds "-o ProxyCommand=GATE %h %p -o ProxyUseFdpass=yes" after the
 * command's name. -S ADDR: every gate connects from ADDR (one source, as
 * an Ansible controller or a NAT); -M ADDR: client i from ADDR + i - 1
 * (IPv4: many sources, as a fleet); SSHPERF_GATE_SOURCE tells the gate. Waits (at most -w s) until every client's gate reports
 * ready, releases all at once (with -R NS: not before the wall clock
 * reads NS, nanoseconds since the epoch, so that load hosts release
 * together; the clients wait at their gates meanwhile), waits (at most -t s after the release; then
 * TERM, and KILL 2 s later) until all exited, and prints one TSV row per
 * client: outcome (ok, refused by MaxStartups, failed, timeout), exit code,
 * when its gate woke, when its TCP connect completed and when it exited,
 * in ms after the release, and its last message. The summary (key=value:
 * counts, release_mono_ns, release_wall_ns, release_at_wall_ns and
 * release_late_ms (-R's moment and how late the release came), ready_ms,
 * release_spread_ms = release to the last TCP connect) goes to -s FILE,
 * or to stderr.
 * Exit 0 when every client exited 0, 1 when not, 2 on a usage or setup
 * error, 126/127 when the command cannot be run.
 * Guards against runaway process creation: at most MAX_CLIENTS children
 * (spawn_one), no retries, and no burst inside a burst client (a client
 * that runs sshperf-burst again would multiply the processes).
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct burst b;
	sigset_t mask;
	FILE *summary = stderr;
	uint64_t deadline_ns, i, all_ok = 1, wait_ns = 0, now;
	char **cargv;
	int ch, argi, k;

	memset(&b, 0, sizeof(b));
	b.timeout_ns = DEFAULT_TIMEOUT_S * NS_PER_S;
	b.ready_timeout_ns = DEFAULT_READY_S * NS_PER_S;
	while ((ch = getopt(argc, argv, "+HM:R:S:g:n:s:t:w:")) != -1) {
		switch (ch) {
		case 'H':
			b.header = 1;
			break;
		case 'g':
			b.gate = optarg;
			break;
		case 'M':
		case 'S':
			if (b.source != NULL)
				errx(2, "-S and -M: one source option only");
			b.source = optarg;
			b.many = ch == 'M';
			break;
		case 'R':
			b.release_at_wall_ns = opt_u64("-R release_wall_ns",
			    optarg, 1, UINT64_MAX);
			break;
		case 'n':
			b.n = opt_u64("-n clients", optarg, 1, MAX_CLIENTS);
			break;
		case 's':
			b.summary_path = optarg;
			break;
		case 't':
			b.timeout_ns = NS_PER_S * opt_u64("-t timeout_s",
			    optarg, 1, 86400);
			break;
		case 'w':
			b.ready_timeout_ns = NS_PER_S *
			    opt_u64("-w ready_timeout_s", optarg, 1, 86400);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (getenv("SSHPERF_GATE_DIR") != NULL)
		errx(2, "SSHPERF_GATE_DIR is set: this runs inside a burst "
		    "client; refusing to start a burst from there");
	if (b.n == 0)
		errx(2, "-n clients is required");
	if (argc == 0)
		errx(2, "no command given: put it after --");
	now = wall_ns();
	if (b.release_at_wall_ns > now) {
		wait_ns = b.release_at_wall_ns - now;
		if (wait_ns > RELEASE_AHEAD_MAX_S * NS_PER_S)
			errx(2, "-R %llu is %llu s ahead of the wall clock, more "
			    "than %d s", (unsigned long long)b.release_at_wall_ns,
			    (unsigned long long)(wait_ns / NS_PER_S),
			    RELEASE_AHEAD_MAX_S);
	}
	if (b.summary_path != NULL &&
	    (summary = fopen(b.summary_path, "we")) == NULL)
		err(2, "-s %s", b.summary_path);
	if (b.gate != NULL && access(b.gate, X_OK) == -1)
		err(2, "-g %s", b.gate);
	if (b.source != NULL) {
		struct in_addr a;
		struct in6_addr a6;

		if (b.many && (inet_pton(AF_INET, b.source, &a) != 1 ||
		    (uint64_t)ntohl(a.s_addr) + b.n - 1 > UINT32_MAX))
			errx(2, "-M %s: not a numeric IPv4 address with %llu "
			    "addresses after it", b.source,
			    (unsigned long long)b.n);
		if (!b.many && inet_pton(AF_INET, b.source, &a) != 1 &&
		    inet_pton(AF_INET6, b.source, &a6) != 1)
			errx(2, "-S %s: not a numeric address", b.source);
	}

	/* The command, with the gate's two options after its name. */
	if ((cargv = calloc((size_t)argc + 5, sizeof(*cargv))) == NULL)
		err(2, "calloc");
	argi = 0;
	cargv[argi++] = argv[0];
	if (b.gate != NULL) {
		cargv[argi++] = "-o";
		/* The gate waits for the ready clients, -R's moment, its
		 * connect. */
		cargv[argi++] = proxy_command(b.gate, (b.ready_timeout_ns +
		    wait_ns + b.timeout_ns) / NS_PER_MS);
		cargv[argi++] = "-o";
		cargv[argi++] = "ProxyUseFdpass=yes";
	}
	for (k = 1; k < argc; k++)
		cargv[argi++] = argv[k];

	raise_fd_limit(b.n);
	if ((b.c = calloc(b.n, sizeof(*b.c))) == NULL)
		err(2, "calloc");
	for (i = 0; i < b.n; i++)
		b.c[i].err_fd = -1;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) == -1)
		err(2, "sigprocmask");
	if ((b.sig_fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) == -1)
		err(2, "signalfd");
	if ((b.ep_fd = epoll_create1(EPOLL_CLOEXEC)) == -1)
		err(2, "epoll_create1");
	watch(&b, b.sig_fd, EV_SIGNAL);
	make_barrier(&b);
	watch(&b, b.ready_fd, EV_READY);

	spawn_all(&b, cargv);
	deadline_ns = b.spawn_ns + b.ready_timeout_ns;
	while (!b.stop && b.n_ready < b.n && !all_settled_before_release(&b))
		if (!wait_events(&b, deadline_ns))
			break;
	if (b.n_ready < b.n && !b.stop && !all_settled_before_release(&b))
		warnx("%llu of %llu clients were ready within %llu s; "
		    "releasing those", (unsigned long long)b.n_ready,
		    (unsigned long long)b.n,
		    (unsigned long long)(b.ready_timeout_ns / NS_PER_S));
	wait_release(&b);
	release(&b);
	wait_all(&b, b.release_ns + b.timeout_ns);
	remove_barrier(&b);

	print_rows(&b, stdout);
	print_summary(&b, summary);
	if (summary != stderr && fclose(summary) == EOF)
		err(2, "-s %s", b.summary_path);
	for (i = 0; i < b.n; i++)
		if (outcome_of(&b.c[i]) != OUTCOME_OK)
			all_ok = 0;
	if (b.stop == 126 || b.stop == 127)
		return b.stop;
	return all_ok ? 0 : 1;
}
