/*
 * sshperf-clock: prints the CLOCK_MONOTONIC time in nanoseconds, the clock
 * every helper uses, so that a shell script can stamp an event (the moment
 * it sends SIGHUP) and hand it to another helper (sshperf-connect -T).
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: sshperf-clock\n");
	exit(2);
}

/* Prints mono_ns=N (CLOCK_MONOTONIC, ns). Exit 0, or 2 on a usage error. */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	(void)argv;
	if (argc != 1)
		usage();
	printf("mono_ns=%llu\n", (unsigned long long)now_ns());
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "stdout");
	return 0;
}
