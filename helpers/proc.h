/*
 * Child processes for the helpers that run clients: start one with the
 * descriptors it should have (or on a terminal of its own), wait for it
 * with a deadline, stop it with a grace period (waiting here, or step by
 * step in the caller's event loop), keep the end of its stderr, raise the
 * descriptor limit, and tell ssh's routine stderr lines from the ones
 * that explain a failure. The only place that sends SIGKILL.
 */
#ifndef SSHPERF_PROC_H
#define SSHPERF_PROC_H

#include <sys/resource.h>
#include <sys/types.h>

#include <spawn.h>
#include <stddef.h>
#include <stdint.h>

#include "common.h"

/* After SIGTERM, how long a child has before SIGKILL. */
#define PROC_KILL_GRACE_NS	(2 * NS_PER_S)

/* For proc_spawn's descriptors: keep ours, or open /dev/null. */
#define PROC_INHERIT	(-1)
#define PROC_DEVNULL	(-2)

/*
 * Starts argv (searched in PATH) with in_fd, out_fd and err_fd as its
 * stdin, stdout and stderr: a descriptor of ours (dup2'd, so it may be
 * close-on-exec, as every descriptor the helpers open is), PROC_INHERIT
 * or PROC_DEVNULL. attr may be NULL; env NULL means our environment.
 * Returns 0, or the errno of a failed start (ENOENT: not found); exits 2
 * when the spawn itself cannot be set up.
 */
int proc_spawn(pid_t *pid, char *const argv[], int in_fd, int out_fd,
    int err_fd, const posix_spawnattr_t *attr, char *const env[]);

/* A close-on-exec descriptor readable once pid has exited, or -1. */
int proc_pidfd(pid_t pid);

/*
 * Waits for the child pid until deadline_ns (CLOCK_MONOTONIC): 1 when it
 * was reaped (*wstatus, and *ru when not NULL, filled), 0 when the
 * deadline came first, never before it. Polls a pidfd; without one (a
 * kernel before 5.3) it looks every quarter millisecond.
 */
int proc_wait_until(pid_t pid, uint64_t deadline_ns, int *wstatus,
    struct rusage *ru);

/*
 * Ends the child pid: SIGTERM, up to grace_ns for it to exit, then
 * SIGKILL, and reaps it (*wstatus, *ru when not NULL). Returns 1 when it
 * took the SIGKILL, 0 when it ended within the grace.
 */
int proc_stop(pid_t pid, uint64_t grace_ns, int *wstatus, struct rusage *ru);

/* SIGKILL to the child pid at once, and reaps it (*wstatus, *ru). */
void proc_kill(pid_t pid, int *wstatus, struct rusage *ru);

/* Waits for the child pid without a deadline and reaps it. */
void proc_reap(pid_t pid, int *wstatus, struct rusage *ru);

/*
 * proc_stop's ladder for a helper that waits in an event loop of its own
 * (reading its children's output meanwhile), for one child or for many
 * with one deadline: SIGTERM at the deadline, SIGKILL grace_ns after it,
 * and SIGKILL again every grace_ns until the caller has reaped them all.
 * The ladder says what is due; the caller sends it to its children that
 * are not reaped yet (proc_ladder_signal for one) and reaps them.
 */
#define PROC_RUNNING	0	/* step: no signal sent yet */
#define PROC_TERMED	1	/* the SIGTERM was sent */
#define PROC_KILLED	2	/* a SIGKILL was sent */

struct proc_ladder {
	uint64_t	 due_ns;	/* when the next signal is due */
	uint64_t	 grace_ns;	/* from one signal to the next */
	int		 step;		/* PROC_RUNNING, _TERMED, _KILLED */
};

void proc_ladder_init(struct proc_ladder *l, uint64_t deadline_ns,
    uint64_t grace_ns);
/* A stop was asked for: the SIGTERM is due now, unless it was sent. */
void proc_ladder_hurry(struct proc_ladder *l, uint64_t now);
/*
 * The signal due at now (SIGTERM, then SIGKILL), or 0 before due_ns;
 * moves the ladder on (the next step is due at now + grace_ns).
 */
int proc_ladder_due(struct proc_ladder *l, uint64_t now);
/* Sends what is due at now to the one child pid: the signal, or 0. */
int proc_ladder_signal(struct proc_ladder *l, pid_t pid, uint64_t now);

/*
 * Starts argv (searched in PATH) in a session of its own whose
 * controlling terminal is the terminal tty (a PTY's slave, by its name):
 * its stdin and stdout; stderr is err_fd as for proc_spawn. Hanging up
 * the terminal (closing the master) sends it SIGHUP. Returns 0 or the
 * errno of a failed start, as proc_spawn.
 */
int proc_spawn_tty(pid_t *pid, char *const argv[], const char *tty,
    int err_fd);

/* For pty_open's modes: stty raw -echo, or those of a new terminal. */
#define PTY_RAW		1	/* no line editing, no echo, no signals */
#define PTY_CANONICAL	0	/* the kernel's: canonical, echo */

/*
 * A new PTY of 80 columns and 24 rows, its slave in mode (PTY_RAW or
 * PTY_CANONICAL). Returns the master; the slave's name goes into name
 * and its descriptor into *slave (the caller keeps it open until the
 * child has the terminal, then closes it). Both close-on-exec, neither
 * our controlling terminal. Exits 2 when no PTY can be had.
 */
int pty_open(int mode, char *name, size_t namelen, int *slave);

/*
 * Starts argv on a new PTY (pty_open, in mode) as proc_spawn_tty does:
 * the terminal its controlling terminal, stdin and stdout; err_fd its
 * stderr. Returns 0, with the master (non-blocking) in *master; or the
 * errno of a failed start, the PTY closed again.
 */
int proc_spawn_pty(pid_t *pid, char *const argv[], int mode, int err_fd,
    int *master);

/*
 * The last bytes a child wrote to stderr, in storage of the caller's
 * (cap bytes): add what is read, take it back oldest first.
 */
struct proc_tail {
	char		*buf;
	size_t		 cap;
	uint64_t	 total;		/* bytes ever added */
};

void proc_tail_init(struct proc_tail *t, char *storage, size_t cap);
void proc_tail_add(struct proc_tail *t, const char *data, size_t n);
/* The kept bytes, oldest first and NUL-terminated, into dst: their count. */
size_t proc_tail_text(const struct proc_tail *t, char *dst, size_t dstlen);
/* The last non-empty line kept, control characters made spaces, or "". */
void proc_tail_last_line(const struct proc_tail *t, char *dst, size_t dstlen);

/*
 * Raises the soft RLIMIT_NOFILE to need, or to the hard limit when need
 * is 0 or above it; never lowers it. Returns the soft limit now in force
 * (children inherit it). Exits 2 when the limit cannot be read or set.
 */
uint64_t proc_raise_nofile(uint64_t need);

/*
 * Lines ssh -v prints on every run, failed or not (debug lines, its
 * version first, the transfer statistics at the exit): they never
 * explain a failure.
 */
int is_routine_line(const char *line);

#endif
