/*
 * sshperf-repeat: the command timer. Runs a command N times one after
 * another and times each run from its start to its exit (the session
 * test's commands over an open connection).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "proc.h"
#include "stats.h"

#define DEFAULT_COUNT		500
#define DEFAULT_TIMEOUT_S	10.0
#define RUN_TIMED_OUT		(-1)	/* run_command(): killed at the timeout */

struct config {
	uint64_t	 count;
	uint64_t	 timeout_ns;
	uint64_t	 give_up;	/* -g: stop after this many time-outs */
	const char	*out_path;
};

/*
 * Runs argv once with stdin and stdout on /dev/null (stderr is ours) and
 * waits for it, stopping it at timeout_ns. Sets *total_ns; returns its
 * exit code (128 + signal), RUN_TIMED_OUT, or 126/127 when it could not
 * be run.
 */
static int
run_command(char **argv, uint64_t timeout_ns, uint64_t *total_ns)
{
	uint64_t t0_ns;
	pid_t pid;
	int r, wstatus, timed_out = 0;

	t0_ns = now_ns();
	r = proc_spawn(&pid, argv, PROC_DEVNULL, PROC_DEVNULL, PROC_INHERIT,
	    NULL, NULL);
	if (r != 0) {
		errno = r;
		warn("cannot run %s", argv[0]);
		return r == ENOENT ? 127 : 126;
	}
	if (!proc_wait_until(pid, t0_ns + timeout_ns, &wstatus, NULL)) {
		timed_out = 1;
		(void)proc_stop(pid, PROC_KILL_GRACE_NS, &wstatus, NULL);
	}
	*total_ns = now_ns() - t0_ns;
	return timed_out ? RUN_TIMED_OUT : exit_code_of(wstatus);
}

/*
 * Runs argv count times, one after another; each run's time to -o (seq,
 * exit, total_ms), and runs, ok, failed, not_run and the percentiles of
 * the ok runs on stdout. With give_up, stops once that many runs in a row
 * were killed at the timeout. Returns 0 when every run exited 0.
 */
static int
repeat(const struct config *cf, char **argv)
{
	struct samples s;
	FILE *f = NULL;
	uint64_t i, total_ns, failed = 0, runs = 0, silent = 0;
	int code, fd;

	if (cf->out_path != NULL) {
		if ((fd = open(cf->out_path, O_WRONLY | O_CREAT | O_TRUNC |
		    O_CLOEXEC, 0644)) == -1 || (f = fdopen(fd, "w")) == NULL)
			err(2, "%s", cf->out_path);
		fprintf(f, "seq\texit\ttotal_ms\n");
	}
	samples_init(&s);
	for (i = 1; i <= cf->count; i++) {
		code = run_command(argv, cf->timeout_ns, &total_ns);
		if (code == 126 || code == 127)
			exit(code);
		runs++;
		silent = code == RUN_TIMED_OUT ? silent + 1 : 0;
		if (code != 0)
			failed++;
		else if (samples_add(&s, ns_to_ms(total_ns)) != 0)
			err(2, "samples_add");
		if (f != NULL && code == RUN_TIMED_OUT)
			fprintf(f, "%llu\ttimeout\t%.3f\n",
			    (unsigned long long)i, ns_to_ms(total_ns));
		else if (f != NULL)
			fprintf(f, "%llu\t%d\t%.3f\n", (unsigned long long)i,
			    code, ns_to_ms(total_ns));
		if (f != NULL)
			fflush(f);
		if (cf->give_up != 0 && silent >= cf->give_up &&
		    i < cf->count) {
			warnx("%llu runs in a row got no answer within %.1f s; "
			    "the other %llu were not run",
			    (unsigned long long)silent,
			    (double)cf->timeout_ns / NS_PER_S,
			    (unsigned long long)(cf->count - i));
			break;
		}
	}
	if (f != NULL && fclose(f) == EOF)
		err(2, "%s", cf->out_path);
	printf("mode=repeat\nruns=%llu\nok=%llu\nfailed=%llu\n"
	    "not_run=%llu\n", (unsigned long long)runs,
	    (unsigned long long)(runs - failed), (unsigned long long)failed,
	    (unsigned long long)(cf->count - runs));
	samples_print(stdout, "", &s);
	samples_free(&s);
	return failed == 0 ? 0 : 1;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-repeat [-n count] [-t timeout_s] [-g no_answers] "
	    "[-o runs.tsv]\n"
	    "                      -- command [arg ...]\n");
	exit(2);
}

/*
 * Times count runs of a command one after another (default 500, each
 * stopped at timeout_s, default 10). Prints key=value lines on stdout:
 * mode=repeat, runs, ok, failed, not_run and the statistics of the ok
 * runs' times (n, min, p50, p90, p95, p99, max, mean in ms); -o writes
 * every run (seq, exit or "timeout", total_ms); -g N stops once N runs in
 * a row were killed at the timeout (the rest are not_run).
 * Exit 0 when every run exited 0, 1 when one did not, 2 on a usage
 * error, 127 (126) when the command is not found (cannot be run).
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct config cf;
	double timeout_s = DEFAULT_TIMEOUT_S;
	int ch;

	memset(&cf, 0, sizeof(cf));
	cf.count = DEFAULT_COUNT;
	while ((ch = getopt(argc, argv, "+g:n:o:t:")) != -1) {
		switch (ch) {
		case 'g':
			cf.give_up = opt_u64("-g no_answers", optarg, 1, 1000000);
			break;
		case 'n':
			cf.count = opt_u64("-n count", optarg, 1, 10000000);
			break;
		case 'o':
			cf.out_path = optarg;
			break;
		case 't':
			timeout_s = opt_double("-t timeout_s", optarg,
			    0.001, 86400);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		errx(2, "no command given: put it after --");
	cf.timeout_ns = (uint64_t)(timeout_s * (double)NS_PER_S);
	signal(SIGPIPE, SIG_IGN);
	return repeat(&cf, argv);
}
