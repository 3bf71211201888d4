/*
 * sshperf-hold: the session holder. Opens many sessions of a command such
 * as "ssh host cat", a few logging in at a time, keeps them open, proves
 * on request that each one still carries data end to end (a line of its
 * own sent through it must come back), and closes them all again, leaving
 * no process behind.
 */
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

#define DEFAULT_SESSIONS	10
#define DEFAULT_PARALLEL	8
#define DEFAULT_LOGIN_MS	30000
#define DEFAULT_CHECK_MS	10000
#define DEFAULT_CLOSE_MS	10000
#define LINE_BYTES		256	/* an echoed line; longer ones are cut */
#define STDERR_KEEP		2048	/* the last bytes of a session's stderr */
#define FDS_PER_SESSION		3
#define FDS_SPARE		32

enum hold_state {
	ST_WAITING,	/* not started yet */
	ST_LOGIN,	/* started, its first line not back yet */
	ST_OPEN,	/* its first line came back */
	ST_FAILED,	/* never opened */
	ST_CLOSED	/* opened, then closed by us */
};

struct session {
	int		 num;		/* 1 .. sessions */
	enum hold_state	 state;
	pid_t		 pid;		/* 0 before the start */
	int		 running;	/* started and not reaped */
	int		 exit_code;	/* when reaped: 0..255, 128+signal */
	int		 in_fd;		/* its stdin (we write), or -1 */
	int		 out_fd;	/* its stdout (we read), or -1 */
	int		 err_fd;	/* its stderr (we read), or -1 */
	uint64_t	 start_ns;
	uint64_t	 open_ns;	/* start to first line back */
	int		 checked;	/* a check ran while it was open */
	int		 alive;		/* its line came back in the last check */
	int		 answered;	/* the line in expect came back */
	int		 signalled;	/* a proc_ladder step: 1 TERM, 2 KILL sent */
	int		 counted;	/* its login's end is in the no-answer count */
	char		 expect[64];	/* the line we wait for, without \n */
	char		 line[LINE_BYTES];
	size_t		 line_len;
	char		 errkeep[STDERR_KEEP];	/* holds err */
	struct proc_tail err;		/* the last of its stderr */
	char		 reason[160];	/* why it failed or died, or "" */
};

struct config {
	uint64_t	 sessions;
	uint64_t	 parallel;
	uint64_t	 login_ns;
	uint64_t	 check_ns;
	uint64_t	 close_ns;
	uint64_t	 hold_ns;
	uint64_t	 give_up;	/* -g: stop opening after this many no-answers */
	int		 interactive;
	const char	*tsv_path;
	const char	*errors_path;
	char	       **argv;
};

struct holder {
	struct config	 cf;
	struct session	*s;
	int		 sigfd;
	int		 ctl_fd;	/* our stdin in -i mode, or -1 */
	int		 stop;		/* SIGINT or SIGTERM arrived */
	uint64_t	 not_started;	/* left out after -g no-answers in a row */
	uint64_t	 running;	/* children not reaped */
	struct pollfd	*pfd;
	size_t		*pfd_owner;	/* session index of pfd[i] */
	char		 ctl_buf[256];	/* bytes read from stdin */
	size_t		 ctl_len;
	char		 ctl_line[64];	/* the command taken from it */
	int		 ctl_eof;
	int		 ctl_ready;	/* a whole command is in ctl_line */
	posix_spawnattr_t attr;
};

/* ---- small utilities ---------------------------------------------------- */

static void
set_reason(struct session *s, const char *fmt, const char *detail)
{
	if (s->reason[0] != '\0')
		return;	/* the first reason is the real one */
	snprintf(s->reason, sizeof(s->reason), fmt, detail);
}

static void
close_fd(int *fd)
{
	if (*fd != -1) {
		close(*fd);
		*fd = -1;
	}
}

/* reason plus the client's last stderr line: the error column. */
static void
error_text(const struct session *s, char *dst, size_t dstlen)
{
	char last[512];

	proc_tail_last_line(&s->err, last, sizeof(last));
	if (s->reason[0] == '\0' && last[0] == '\0')
		snprintf(dst, dstlen, "-");
	else if (s->reason[0] == '\0')
		snprintf(dst, dstlen, "%s", last);
	else if (last[0] == '\0')
		snprintf(dst, dstlen, "%s", s->reason);
	else
		snprintf(dst, dstlen, "%s: %s", s->reason, last);
}

/* Our own children still in /proc (there must be none at the end). */
static int
count_children(void)
{
	char path[300], buf[512], *p;
	struct dirent *de;
	DIR *d;
	ssize_t n;
	int fd, count = 0;
	long ppid;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		/* The command may hold spaces and ")": parse after the last. */
		if ((p = strrchr(buf, ')')) == NULL)
			continue;
		if (sscanf(p + 1, " %*c %ld", &ppid) == 1 &&
		    (pid_t)ppid == getpid())
			count++;
	}
	closedir(d);
	return count;
}

/* ---- events: output, stderr, exits, our own stdin ----------------------- */

static void
on_line(struct session *s, const char *line)
{
	if (s->expect[0] == '\0' || strcmp(line, s->expect) != 0)
		return;
	s->answered = 1;
	s->expect[0] = '\0';
	if (s->state == ST_LOGIN) {
		s->state = ST_OPEN;
		s->open_ns = now_ns() - s->start_ns;
	}
}

static void
read_stdout(struct session *s)
{
	char buf[4096];
	ssize_t n, i;

	for (;;) {
		n = read(s->out_fd, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close_fd(&s->out_fd);
			return;
		}
		for (i = 0; i < n; i++) {
			if (buf[i] == '\n') {
				s->line[s->line_len] = '\0';
				on_line(s, s->line);
				s->line_len = 0;
			} else if (s->line_len < LINE_BYTES - 1) {
				s->line[s->line_len++] = buf[i];
			}
		}
	}
}

static void
read_stderr(struct session *s)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		n = read(s->err_fd, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close_fd(&s->err_fd);
			return;
		}
		proc_tail_add(&s->err, buf, (size_t)n);
	}
}

static struct session *
session_of(struct holder *h, pid_t pid)
{
	uint64_t i;

	for (i = 0; i < h->cf.sessions; i++)
		if (h->s[i].running && h->s[i].pid == pid)
			return &h->s[i];
	return NULL;
}

static void
on_exit_status(struct holder *h, struct session *s, int wstatus)
{
	char what[48];

	s->running = 0;
	s->exit_code = exit_code_of(wstatus);
	h->running--;
	close_fd(&s->in_fd);
	if (WIFSIGNALED(wstatus))
		snprintf(what, sizeof(what), "signal %d", WTERMSIG(wstatus));
	else
		snprintf(what, sizeof(what), "status %d", s->exit_code);
	switch (s->state) {
	case ST_LOGIN:
		s->state = ST_FAILED;
		set_reason(s, "ended (%s) before its first line came back",
		    what);
		break;
	case ST_OPEN:
		/* It was open and nobody asked it to end. */
		set_reason(s, "ended (%s) while it was held open", what);
		break;
	default:
		break;
	}
}

/* Reaps every child that has ended. */
static void
reap(struct holder *h)
{
	struct session *s;
	pid_t pid;
	int wstatus;

	while (h->running > 0) {
		pid = waitpid(-1, &wstatus, WNOHANG);
		if (pid == -1 && errno == EINTR)
			continue;
		if (pid <= 0)
			return;
		if ((s = session_of(h, pid)) != NULL)
			on_exit_status(h, s, wstatus);
	}
}

static void
read_signals(struct holder *h)
{
	struct signalfd_siginfo si;
	ssize_t n;

	for (;;) {
		n = read(h->sigfd, &si, sizeof(si));
		if (n == -1 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(si))
			return;
		if (si.ssi_signo == SIGINT || si.ssi_signo == SIGTERM)
			h->stop = 1;
	}
}

/* Takes the next whole command line out of the control buffer, if any. */
static void
next_command(struct holder *h)
{
	char *nl;
	size_t len;

	if (h->ctl_ready ||
	    (nl = memchr(h->ctl_buf, '\n', h->ctl_len)) == NULL) {
		/* A line longer than the buffer is no command: drop it. */
		if (!h->ctl_ready && h->ctl_len == sizeof(h->ctl_buf))
			h->ctl_len = 0;
		return;
	}
	len = (size_t)(nl - h->ctl_buf);
	snprintf(h->ctl_line, sizeof(h->ctl_line), "%.*s", (int)len,
	    h->ctl_buf);
	memmove(h->ctl_buf, nl + 1, h->ctl_len - len - 1);
	h->ctl_len -= len + 1;
	h->ctl_ready = 1;
}

/*
 * Reads what our stdin has (poll said it is readable, so one read does not
 * block; stdin is left blocking, as the caller gave it).
 */
static void
read_control(struct holder *h)
{
	ssize_t n;

	do
		n = read(h->ctl_fd, h->ctl_buf + h->ctl_len,
		    sizeof(h->ctl_buf) - h->ctl_len);
	while (n == -1 && errno == EINTR);
	if (n <= 0)
		h->ctl_eof = 1;
	else
		h->ctl_len += (size_t)n;
	next_command(h);
}

/*
 * Waits for events until until_ns (or one poll round when it has passed)
 * and handles them: session output and stderr, child exits, signals and,
 * when want_control, a command on our stdin.
 */
static void
pump(struct holder *h, uint64_t until_ns, int want_control)
{
	struct timespec ts;
	struct session *s;
	uint64_t now, left_ns, i;
	nfds_t n = 0;
	size_t k;
	int r;

	h->pfd[n].fd = h->sigfd;
	h->pfd[n].events = POLLIN;
	h->pfd_owner[n++] = SIZE_MAX;
	if (want_control && h->ctl_fd != -1 && !h->ctl_eof && !h->ctl_ready) {
		h->pfd[n].fd = h->ctl_fd;
		h->pfd[n].events = POLLIN;
		h->pfd_owner[n++] = SIZE_MAX - 1;
	}
	for (i = 0; i < h->cf.sessions; i++) {
		s = &h->s[i];
		if (s->out_fd != -1) {
			h->pfd[n].fd = s->out_fd;
			h->pfd[n].events = POLLIN;
			h->pfd_owner[n++] = (size_t)i;
		}
		if (s->err_fd != -1) {
			h->pfd[n].fd = s->err_fd;
			h->pfd[n].events = POLLIN;
			h->pfd_owner[n++] = (size_t)i;
		}
	}
	now = now_ns();
	left_ns = now < until_ns ? until_ns - now : 0;
	ts.tv_sec = (time_t)(left_ns / NS_PER_S);
	ts.tv_nsec = (long)(left_ns % NS_PER_S);
	r = ppoll(h->pfd, n, &ts, NULL);
	if (r == -1 && errno != EINTR)
		err(2, "poll");
	for (k = 0; r > 0 && k < n; k++) {
		if (h->pfd[k].revents == 0)
			continue;
		if (h->pfd_owner[k] == SIZE_MAX) {
			read_signals(h);
		} else if (h->pfd_owner[k] == SIZE_MAX - 1) {
			read_control(h);
		} else {
			s = &h->s[h->pfd_owner[k]];
			if (h->pfd[k].fd == s->out_fd)
				read_stdout(s);
			else if (h->pfd[k].fd == s->err_fd)
				read_stderr(s);
		}
	}
	reap(h);
}

/* ---- the three phases: open, check, close ------------------------------ */

/* Starts session s; on failure it is marked failed and 0 is returned. */
static int
start_session(struct holder *h, struct session *s)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int r;
	ssize_t n;

	s->start_ns = now_ns();
	s->state = ST_LOGIN;
	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1 ||
	    pipe2(errp, O_CLOEXEC) == -1) {
		set_reason(s, "holder: no pipe for the session: %s",
		    strerror(errno));
		goto fail;
	}
	/* Our ends never block; the child's ends are ordinary. */
	if (fcntl(in[1], F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(out[0], F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(errp[0], F_SETFL, O_NONBLOCK) == -1)
		err(2, "fcntl O_NONBLOCK");
	r = proc_spawn(&s->pid, h->cf.argv, in[0], out[1], errp[1], &h->attr,
	    NULL);
	close_fd(&in[0]);
	close_fd(&out[1]);
	close_fd(&errp[1]);
	if (r != 0) {
		if (r == ENOENT || r == EACCES || r == ENOEXEC)
			errx(r == ENOENT ? 127 : 126, "cannot run %s: %s",
			    h->cf.argv[0], strerror(r));
		set_reason(s, "holder: cannot start the client: %s",
		    strerror(r));
		goto fail;
	}
	s->running = 1;
	h->running++;
	s->in_fd = in[1];
	s->out_fd = out[0];
	s->err_fd = errp[0];
	/* The pipe is empty: the first line fits and waits there for cat. */
	snprintf(s->expect, sizeof(s->expect), "ready-%d", s->num);
	do
		n = dprintf(s->in_fd, "%s\n", s->expect);
	while (n == -1 && errno == EINTR);
	if (n == -1 && errno == EPIPE) {
		/*
		 * The client closed its stdin: it is ending on its own (a
		 * login that failed at once). Its exit status and message,
		 * reaped as for any failed login, are the reason; the login
		 * deadline covers a client that would not end.
		 */
		close_fd(&s->in_fd);
		return 1;
	}
	if (n == -1) {
		set_reason(s, "holder: writing the first line: %s",
		    strerror(errno));
		kill(s->pid, SIGTERM);
		s->signalled = 1;
		s->state = ST_FAILED;
		close_fd(&s->in_fd);
		return 0;
	}
	return 1;
fail:
	close_fd(&in[0]);
	close_fd(&in[1]);
	close_fd(&out[0]);
	close_fd(&out[1]);
	close_fd(&errp[0]);
	close_fd(&errp[1]);
	s->state = ST_FAILED;
	return 0;
}

/* Ends a session that is not wanted any more: its stdin, then SIGTERM. */
static void
give_up(struct session *s, const char *why)
{
	set_reason(s, "%s", why);
	s->state = ST_FAILED;
	close_fd(&s->in_fd);
	if (s->running && !s->signalled) {
		kill(s->pid, SIGTERM);
		s->signalled = 1;
	}
}

/*
 * True when a session's login got no answer: it was given up at the login
 * deadline, or ssh ended by itself on its ConnectTimeout ("... timed out").
 */
static int
no_answer(struct session *s)
{
	char text[STDERR_KEEP + 1];

	if (strncmp(s->reason, "no answer", 9) == 0)
		return 1;
	/* ssh wrote its message before it ended: it is in the pipe. */
	if (s->err_fd != -1)
		read_stderr(s);
	proc_tail_text(&s->err, text, sizeof(text));
	return strstr(text, "timed out") != NULL;
}

/*
 * The logins that got no answer since the last one that did (opened or
 * failed otherwise), counting each login once, when it has ended.
 */
static uint64_t
count_no_answers(struct holder *h, uint64_t started, uint64_t silent)
{
	struct session *s;
	uint64_t i;

	for (i = 0; i < started; i++) {
		s = &h->s[i];
		if (s->counted || s->state == ST_LOGIN)
			continue;
		s->counted = 1;
		if (s->open_ns == 0 && no_answer(s))
			silent++;
		else
			silent = 0;
	}
	return silent;
}

/*
 * Opens every session, at most parallel of them logging in at a time: a
 * session is open when the line "ready-N" written to it came back. With
 * -g, no session is started any more once that many logins in a row got
 * no answer: the server does not answer, and every further login would
 * only wait for its own deadline.
 */
static uint64_t
open_all(struct holder *h)
{
	struct session *s;
	uint64_t next = 0, i, inflight, now, until, t0, silent = 0;
	char why[80];
	int done;

	t0 = now_ns();
	snprintf(why, sizeof(why), "no answer within %.0f ms of the start",
	    ns_to_ms(h->cf.login_ns));
	for (;;) {
		inflight = 0;
		done = 1;
		now = now_ns();
		until = now + NS_PER_S;
		for (i = 0; i < next; i++) {
			s = &h->s[i];
			if (s->state != ST_LOGIN)
				continue;
			if (now - s->start_ns >= h->cf.login_ns) {
				give_up(s, why);
				continue;
			}
			inflight++;
			if (s->start_ns + h->cf.login_ns < until)
				until = s->start_ns + h->cf.login_ns;
		}
		silent = count_no_answers(h, next, silent);
		if (h->cf.give_up != 0 && silent >= h->cf.give_up &&
		    next < h->cf.sessions) {
			h->not_started = h->cf.sessions - next;
			warnx("%llu logins in a row got no answer within %.0f ms; "
			    "the other %llu sessions were not started",
			    (unsigned long long)silent,
			    ns_to_ms(h->cf.login_ns),
			    (unsigned long long)h->not_started);
			for (; next < h->cf.sessions; next++) {
				set_reason(&h->s[next], "%s", "not started: the "
				    "logins before it got no answer");
				h->s[next].state = ST_FAILED;
			}
		}
		while (!h->stop && next < h->cf.sessions &&
		    inflight < h->cf.parallel) {
			if (start_session(h, &h->s[next]))
				inflight++;
			next++;
		}
		if (h->stop) {
			for (i = 0; i < next; i++)
				if (h->s[i].state == ST_LOGIN)
					give_up(&h->s[i], "holder stopped by "
					    "a signal during the login");
			for (; next < h->cf.sessions; next++) {
				set_reason(&h->s[next], "%s",
				    "not started: holder stopped by a signal");
				h->s[next].state = ST_FAILED;
			}
		}
		if (next < h->cf.sessions || inflight > 0)
			done = 0;
		if (done)
			break;
		pump(h, until, 0);
	}
	return now_ns() - t0;
}

/*
 * Sends "ping-N-RANDOM" through every open session and waits for each to
 * come back: a session is alive only when its own line returned before
 * the deadline. Returns the time until the last answer (or the deadline).
 */
static uint64_t
check_all(struct holder *h)
{
	struct session *s;
	uint64_t i, token, waiting = 0, t0, deadline;
	ssize_t n;

	/* Take note of what already happened (exits, stderr) first. */
	pump(h, 0, 0);
	t0 = now_ns();
	deadline = t0 + h->cf.check_ns;
	for (i = 0; i < h->cf.sessions; i++) {
		s = &h->s[i];
		if (s->state != ST_OPEN)
			continue;
		s->checked = 1;
		s->alive = 0;
		s->answered = 0;
		if (!s->running || s->in_fd == -1) {
			set_reason(s, "%s", "ended before the check");
			continue;
		}
		if (getrandom(&token, sizeof(token), 0) != sizeof(token))
			err(2, "getrandom");
		snprintf(s->expect, sizeof(s->expect), "ping-%d-%016llx",
		    s->num, (unsigned long long)token);
		do
			n = dprintf(s->in_fd, "%s\n", s->expect);
		while (n == -1 && errno == EINTR);
		if (n == -1 && errno == EPIPE) {
			/*
			 * It closed its stdin: it is ending. Wait below until
			 * it is reaped; how it ended is the reason.
			 */
			close_fd(&s->in_fd);
			waiting++;
			continue;
		}
		if (n == -1) {
			set_reason(s, "check: cannot write to it: %s",
			    strerror(errno));
			s->expect[0] = '\0';
			continue;
		}
		waiting++;
	}
	while (waiting > 0 && !h->stop && now_ns() < deadline) {
		pump(h, deadline, 0);
		waiting = 0;
		for (i = 0; i < h->cf.sessions; i++) {
			s = &h->s[i];
			/*
			 * Until it answers or is reaped: its output can end
			 * a moment before its exit is seen, and the exit is
			 * the reason then.
			 */
			if (s->checked && s->state == ST_OPEN &&
			    s->expect[0] != '\0' && s->running)
				waiting++;
		}
	}
	for (i = 0; i < h->cf.sessions; i++) {
		s = &h->s[i];
		if (!s->checked || s->state != ST_OPEN)
			continue;
		s->alive = s->answered;
		if (!s->alive) {
			set_reason(s, "%s", s->running ?
			    "check: its line did not come back in time" :
			    "check: ended before its line came back");
			s->expect[0] = '\0';
		}
	}
	return now_ns() - t0;
}

/*
 * Closes every session: stdin first (ssh sends EOF, cat ends), then from
 * the close deadline on proc.c's ladder (TERM, after a grace KILL)
 * for our own children that are left. Counts how each one ended.
 */
static void
close_all(struct holder *h, uint64_t *closed, uint64_t *terminated,
    uint64_t *killed)
{
	struct proc_ladder stop;
	struct session *s;
	uint64_t i;
	int wstatus, sig;

	for (i = 0; i < h->cf.sessions; i++) {
		s = &h->s[i];
		close_fd(&s->in_fd);
		if (s->state == ST_OPEN)
			s->state = ST_CLOSED;
	}
	proc_ladder_init(&stop, now_ns() + h->cf.close_ns, PROC_KILL_GRACE_NS);
	while (h->running > 0 && stop.step != PROC_KILLED) {
		if (now_ns() < stop.due_ns) {
			pump(h, stop.due_ns, 0);
			continue;
		}
		sig = proc_ladder_due(&stop, now_ns());
		for (i = 0; i < h->cf.sessions; i++) {
			s = &h->s[i];
			if (s->pid == 0 || !s->running)
				continue;
			kill(s->pid, sig);
			s->signalled = stop.step;
			if (stop.step == PROC_TERMED) {
				set_reason(s, "%s", "did not end after its "
				    "stdin was closed");
				continue;
			}
			proc_reap(s->pid, &wstatus, NULL);
			on_exit_status(h, s, wstatus);
		}
	}
	*closed = *terminated = *killed = 0;
	for (i = 0; i < h->cf.sessions; i++) {
		s = &h->s[i];
		if (s->pid == 0)
			continue;
		switch (s->signalled) {
		case 0: (*closed)++; break;
		case 1: (*terminated)++; break;
		default: (*killed)++; break;
		}
		/* What is still in the pipes belongs to the session's end. */
		if (s->out_fd != -1)
			read_stdout(s);
		if (s->err_fd != -1)
			read_stderr(s);
		close_fd(&s->out_fd);
		close_fd(&s->err_fd);
	}
}

/* ---- output ------------------------------------------------------------- */

static void
write_tsv(const struct holder *h)
{
	const struct session *s;
	char error[800], tmp[4096];
	uint64_t i;
	FILE *f;

	if (h->cf.tsv_path == NULL)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", h->cf.tsv_path);
	if ((f = fopen(tmp, "we")) == NULL)
		err(2, "%s", tmp);
	fprintf(f, "session\tpid\topened\topen_ms\talive\texit\terror\n");
	for (i = 0; i < h->cf.sessions; i++) {
		s = &h->s[i];
		error_text(s, error, sizeof(error));
		fprintf(f, "%d\t%d\t%d\t", s->num, (int)s->pid,
		    s->open_ns != 0);
		if (s->open_ns != 0)
			fprintf(f, "%.3f", ns_to_ms(s->open_ns));
		else
			fputc('-', f);
		if (s->checked)
			fprintf(f, "\t%d", s->alive);
		else
			fprintf(f, "\t-");
		if (s->pid != 0 && !s->running)
			fprintf(f, "\t%d", s->exit_code);
		else
			fprintf(f, "\t-");
		fprintf(f, "\t%s\n", error);
	}
	if (fclose(f) == EOF)
		err(2, "%s", tmp);
	if (rename(tmp, h->cf.tsv_path) == -1)
		err(2, "rename %s", h->cf.tsv_path);
}

/* Every failed or dead session's kept stderr, for the error report. */
static void
write_errors(const struct holder *h)
{
	const struct session *s;
	char text[STDERR_KEEP + 1], error[800];
	uint64_t i;
	FILE *f;

	if (h->cf.errors_path == NULL)
		return;
	if ((f = fopen(h->cf.errors_path, "we")) == NULL)
		err(2, "%s", h->cf.errors_path);
	for (i = 0; i < h->cf.sessions; i++) {
		s = &h->s[i];
		if (s->open_ns != 0 && (!s->checked || s->alive) &&
		    s->reason[0] == '\0')
			continue;
		error_text(s, error, sizeof(error));
		fprintf(f, "== session %d (pid %d): %s\n", s->num, (int)s->pid,
		    error);
		if (proc_tail_text(&s->err, text, sizeof(text)) > 0) {
			if (s->err.total > STDERR_KEEP)
				fprintf(f, "[... only the last %d bytes of its "
				    "stderr are kept]\n", STDERR_KEEP);
			fputs(text, f);
			if (text[strlen(text) - 1] != '\n')
				fputc('\n', f);
		} else {
			fprintf(f, "(nothing on stderr)\n");
		}
	}
	if (fclose(f) == EOF)
		err(2, "%s", h->cf.errors_path);
}

static void
flush_out(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
}

static void
print_open(struct holder *h, uint64_t wall_ns, uint64_t fd_limit)
{
	struct samples open_ms;
	uint64_t i, opened = 0;

	samples_init(&open_ms);
	for (i = 0; i < h->cf.sessions; i++)
		if (h->s[i].open_ns != 0) {
			opened++;
			if (samples_add(&open_ms, ns_to_ms(h->s[i].open_ns)))
				err(2, "samples_add");
		}
	printf("sessions=%llu\n", (unsigned long long)h->cf.sessions);
	printf("parallel=%llu\n", (unsigned long long)h->cf.parallel);
	printf("fd_limit=%llu\n", (unsigned long long)fd_limit);
	printf("opened=%llu\n", (unsigned long long)opened);
	printf("open_failed=%llu\n",
	    (unsigned long long)(h->cf.sessions - opened));
	printf("not_started=%llu\n", (unsigned long long)h->not_started);
	printf("open_wall_ms=%.3f\n", ns_to_ms(wall_ns));
	samples_print(stdout, "open_ms_", &open_ms);
	samples_free(&open_ms);
	write_tsv(h);	/* ready before the caller reads state= */
	printf("state=open\n");
	flush_out();
}

static void
print_check(struct holder *h, uint64_t check_ns)
{
	uint64_t i, alive = 0, dead = 0;

	for (i = 0; i < h->cf.sessions; i++) {
		if (!h->s[i].checked)
			continue;
		if (h->s[i].alive)
			alive++;
		else
			dead++;
	}
	printf("alive=%llu\n", (unsigned long long)alive);
	printf("dead=%llu\n", (unsigned long long)dead);
	printf("check_ms=%.3f\n", ns_to_ms(check_ns));
	write_tsv(h);
	printf("state=checked\n");
	flush_out();
}

/* Holds until hold_ns passed, a signal came or (with -i) a command. */
static void
hold_until(struct holder *h, uint64_t until_ns, int want_control)
{
	while (!h->stop && !h->ctl_ready && !(want_control && h->ctl_eof) &&
	    (want_control || now_ns() < until_ns))
		pump(h, want_control ? now_ns() + NS_PER_S : until_ns,
		    want_control);
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-hold [-i] [-n sessions] [-P parallel] "
	    "[-t login_timeout_ms] [-g no_answers]\n"
	    "                    [-w check_timeout_ms] [-c close_timeout_ms] "
	    "[-h hold_ms]\n"
	    "                    [-o sessions.tsv] [-e errors.txt] "
	    "-- command [arg ...]\n");
	exit(2);
}

static void
setup_signals(struct holder *h)
{
	sigset_t mask, empty;
	int r;

	/* A dead session's stdin gives EPIPE instead of killing us. */
	if (signal(SIGPIPE, SIG_IGN) == SIG_ERR)
		err(2, "signal SIGPIPE");
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, NULL) == -1)
		err(2, "sigprocmask");
	if ((h->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) == -1)
		err(2, "signalfd");
	/* The children get ordinary signal handling back. */
	sigemptyset(&empty);
	sigaddset(&mask, SIGPIPE);
	if ((r = posix_spawnattr_init(&h->attr)) != 0 ||
	    (r = posix_spawnattr_setsigmask(&h->attr, &empty)) != 0 ||
	    (r = posix_spawnattr_setsigdefault(&h->attr, &mask)) != 0 ||
	    (r = posix_spawnattr_setflags(&h->attr, POSIX_SPAWN_SETSIGMASK |
	    POSIX_SPAWN_SETSIGDEF)) != 0)
		errno = r, err(2, "posix_spawnattr");
}

/*
 * Opens `sessions` sessions of the command (e.g. "ssh -F CONFIG host cat",
 * which must echo its stdin), at most `parallel` logging in at a time, and
 * prints key=value blocks on stdout, each ending with a state= line:
 *   open:    sessions parallel fd_limit opened open_failed not_started
 *            open_wall_ms open_ms_{n,min,p50,...}; state=open
 *   checked: alive dead check_ms; state=checked
 *   closed:  closed terminated killed children_left; state=closed
 * Without -i it holds hold_ms, checks, closes. With -i it waits after
 * opening for commands on stdin, one a line: "check" runs the alive check,
 * "close" (or the end of stdin) closes. -o keeps one TSV row per session
 * (session pid opened open_ms alive exit error), rewritten after each
 * block; -e writes the stderr of every failed or dead session. -g N stops
 * starting sessions once N logins in a row got no answer (not_started
 * counts the ones left out, a line on stderr says why).
 * Exit 0 when every session opened and passed its last check, 1 when one
 * did not, 2 on a usage or setup error, 127/126 when the command cannot
 * be run.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct holder h;
	uint64_t i, fd_limit, need, wall_ns, closed, terminated, killed;
	char command[64];
	int ch, checked = 0, all_ok = 1, left;

	memset(&h, 0, sizeof(h));
	h.cf.sessions = DEFAULT_SESSIONS;
	h.cf.parallel = DEFAULT_PARALLEL;
	h.cf.login_ns = DEFAULT_LOGIN_MS * NS_PER_MS;
	h.cf.check_ns = DEFAULT_CHECK_MS * NS_PER_MS;
	h.cf.close_ns = DEFAULT_CLOSE_MS * NS_PER_MS;
	h.ctl_fd = -1;
	while ((ch = getopt(argc, argv, "c:e:g:h:in:o:P:t:w:")) != -1) {
		switch (ch) {
		case 'c':
			h.cf.close_ns = NS_PER_MS * opt_u64("-c close_timeout_ms",
			    optarg, 1, 3600000);
			break;
		case 'e':
			h.cf.errors_path = optarg;
			break;
		case 'g':
			h.cf.give_up = opt_u64("-g no_answers", optarg, 1,
			    1000000);
			break;
		case 'h':
			h.cf.hold_ns = NS_PER_MS * opt_u64("-h hold_ms", optarg,
			    0, 86400000);
			break;
		case 'i':
			h.cf.interactive = 1;
			break;
		case 'n':
			h.cf.sessions = opt_u64("-n sessions", optarg, 1,
			    1000000);
			break;
		case 'o':
			h.cf.tsv_path = optarg;
			break;
		case 'P':
			h.cf.parallel = opt_u64("-P parallel", optarg, 1, 100000);
			break;
		case 't':
			h.cf.login_ns = NS_PER_MS * opt_u64("-t login_timeout_ms",
			    optarg, 1, 3600000);
			break;
		case 'w':
			h.cf.check_ns = NS_PER_MS * opt_u64("-w check_timeout_ms",
			    optarg, 1, 3600000);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	h.cf.argv = argv;

	fd_limit = proc_raise_nofile(0);
	need = h.cf.sessions * FDS_PER_SESSION + FDS_SPARE;
	if (need > fd_limit)
		errx(2, "%llu sessions need about %llu file descriptors, the "
		    "limit (RLIMIT_NOFILE, hard) is %llu: raise it (ulimit -Hn, "
		    "LimitNOFILE=) or hold fewer sessions",
		    (unsigned long long)h.cf.sessions, (unsigned long long)need,
		    (unsigned long long)fd_limit);
	if ((h.s = calloc(h.cf.sessions, sizeof(*h.s))) == NULL ||
	    (h.pfd = calloc(h.cf.sessions * 2 + 2, sizeof(*h.pfd))) == NULL ||
	    (h.pfd_owner = calloc(h.cf.sessions * 2 + 2,
	    sizeof(*h.pfd_owner))) == NULL)
		err(2, "calloc");
	for (i = 0; i < h.cf.sessions; i++) {
		h.s[i].num = (int)(i + 1);
		h.s[i].in_fd = h.s[i].out_fd = h.s[i].err_fd = -1;
		proc_tail_init(&h.s[i].err, h.s[i].errkeep, STDERR_KEEP);
	}
	setup_signals(&h);
	if (h.cf.interactive) {
		h.ctl_fd = STDIN_FILENO;
	}

	wall_ns = open_all(&h);
	print_open(&h, wall_ns, fd_limit);

	if (!h.cf.interactive) {
		hold_until(&h, now_ns() + h.cf.hold_ns, 0);
		if (!h.stop) {
			print_check(&h, check_all(&h));
			checked = 1;
		}
	} else {
		for (;;) {
			hold_until(&h, 0, 1);
			if (h.stop || (h.ctl_eof && !h.ctl_ready))
				break;
			snprintf(command, sizeof(command), "%s", h.ctl_line);
			h.ctl_ready = 0;
			next_command(&h);	/* one already buffered */
			if (strcmp(command, "check") == 0) {
				print_check(&h, check_all(&h));
				checked = 1;
			} else if (strcmp(command, "close") == 0) {
				break;
			} else if (command[0] != '\0') {
				warnx("unknown command \"%s\" (check, close)",
				    command);
			}
		}
	}

	wall_ns = now_ns();
	close_all(&h, &closed, &terminated, &killed);
	wall_ns = now_ns() - wall_ns;
	left = count_children();
	printf("closed=%llu\n", (unsigned long long)closed);
	printf("terminated=%llu\n", (unsigned long long)terminated);
	printf("killed=%llu\n", (unsigned long long)killed);
	printf("close_ms=%.3f\n", ns_to_ms(wall_ns));
	printf("children_left=%d\n", left);
	printf("stopped_by_signal=%d\n", h.stop);
	write_tsv(&h);
	write_errors(&h);
	printf("state=closed\n");
	flush_out();

	for (i = 0; i < h.cf.sessions; i++)
		if (h.s[i].open_ns == 0 || (checked && !h.s[i].alive))
			all_ok = 0;
	if (h.stop || left != 0)
		all_ok = 0;
	posix_spawnattr_destroy(&h.attr);
	free(h.s);
	free(h.pfd);
	free(h.pfd_owner);
	return all_ok ? 0 : 1;
}
