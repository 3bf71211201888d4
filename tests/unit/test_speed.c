/*
 * Unit tests of sshperf-speed: what it prints for a few starts and a
 * short loop (the counts asked for, CPU times above 0, the per-start
 * figure the total over the count), a program that fails, and a count
 * out of range. TAP. Asserts no speed: that is the machine's.
 */
#define main speed_main
#include "../../helpers/speed.c"
#undef main

#include "child.h"
#include "tap.h"

struct args {
	char **argv;
	int argc;
};

/* speed_main in the child, its stderr to /dev/null. */
static int
speed_child(void *arg)
{
	struct args *a = arg;

	if (freopen("/dev/null", "w", stderr) == NULL)
		return 99;
	optind = 1;
	return speed_main(a->argc, a->argv);
}

/* Runs speed_main with argv in a child; its output and exit status. */
static char *
run(char *argv[], int argc, int *code)
{
	struct args a = { argv, argc };

	return child_output(speed_child, &a, code);
}

#define value out_value

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
