/*
 * sshperf-shell: the time to a usable shell. Runs a client command (ssh
 * -tt ...) on a terminal of its own, COUNT times one after another, and
 * times each run from its start until the remote shell answers a first
 * command typed into the terminal.
 *
 * The terminal starts in the modes a terminal emulator gives a new shell
 * (canonical, echo), so the client sends those modes to the server as a
 * person's ssh would. The command is typed as soon as the connection is
 * up: when the client has put the terminal in raw mode, which ssh does
 * once the login has succeeded and before the session channel opens (the
 * helper looks at the terminal's modes every millisecond until then).
 * Typed then, the line waits in the client until the session is open, in
 * the server's terminal until the shell reads it, and the shell runs it
 * after its start files. The line is `unset HISTFILE; echo
 * sshperf-an''swer` (no history is written for the account at the end): the
 * terminal's echo of the typed line shows the quotes, the shell's answer
 * is the word without them, so neither is taken for the other and the
 * shell's prompt is never looked at. Then `exit` is typed, and the client
 * gets a deadline to end.
 *
 * Per run, ms from the start of the client: up (the terminal went raw),
 * first (the first byte the session wrote: the message of the day, the
 * last-login line or the prompt), echo (the typed line's echo came back:
 * the server's terminal had it), ready (the answer came back: the shell
 * was usable). Timing a plain command run after run is sshperf-repeat's
 * job; the echo of single keystrokes, sshperf-echo's.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "common.h"
#include "proc.h"

#define DEFAULT_COUNT		10
#define DEFAULT_TIMEOUT_S	60.0
#define MODE_POLL_MS		1		/* looking for the raw mode */
#define EXIT_GRACE_NS		(5 * NS_PER_S)	/* after `exit` is typed */
#define OUTPUT_CAP		(1024 * 1024)	/* bytes kept per run */

/* What is typed, what its echo and the answer look like. */
#define TYPED_LINE		"unset HISTFILE; echo sshperf-an''swer\r"
#define ECHO_TEXT		"sshperf-an''swer"
#define ANSWER_TEXT		"sshperf-answer"
#define EXIT_LINE		"exit\r"

#define NOT_SEEN		UINT64_MAX

struct run {
	uint64_t	 start_ns;
	uint64_t	 up_ns;		/* NOT_SEEN until then */
	uint64_t	 first_ns;
	uint64_t	 echo_ns;
	uint64_t	 ready_ns;
	char		*out;		/* what the session wrote */
	size_t		 len;
	size_t		 typed_at;	/* out's length when typed */
	int		 client_exit;	/* -1: stopped by the helper */
	const char	*status;
	char		 error[256];
};

/* The client has put its terminal in raw mode: the login is done. */
static int
is_raw(int master)
{
	struct termios tio;

	if (tcgetattr(master, &tio) == -1)
		return 0;
	return (tio.c_lflag & (ICANON | ECHO)) == 0;
}

static int
write_all(int fd, const char *s)
{
	size_t n = strlen(s), done = 0;
	ssize_t w;

	while (done < n) {
		w = write(fd, s + done, n - done);
		if (w == -1 && errno == EAGAIN) {
			struct pollfd p = { .fd = fd, .events = POLLOUT };
			(void)poll(&p, 1, 100);
			continue;
		}
		if (w <= 0)
			return -1;
		done += (size_t)w;
	}
	return 0;
}

static int
seen_after(const struct run *r, size_t from, const char *text)
{
	if (r->len < from)
		return 0;
	return memmem(r->out + from, r->len - from, text, strlen(text)) !=
	    NULL;
}

/* Reads what the session wrote; -1 at its end (EIO: hung up). */
static int
read_output(int master, struct run *r, uint64_t t)
{
	char buf[4096];
	ssize_t n;
	size_t keep;

	for (;;) {
		n = read(master, buf, sizeof(buf));
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0)
			return -1;
		if (r->first_ns == NOT_SEEN && r->up_ns != NOT_SEEN)
			r->first_ns = t;
		keep = (size_t)n;
		if (r->len + keep > OUTPUT_CAP)
			keep = OUTPUT_CAP - r->len;
		memcpy(r->out + r->len, buf, keep);
		r->len += keep;
	}
}

/* Ends the client: `exit` was typed; a deadline, then a hang-up. */
static void
finish(int master, pid_t pid, struct run *r)
{
	uint64_t end = now_ns() + EXIT_GRACE_NS;
	int wstatus, reaped = 0;

	while (now_ns() < end) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		if (proc_wait_until(pid, now_ns(), &wstatus, NULL)) {
			reaped = 1;
			break;
		}
		(void)poll(&p, 1, 10);
		if (read_output(master, r, now_ns()) == -1) {
			if (proc_wait_until(pid, now_ns() + PROC_KILL_GRACE_NS,
			    &wstatus, NULL))
				reaped = 1;
			break;
		}
	}
	close(master);
	if (!reaped) {
		if (!proc_wait_until(pid, now_ns() + PROC_KILL_GRACE_NS,
		    &wstatus, NULL)) {
			(void)proc_stop(pid, PROC_KILL_GRACE_NS, &wstatus, NULL);
			r->client_exit = -1;
			return;
		}
	}
	r->client_exit = exit_code_of(wstatus);
}

/* One timed run of argv. */
static void
run_once(char **argv, uint64_t timeout_ns, struct run *r)
{
	uint64_t deadline, t;
	pid_t pid;
	int master, wait_ms, wstatus, e;

	r->up_ns = r->first_ns = r->echo_ns = r->ready_ns = NOT_SEEN;
	r->len = r->typed_at = 0;
	r->client_exit = -1;
	r->status = "ok";
	r->error[0] = '\0';
	r->start_ns = now_ns();
	deadline = r->start_ns + timeout_ns;
	/*
	 * A new terminal in the modes a new shell's terminal has (canonical,
	 * echo), 80x24; ssh's messages go to our stderr.
	 */
	if ((e = proc_spawn_pty(&pid, argv, PTY_CANONICAL, PROC_INHERIT,
	    &master)) != 0) {
		r->status = "failed";
		snprintf(r->error, sizeof(r->error), "%s: %s", argv[0],
		    strerror(e));
		r->client_exit = e == ENOENT ? 127 : 126;
		return;
	}
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		t = now_ns();
		if (t >= deadline) {
			r->status = "timeout";
			snprintf(r->error, sizeof(r->error),
			    "no answer within %g s (%s)",
			    (double)timeout_ns / NS_PER_S,
			    r->up_ns == NOT_SEEN ? "the login did not finish" :
			    r->echo_ns == NOT_SEEN ? "the typed line never came back" :
			    "the shell never answered");
			close(master);
			(void)proc_stop(pid, PROC_KILL_GRACE_NS, &wstatus, NULL);
			return;
		}
		wait_ms = r->up_ns == NOT_SEEN ? MODE_POLL_MS :
		    (int)((deadline - t) / NS_PER_MS + 1);
		(void)poll(&p, 1, wait_ms);
		t = now_ns();
		if (read_output(master, r, t) == -1) {
			close(master);
			if (!proc_wait_until(pid, now_ns() + PROC_KILL_GRACE_NS,
			    &wstatus, NULL))
				(void)proc_stop(pid, PROC_KILL_GRACE_NS,
				    &wstatus, NULL);
			r->client_exit = exit_code_of(wstatus);
			r->status = "failed";
			snprintf(r->error, sizeof(r->error),
			    "the client ended (exit %d) before the shell "
			    "answered", r->client_exit);
			return;
		}
		if (r->up_ns == NOT_SEEN && is_raw(master)) {
			r->up_ns = t;
			r->typed_at = r->len;
			if (write_all(master, TYPED_LINE) == -1)
				err(2, "typing into the PTY");
			continue;
		}
		if (r->up_ns == NOT_SEEN)
			continue;
		if (r->echo_ns == NOT_SEEN &&
		    seen_after(r, r->typed_at, ECHO_TEXT))
			r->echo_ns = t;
		if (seen_after(r, r->typed_at, ANSWER_TEXT)) {
			r->ready_ns = t;
			break;
		}
	}
	if (write_all(master, EXIT_LINE) == -1) {
		close(master);
		(void)proc_stop(pid, PROC_KILL_GRACE_NS, &wstatus, NULL);
		return;
	}
	finish(master, pid, r);
}

static void
print_ms(FILE *f, uint64_t start, uint64_t t)
{
	if (t == NOT_SEEN)
		fputs("\t-", f);
	else
		fprintf(f, "\t%.3f", ns_to_ms(t - start));
}

static void
write_transcript(const char *dir, uint64_t seq, const struct run *r)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/shell-%llu.txt", dir,
	    (unsigned long long)seq);
	if ((f = fopen(path, "we")) == NULL)
		err(2, "%s", path);
	fwrite(r->out, 1, r->len, f);
	if (fclose(f) != 0)
		err(2, "%s", path);
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-shell [-n count] [-t timeout_s] [-g runs] [-T dir] "
	    "-- ssh -tt -F config host [command]\n");
	exit(2);
}

/*
 * Prints one row per run on stdout: sample, status (ok, failed,
 * timeout), up_ms, first_ms, echo_ms, ready_ms ("-" when not seen),
 * client_exit (-1: stopped by the helper), error. -T writes what each
 * session wrote to DIR/shell-N.txt. -g N: no more runs after N in a row
 * without an answer (the rest get no row). Exit 0 when every run got its
 * answer, 1 when one did not, 2 on a usage or setup error.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	version_option(argc, argv);
	struct run r;
	const char *dir = NULL;
	uint64_t count = DEFAULT_COUNT, give_up = 0, missed = 0, i;
	double timeout_s = DEFAULT_TIMEOUT_S;
	int ch, failed = 0;

	while ((ch = getopt(argc, argv, "+g:n:t:T:")) != -1) {
		switch (ch) {
		case 'g':
			give_up = opt_u64("-g runs", optarg, 0, 100000);
			break;
		case 'n':
			count = opt_u64("-n count", optarg, 1, 100000);
			break;
		case 't':
			timeout_s = opt_double("-t timeout_s", optarg,
			    0.001, 86400);
			break;
		case 'T':
			dir = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 1)
		usage();
	memset(&r, 0, sizeof(r));
	if ((r.out = malloc(OUTPUT_CAP)) == NULL)
		err(2, "malloc");
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("sample\tstatus\tup_ms\tfirst_ms\techo_ms\tready_ms\t"
	    "client_exit\terror\n");
	for (i = 1; i <= count; i++) {
		run_once(argv, (uint64_t)(timeout_s * NS_PER_S), &r);
		printf("%llu\t%s", (unsigned long long)i, r.status);
		print_ms(stdout, r.start_ns, r.up_ns);
		print_ms(stdout, r.start_ns, r.first_ns);
		print_ms(stdout, r.start_ns, r.echo_ns);
		print_ms(stdout, r.start_ns, r.ready_ns);
		printf("\t%d\t%s\n", r.client_exit,
		    r.error[0] != '\0' ? r.error : "-");
		if (dir != NULL)
			write_transcript(dir, i, &r);
		if (strcmp(r.status, "ok") != 0) {
			failed = 1;
			if (give_up > 0 && ++missed >= give_up)
				break;
		} else
			missed = 0;
	}
	free(r.out);
	return failed;
}
