/*
 * sshperf-speed: how fast this machine is right now, by the CPU time of a
 * fixed piece of work. Two parts, each timed in CPU time (what the
 * kernel charged, not the wall clock, so waiting for a CPU does not
 * count):
 *   spawn  -n starts of a small program (/bin/true, -p another), each
 *          waited for: process creation, exec, dynamic loading, exit,
 *          the work a login makes sshd do most of;
 *   loop   -l million rounds of a fixed integer loop in this process:
 *          the core's own speed, no kernel.
 * On a virtual machine the same work can take half as much CPU time again
 * from one minute to the next (a core or its caches shared with other
 * guests), with little steal showing; a figure of sshd's CPU time
 * measured next to this one can be read against it. Prints key=value
 * lines; exit 1 when a start fails.
 */
#include <sys/resource.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "proc.h"

/* A deadline for one start of the program: a hang guard, never reached. */
#define SPAWN_HANG_NS	(60 * NS_PER_S)

struct config {
	uint64_t	 spawns;	/* -n */
	uint64_t	 loop_millions;	/* -l */
	char		*program;	/* -p */
};

/* This process's own CPU time so far, in ns (exact, not tick-sampled). */
static uint64_t
self_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		err(2, "clock_gettime");
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static uint64_t
tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NS_PER_S + (uint64_t)tv->tv_usec * 1000;
}

/*
 * The spawn part: our own CPU for the starts plus each child's (its
 * rusage from the wait), user and system apart.
 */
static void
spawn_part(const struct config *cf)
{
	char *argv[] = { cf->program, NULL };
	struct rusage ru;
	uint64_t i, wall0, self0, user = 0, sys = 0, self;
	pid_t pid;
	int r, wstatus;

	wall0 = now_ns();
	self0 = self_cpu_ns();
	for (i = 0; i < cf->spawns; i++) {
		if ((r = proc_spawn(&pid, argv, PROC_DEVNULL, PROC_DEVNULL,
		    PROC_DEVNULL, NULL, NULL)) != 0) {
			errno = r;
			err(1, "start %s", cf->program);
		}
		if (!proc_wait_until(pid, now_ns() + SPAWN_HANG_NS, &wstatus,
		    &ru)) {
			proc_kill(pid, &wstatus, NULL);
			errx(1, "%s did not end within 60 s", cf->program);
		}
		if (exit_code_of(wstatus) != 0)
			errx(1, "%s exited %d", cf->program,
			    exit_code_of(wstatus));
		user += tv_ns(&ru.ru_utime);
		sys += tv_ns(&ru.ru_stime);
	}
	self = self_cpu_ns() - self0;
	printf("spawn_program=%s\nspawn_n=%ju\n", cf->program,
	    (uintmax_t)cf->spawns);
	printf("spawn_cpu_ms=%.2f\n", ns_to_ms(self + user + sys));
	printf("spawn_child_user_ms=%.2f\nspawn_child_system_ms=%.2f\n",
	    ns_to_ms(user), ns_to_ms(sys));
	printf("spawn_parent_ms=%.2f\n", ns_to_ms(self));
	printf("spawn_wall_ms=%.2f\n", ns_to_ms(now_ns() - wall0));
	printf("spawn_us_each=%.1f\n",
	    ns_to_ms(self + user + sys) * 1000.0 / (double)cf->spawns);
}

/*
 * The loop part: xorshift64 rounds, a fixed count; the result is printed
 * so that the compiler cannot drop the loop.
 */
static void
loop_part(const struct config *cf)
{
	uint64_t x = 88172645463325252ULL, i, n, wall0, cpu0, cpu;

	n = cf->loop_millions * 1000000ULL;
	wall0 = now_ns();
	cpu0 = self_cpu_ns();
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	cpu = self_cpu_ns() - cpu0;
	printf("loop_millions=%ju\nloop_cpu_ms=%.2f\nloop_wall_ms=%.2f\n",
	    (uintmax_t)cf->loop_millions, ns_to_ms(cpu),
	    ns_to_ms(now_ns() - wall0));
	printf("loop_check=%ju\n", (uintmax_t)(x & 0xffff));
}

static void
usage(void)
{
	fprintf(stderr, "usage: sshperf-speed [-n spawns] [-l millions] "
	    "[-p program]\n"
	    "Times in CPU time -n starts of program (/bin/true; 200, 0 for "
	    "none, at\nmost 100000) and -l million rounds of an integer loop "
	    "(100, 0 for none,\nat most 100000), and prints key=value "
	    "lines.\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	help_option(argc, argv, usage);
	struct config cf = { 200, 100, "/bin/true" };
	int ch;

	while ((ch = getopt(argc, argv, "n:l:p:")) != -1) {
		switch (ch) {
		case 'n':
			cf.spawns = opt_u64("-n", optarg, 0, 100000);
			break;
		case 'l':
			cf.loop_millions = opt_u64("-l", optarg, 0, 100000);
			break;
		case 'p':
			cf.program = optarg;
			break;
		default:
			usage();
		}
	}
	if (argc != optind)
		usage();
	if (cf.spawns > 0)
		spawn_part(&cf);
	if (cf.loop_millions > 0)
		loop_part(&cf);
	return 0;
}
