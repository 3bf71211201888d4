/*
 * Unit tests of common.c: number parsing (strtonum-like), the option
 * parser's exit, the clock and sleep_until_ns. Prints TAP.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "tap.h"


static int
same(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* want_err NULL: must parse to want; else must fail with that text. */
static void
u64_case(const char *s, uint64_t min, uint64_t max, const char *want_err,
    uint64_t want)
{
	const char *errstr = "unset";
	uint64_t v = 4242;
	int r;

	r = parse_u64(s, min, max, &v, &errstr);
	if (want_err == NULL)
		ok(r == 0 && v == want && errstr == NULL,
		    "parse_u64 \"%s\" in [%llu, %llu] = %llu", s,
		    (unsigned long long)min, (unsigned long long)max,
		    (unsigned long long)want);
	else
		ok(r == -1 && same(errstr, want_err) && v == 4242,
		    "parse_u64 \"%s\" in [%llu, %llu]: %s (got \"%s\")", s,
		    (unsigned long long)min, (unsigned long long)max,
		    want_err, errstr ? errstr : "(null)");
}

static void
double_case(const char *s, double min, double max, const char *want_err,
    double want)
{
	const char *errstr = "unset";
	double v = 42.42;
	int r;

	r = parse_double(s, min, max, &v, &errstr);
	if (want_err == NULL)
		ok(r == 0 && v == want && errstr == NULL,
		    "parse_double \"%s\" in [%g, %g] = %g", s, min, max, want);
	else
		ok(r == -1 && same(errstr, want_err) && v == 42.42,
		    "parse_double \"%s\" in [%g, %g]: %s (got \"%s\")", s, min,
		    max, want_err, errstr ? errstr : "(null)");
}

static void
test_parse_u64(void)
{
	u64_case("0", 0, 10, NULL, 0);
	u64_case("123", 0, 1000, NULL, 123);
	u64_case("007", 0, 10, NULL, 7);
	u64_case("1", 1, 1, NULL, 1);
	u64_case("18446744073709551615", 0, UINT64_MAX, NULL, UINT64_MAX);
	u64_case("", 0, 10, "invalid", 0);
	u64_case("12a", 0, 100, "invalid", 0);
	u64_case("-1", 0, 10, "invalid", 0);
	u64_case(" 1", 0, 10, "invalid", 0);
	u64_case("1 ", 0, 10, "invalid", 0);
	u64_case("+1", 0, 10, "invalid", 0);
	u64_case("0x10", 0, 100, "invalid", 0);
	u64_case("1.5", 0, 10, "invalid", 0);
	u64_case("99999999999999999999999", 0, UINT64_MAX, "too large", 0);
	u64_case("18446744073709551616", 0, UINT64_MAX, "too large", 0);
	u64_case("11", 0, 10, "too large", 0);
	u64_case("65536", 1, 65535, "too large", 0);
	u64_case("0", 1, 65535, "too small", 0);
	u64_case("9", 10, 20, "too small", 0);

	{
		const char *errstr = "unset";
		uint64_t v = 1;

		ok(parse_u64(NULL, 0, 10, &v, &errstr) == -1 &&
		    same(errstr, "invalid"), "parse_u64 NULL: invalid");
	}
}

static void
test_parse_double(void)
{
	double_case("0.5", 0, 10, NULL, 0.5);
	double_case("115", 0, 1000, NULL, 115);
	double_case(".25", 0, 1, NULL, 0.25);
	double_case("0", 0, 1, NULL, 0);
	double_case("2", 1, 2, NULL, 2);
	double_case("", 0, 10, "invalid", 0);
	double_case("12a", 0, 100, "invalid", 0);
	double_case("-1", 0, 10, "invalid", 0);
	double_case("-0.5", -1, 10, "invalid", 0);
	double_case(" 1", 0, 10, "invalid", 0);
	double_case("1 ", 0, 10, "invalid", 0);
	double_case(".", 0, 10, "invalid", 0);
	double_case("nan", 0, 10, "invalid", 0);
	double_case("inf", 0, 1e308, "invalid", 0);
	double_case("99999999999999999999999", 0, 1e9, "too large", 0);
	double_case("10.001", 0, 10, "too large", 0);
	double_case("0.0009", 0.001, 10, "too small", 0);
}

static void
test_opt_u64(void)
{
	pid_t pid;
	int status;

	fflush(stdout);
	if ((pid = fork()) == -1) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		/* Its errx message goes to stderr, not into the TAP stream. */
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(3);
		opt_u64("-n samples", "0", 1, 10);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 2,
	    "opt_u64 out of range exits 2");
	ok(opt_u64("-n samples", "7", 1, 10) == 7, "opt_u64 \"7\" = 7");
}

/* opt_double: the value, or exit 2 with the bounds as written. */
static void
test_opt_double(void)
{
	char msg[256];
	pid_t pid;
	int status, p[2];
	ssize_t n;
	size_t len = 0;

	ok(opt_double("-t timeout_s", "2.5", 0.001, 86400) == 2.5,
	    "opt_double \"2.5\" = 2.5");
	if (pipe(p) == -1) {
		perror("pipe");
		exit(2);
	}
	fflush(stdout);
	if ((pid = fork()) == -1) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		if (dup2(p[1], STDERR_FILENO) == -1)
			_exit(3);
		opt_double("-t timeout_s", "0", 0.001, 86400);
		_exit(0);
	}
	close(p[1]);
	/* errx writes in pieces: read to the end. */
	while (len < sizeof(msg) - 1 &&
	    (n = read(p[0], msg + len, sizeof(msg) - 1 - len)) > 0)
		len += (size_t)n;
	msg[len] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 2 &&
	    strstr(msg, "-t timeout_s: \"0\" is too small (allowed: 0.001 to "
	    "86400)\n") != NULL, "opt_double out of range exits 2, naming "
	    "the option and its bounds");
}

/* version_option in a child with stdout on a pipe: its output and status. */
static int
run_version(char *arg, char *out, size_t outsz)
{
	char *argv[] = { "/some/dir/sshperf-demo", arg, NULL };
	int fd[2], status;
	ssize_t n;
	size_t len = 0;
	pid_t pid;

	fflush(stdout);
	if (pipe(fd) == -1 || (pid = fork()) == -1) {
		perror("pipe/fork");
		exit(2);
	}
	if (pid == 0) {
		close(fd[0]);
		if (dup2(fd[1], STDOUT_FILENO) == -1)
			_exit(3);
		version_option(2, argv);
		_exit(42);	/* returned: not --version */
	}
	close(fd[1]);
	while (len + 1 < outsz &&
	    (n = read(fd[0], out + len, outsz - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(fd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void
test_version_option(void)
{
	char out[256];
	int rc;

	rc = run_version("--version", out, sizeof(out));
	ok(rc == 0 && same(out, "sshperf-demo (sshd-perf-kit) " KIT_VERSION "\n"),
	    "--version prints the helper's name and the kit's version, exit 0 "
	    "(got %d: %s)", rc, out);
	ok(strcmp(KIT_VERSION, "unknown") != 0 && KIT_VERSION[0] >= '0' &&
	    KIT_VERSION[0] <= '9', "KIT_VERSION comes from the build (%s)",
	    KIT_VERSION);
	rc = run_version("--help", out, sizeof(out));
	ok(rc == 42 && out[0] == '\0', "another first argument: version_option "
	    "returns and prints nothing");
}

static void
test_clock(void)
{
	uint64_t a, b, target;

	ok(ns_to_ms(1500000) == 1.5 && ns_to_ms(0) == 0,
	    "ns_to_ms(1500000) = 1.5");
	a = now_ns();
	b = now_ns();
	ok(a > 0 && b >= a, "now_ns does not go backwards");
	target = now_ns() + 20 * NS_PER_MS;
	sleep_until_ns(target);
	b = now_ns();
	/* How late it wakes depends on the machine: only "not early". */
	ok(b >= target,
	    "sleep_until_ns wakes at the deadline, not before (%.3f ms late)",
	    ns_to_ms(b - target));
	a = now_ns();
	sleep_until_ns(a - NS_PER_MS);
	b = now_ns();
	/* The fault to catch is an unsigned wrap: a sleep of centuries. */
	ok(b - a < NS_PER_S, "sleep_until_ns in the past returns at once "
	    "(%.3f ms)", ns_to_ms(b - a));
}

/*
 * The machine's CPU counters: busy and steal are parts of the total, and
 * a busy loop of this process moves busy and total forward.
 */
static void
test_machine_cpu(void)
{
	struct machine_cpu a, b;
	uint64_t end;
	volatile uint64_t spin = 0;

	read_machine_cpu(&a);
	ok(a.total > 0 && a.busy <= a.total && a.steal <= a.busy,
	    "read_machine_cpu: busy %llu and steal %llu within total %llu",
	    (unsigned long long)a.busy, (unsigned long long)a.steal,
	    (unsigned long long)a.total);
	end = now_ns() + 50 * NS_PER_MS;
	while (now_ns() < end)
		spin++;
	read_machine_cpu(&b);
	ok(b.total > a.total && b.busy > a.busy && b.steal >= a.steal,
	    "read_machine_cpu: 50 ms of work move busy (%llu) and total (%llu) "
	    "forward", (unsigned long long)(b.busy - a.busy),
	    (unsigned long long)(b.total - a.total));
}

int
main(void)
{
	test_parse_u64();
	test_parse_double();
	test_opt_u64();
	test_opt_double();
	test_version_option();
	test_clock();
	test_machine_cpu();
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
