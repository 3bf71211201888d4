/*
 * Unit tests of sshperf-hold with local commands instead of ssh: `cat`
 * sessions open and pass the alive check; one killed on purpose counts as
 * dead; a client that fails, one that never answers and one that ignores
 * EOF are each reported, -g stops opening after logins without an answer,
 * and no child is ever left. Prints TAP.
 */
#define main hold_main
#include "../../helpers/hold.c"
#undef main

#include "tap.h"

static char tmpdir[96];

/* A running holder: its pid, our end of its stdin and of its stdout. */
struct run {
	pid_t	 pid;
	int	 to;
	FILE	*from;
	char	 kv[64][128];	/* key=value lines read so far */
	int	 nkv;
};

/* Runs hold_main(argv) in a child with its stdin and stdout on pipes. */
static void
start_hold(struct run *r, char **argv)
{
	int in[2], out[2], argc = 0;

	memset(r, 0, sizeof(*r));
	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1)
		err(2, "pipe2");
	fflush(stdout);
	if ((r->pid = fork()) == -1)
		err(2, "fork");
	if (r->pid == 0) {
		if (dup2(in[0], 0) == -1 || dup2(out[1], 1) == -1)
			_exit(2);
		while (argv[argc] != NULL)
			argc++;
		optind = 1;
		exit(hold_main(argc, argv));
	}
	close(in[0]);
	close(out[1]);
	r->to = in[1];
	if ((r->from = fdopen(out[0], "re")) == NULL)
		err(2, "fdopen");
}

/* Reads key=value lines until "state=<state>"; 1 when it came. */
static int
read_until(struct run *r, const char *state)
{
	char line[256], want[64];

	snprintf(want, sizeof(want), "state=%s\n", state);
	while (fgets(line, sizeof(line), r->from) != NULL) {
		if (r->nkv < 64) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(r->kv[r->nkv++], sizeof(r->kv[0]), "%.127s", line);
			strcat(line, "\n");
		}
		if (strcmp(line, want) == 0)
			return 1;
	}
	return 0;
}

/* The last value of key, or "" when it was not printed. */
static const char *
get(const struct run *r, const char *key)
{
	size_t len = strlen(key);
	int i;

	for (i = r->nkv - 1; i >= 0; i--)
		if (strncmp(r->kv[i], key, len) == 0 && r->kv[i][len] == '=')
			return r->kv[i] + len + 1;
	return "";
}

static int
finish(struct run *r)
{
	int wstatus;

	close(r->to);
	fclose(r->from);
	if (waitpid(r->pid, &wstatus, 0) == -1)
		err(2, "waitpid");
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 255;
}

/* Field col (1-based) of the TSV row of session num, into dst. */
static int
tsv_field(const char *path, int num, int col, char *dst, size_t dstlen)
{
	char line[1024], *p, *f;
	FILE *fp;
	int c, found = 0;

	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		if (atoi(line) != num || line[0] == 's')
			continue;
		p = line;
		for (c = 1; (f = strsep(&p, "\t")) != NULL; c++)
			if (c == col) {
				snprintf(dst, dstlen, "%s", f);
				found = 1;
				break;
			}
	}
	fclose(fp);
	return found;
}

static int
file_has(const char *path, const char *text)
{
	char buf[8192];
	size_t n;
	FILE *fp;

	if ((fp = fopen(path, "re")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return strstr(buf, text) != NULL;
}

static int
pid_gone(pid_t pid)
{
	return kill(pid, 0) == -1 && errno == ESRCH;
}

static void
test_all_alive(void)
{
	char tsv[128], pid[32];
	char *argv[] = { "sshperf-hold", "-n", "5", "-P", "2", "-o", tsv,
	    "--", "cat", NULL };
	struct run r;
	int rc, i, gone = 1;

	snprintf(tsv, sizeof(tsv), "%s/alive.tsv", tmpdir);
	start_hold(&r, argv);
	ok(read_until(&r, "open") && strcmp(get(&r, "opened"), "5") == 0 &&
	    strcmp(get(&r, "open_failed"), "0") == 0,
	    "5 cat sessions, 2 at a time: all 5 open");
	ok(read_until(&r, "checked") && strcmp(get(&r, "alive"), "5") == 0 &&
	    strcmp(get(&r, "dead"), "0") == 0,
	    "all 5 pass the alive check");
	ok(read_until(&r, "closed") && strcmp(get(&r, "closed"), "5") == 0 &&
	    strcmp(get(&r, "children_left"), "0") == 0,
	    "closing stdin ends all 5; no child left");
	rc = finish(&r);
	ok(rc == 0, "exit 0 when all are alive (got %d)", rc);
	for (i = 1; i <= 5; i++)
		if (!tsv_field(tsv, i, 2, pid, sizeof(pid)) ||
		    !pid_gone((pid_t)atoi(pid)))
			gone = 0;
	ok(gone, "the TSV names 5 pids, all of them gone");
}

static void
test_killed_is_dead(void)
{
	char tsv[128], errs[128], pid[32], alive[8], error[256];
	char *argv[] = { "sshperf-hold", "-i", "-n", "5", "-P", "2", "-w",
	    "3000", "-o", tsv, "-e", errs, "--", "cat", NULL };
	struct run r;
	int rc, got;

	snprintf(tsv, sizeof(tsv), "%s/kill.tsv", tmpdir);
	snprintf(errs, sizeof(errs), "%s/kill-errors.txt", tmpdir);
	start_hold(&r, argv);
	got = read_until(&r, "open");
	ok(got && strcmp(get(&r, "opened"), "5") == 0,
	    "-i: prints state=open when all 5 are up, then waits");
	ok(tsv_field(tsv, 3, 2, pid, sizeof(pid)) && atoi(pid) > 1 &&
	    kill((pid_t)atoi(pid), SIGKILL) == 0,
	    "session 3 (pid %s) killed on purpose", pid);
	got = dprintf(r.to, "check\n") > 0 && read_until(&r, "checked");
	ok(got && strcmp(get(&r, "alive"), "4") == 0 &&
	    strcmp(get(&r, "dead"), "1") == 0,
	    "the check counts 4 alive, 1 dead (alive=%s dead=%s)",
	    get(&r, "alive"), get(&r, "dead"));
	ok(tsv_field(tsv, 3, 5, alive, sizeof(alive)) &&
	    strcmp(alive, "0") == 0 &&
	    tsv_field(tsv, 3, 7, error, sizeof(error)) &&
	    strstr(error, "signal 9") != NULL,
	    "its TSV row: alive 0, error names the signal (%s)", error);
	ok(tsv_field(tsv, 2, 5, alive, sizeof(alive)) &&
	    strcmp(alive, "1") == 0, "a neighbour's row says alive 1");
	ok(dprintf(r.to, "close\n") > 0 && read_until(&r, "closed") &&
	    strcmp(get(&r, "children_left"), "0") == 0,
	    "close: no child left");
	rc = finish(&r);
	ok(rc == 1, "exit 1 when one session died (got %d)", rc);
	ok(file_has(errs, "== session 3 ") && !file_has(errs, "session 2 "),
	    "the error file lists session 3 only");
}

static void
test_failed_login(void)
{
	char tsv[128], errs[128], opened[8], error[256];
	char *argv[] = { "sshperf-hold", "-n", "3", "-P", "3", "-o", tsv, "-e",
	    errs, "--", "sh", "-c",
	    "echo 'ssh: connect to host x: Connection refused' >&2; exit 255",
	    NULL };
	struct run r;
	int rc;

	snprintf(tsv, sizeof(tsv), "%s/fail.tsv", tmpdir);
	snprintf(errs, sizeof(errs), "%s/fail-errors.txt", tmpdir);
	start_hold(&r, argv);
	ok(read_until(&r, "open") && strcmp(get(&r, "opened"), "0") == 0 &&
	    strcmp(get(&r, "open_failed"), "3") == 0,
	    "a client that exits at once: 0 opened, 3 failed");
	ok(read_until(&r, "closed") && strcmp(get(&r, "children_left"),
	    "0") == 0, "nothing left");
	rc = finish(&r);
	ok(rc == 1, "exit 1 (got %d)", rc);
	ok(tsv_field(tsv, 2, 3, opened, sizeof(opened)) &&
	    strcmp(opened, "0") == 0 &&
	    tsv_field(tsv, 2, 7, error, sizeof(error)) &&
	    strstr(error, "status 255") != NULL &&
	    strstr(error, "Connection refused") != NULL,
	    "the error column has the exit and ssh's message (%s)", error);
	ok(file_has(errs, "Connection refused"),
	    "the error file keeps the client's stderr");
}

static void
test_no_answer(void)
{
	char tsv[128], error[256];
	char *argv[] = { "sshperf-hold", "-n", "2", "-t", "300", "-o", tsv,
	    "--", "sleep", "60", NULL };
	struct run r;
	int rc;

	snprintf(tsv, sizeof(tsv), "%s/silent.tsv", tmpdir);
	start_hold(&r, argv);
	ok(read_until(&r, "open") && strcmp(get(&r, "open_failed"), "2") == 0,
	    "a client that never echoes fails at the login deadline");
	ok(read_until(&r, "closed") && strcmp(get(&r, "children_left"),
	    "0") == 0, "it is ended; nothing left");
	rc = finish(&r);
	ok(rc == 1 && tsv_field(tsv, 1, 7, error, sizeof(error)) &&
	    strstr(error, "no answer within 300 ms") != NULL,
	    "exit 1, error says so (%s)", error);
}

/*
 * -g: after 2 logins in a row without an answer no more are started. One
 * at a time (-P 1), so that which logins start does not depend on whether
 * two parallel ones happen to time out in the same poll round.
 */
static void
test_give_up(void)
{
	char tsv[128], error[256];
	char *argv[] = { "sshperf-hold", "-n", "6", "-P", "1", "-t", "300",
	    "-g", "2", "-o", tsv, "--", "sleep", "60", NULL };
	char *timed_out[] = { "sshperf-hold", "-n", "5", "-P", "1", "-g", "3",
	    "--", "sh", "-c", "echo 'Connection to h port 1 timed out' >&2; "
	    "exit 255", NULL };
	char *refused[] = { "sshperf-hold", "-n", "3", "-P", "1", "-g", "1",
	    "--", "sh", "-c", "echo 'Connection refused' >&2; exit 255", NULL };
	struct run r;
	int rc, got;

	snprintf(tsv, sizeof(tsv), "%s/give-up.tsv", tmpdir);
	start_hold(&r, argv);
	got = read_until(&r, "open");
	ok(got && strcmp(get(&r, "open_failed"), "6") == 0 &&
	    strcmp(get(&r, "not_started"), "4") == 0,
	    "-g 2: two logins without an answer, the other 4 not started "
	    "(not_started=%s)", get(&r, "not_started"));
	ok(read_until(&r, "closed") && strcmp(get(&r, "children_left"),
	    "0") == 0, "-g 2: nothing left");
	rc = finish(&r);
	ok(rc == 1 && tsv_field(tsv, 3, 2, error, sizeof(error)) &&
	    strcmp(error, "0") == 0 && tsv_field(tsv, 3, 7, error,
	    sizeof(error)) && strstr(error, "not started") != NULL,
	    "-g 2: session 3 never ran, its row says why (%s)", error);

	start_hold(&r, timed_out);
	got = read_until(&r, "open");
	ok(got && strcmp(get(&r, "not_started"), "2") == 0,
	    "-g 3: ssh's own \"timed out\" counts as no answer "
	    "(not_started=%s)", get(&r, "not_started"));
	finish(&r);

	start_hold(&r, refused);
	ok(read_until(&r, "open") && strcmp(get(&r, "open_failed"), "3") == 0 &&
	    strcmp(get(&r, "not_started"), "0") == 0,
	    "-g 1: a login refused at once is an answer; all 3 are tried");
	finish(&r);
}

static void
test_ignores_eof(void)
{
	char *argv[] = { "sshperf-hold", "-n", "2", "-c", "200", "--", "sh",
	    "-c", "cat; exec sleep 60", NULL };
	struct run r;

	start_hold(&r, argv);
	ok(read_until(&r, "checked") && strcmp(get(&r, "alive"), "2") == 0,
	    "sessions that ignore EOF are alive while open");
	/*
	 * SIGTERM at the close deadline; a process the machine does not
	 * schedule within the grace gets SIGKILL as well, so how the two
	 * split depends on the load: only their sum is the code's.
	 */
	ok(read_until(&r, "closed") && atoi(get(&r, "terminated")) +
	    atoi(get(&r, "killed")) == 2 &&
	    strcmp(get(&r, "children_left"), "0") == 0,
	    "at the close deadline they get SIGTERM (SIGKILL after the "
	    "grace); nothing left");
	finish(&r);
}

static void
test_parallel_limit(void)
{
	char *argv[] = { "sshperf-hold", "-n", "4", "-P", "2", "--", "sh",
	    "-c", "sleep 0.2; exec cat", NULL };
	struct run r;
	double wall;

	start_hold(&r, argv);
	ok(read_until(&r, "open") && strcmp(get(&r, "opened"), "4") == 0,
	    "4 slow logins open");
	/* A lower bound only: 2 rounds of 2 cannot take less than 0.4 s. */
	wall = atof(get(&r, "open_wall_ms"));
	ok(wall >= 400.0, "with -P 2 they log in 2 at a time (%.0f ms >= "
	    "400 ms)", wall);
	finish(&r);
}

static void
test_stderr_ring(void)
{
	struct session s;
	char text[STDERR_KEEP + 1], line[128];
	size_t i;

	memset(&s, 0, sizeof(s));
	proc_tail_init(&s.err, s.errkeep, STDERR_KEEP);
	for (i = 0; i < STDERR_KEEP + 100; i++)
		proc_tail_add(&s.err, "a", 1);
	proc_tail_add(&s.err, "warning\nlast\tline\n\n", 19);
	ok(proc_tail_text(&s.err, text, sizeof(text)) == STDERR_KEEP &&
	    strcmp(text + STDERR_KEEP - 19, "warning\nlast\tline\n\n") == 0,
	    "stderr keeps the last %d bytes in order", STDERR_KEEP);
	proc_tail_last_line(&s.err, line, sizeof(line));
	ok(strcmp(line, "last line") == 0,
	    "the error is its last non-empty line, tabs removed (%s)", line);
}

/* Our scratch files (all directly in tmpdir), then the folder. */
static void
remove_tmpdir(void)
{
	struct dirent *de;
	DIR *d;

	if ((d = opendir(tmpdir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
	rmdir(tmpdir);
}

int
main(void)
{
	tap_scratch(tmpdir, sizeof(tmpdir), "sshperf-test-hold");
	if (mkdtemp(tmpdir) == NULL)
		err(2, "mkdtemp");
	test_stderr_ring();
	test_all_alive();
	test_killed_is_dead();
	test_failed_login();
	test_no_answer();
	test_give_up();
	test_ignores_eof();
	test_parallel_limit();
	printf("1..%d\n", test_num);
	if (test_failed == 0)
		remove_tmpdir();
	return test_failed != 0;
}
