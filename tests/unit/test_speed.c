/*
 * Unit tests of sshperf-speed: what it prints for a few starts and a
 * short loop (the counts asked for, CPU times above 0, the per-start
 * figure the total over the count), a program that fails, and a count
 * out of range. TAP. Asserts no speed: that is the machine's.
 */
#define main speed_main
#include "../../helpers/speed.c"
#undef main

#include <sys/wait.h>

#include "tap.h"

/* Runs speed_main with argv in a child; its output and exit status. */
static char *
run(char *argv[], int argc, int *code)
{
	static char out[4096];
	int p[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	if (pipe(p) == -1)
		err(2, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		dup2(p[1], 1);
		close(p[0]);
		if (freopen("/dev/null", "w", stderr) == NULL)
			_exit(99);
		optind = 1;
		exit(speed_main(argc, argv));
	}
	close(p[1]);
	while ((n = read(p[0], out + len, sizeof(out) - 1 - (size_t)len)) > 0)
		len += n;
	out[len] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	*code = exit_code_of(status);
	return out;
}

/* The number after "key=" in out, or -1. */
static double
value(const char *out, const char *key)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "\n%s=", key);
	if (strncmp(out, want + 1, strlen(want + 1)) == 0)
		p = out + strlen(want + 1);
	else if ((p = strstr(out, want)) != NULL)
		p += strlen(want);
	else
		return -1;
	return strtod(p, NULL);
}

int
main(void)
{
	char *both[] = { "sshperf-speed", "-n", "5", "-l", "1", NULL };
	char *fails[] = { "sshperf-speed", "-n", "2", "-l", "0", "-p",
	    "/bin/false", NULL };
	char *none[] = { "sshperf-speed", "-n", "0", "-l", "0", NULL };
	char *bad[] = { "sshperf-speed", "-n", "100001", NULL };
	char *out;
	int code;

	out = run(both, 5, &code);
	ok(code == 0, "-n 5 -l 1 exits 0 (got %d)", code);
	ok(value(out, "spawn_n") == 5, "spawn_n=5");
	ok(value(out, "spawn_cpu_ms") > 0, "the starts took CPU time: %.2f ms",
	    value(out, "spawn_cpu_ms"));
	ok(value(out, "spawn_child_user_ms") + value(out,
	    "spawn_child_system_ms") + value(out, "spawn_parent_ms") <=
	    value(out, "spawn_cpu_ms") + 0.02,
	    "the children's and our own CPU add up to the total");
	/* Both printed rounded: the total to 0.01 ms, 2 us over 5 starts. */
	ok(value(out, "spawn_us_each") > 0 && value(out, "spawn_us_each") <
	    value(out, "spawn_cpu_ms") * 1000 / 5 + 1.1 &&
	    value(out, "spawn_us_each") > value(out, "spawn_cpu_ms") * 1000 /
	    5 - 1.1, "spawn_us_each is the total over the 5 starts");
	ok(value(out, "loop_millions") == 1 && value(out, "loop_cpu_ms") > 0,
	    "the loop: 1 million rounds, CPU time above 0");
	ok(strstr(out, "spawn_program=/bin/true\n") != NULL,
	    "the program is /bin/true unless -p says otherwise");

	out = run(fails, 7, &code);
	ok(code == 1 && strstr(out, "spawn_cpu_ms=") == NULL,
	    "a program that exits 1: exit 1, no figure (got %d)", code);

	out = run(none, 5, &code);
	ok(code == 0 && out[0] == '\0', "-n 0 -l 0: nothing to time, "
	    "nothing printed");

	out = run(bad, 3, &code);
	ok(code == 2, "-n 100001 is refused with exit 2 (got %d)", code);
	return test_failed != 0;
}
