/*
 * Unit tests of sshperf-repeat: -g ends a series of runs that time out,
 * runs that fail at once do not, and -o has a row per run. Real children.
 * Prints TAP.
 */
#define main repeat_main
#include "../../helpers/repeat.c"
#undef main

#include "tap.h"
#include "emptypath.h"

/* Runs repeat_main(argv) in a child, its stdout into out; its exit code. */
static int
run_repeat(char **argv, char *out, size_t outlen)
{
	FILE *f;
	size_t n;
	pid_t pid;
	int argc = 0, wstatus;

	if ((f = tmpfile()) == NULL)
		err(2, "tmpfile");
	fflush(stdout);
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		if (dup2(fileno(f), STDOUT_FILENO) == -1)
			_exit(2);
		while (argv[argc] != NULL)
			argc++;
		optind = 1;
		exit(repeat_main(argc, argv));
	}
	if (waitpid(pid, &wstatus, 0) == -1)
		err(2, "waitpid");
	rewind(f);
	n = fread(out, 1, outlen - 1, f);
	out[n] = '\0';
	fclose(f);
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 255;
}

static void
test_give_up(void)
{
	char *silent[] = { "sshperf-repeat", "-n", "6", "-t", "0.1", "-g", "2",
	    "--", "sleep", "5", NULL };
	/* 60 s: a hang guard; "false" must end well before it. */
	char *quick[] = { "sshperf-repeat", "-n", "3", "-t", "60", "-g", "1",
	    "--", "false", NULL };
	char out[2048];
	int rc;

	rc = run_repeat(silent, out, sizeof(out));
	ok(rc == 1 && strstr(out, "runs=2\n") != NULL &&
	    strstr(out, "failed=2\n") != NULL &&
	    strstr(out, "not_run=4\n") != NULL,
	    "-g 2: stops after 2 timed-out runs, 4 not run (exit %d)", rc);
	rc = run_repeat(quick, out, sizeof(out));
	ok(rc == 1 && strstr(out, "runs=3\n") != NULL &&
	    strstr(out, "not_run=0\n") != NULL,
	    "-g 1: runs that fail at once do not stop it");
}

static void
test_rows(void)
{
	char path[4096];
	char *argv[] = { "sshperf-repeat", "-n", "3", "-t", "60", "-o", path,
	    "--", "true", NULL };
	char *missing[] = { "sshperf-repeat", "-n", "2", "--",
	    "sshperf-no-such-program", NULL };
	const char *want = "mode=repeat\nruns=3\nok=3\nfailed=0\nnot_run=0\n";
	char out[2048], text[512];
	FILE *f;
	size_t n;
	int fd, rc;

	tap_scratch(path, sizeof(path), "sshperf-test-repeat");
	if ((fd = mkstemp(path)) == -1)
		err(2, "mkstemp");
	close(fd);
	rc = run_repeat(argv, out, sizeof(out));
	ok(rc == 0 && strncmp(out, want, strlen(want)) == 0 &&
	    strstr(out, "\nn=3\n") != NULL,
	    "three runs of true: all ok, their statistics (exit %d)", rc);
	if ((f = fopen(path, "re")) == NULL)
		err(2, "%s", path);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	unlink(path);
	ok(strncmp(text, "seq\texit\ttotal_ms\n1\t0\t", 21) == 0 &&
	    strstr(text, "\n3\t0\t") != NULL, "-o: the header and a row a run");
	/* In an empty PATH of our own, whatever the caller's PATH holds. */
	with_empty_path(1);
	rc = run_repeat(missing, out, sizeof(out));
	with_empty_path(0);
	ok(rc == 127, "a command that is not found: exit 127 (%d)", rc);
}

int
main(void)
{
	test_give_up();
	test_rows();
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
