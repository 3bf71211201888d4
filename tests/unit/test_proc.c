/*
 * Unit tests of proc.c: a spawn with given descriptors, a wait that does
 * not return before its deadline, a stop that has to use SIGKILL on a
 * child ignoring SIGTERM, the ladder's steps (alone and on such a child),
 * a spawn on a terminal of its own, a new PTY (pty_open) and a spawn on
 * one (proc_spawn_pty), the stderr tail, the routine-line table, and the
 * descriptor limit. Real children (sh); prints TAP.
 */
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "common.h"
#include "proc.h"
#include "tap.h"
#include "emptypath.h"

/* Everything readable from fd until EOF, into buf (NUL-terminated). */
static size_t
read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			err(2, "read");
		len += (size_t)n;
	}
	buf[len] = '\0';
	return len;
}

static void
test_spawn(void)
{
	char *sh_argv[] = { "sh", "-c",
	    "read x; echo \"out:$x\"; echo \"err:$x\" >&2; exit 3", NULL };
	char *missing[] = { "sshperf-no-such-program", NULL };
	char script[128];
	char *leak_argv[] = { "sh", "-c", script, NULL };
	char buf[256];
	int in[2], out[2], errp[2], wstatus, r;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1 ||
	    pipe2(errp, O_CLOEXEC) == -1)
		err(2, "pipe2");
	r = proc_spawn(&pid, sh_argv, in[0], out[1], errp[1], NULL, NULL);
	ok(r == 0, "spawn: sh starts (r=%d)", r);
	close(in[0]);
	close(out[1]);
	close(errp[1]);
	if (write(in[1], "abc\n", 4) != 4)
		err(2, "write");
	close(in[1]);
	read_all(out[0], buf, sizeof(buf));
	ok(strcmp(buf, "out:abc\n") == 0, "spawn: stdout is our pipe");
	read_all(errp[0], buf, sizeof(buf));
	ok(strcmp(buf, "err:abc\n") == 0, "spawn: stderr is our pipe");
	close(out[0]);
	close(errp[0]);
	ok(proc_wait_until(pid, now_ns() + 60 * NS_PER_S, &wstatus, NULL) == 1 &&
	    exit_code_of(wstatus) == 3, "spawn: its exit code comes back");

	/*
	 * Searched in an empty folder of our own: a PATH entry the caller
	 * may not search (root's, kept by "su user") would make it EACCES.
	 */
	with_empty_path(1);
	r = proc_spawn(&pid, missing, PROC_DEVNULL, PROC_DEVNULL,
	    PROC_DEVNULL, NULL, NULL);
	with_empty_path(0);
	ok(r == ENOENT, "spawn: a missing program is ENOENT (r=%d)", r);

	/* Our close-on-exec descriptors (both pipes) must not reach it. */
	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(in, O_CLOEXEC) == -1)
		err(2, "pipe2");
	snprintf(script, sizeof(script), "for f in %d %d %d; do "
	    "[ -e /proc/$$/fd/$f ] && echo \"$f \"; done; echo end",
	    in[0], in[1], out[0]);
	r = proc_spawn(&pid, leak_argv, PROC_DEVNULL, out[1], PROC_DEVNULL,
	    NULL, NULL);
	close(out[1]);
	read_all(out[0], buf, sizeof(buf));
	close(out[0]);
	close(in[0]);
	close(in[1]);
	(void)proc_wait_until(pid, now_ns() + 60 * NS_PER_S, &wstatus, NULL);
	ok(r == 0 && strcmp(buf, "end\n") == 0, "spawn: our close-on-exec "
	    "descriptors do not reach the child (%.*s)",
	    (int)strcspn(buf, "\n"), buf);
}

static void
test_wait_deadline(void)
{
	char *sleeper[] = { "sleep", "30", NULL };
	struct rusage ru;
	uint64_t t0, deadline;
	int wstatus, r, killed;
	pid_t pid;

	if (proc_spawn(&pid, sleeper, PROC_DEVNULL, PROC_DEVNULL, PROC_INHERIT,
	    NULL, NULL) != 0)
		errx(2, "cannot run sleep");
	t0 = now_ns();
	deadline = t0 + 200 * NS_PER_MS;
	r = proc_wait_until(pid, deadline, &wstatus, NULL);
	ok(r == 0, "wait: a child still running is not reaped");
	ok(now_ns() >= deadline, "wait: returns not before its deadline "
	    "(%.1f ms of 200)", ns_to_ms(now_ns() - t0));
	r = proc_wait_until(pid, 0, &wstatus, NULL);
	ok(r == 0, "wait: a deadline in the past returns at once, not reaped");
	memset(&ru, 0xff, sizeof(ru));
	killed = proc_stop(pid, 60 * NS_PER_S, &wstatus, &ru);
	ok(killed == 0 && WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGTERM,
	    "stop: a child that takes SIGTERM ends on it, no SIGKILL");
	ok(ru.ru_maxrss >= 0 && ru.ru_utime.tv_sec >= 0 &&
	    ru.ru_utime.tv_sec < 1000, "stop: its rusage is filled in");
}

/* A child that ignores SIGTERM, started once its trap is in place. */
static pid_t
spawn_stubborn(void)
{
	char *stubborn[] = { "sh", "-c",
	    "trap '' TERM; echo ready; while :; do sleep 1; done", NULL };
	char buf[64];
	int out[2];
	pid_t pid;

	if (pipe2(out, O_CLOEXEC) == -1)
		err(2, "pipe2");
	if (proc_spawn(&pid, stubborn, PROC_DEVNULL, out[1], PROC_INHERIT,
	    NULL, NULL) != 0)
		errx(2, "cannot run sh");
	close(out[1]);
	if (read(out[0], buf, sizeof(buf)) <= 0)
		errx(2, "the stubborn child did not start");
	close(out[0]);
	return pid;
}

static void
test_stop_ignoring_term(void)
{
	uint64_t t0, grace = 300 * NS_PER_MS;
	int wstatus, killed;
	pid_t pid = spawn_stubborn();

	t0 = now_ns();
	killed = proc_stop(pid, grace, &wstatus, NULL);
	ok(killed == 1, "stop: a child ignoring SIGTERM takes the SIGKILL");
	ok(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL,
	    "stop: it was reaped, ended by SIGKILL");
	ok(now_ns() - t0 >= grace, "stop: the SIGKILL comes not before the "
	    "grace (%.1f ms of 300)", ns_to_ms(now_ns() - t0));
	ok(kill(pid, 0) == -1 && errno == ESRCH, "stop: nothing is left "
	    "(the pid is gone)");
}

static void
test_ladder(void)
{
	struct proc_ladder l;
	uint64_t g = 100;

	proc_ladder_init(&l, 1000, g);
	ok(proc_ladder_due(&l, 999) == 0 && l.step == PROC_RUNNING,
	    "ladder: nothing before the deadline");
	ok(proc_ladder_due(&l, 1003) == SIGTERM && l.step == PROC_TERMED &&
	    l.due_ns == 1003 + g, "ladder: SIGTERM at the deadline, the next "
	    "step a grace after it was sent (due %llu)",
	    (unsigned long long)l.due_ns);
	ok(proc_ladder_due(&l, 1003 + g - 1) == 0,
	    "ladder: nothing within the grace");
	ok(proc_ladder_due(&l, 1003 + g) == SIGKILL && l.step == PROC_KILLED,
	    "ladder: SIGKILL after the grace");
	ok(proc_ladder_due(&l, 1003 + 2 * g) == SIGKILL,
	    "ladder: SIGKILL again a grace later");

	proc_ladder_init(&l, 1000, g);
	proc_ladder_hurry(&l, 500);
	ok(l.due_ns == 500 && proc_ladder_due(&l, 500) == SIGTERM,
	    "ladder: a stop brings the SIGTERM forward to now");
	proc_ladder_hurry(&l, 550);
	ok(l.due_ns == 500 + g, "ladder: a stop after the SIGTERM does not "
	    "bring the SIGKILL forward");
	proc_ladder_init(&l, 1000, g);
	proc_ladder_hurry(&l, 2000);
	ok(l.due_ns == 1000, "ladder: a stop after the deadline leaves it");
}

/* The ladder in a loop of the caller's, on a child that ignores SIGTERM. */
static void
test_ladder_child(void)
{
	struct proc_ladder l;
	uint64_t t0, grace = 200 * NS_PER_MS;
	int wstatus, sig, terms = 0, kills = 0;
	pid_t pid = spawn_stubborn();

	t0 = now_ns();
	proc_ladder_init(&l, t0 + 100 * NS_PER_MS, grace);
	while (!proc_wait_until(pid, l.due_ns, &wstatus, NULL)) {
		sig = proc_ladder_signal(&l, pid, now_ns());
		terms += sig == SIGTERM;
		kills += sig == SIGKILL;
	}
	/*
	 * One SIGTERM; a SIGKILL, and again each grace until the child is
	 * reaped (under nice -n 19 beside load a killed child once took
	 * longer than the grace to go: 5 of them).
	 */
	ok(terms == 1 && kills >= 1, "ladder: the child took one SIGTERM and "
	    "at least one SIGKILL (%d, %d)", terms, kills);
	ok(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL,
	    "ladder: it ended by the SIGKILL");
	ok(now_ns() - t0 >= 100 * NS_PER_MS + grace, "ladder: not before "
	    "the deadline and the grace (%.1f ms of 300)",
	    ns_to_ms(now_ns() - t0));
}

static void
test_kill(void)
{
	char *sleeper[] = { "sleep", "30", NULL };
	int wstatus;
	pid_t pid;

	if (proc_spawn(&pid, sleeper, PROC_DEVNULL, PROC_DEVNULL, PROC_INHERIT,
	    NULL, NULL) != 0)
		errx(2, "cannot run sleep");
	proc_kill(pid, &wstatus, NULL);
	ok(WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGKILL &&
	    kill(pid, 0) == -1 && errno == ESRCH,
	    "kill: SIGKILL at once, and reaped");
}

/*
 * A child on a terminal of its own: the leader of a new session, the
 * terminal its stdin, stdout and controlling terminal, ended by SIGHUP
 * when the master is closed.
 */
static void
test_spawn_tty(void)
{
	char *sh_argv[] = { "sh", "-c", "set -- $(sed 's/.*) //' "
	    "/proc/$$/stat); [ \"$4\" = $$ ] && [ \"$5\" != 0 ] && "
	    "[ -t 0 ] && [ -t 1 ] && echo \"session ok $(tty)\"; "
	    "exec sleep 30", NULL };
	char *missing[] = { "sshperf-no-such-program", NULL };
	char *true_argv[] = { "/bin/true", NULL };
	char name[128], buf[256] = "", want[160];
	size_t len = 0;
	ssize_t n;
	int master, slave, wstatus, r;
	pid_t pid;

	master = pty_open(PTY_CANONICAL, name, sizeof(name), &slave);
	r = proc_spawn_tty(&pid, sh_argv, name, PROC_INHERIT);
	close(slave);
	ok(r == 0, "tty: sh starts (r=%d)", r);
	snprintf(want, sizeof(want), "session ok %s", name);
	while (len < sizeof(buf) - 1 && strstr(buf, "\n") == NULL) {
		if ((n = read(master, buf + len, sizeof(buf) - 1 - len)) <= 0)
			break;
		len += (size_t)n;
		buf[len] = '\0';
	}
	buf[len] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	ok(strcmp(buf, want) == 0, "tty: a session leader with the terminal "
	    "as stdin, stdout and controlling terminal (%s)", buf);
	close(master);
	r = proc_wait_until(pid, now_ns() + 10 * NS_PER_S, &wstatus, NULL);
	ok(r == 1 && WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGHUP,
	    "tty: closing the master hangs it up (SIGHUP)");
	if (r == 0)
		proc_kill(pid, &wstatus, NULL);

	/*
	 * A missing program on a terminal that is there: a new PTY, whose
	 * slave the child opens (it would be ENOENT too if the terminal
	 * were gone, as the first one's is now). The same terminal starts a
	 * program that exists, so the ENOENT is the program's. Searched in
	 * an empty folder of our own, as spawn's test.
	 */
	master = pty_open(PTY_CANONICAL, name, sizeof(name), &slave);
	r = proc_spawn_tty(&pid, true_argv, name, PROC_INHERIT);
	ok(r == 0 && proc_wait_until(pid, now_ns() + 10 * NS_PER_S, &wstatus,
	    NULL) == 1 && exit_code_of(wstatus) == 0,
	    "tty: the new terminal starts /bin/true (r=%d)", r);
	with_empty_path(1);
	r = proc_spawn_tty(&pid, missing, name, PROC_INHERIT);
	with_empty_path(0);
	ok(r == ENOENT, "tty: a missing program is ENOENT (r=%d)", r);
	close(slave);
	close(master);
}

/* The lowest descriptor free now: one more open leaks, one less closes. */
static int
lowest_free_fd(void)
{
	int fd;

	if ((fd = dup(STDIN_FILENO)) == -1)
		err(2, "dup");
	close(fd);
	return fd;
}

static int
has_fd_flag(int fd, int flag)
{
	int f = fcntl(fd, F_GETFD);

	return f != -1 && (f & flag) != 0;
}

/*
 * pty_open: the modes asked for (raw: no line editing, no echo, no
 * signals; canonical: the kernel's, with echo), 80x24, both descriptors
 * close-on-exec, the master blocking, the name the slave's.
 */
static void
test_pty_open(void)
{
	struct termios tio;
	struct winsize ws;
	char name[128];
	int master, slave, modes_ok, size_ok;

	master = pty_open(PTY_RAW, name, sizeof(name), &slave);
	modes_ok = tcgetattr(slave, &tio) == 0 &&
	    (tio.c_lflag & (ICANON | ECHO | ISIG)) == 0;
	size_ok = ioctl(slave, TIOCGWINSZ, &ws) == 0 && ws.ws_row == 24 &&
	    ws.ws_col == 80;
	ok(modes_ok, "pty_open: PTY_RAW is raw, without echo (lflag %#lx)",
	    (unsigned long)tio.c_lflag);
	ok(size_ok, "pty_open: 80 columns, 24 rows (%ux%u)",
	    (unsigned)ws.ws_col, (unsigned)ws.ws_row);
	ok(has_fd_flag(master, FD_CLOEXEC) && has_fd_flag(slave, FD_CLOEXEC) &&
	    (fcntl(master, F_GETFL) & O_NONBLOCK) == 0,
	    "pty_open: master and slave close-on-exec, the master blocking");
	ok(strcmp(ptsname(master), name) == 0 && isatty(slave),
	    "pty_open: the name is the slave's (%s)", name);
	close(slave);
	close(master);

	master = pty_open(PTY_CANONICAL, name, sizeof(name), &slave);
	modes_ok = tcgetattr(slave, &tio) == 0 && (tio.c_lflag & ICANON) != 0 &&
	    (tio.c_lflag & ECHO) != 0;
	ok(modes_ok, "pty_open: PTY_CANONICAL is canonical, with echo (lflag "
	    "%#lx)", (unsigned long)tio.c_lflag);
	close(slave);
	close(master);
}

/*
 * proc_spawn_pty: the child on the new terminal (its size, seen from
 * inside), the master non-blocking and in the terminal's modes; a
 * missing program is ENOENT and leaves no descriptor open.
 */
static void
test_spawn_pty(void)
{
	char *sh_argv[] = { "sh", "-c", "[ -t 0 ] && [ -t 1 ] && "
	    "echo \"size $(stty size)\"; exec sleep 30", NULL };
	char *missing[] = { "sshperf-no-such-program", NULL };
	char buf[256] = "";
	struct termios tio;
	size_t len = 0;
	ssize_t n;
	uint64_t deadline = now_ns() + 60 * NS_PER_S;
	int master, wstatus, r, fd_before;
	pid_t pid;

	r = proc_spawn_pty(&pid, sh_argv, PTY_RAW, PROC_INHERIT,
	    &master);
	ok(r == 0 && master >= 0, "spawn_pty: sh starts (r=%d)", r);
	if (r != 0)
		return;
	ok((fcntl(master, F_GETFL) & O_NONBLOCK) != 0 &&
	    tcgetattr(master, &tio) == 0 &&
	    (tio.c_lflag & (ICANON | ECHO)) == 0,
	    "spawn_pty: the master non-blocking, the terminal raw");
	while (len < sizeof(buf) - 1 && strchr(buf, '\n') == NULL &&
	    now_ns() < deadline) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		(void)poll(&p, 1, 100);
		n = read(master, buf + len, sizeof(buf) - 1 - len);
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR))
			break;
		if (n > 0)
			len += (size_t)n;
		buf[len] = '\0';
	}
	buf[strcspn(buf, "\r\n")] = '\0';
	ok(strcmp(buf, "size 24 80") == 0,
	    "spawn_pty: the child is on an 80x24 terminal (%s)", buf);
	close(master);
	r = proc_wait_until(pid, now_ns() + 10 * NS_PER_S,
	    &wstatus, NULL);
	ok(r == 1 && WIFSIGNALED(wstatus) && WTERMSIG(wstatus) == SIGHUP,
	    "spawn_pty: closing the master hangs it up (SIGHUP)");
	if (r == 0)
		proc_kill(pid, &wstatus, NULL);

	fd_before = lowest_free_fd();
	with_empty_path(1);
	r = proc_spawn_pty(&pid, missing, PTY_CANONICAL,
	    PROC_INHERIT, &master);
	with_empty_path(0);
	ok(r == ENOENT && master == -1 && lowest_free_fd() == fd_before,
	    "spawn_pty: a missing program is ENOENT, no descriptor left open "
	    "(r=%d, master %d)", r, master);
}

static void
test_tail(void)
{
	char store[8], text[32], line[32], big[20];
	struct proc_tail t;
	size_t n;

	proc_tail_init(&t, store, sizeof(store));
	proc_tail_text(&t, text, sizeof(text));
	proc_tail_last_line(&t, line, sizeof(line));
	ok(text[0] == '\0' && line[0] == '\0', "tail: empty at first");
	proc_tail_add(&t, "abc", 3);
	n = proc_tail_text(&t, text, sizeof(text));
	ok(n == 3 && strcmp(text, "abc") == 0, "tail: keeps what fits (%s)",
	    text);
	proc_tail_add(&t, "defghij", 7);
	n = proc_tail_text(&t, text, sizeof(text));
	ok(n == 8 && strcmp(text, "cdefghij") == 0,
	    "tail: keeps the last 8 bytes across a wrap (%s)", text);
	memset(big, 'x', sizeof(big));
	memcpy(big + sizeof(big) - 3, "END", 3);
	proc_tail_add(&t, big, sizeof(big));
	proc_tail_text(&t, text, sizeof(text));
	ok(strcmp(text, "xxxxxEND") == 0, "tail: a write larger than the "
	    "tail keeps its end (%s)", text);
	n = proc_tail_text(&t, text, 4);
	ok(n == 3 && strcmp(text, "END") == 0, "tail: a short buffer gets "
	    "the newest bytes (%s)", text);

	proc_tail_init(&t, store, sizeof(store));
	proc_tail_add(&t, "a\nb\tc\n \r\n", 9);
	proc_tail_last_line(&t, line, sizeof(line));
	ok(strcmp(line, "b c") == 0, "tail: the last non-empty line, tab "
	    "made a space (%s)", line);
	proc_tail_last_line(&t, line, 3);
	ok(strcmp(line, "b ") == 0, "tail: the line is cut to the buffer");
	proc_tail_init(&t, store, sizeof(store));
	proc_tail_add(&t, "\n\n  \n", 5);
	proc_tail_last_line(&t, line, sizeof(line));
	ok(line[0] == '\0', "tail: blank lines only give \"\"");
}

static void
test_routine(void)
{
	static const struct {
		const char	*line;
		int		 routine;
	} table[] = {
		{ "debug1: Reading configuration data", 1 },
		{ "debug3: send packet: type 5", 1 },
		{ "OpenSSH_8.7p1, OpenSSL 3.0.7 1 Nov 2022", 1 },
		{ "Transferred: sent 2804, received 2932 bytes, in 0.1 seconds", 1 },
		{ "Bytes per second: sent 24530.3, received 25650.1", 1 },
		{ "root@127.0.0.1: Permission denied (publickey).", 0 },
		{ "ssh: connect to host 127.0.0.1 port 22: Connection refused", 0 },
		{ "kex_exchange_identification: read: Connection reset by peer", 0 },
		{ "Debug: not lower case", 0 },
		{ "Transferred:no space", 0 },
		{ "", 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		ok(is_routine_line(table[i].line) == table[i].routine,
		    "routine: \"%s\" is %sroutine", table[i].line,
		    table[i].routine ? "" : "not ");
}

static void
test_nofile(void)
{
	struct rlimit rl;
	uint64_t soft;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		err(2, "getrlimit");
	/* Down to 64 first (allowed), so that each step can be seen. */
	if (rl.rlim_max > 200) {
		rl.rlim_cur = 64;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			err(2, "setrlimit");
		soft = proc_raise_nofile(100);
		ok(soft == 100, "nofile: raised to what is needed (%llu)",
		    (unsigned long long)soft);
		soft = proc_raise_nofile(80);
		ok(soft == 100, "nofile: never lowered (%llu)",
		    (unsigned long long)soft);
	}
	soft = proc_raise_nofile(0);
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		err(2, "getrlimit");
	ok(soft == (uint64_t)rl.rlim_cur && rl.rlim_cur == rl.rlim_max,
	    "nofile: 0 raises the soft limit to the hard one (%llu)",
	    (unsigned long long)soft);
	ok(proc_raise_nofile((uint64_t)rl.rlim_max + 1) == (uint64_t)rl.rlim_max,
	    "nofile: more than the hard limit gives the hard limit");
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_spawn();
	test_wait_deadline();
	test_stop_ignoring_term();
	test_ladder();
	test_ladder_child();
	test_kill();
	test_spawn_tty();
	test_pty_open();
	test_spawn_pty();
	test_tail();
	test_routine();
	test_nofile();
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
