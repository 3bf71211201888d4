/*
 * delay: the program tests/lib/delay.sh injects, in C so that its own
 * cost stays near that of one exec. The sh version's ten forks (date,
 * cat, wc, mkdir, sleep) took 27-36 ms of each authentication request
 * with nothing to sleep, more than sshd's padding step (5-9.3 ms), so
 * the same 50 ms sleep landed on one step of the padding or the next
 * from run to run.
 *
 *   delay SIDE [FILE]         count the run, sleep SIDE's delay, print FILE
 *   delay SIDE -- CMD [ARG...] count, sleep, then exec CMD
 *
 * Its folder DELAY_DIR is built in (cc -DDELAY_DIR=...), so that nothing
 * from the caller's environment can point it elsewhere. In that folder:
 *   ms-SIDE      the ms to sleep (none: 0)
 *   every-SIDE   N: every N-th run sleeps, the first one included;
 *                once: the first run from each parent process
 *   runs-SIDE    one line per run, appended after the sleep:
 *                "START END", CLOCK_REALTIME in ns, from the program's
 *                start to the end of its sleep
 *   once-SIDE-PPID  made by the run that slept for that parent
 * Built by tests/lib/delay.sh: cc -std=c11 -DDELAY_DIR='"..."' -o delay delay.c
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef DELAY_DIR
#error "build with -DDELAY_DIR='\"/run/sshperf-delay.XXXXXX\"'"
#endif

static long long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The first line of DELAY_DIR/NAME-SIDE into buf; "" when absent. */
static void
read_setting(const char *name, const char *side, char *buf, size_t len)
{
	char path[4096];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s-%s", DELAY_DIR, name, side);
	if ((f = fopen(path, "r")) == NULL)
		return;
	if (fgets(buf, (int)len, f) == NULL)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Lines in DELAY_DIR/runs-SIDE so far: the runs before this one. */
static long
runs_so_far(const char *side)
{
	char path[4096];
	FILE *f;
	long n = 0;
	int c;

	snprintf(path, sizeof(path), "%s/runs-%s", DELAY_DIR, side);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int
main(int argc, char **argv)
{
	long long start = now_ns(), end;
	char buf[64], path[4096], line[64];
	const char *side;
	long ms, every;
	int fd, n;

	if (argc < 2) {
		fprintf(stderr, "usage: delay SIDE [FILE | -- CMD [ARG...]]\n");
		return 2;
	}
	side = argv[1];
	read_setting("ms", side, buf, sizeof(buf));
	ms = strtol(buf, NULL, 10);
	read_setting("every", side, buf, sizeof(buf));
	if (strcmp(buf, "once") == 0) {
		snprintf(path, sizeof(path), "%s/once-%s-%ld", DELAY_DIR, side,
		    (long)getppid());
		if (mkdir(path, 0700) != 0)
			ms = 0;
	} else {
		every = strtol(buf, NULL, 10);
		if (every > 1 && runs_so_far(side) % every != 0)
			ms = 0;
	}
	if (ms > 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
			;
	}
	end = now_ns();
	snprintf(path, sizeof(path), "%s/runs-%s", DELAY_DIR, side);
	if ((fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600)) >= 0) {
		n = snprintf(line, sizeof(line), "%lld %lld\n", start, end);
		if (write(fd, line, (size_t)n) != n)
			perror(path);
		close(fd);
	}
	if (argc > 2 && strcmp(argv[2], "--") == 0) {
		if (argc < 4) {
			fprintf(stderr, "delay: nothing to run after --\n");
			return 2;
		}
		execvp(argv[3], argv + 3);
		perror(argv[3]);
		return 127;
	}
	if (argc > 2) {
		FILE *f = fopen(argv[2], "r");
		size_t got;

		if (f == NULL) {
			perror(argv[2]);
			return 1;
		}
		while ((got = fread(path, 1, sizeof(path), f)) > 0)
			fwrite(path, 1, got, stdout);
		fclose(f);
	}
	return 0;
}
