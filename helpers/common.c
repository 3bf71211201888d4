/* Clock and number parsing shared by every helper. */
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

/* Clock id's time in nanoseconds; the two clocks below are the only ones. */
static uint64_t
clock_ns(clockid_t id)
{
	struct timespec ts;

	if (clock_gettime(id, &ts) != 0)
		err(2, "clock_gettime");
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

uint64_t
now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t
wall_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

double
ns_to_ms(uint64_t ns)
{
	return (double)ns / (double)NS_PER_MS;
}

int
parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out,
    const char **errstr)
{
	unsigned long long v;
	char *end;

	*errstr = "invalid";
	if (s == NULL || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return -1;
	if (errno == ERANGE || v > max) {
		*errstr = "too large";
		return -1;
	}
	if (v < min) {
		*errstr = "too small";
		return -1;
	}
	*out = v;
	*errstr = NULL;
	return 0;
}

int
parse_double(const char *s, double min, double max, double *out,
    const char **errstr)
{
	double v;
	char *end;

	*errstr = "invalid";
	if (s == NULL || *s == '\0' || s[strspn(s, "0123456789.")] != '\0')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || end == s || !isfinite(v))
		return -1;
	if (errno == ERANGE || v > max) {
		*errstr = "too large";
		return -1;
	}
	if (v < min) {
		*errstr = "too small";
		return -1;
	}
	*out = v;
	*errstr = NULL;
	return 0;
}

uint64_t
opt_u64(const char *name, const char *s, uint64_t min, uint64_t max)
{
	const char *errstr;
	uint64_t v;

	if (parse_u64(s, min, max, &v, &errstr) != 0)
		errx(2, "%s: \"%s\" is %s (allowed: %llu to %llu)", name, s,
		    errstr, (unsigned long long)min, (unsigned long long)max);
	return v;
}

double
opt_double(const char *name, const char *s, double min, double max)
{
	const char *errstr;
	double v;

	if (parse_double(s, min, max, &v, &errstr) != 0)
		errx(2, "%s: \"%s\" is %s (allowed: %g to %g)", name, s, errstr,
		    min, max);
	return v;
}

void
sleep_until_ns(uint64_t deadline_ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(deadline_ns / NS_PER_S);
	ts.tv_nsec = (long)(deadline_ns % NS_PER_S);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	    EINTR)
		;
}

int
exit_code_of(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 255;
}

static void
help_exit(void)
{
	fflush(stdout);
	_exit(0);
}

/* The Makefile passes -DKIT_VERSION="..."; a build without it says so. */
#ifndef KIT_VERSION
#define KIT_VERSION "unknown"
#endif

void
version_option(int argc, char *argv[])
{
	const char *name, *slash;

	if (argc < 2 || strcmp(argv[1], "--version") != 0)
		return;
	name = argv[0] != NULL ? argv[0] : "sshperf";
	slash = strrchr(name, '/');
	if (slash != NULL)
		name = slash + 1;
	printf("%s (sshd-perf-kit) %s\n", name, KIT_VERSION);
	if (fflush(stdout) != 0)
		err(2, "--version");
	exit(0);
}

void
help_option(int argc, char *argv[], void (*usage)(void))
{
	version_option(argc, argv);
	if (argc < 2 || strcmp(argv[1], "--help") != 0)
		return;
	if (dup2(STDOUT_FILENO, STDERR_FILENO) == -1 || atexit(help_exit) != 0)
		err(2, "--help");
	usage();
}

/* Index of name in the tab-separated header, or -1. */
int
tsv_column(char *header, const char *name)
{
	char *tok, *save;
	int i = 0;

	header[strcspn(header, "\r\n")] = '\0';
	for (tok = strtok_r(header, "\t", &save); tok != NULL;
	    tok = strtok_r(NULL, "\t", &save), i++)
		if (strcmp(tok, name) == 0)
			return i;
	return -1;
}

const char *
tsv_cell(const char *row, int index, char *buf, size_t len)
{
	const char *p = row;
	size_t n;
	int i;

	for (i = 0; i < index && p != NULL; i++)
		if ((p = strchr(p, '\t')) != NULL)
			p++;
	if (p == NULL)
		return "";
	n = strcspn(p, "\t\r\n");
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

void
read_machine_cpu(struct machine_cpu *m)
{
	unsigned long long v[10] = { 0 };
	char line[512];
	FILE *f;
	int i, n;

	memset(m, 0, sizeof(*m));
	if ((f = fopen("/proc/stat", "re")) == NULL)
		err(2, "/proc/stat");
	if (fgets(line, sizeof(line), f) == NULL)
		errx(2, "/proc/stat: empty");
	fclose(f);
	n = sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu "
	    "%llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
	    &v[8], &v[9]);
	if (n < 4)
		errx(2, "/proc/stat: no cpu line");
	/* user nice system idle iowait irq softirq steal (guest is in user) */
	for (i = 0; i < n && i < 8; i++)
		m->total += v[i];
	m->busy = m->total - v[3] - (n > 4 ? v[4] : 0);
	m->steal = n > 7 ? v[7] : 0;
}
