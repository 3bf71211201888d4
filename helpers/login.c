/*
 * sshperf-login: the login phase timer. Runs a client such as
 * "ssh -v host true", stamps every line of its stderr on arrival and splits
 * the login into phases by the lines ssh -v prints at the end of each.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "proc.h"

#define DEFAULT_TIMEOUT_S	30.0
#define LINE_MAX_BYTES		4096		/* longer lines are cut */
#define EXIT_TIMEOUT		(-1)		/* exit_code of a timed-out run */

/* The phases of a login, each ending at a line of ssh -v (or the exit). */
enum phase {
	PHASE_CONNECT,
	PHASE_GREETING,
	PHASE_KEX,
	PHASE_AUTH,
	PHASE_SESSION,
	NPHASES
};

/* The text that ends each phase; the session ends when the client exits. */
static const char *const phase_marker[NPHASES] = {
	"Connection established",
	"Remote protocol version",
	"SSH2_MSG_NEWKEYS received",
	"Authenticated to",
	NULL
};

enum login_status {
	LOGIN_OK,
	LOGIN_FAIL,
	LOGIN_TIMEOUT
};

static const char *const status_name[] = { "ok", "fail", "timeout" };

/* What the client waits for in each phase (for a login that timed out). */
static const char *const phase_wait[NPHASES] = {
	"the TCP connection",
	"the server's greeting",
	"the key exchange",
	"the authentication",
	"the session to end"
};

/* One line of the client's stderr and when it arrived after the start. */
struct tline {
	uint64_t	 offset_ns;
	char		*text;
};

/* Everything one run produced: also what a transcript file holds. */
struct transcript {
	struct tline	*lines;
	size_t		 n;
	size_t		 cap;
	uint64_t	 total_ns;	/* start to exit (or to the kill) */
	int		 exit_code;	/* 0..255, 128+signal, or EXIT_TIMEOUT */
};

struct login_result {
	enum login_status status;
	int		 known[NPHASES];
	uint64_t	 phase_ns[NPHASES];
	uint64_t	 total_ns;
	char		 method[64];
	const char	*error;		/* a line of the transcript, note, or NULL */
	char		 note[96];
};

struct config {
	uint64_t	 samples;
	uint64_t	 timeout_ns;
	uint64_t	 give_up;	/* -g: stop after this many no-answers in a row */
	const char	*transcript_dir;
	int		 header;
};

static void
transcript_init(struct transcript *t)
{
	memset(t, 0, sizeof(*t));
}

static void
transcript_free(struct transcript *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->lines[i].text);
	free(t->lines);
	transcript_init(t);
}

static void
transcript_add(struct transcript *t, uint64_t offset_ns, const char *text,
    size_t len)
{
	struct tline *nl;
	size_t ncap;

	if (t->n == t->cap) {
		ncap = t->cap ? t->cap * 2 : 256;
		if ((nl = reallocarray(t->lines, ncap, sizeof(*nl))) == NULL)
			err(2, "reallocarray");
		t->lines = nl;
		t->cap = ncap;
	}
	if ((t->lines[t->n].text = strndup(text, len)) == NULL)
		err(2, "strndup");
	t->lines[t->n].offset_ns = offset_ns;
	t->n++;
}

/* Copies the METHOD of 'using "METHOD"' in line to dst, else "-". */
static void
auth_method(const char *line, char *dst, size_t size)
{
	const char *s, *e;
	size_t len;

	snprintf(dst, size, "-");
	if ((s = strstr(line, "using \"")) == NULL)
		return;
	s += strlen("using \"");
	if ((e = strchr(s, '"')) == NULL || e == s)
		return;
	len = (size_t)(e - s);
	if (len >= size)
		len = size - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/*
 * The phases of one login from its transcript; pure, no I/O.
 *
 * Each phase ends at the first line holding its marker that comes after the
 * end of the previous phase found, so the ends never go backwards. A phase
 * whose marker is missing is unknown ("-"), and the next known phase is
 * measured from the last end that was found (0 for the start): the known
 * phases therefore always add up to the total, and time spent in an
 * unknown phase is counted in the next known one. For an ok login the
 * session phase ends at the exit. A login that was not ok ended in the
 * phase after the last one found: the rest of its time is that phase's,
 * and the phases after it are unknown.
 *
 * The status is ok when the client exited 0 after "Authenticated to",
 * timeout when it was killed at the deadline, fail otherwise. The error of
 * a login that was not ok is its last line that is not routine (a debug
 * line, ssh's version or transfer statistics); an ok login has none.
 */
static void
login_phases(const struct transcript *t, struct login_result *r)
{
	const char *text;
	uint64_t last_end_ns = 0, end_ns;
	size_t i, next = 0;
	int ph, stuck;

	memset(r, 0, sizeof(*r));
	snprintf(r->method, sizeof(r->method), "-");
	r->total_ns = t->total_ns;
	for (ph = 0; ph < PHASE_SESSION; ph++) {
		for (i = next; i < t->n; i++)
			if (strstr(t->lines[i].text, phase_marker[ph]) != NULL)
				break;
		if (i == t->n)
			continue;
		end_ns = t->lines[i].offset_ns;
		if (end_ns < last_end_ns)
			end_ns = last_end_ns;
		if (end_ns > t->total_ns)
			end_ns = t->total_ns;
		r->known[ph] = 1;
		r->phase_ns[ph] = end_ns - last_end_ns;
		last_end_ns = end_ns;
		next = i + 1;
		if (ph == PHASE_AUTH)
			auth_method(t->lines[i].text, r->method,
			    sizeof(r->method));
	}
	if (t->exit_code == EXIT_TIMEOUT)
		r->status = LOGIN_TIMEOUT;
	else if (t->exit_code == 0 && r->known[PHASE_AUTH])
		r->status = LOGIN_OK;
	else
		r->status = LOGIN_FAIL;
	stuck = PHASE_SESSION;
	if (r->status != LOGIN_OK)
		for (stuck = PHASE_SESSION; stuck > 0 && !r->known[stuck - 1];
		    stuck--)
			;
	r->known[stuck] = 1;
	r->phase_ns[stuck] = t->total_ns - last_end_ns;
	if (r->status == LOGIN_OK)
		return;
	for (i = t->n; i > 0; i--) {
		text = t->lines[i - 1].text;
		if (!is_routine_line(text)) {
			r->error = text;
			break;
		}
	}
	if (r->error == NULL && r->status == LOGIN_TIMEOUT) {
		snprintf(r->note, sizeof(r->note),
		    "no answer before the deadline, waiting for %s",
		    phase_wait[stuck]);
		r->error = r->note;
	}
}

/*
 * True when a login got no answer: it was killed at the deadline, or ssh
 * gave up by itself on its ConnectTimeout ("... timed out").
 */
static int
no_answer(const struct login_result *r)
{
	return r->status == LOGIN_TIMEOUT || (r->status == LOGIN_FAIL &&
	    r->error != NULL && strstr(r->error, "timed out") != NULL);
}

static void
print_ms(FILE *out, int known, uint64_t ns)
{
	if (known)
		fprintf(out, "\t%.3f", ns_to_ms(ns));
	else
		fprintf(out, "\t-");
}

static void
print_header(FILE *out)
{
	fprintf(out, "sample\tstatus\texit\tconnect_ms\tgreeting_ms\tkex_ms"
	    "\tauth_ms\tsession_ms\ttotal_ms\tmethod\terror\n");
}

static void
print_row(FILE *out, uint64_t sample, const struct transcript *t,
    const struct login_result *r)
{
	const char *c;
	int ph;

	fprintf(out, "%llu\t%s\t", (unsigned long long)sample,
	    status_name[r->status]);
	if (t->exit_code == EXIT_TIMEOUT)
		fprintf(out, "-");
	else
		fprintf(out, "%d", t->exit_code);
	for (ph = 0; ph < NPHASES; ph++)
		print_ms(out, r->known[ph], r->phase_ns[ph]);
	print_ms(out, 1, r->total_ns);
	fprintf(out, "\t%s\t", r->method);
	if (r->error == NULL || *r->error == '\0')
		fputc('-', out);
	else
		for (c = r->error; *c != '\0'; c++)
			fputc(*c == '\t' ? ' ' : *c, out);
	fputc('\n', out);
	if (fflush(out) == EOF || ferror(out))
		err(2, "writing the result");
}

/*
 * Reads a transcript written by write_transcript(); exits 2 if malformed.
 * Only the last line is the EXIT line, so a client line that happens to
 * start with "EXIT " is read as an ordinary line.
 */
static void
read_transcript(const char *path, struct transcript *t)
{
	FILE *f;
	struct tline *last;
	char *line = NULL, *tab;
	const char *errstr;
	size_t size = 0, lineno = 0;
	ssize_t len;
	uint64_t offset_ns, code;

	if ((f = fopen(path, "re")) == NULL)
		err(2, "%s", path);
	while ((len = getline(&line, &size, f)) != -1) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if ((tab = strchr(line, '\t')) == NULL)
			errx(2, "%s:%zu: no tab after the offset", path,
			    lineno);
		*tab++ = '\0';
		if (parse_u64(line, 0, UINT64_MAX, &offset_ns, &errstr) != 0)
			errx(2, "%s:%zu: offset \"%s\" is %s", path, lineno,
			    line, errstr);
		transcript_add(t, offset_ns, tab, strlen(tab));
	}
	if (ferror(f))
		err(2, "%s", path);
	free(line);
	fclose(f);

	if (t->n == 0 || strncmp(t->lines[t->n - 1].text, "EXIT ", 5) != 0)
		errx(2, "%s: the last line is not \"<ns>\tEXIT <code>\"", path);
	last = &t->lines[--t->n];
	t->total_ns = last->offset_ns;
	if (strcmp(last->text + 5, "timeout") == 0)
		t->exit_code = EXIT_TIMEOUT;
	else if (parse_u64(last->text + 5, 0, 255, &code, &errstr) == 0)
		t->exit_code = (int)code;
	else
		errx(2, "%s:%zu: exit code \"%s\" is %s", path, lineno,
		    last->text + 5, errstr);
	free(last->text);
}

static void
write_transcript(const char *dir, uint64_t sample, const struct transcript *t)
{
	char path[PATH_MAX];
	FILE *f;
	size_t i;
	int fd;

	if (snprintf(path, sizeof(path), "%s/login-%llu.txt", dir,
	    (unsigned long long)sample) >= (int)sizeof(path))
		errx(2, "-T %s: path too long", dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1)
		err(2, "%s", path);
	if ((f = fdopen(fd, "w")) == NULL)
		err(2, "%s", path);
	for (i = 0; i < t->n; i++)
		fprintf(f, "%llu\t%s\n", (unsigned long long)t->lines[i].offset_ns,
		    t->lines[i].text);
	if (t->exit_code == EXIT_TIMEOUT)
		fprintf(f, "%llu\tEXIT timeout\n",
		    (unsigned long long)t->total_ns);
	else
		fprintf(f, "%llu\tEXIT %d\n", (unsigned long long)t->total_ns,
		    t->exit_code);
	if (fclose(f) == EOF)
		err(2, "%s", path);
}

/*
 * Splits what was read from the client's stderr into lines stamped
 * offset_ns; a partial line waits in buf/len for the next read. Lines
 * longer than LINE_MAX_BYTES are cut (the rest until the newline is lost).
 */
static void
take_lines(struct transcript *t, char *buf, size_t *len, int *overlong,
    uint64_t offset_ns, int at_eof)
{
	char *nl, *start = buf;
	size_t left = *len, linelen;

	while ((nl = memchr(start, '\n', left)) != NULL) {
		linelen = (size_t)(nl - start);
		if (linelen > 0 && start[linelen - 1] == '\r')
			linelen--;
		if (!*overlong)
			transcript_add(t, offset_ns, start, linelen);
		*overlong = 0;
		left -= (size_t)(nl - start) + 1;
		start = nl + 1;
	}
	if (left >= LINE_MAX_BYTES || (at_eof && left > 0)) {
		if (!*overlong)
			transcript_add(t, offset_ns, start, left);
		*overlong = !at_eof;
		left = 0;
	}
	memmove(buf, start, left);
	*len = left;
}

/*
 * Runs argv once with stdin and stdout on /dev/null and stderr into a pipe,
 * stamping each stderr line as it arrives. Returns 0, or the errno of a
 * failed exec.
 */
static int
run_once(const struct config *cf, char *argv[], struct transcript *t)
{
	struct pollfd pfd[2];
	struct proc_ladder stop;
	char buf[LINE_MAX_BYTES + 1];
	uint64_t t0_ns, now;
	size_t len = 0;
	ssize_t n;
	pid_t pid;
	int pipefd[2], pidfd, wstatus, exited = 0, overlong = 0, r;
	int timed_out = 0, nfds, stderr_open = 1;

	if (pipe2(pipefd, O_CLOEXEC | O_NONBLOCK) == -1)
		err(2, "pipe2");
	/* The child's end must block: ssh does not expect EAGAIN on stderr. */
	if (fcntl(pipefd[1], F_SETFL, 0) == -1)
		err(2, "fcntl");
	t0_ns = now_ns();
	r = proc_spawn(&pid, argv, PROC_DEVNULL, PROC_DEVNULL, pipefd[1], NULL,
	    NULL);
	close(pipefd[1]);
	if (r != 0) {
		close(pipefd[0]);
		return r;
	}
	proc_ladder_init(&stop, t0_ns + cf->timeout_ns, PROC_KILL_GRACE_NS);
	pidfd = proc_pidfd(pid);

	while (!exited) {
		struct timespec ts;
		uint64_t until_ns = stop.due_ns;

		now = now_ns();
		if (proc_ladder_signal(&stop, pid, now) != 0) {
			timed_out = 1;
			if (stop.step == PROC_TERMED)
				continue;
			/* Killed: stderr is not read any more. */
			proc_reap(pid, &wstatus, NULL);
			now = now_ns();
			break;
		}
		until_ns -= now;
		/* Without a pidfd and stderr closed, look for the exit often. */
		if (pidfd == -1 && !stderr_open && until_ns > NS_PER_MS)
			until_ns = NS_PER_MS;
		ts.tv_sec = (time_t)(until_ns / NS_PER_S);
		ts.tv_nsec = (long)(until_ns % NS_PER_S);
		nfds = 0;
		if (stderr_open) {
			pfd[nfds].fd = pipefd[0];
			pfd[nfds++].events = POLLIN;
		}
		if (pidfd != -1) {
			pfd[nfds].fd = pidfd;
			pfd[nfds++].events = POLLIN;
		}
		if (ppoll(pfd, (nfds_t)nfds, &ts, NULL) == -1) {
			if (errno == EINTR)
				continue;
			err(2, "poll");
		}
		/* Read everything there is before looking at the exit. */
		while (stderr_open) {
			n = read(pipefd[0], buf + len, LINE_MAX_BYTES - len);
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 && errno == EAGAIN)
				break;
			if (n == -1)
				err(2, "reading the client's stderr");
			len += (size_t)n;
			take_lines(t, buf, &len, &overlong, now_ns() - t0_ns,
			    n == 0);
			if (n == 0)
				stderr_open = 0;
		}
		if (pidfd != -1 || !stderr_open) {
			if ((r = waitpid(pid, &wstatus, WNOHANG)) == -1)
				err(2, "waitpid");
			if (r == pid) {
				now = now_ns();
				exited = 1;
			}
		}
	}
	/*
	 * The client is gone; output still arriving comes from something it
	 * left running, which is not part of the login.
	 */
	if (stderr_open && len > 0)
		take_lines(t, buf, &len, &overlong, now - t0_ns, 1);
	close(pipefd[0]);
	if (pidfd != -1)
		close(pidfd);
	t->total_ns = now - t0_ns;
	t->exit_code = timed_out ? EXIT_TIMEOUT : exit_code_of(wstatus);
	return 0;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-login [-H] [-n samples] [-t timeout_s] "
	    "[-g no_answers] [-T transcript_dir]\n"
	    "                     -- command [arg ...]\n"
	    "       sshperf-login [-H] -p transcript_file\n");
	exit(2);
}

/*
 * Times `samples` runs of a client command one after another (typically
 * "ssh -v ... host true") and prints one TSV row per run: status, exit
 * code, the five login phases in ms (connect, greeting, key exchange,
 * authentication, session), the total, the authentication method and the
 * error line of a failed login. -T keeps each run's stamped stderr as a
 * transcript; -p prints the row of such a transcript again. -g N stops
 * after N logins in a row got no answer (killed at the timeout, or ssh's
 * own "timed out"): the rest are not run, and a line on stderr says so.
 * Exit 0 when every login was ok, 1 when one was not, 2 on a usage error,
 * 127 (126) when the command is not found (cannot be executed).
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct config cf;
	struct transcript t;
	struct login_result r;
	struct stat st;
	const char *parse_path = NULL;
	double timeout_s = DEFAULT_TIMEOUT_S;
	uint64_t i, silent = 0;
	int ch, all_ok = 1, e;

	memset(&cf, 0, sizeof(cf));
	cf.samples = 1;
	while ((ch = getopt(argc, argv, "+Hg:n:p:t:T:")) != -1) {
		switch (ch) {
		case 'H':
			cf.header = 1;
			break;
		case 'g':
			cf.give_up = opt_u64("-g no_answers", optarg, 1, 1000000);
			break;
		case 'n':
			cf.samples = opt_u64("-n samples", optarg, 1, 1000000);
			break;
		case 'p':
			parse_path = optarg;
			break;
		case 't':
			timeout_s = opt_double("-t timeout_s", optarg,
			    0.001, 86400);
			break;
		case 'T':
			cf.transcript_dir = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	cf.timeout_ns = (uint64_t)(timeout_s * (double)NS_PER_S);

	transcript_init(&t);
	if (parse_path != NULL) {
		if (argc != 0)
			errx(2, "-p takes a transcript file and no command");
		read_transcript(parse_path, &t);
		login_phases(&t, &r);
		if (cf.header)
			print_header(stdout);
		print_row(stdout, 1, &t, &r);
		e = r.status == LOGIN_OK ? 0 : 1;
		transcript_free(&t);
		return e;
	}
	if (argc == 0)
		errx(2, "no command given: put it after --");
	if (cf.transcript_dir != NULL && (stat(cf.transcript_dir, &st) == -1 ||
	    !S_ISDIR(st.st_mode)))
		errx(2, "-T %s: not a directory", cf.transcript_dir);

	if (cf.header)
		print_header(stdout);
	for (i = 1; i <= cf.samples; i++) {
		if ((e = run_once(&cf, argv, &t)) != 0) {
			errno = e;
			warn("cannot run %s", argv[0]);
			return e == ENOENT ? 127 : 126;
		}
		login_phases(&t, &r);
		if (cf.transcript_dir != NULL)
			write_transcript(cf.transcript_dir, i, &t);
		print_row(stdout, i, &t, &r);
		if (r.status != LOGIN_OK)
			all_ok = 0;
		silent = no_answer(&r) ? silent + 1 : 0;
		transcript_free(&t);
		if (cf.give_up != 0 && silent >= cf.give_up && i < cf.samples) {
			warnx("%llu logins in a row got no answer within %.0f s; "
			    "the other %llu were not run",
			    (unsigned long long)silent, timeout_s,
			    (unsigned long long)(cf.samples - i));
			break;
		}
	}
	return all_ok ? 0 : 1;
}
