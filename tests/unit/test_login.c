/*
 * Unit tests of sshperf-login: phase detection on every recorded transcript
 * in tests/data (or $TEST_DATA_DIR), on made-up edge cases, one real run
 * of a small shell command, and -g (stop after logins without an answer).
 * Prints TAP.
 */
#define main login_main
#include "../../helpers/login.c"
#undef main

#include <glob.h>
#include <stdarg.h>
#include <libgen.h>
#include "tap.h"

#define UNKNOWN	UINT64_MAX

struct expect {
	const char	*file;		/* base name in the data folder */
	enum login_status status;
	int		 exit_code;
	uint64_t	 phase_ns[NPHASES];	/* UNKNOWN: "-" */
	uint64_t	 total_ns;
	const char	*method;
	const char	*error;		/* NULL: none */
};

/* Worked out by hand from the files; login-rhel87-ok.txt is hand-written. */
static const struct expect expected[] = {
	{ "login-ok.txt", LOGIN_OK, 0,
	    { 7932252, 10830331, 113168445, 70656185, 197052553 },
	    399639766, "publickey", NULL },
	{ "login-denied.txt", LOGIN_FAIL, 255,
	    { 8341561, 9087759, 154518118, 59091436, UNKNOWN },
	    231038874, "-", "root@127.0.0.1: Permission denied (publickey)." },
	{ "login-refused.txt", LOGIN_FAIL, 255,
	    { 7348779, UNKNOWN, UNKNOWN, UNKNOWN, UNKNOWN },
	    7348779, "-",
	    "ssh: connect to host 127.0.0.1 port 22999: Connection refused" },
	{ "login-timeout.txt", LOGIN_TIMEOUT, EXIT_TIMEOUT,
	    { 7611816, 994544930, UNKNOWN, UNKNOWN, UNKNOWN },
	    1002156746, "-",
	    "no answer before the deadline, waiting for the server's greeting" },
	{ "login-rhel87-ok.txt", LOGIN_OK, 0,
	    { 4012546, 5011335, 10003564, 55081448, 65903111 },
	    140012004, "publickey", NULL },
};


static uint64_t
sum_known(const struct login_result *r)
{
	uint64_t sum = 0;
	int ph;

	for (ph = 0; ph < NPHASES; ph++)
		if (r->known[ph])
			sum += r->phase_ns[ph];
	return sum;
}

static int
same_phases(const struct login_result *r, const uint64_t *want)
{
	int ph;

	for (ph = 0; ph < NPHASES; ph++) {
		if (want[ph] == UNKNOWN ? r->known[ph] : !r->known[ph])
			return 0;
		if (r->known[ph] && r->phase_ns[ph] != want[ph]) {
			printf("# phase %d: got %llu want %llu\n", ph,
			    (unsigned long long)r->phase_ns[ph],
			    (unsigned long long)want[ph]);
			return 0;
		}
	}
	return 1;
}

static int
same_error(const char *got, const char *want)
{
	if (got == NULL || want == NULL)
		return got == want;
	return strcmp(got, want) == 0;
}

static void
check_file(const char *path)
{
	struct transcript t;
	struct login_result r;
	const struct expect *e = NULL;
	char copy[PATH_MAX];
	const char *base;
	size_t i;

	snprintf(copy, sizeof(copy), "%s", path);
	base = basename(copy);
	for (i = 0; i < sizeof(expected) / sizeof(expected[0]); i++)
		if (strcmp(expected[i].file, base) == 0)
			e = &expected[i];
	if (e == NULL) {
		ok(0, "%s: has expected values in test_login.c", base);
		return;
	}
	transcript_init(&t);
	read_transcript(path, &t);
	login_phases(&t, &r);
	ok(t.exit_code == e->exit_code && t.total_ns == e->total_ns,
	    "%s: exit %d and total %llu ns read", base, t.exit_code,
	    (unsigned long long)t.total_ns);
	ok(r.status == e->status, "%s: status %s", base,
	    status_name[r.status]);
	ok(same_phases(&r, e->phase_ns), "%s: phase times", base);
	ok(sum_known(&r) == r.total_ns, "%s: known phases add up to total",
	    base);
	ok(strcmp(r.method, e->method) == 0, "%s: method %s", base, r.method);
	ok(same_error(r.error, e->error), "%s: error \"%s\"", base,
	    r.error ? r.error : "(none)");
	transcript_free(&t);
}

/* Builds a transcript from "offset_ns text" pairs. */
static void
make(struct transcript *t, uint64_t total_ns, int exit_code, ...)
{
	va_list ap;
	const char *text;
	uint64_t off;

	transcript_init(t);
	va_start(ap, exit_code);
	while ((text = va_arg(ap, const char *)) != NULL) {
		off = va_arg(ap, uint64_t);
		transcript_add(t, off, text, strlen(text));
	}
	va_end(ap);
	t->total_ns = total_ns;
	t->exit_code = exit_code;
}

#define L(text, off)	(text), (uint64_t)(off)

static void
test_edge_cases(void)
{
	struct transcript t;
	struct login_result r;
	uint64_t want[NPHASES];

	/* The greeting marker is missing: kex counts from the connect. */
	make(&t, 100, 0, L("debug1: Connection established.", 10),
	    L("debug1: SSH2_MSG_NEWKEYS received", 40),
	    L("Authenticated to h ([1.2.3.4]:22).", 70), NULL);
	login_phases(&t, &r);
	want[0] = 10, want[1] = UNKNOWN, want[2] = 30, want[3] = 30;
	want[4] = 30;
	ok(same_phases(&r, want) && sum_known(&r) == 100,
	    "missing marker: next phase measured from the last known end");
	ok(r.status == LOGIN_OK && strcmp(r.method, "-") == 0,
	    "\"Authenticated to\" without a method: ok, method -");
	transcript_free(&t);

	/* A marker before the previous one is not taken as that phase. */
	make(&t, 50, 0, L("debug1: SSH2_MSG_NEWKEYS received", 5),
	    L("debug1: Connection established.", 10),
	    L("debug1: Remote protocol version 2.0", 20), NULL);
	login_phases(&t, &r);
	want[0] = 10, want[1] = 10, want[2] = 30, want[3] = UNKNOWN;
	want[4] = UNKNOWN;
	ok(same_phases(&r, want) && r.status == LOGIN_FAIL,
	    "marker out of order ignored; exit 0 without auth is fail, "
	    "the rest of its time in the phase it ended in");
	transcript_free(&t);

	/* Exit statistics and the version line are not the error. */
	make(&t, 50, 1, L("OpenSSH_9.2p1 Debian-2, OpenSSL 3.0", 1),
	    L("Authenticated to h ([1.2.3.4]:22) using \"password\".", 10),
	    L("bash: nothing: command not found", 20),
	    L("debug1: Exit status 1", 30),
	    L("Transferred: sent 1, received 2 bytes, in 0.0 seconds", 31),
	    L("Bytes per second: sent 1.0, received 2.0", 31), NULL);
	login_phases(&t, &r);
	ok(r.status == LOGIN_FAIL && strcmp(r.method, "password") == 0 &&
	    same_error(r.error, "bash: nothing: command not found"),
	    "authenticated but exit 1: fail, error is the command's line");
	transcript_free(&t);

	/* Nothing at all. */
	make(&t, 7, 255, NULL);
	login_phases(&t, &r);
	ok(r.status == LOGIN_FAIL && r.error == NULL && r.known[0] &&
	    r.phase_ns[0] == 7 && !r.known[PHASE_SESSION],
	    "empty transcript: all its time in the connect phase");
	transcript_free(&t);
}

static void
test_take_lines(void)
{
	struct transcript t;
	char buf[LINE_MAX_BYTES + 1];
	size_t len;
	int overlong = 0;

	transcript_init(&t);
	len = (size_t)snprintf(buf, sizeof(buf), "one\r\ntwo\nthr");
	take_lines(&t, buf, &len, &overlong, 5, 0);
	ok(t.n == 2 && strcmp(t.lines[0].text, "one") == 0 &&
	    strcmp(t.lines[1].text, "two") == 0 && len == 3 &&
	    memcmp(buf, "thr", 3) == 0, "complete lines taken, CR dropped");
	take_lines(&t, buf, &len, &overlong, 9, 1);
	ok(t.n == 3 && strcmp(t.lines[2].text, "thr") == 0 &&
	    t.lines[2].offset_ns == 9, "partial line taken at EOF");
	transcript_free(&t);

	memset(buf, 'x', LINE_MAX_BYTES);
	len = LINE_MAX_BYTES;
	take_lines(&t, buf, &len, &overlong, 1, 0);
	memcpy(buf, "rest\nnext\n", 10);
	len = 10;
	take_lines(&t, buf, &len, &overlong, 2, 0);
	ok(t.n == 2 && strlen(t.lines[0].text) == LINE_MAX_BYTES &&
	    strcmp(t.lines[1].text, "next") == 0,
	    "an overlong line is cut, its rest dropped");
	transcript_free(&t);
}

static void
test_run(void)
{
	struct config cf;
	struct transcript t;
	char *cmd[] = { "sh", "-c",
	    "echo first >&2; sleep 0.2; printf 'second\\tx\\n' >&2; exit 3",
	    NULL };
	char *slow[] = { "sleep", "5", NULL };
	char *missing[] = { "/nonexistent/sshperf-none", NULL };
	int rc;

	memset(&cf, 0, sizeof(cf));
	/* A hang guard, long enough for a starved machine. */
	cf.timeout_ns = 60 * NS_PER_S;
	transcript_init(&t);
	rc = run_once(&cf, cmd, &t);
	ok(rc == 0 && t.n == 2 && t.exit_code == 3 &&
	    strcmp(t.lines[1].text, "second\tx") == 0,
	    "run: lines and exit code of a command");
	ok(t.n == 2 && t.lines[1].offset_ns >= 200 * NS_PER_MS &&
	    t.lines[0].offset_ns < t.lines[1].offset_ns &&
	    t.total_ns >= t.lines[1].offset_ns,
	    "run: lines stamped on arrival (%.3f ms, %.3f ms, total %.3f ms)",
	    t.n == 2 ? ns_to_ms(t.lines[0].offset_ns) : 0,
	    t.n == 2 ? ns_to_ms(t.lines[1].offset_ns) : 0,
	    ns_to_ms(t.total_ns));
	transcript_free(&t);

	cf.timeout_ns = 200 * NS_PER_MS;
	rc = run_once(&cf, slow, &t);
	ok(rc == 0 && t.exit_code == EXIT_TIMEOUT &&
	    t.total_ns >= 200 * NS_PER_MS,
	    "run: timeout ends the child (total %.3f ms)",
	    ns_to_ms(t.total_ns));
	transcript_free(&t);

	ok(run_once(&cf, missing, &t) == ENOENT,
	    "run: a missing command reports ENOENT");
	transcript_free(&t);
}

/* Which logins count as "no answer" for -g, and -g itself. */
static void
test_give_up(void)
{
	struct login_result r;
	char *silent[] = { "sshperf-login", "-n", "5", "-t", "0.1", "-g", "2",
	    "--", "sleep", "5", NULL };
	char *refused[] = { "sshperf-login", "-n", "3", "-t", "5", "-g", "1",
	    "--", "sh", "-c", "echo 'Connection refused' >&2; exit 255", NULL };
	char out[4096];
	FILE *f;
	size_t n;
	pid_t pid;
	int i, argc, wstatus, rows;
	char **runs[] = { silent, refused };
	int want_rows[] = { 2, 3 };

	memset(&r, 0, sizeof(r));
	r.status = LOGIN_TIMEOUT;
	ok(no_answer(&r), "no answer: killed at the deadline");
	r.status = LOGIN_FAIL;
	r.error = "Connection to 127.0.0.1 port 11022 timed out";
	ok(no_answer(&r), "no answer: ssh's own ConnectTimeout");
	r.error = "sshperf@127.0.0.1: Permission denied (publickey).";
	ok(!no_answer(&r), "an answer: a refused login");

	for (i = 0; i < 2; i++) {
		if ((f = tmpfile()) == NULL)
			err(2, "tmpfile");
		fflush(stdout);
		if ((pid = fork()) == -1)
			err(2, "fork");
		if (pid == 0) {
			if (dup2(fileno(f), STDOUT_FILENO) == -1 ||
			    freopen("/dev/null", "w", stderr) == NULL)
				_exit(2);
			for (argc = 0; runs[i][argc] != NULL; argc++)
				;
			optind = 1;
			exit(login_main(argc, runs[i]));
		}
		if (waitpid(pid, &wstatus, 0) == -1)
			err(2, "waitpid");
		rewind(f);
		n = fread(out, 1, sizeof(out) - 1, f);
		out[n] = '\0';
		fclose(f);
		for (rows = 0, n = 0; out[n] != '\0'; n++)
			rows += out[n] == '\n';
		ok(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 1 &&
		    rows == want_rows[i], "-g %s: %d of %s logins run (got %d)",
		    i == 0 ? "2, logins that time out" : "1, refused logins",
		    want_rows[i], runs[i][2], rows);
	}
}

int
main(void)
{
	const char *dir;
	char pattern[PATH_MAX];
	glob_t g;
	size_t i;

	if ((dir = getenv("TEST_DATA_DIR")) == NULL)
		dir = "tests/data";
	snprintf(pattern, sizeof(pattern), "%s/login-*.txt", dir);
	if (glob(pattern, 0, NULL, &g) != 0) {
		ok(0, "transcripts found as %s", pattern);
	} else {
		ok(g.gl_pathc >= sizeof(expected) / sizeof(expected[0]),
		    "%zu transcripts found in %s", g.gl_pathc, dir);
		for (i = 0; i < g.gl_pathc; i++)
			check_file(g.gl_pathv[i]);
		globfree(&g);
	}
	test_edge_cases();
	test_take_lines();
	test_run();
	test_give_up();
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
