/*
 * Child processes: spawn (on a PTY of its own too), wait with a deadline,
 * stop, stderr tail.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "proc.h"

extern char **environ;

/* One of the child's three descriptors, as proc_spawn() describes. */
static int
add_fd(posix_spawn_file_actions_t *fa, int fd, int target)
{
	if (fd == PROC_INHERIT)
		return 0;
	if (fd == PROC_DEVNULL)
		return posix_spawn_file_actions_addopen(fa, target,
		    "/dev/null", target == STDIN_FILENO ? O_RDONLY : O_WRONLY,
		    0);
	if (fd == target)
		return 0;	/* already in place: inherited as it is */
	return posix_spawn_file_actions_adddup2(fa, fd, target);
}

int
proc_spawn(pid_t *pid, char *const argv[], int in_fd, int out_fd, int err_fd,
    const posix_spawnattr_t *attr, char *const env[])
{
	posix_spawn_file_actions_t fa;
	int r;

	if ((r = posix_spawn_file_actions_init(&fa)) != 0 ||
	    (r = add_fd(&fa, in_fd, STDIN_FILENO)) != 0 ||
	    (r = add_fd(&fa, out_fd, STDOUT_FILENO)) != 0 ||
	    (r = add_fd(&fa, err_fd, STDERR_FILENO)) != 0)
		errno = r, err(2, "posix_spawn_file_actions");
	r = posix_spawnp(pid, argv[0], &fa, attr, argv,
	    env != NULL ? env : environ);
	posix_spawn_file_actions_destroy(&fa);
	return r;
}

int
proc_spawn_tty(pid_t *pid, char *const argv[], const char *tty, int err_fd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int r;

	/*
	 * setsid() comes before the file actions: the open of the terminal
	 * (without O_NOCTTY) by the new session's leader makes it the
	 * session's controlling terminal.
	 */
	if ((r = posix_spawnattr_init(&attr)) != 0 ||
	    (r = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID)) != 0 ||
	    (r = posix_spawn_file_actions_init(&fa)) != 0 ||
	    (r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, tty,
	    O_RDWR, 0)) != 0 ||
	    (r = posix_spawn_file_actions_adddup2(&fa, STDIN_FILENO,
	    STDOUT_FILENO)) != 0 ||
	    (r = add_fd(&fa, err_fd, STDERR_FILENO)) != 0)
		errno = r, err(2, "posix_spawn setup");
	r = posix_spawnp(pid, argv[0], &fa, &attr, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return r;
}

int
pty_open(int mode, char *name, size_t namelen, int *slave)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	struct termios tio;
	int master;

	if ((master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1 ||
	    grantpt(master) == -1 || unlockpt(master) == -1 ||
	    ptsname_r(master, name, namelen) != 0)
		err(2, "creating a PTY");
	if ((*slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1)
		err(2, "%s", name);
	if (mode == PTY_RAW) {
		if (tcgetattr(*slave, &tio) == -1)
			err(2, "tcgetattr %s", name);
		cfmakeraw(&tio);
		if (tcsetattr(*slave, TCSANOW, &tio) == -1)
			err(2, "setting the modes of %s", name);
	}
	if (ioctl(*slave, TIOCSWINSZ, &ws) == -1)
		err(2, "setting the size of %s", name);
	return master;
}

int
proc_spawn_pty(pid_t *pid, char *const argv[], int mode, int err_fd,
    int *master)
{
	char name[128];
	int slave, r;

	*master = pty_open(mode, name, sizeof(name), &slave);
	r = proc_spawn_tty(pid, argv, name, err_fd);
	close(slave);
	if (r != 0) {
		close(*master);
		*master = -1;
		return r;
	}
	if (fcntl(*master, F_SETFL, O_NONBLOCK) == -1)
		err(2, "fcntl");
	return 0;
}

int
proc_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	/* pidfd_open sets close-on-exec itself; made sure of all the same. */
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (fd != -1 && fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
		err(2, "fcntl");
	return fd;
#else
	(void)pid;
	return -1;
#endif
}

/* Reaps pid if it has exited: 1 reaped, 0 not yet. */
static int
try_reap(pid_t pid, int *wstatus, struct rusage *ru)
{
	pid_t r;

	for (;;) {
		r = wait4(pid, wstatus, WNOHANG, ru);
		if (r == pid)
			return 1;
		if (r == 0)
			return 0;
		if (errno != EINTR)
			err(2, "wait4 %d", (int)pid);
	}
}

int
proc_wait_until(pid_t pid, uint64_t deadline_ns, int *wstatus,
    struct rusage *ru)
{
	struct pollfd pfd;
	struct timespec ts;
	uint64_t now, left;
	int pidfd, reaped = 0;

	pidfd = proc_pidfd(pid);
	for (;;) {
		if ((reaped = try_reap(pid, wstatus, ru)) != 0)
			break;
		now = now_ns();
		if (now >= deadline_ns)
			break;
		left = deadline_ns - now;
		if (pidfd == -1 && left > NS_PER_MS / 4)
			left = NS_PER_MS / 4;
		ts.tv_sec = (time_t)(left / NS_PER_S);
		ts.tv_nsec = (long)(left % NS_PER_S);
		if (pidfd == -1) {
			(void)nanosleep(&ts, NULL);
			continue;
		}
		pfd.fd = pidfd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (ppoll(&pfd, 1, &ts, NULL) == -1 && errno != EINTR)
			err(2, "poll");
	}
	if (pidfd != -1)
		close(pidfd);
	return reaped;
}

void
proc_reap(pid_t pid, int *wstatus, struct rusage *ru)
{
	while (wait4(pid, wstatus, 0, ru) == -1)
		if (errno != EINTR)
			err(2, "wait4 %d", (int)pid);
}

void
proc_kill(pid_t pid, int *wstatus, struct rusage *ru)
{
	/* Only our child, not reaped yet: pid cannot have been reused. */
	kill(pid, SIGKILL);
	proc_reap(pid, wstatus, ru);
}

int
proc_stop(pid_t pid, uint64_t grace_ns, int *wstatus, struct rusage *ru)
{
	kill(pid, SIGTERM);
	if (proc_wait_until(pid, now_ns() + grace_ns, wstatus, ru))
		return 0;
	proc_kill(pid, wstatus, ru);
	return 1;
}

void
proc_ladder_init(struct proc_ladder *l, uint64_t deadline_ns,
    uint64_t grace_ns)
{
	l->due_ns = deadline_ns;
	l->grace_ns = grace_ns;
	l->step = PROC_RUNNING;
}

void
proc_ladder_hurry(struct proc_ladder *l, uint64_t now)
{
	if (l->step == PROC_RUNNING && l->due_ns > now)
		l->due_ns = now;
}

int
proc_ladder_due(struct proc_ladder *l, uint64_t now)
{
	if (now < l->due_ns)
		return 0;
	l->due_ns = now + l->grace_ns;
	if (l->step == PROC_RUNNING) {
		l->step = PROC_TERMED;
		return SIGTERM;
	}
	l->step = PROC_KILLED;
	return SIGKILL;
}

int
proc_ladder_signal(struct proc_ladder *l, pid_t pid, uint64_t now)
{
	int sig = proc_ladder_due(l, now);

	/* Only the caller's child, not reaped yet: its pid is its own. */
	if (sig != 0)
		kill(pid, sig);
	return sig;
}

void
proc_tail_init(struct proc_tail *t, char *storage, size_t cap)
{
	t->buf = storage;
	t->cap = cap;
	t->total = 0;
}

void
proc_tail_add(struct proc_tail *t, const char *data, size_t n)
{
	size_t i;

	if (n > t->cap) {
		t->total += n - t->cap;
		data += n - t->cap;
		n = t->cap;
	}
	for (i = 0; i < n; i++)
		t->buf[t->total++ % t->cap] = data[i];
}

size_t
proc_tail_text(const struct proc_tail *t, char *dst, size_t dstlen)
{
	uint64_t kept, start;
	size_t n, i;

	if (dstlen == 0)
		return 0;
	kept = t->total < t->cap ? t->total : t->cap;
	n = kept < dstlen - 1 ? (size_t)kept : dstlen - 1;
	/* The newest n of the kept bytes. */
	start = t->total - n;
	for (i = 0; i < n; i++)
		dst[i] = t->buf[(start + i) % t->cap];
	dst[n] = '\0';
	return n;
}

void
proc_tail_last_line(const struct proc_tail *t, char *dst, size_t dstlen)
{
	char text[t->cap + 1];
	size_t end, start, n, i;
	unsigned char c;

	if (dstlen == 0)
		return;
	end = proc_tail_text(t, text, sizeof(text));
	while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' ||
	    text[end - 1] == ' '))
		end--;
	start = end;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	n = end - start;
	if (n >= dstlen)
		n = dstlen - 1;
	for (i = 0; i < n; i++) {
		c = (unsigned char)text[start + i];
		dst[i] = c < ' ' || c == 0x7f ? ' ' : (char)c;
	}
	dst[n] = '\0';
}

uint64_t
proc_raise_nofile(uint64_t need)
{
	struct rlimit rl;
	rlim_t want;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		err(2, "getrlimit RLIMIT_NOFILE");
	want = need == 0 || (rlim_t)need > rl.rlim_max ? rl.rlim_max :
	    (rlim_t)need;
	if (rl.rlim_cur < want) {
		rl.rlim_cur = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			err(2, "setrlimit RLIMIT_NOFILE");
	}
	return (uint64_t)rl.rlim_cur;
}

int
is_routine_line(const char *line)
{
	return strncmp(line, "debug", 5) == 0 ||
	    strncmp(line, "OpenSSH_", 8) == 0 ||
	    strncmp(line, "Transferred: ", 13) == 0 ||
	    strncmp(line, "Bytes per second: ", 18) == 0;
}
