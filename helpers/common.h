/* Shared by every helper: one clock, number parsing, output. */
#ifndef SSHPERF_COMMON_H
#define SSHPERF_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define NS_PER_MS 1000000ULL
#define NS_PER_S  1000000000ULL

/* CLOCK_MONOTONIC in nanoseconds: the only clock used for intervals. */
uint64_t now_ns(void);

/*
 * CLOCK_REALTIME in nanoseconds since the epoch. Never for an interval:
 * only where two machines must agree on a moment (the load mode's common
 * start, sshperf-clock -u) or compare their clocks (sshperf-offset).
 */
uint64_t wall_ns(void);

/* Nanoseconds to milliseconds as a double, for printing. */
double ns_to_ms(uint64_t ns);

/*
 * Parse a whole decimal unsigned number within [min, max], like OpenBSD's
 * strtonum(3). Returns 0 and sets *out, or -1 and sets *errstr to
 * "invalid", "too small" or "too large".
 */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out,
    const char **errstr);

/* Same as parse_u64 for a non-negative decimal such as "0.5" or "115". */
int parse_double(const char *s, double min, double max, double *out,
    const char **errstr);

/* Like parse_u64 but exits with status 2 naming the option on error. */
uint64_t opt_u64(const char *name, const char *s, uint64_t min, uint64_t max);

/* Like parse_double but exits with status 2 naming the option on error. */
double opt_double(const char *name, const char *s, double min, double max);

/* A child's wait status as a shell would show it: the exit code, or
 * 128 + the signal that ended it. */
int exit_code_of(int wstatus);

/*
 * "--help" as the first argument: usage() on stdout and exit 0. Every
 * helper's usage() prints to stderr and exits 2, which is right for a
 * wrong call but not for help that was asked for.
 */
void help_option(int argc, char *argv[], void (*usage)(void));

/*
 * "--version" as the first argument: "NAME (sshd-perf-kit) VERSION" on
 * stdout and exit 0. KIT_VERSION comes from the Makefile, which reads
 * Version: of sshd-perf-kit.spec (the one place the version is kept).
 * help_option() calls it, so every helper has both options.
 */
void version_option(int argc, char *argv[]);

/* Sleep until the absolute CLOCK_MONOTONIC time deadline_ns. */
void sleep_until_ns(uint64_t deadline_ns);

/*
 * TSV by column name: the index of name in a tab-separated header line
 * (which it cuts into words), or -1; and cell index of a row, copied into
 * buf (cut to len - 1 bytes), "" when the row is shorter.
 */
int tsv_column(char *header, const char *name);
const char *tsv_cell(const char *row, int index, char *buf, size_t len);

/*
 * The machine's CPU in jiffies since boot, from /proc/stat's "cpu" line
 * (all CPUs): busy (not idle or iowait), steal (time the hypervisor gave
 * to others while this machine wanted to run) and total. Exits 2 when
 * /proc/stat cannot be read.
 */
struct machine_cpu {
	uint64_t	 busy;
	uint64_t	 steal;
	uint64_t	 total;
};
void read_machine_cpu(struct machine_cpu *m);

#endif
