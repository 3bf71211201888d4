/* Samples and percentiles (nearest rank), as in wrk's stats.c. */
#ifndef SSHPERF_STATS_H
#define SSHPERF_STATS_H

#include <stddef.h>
#include <stdio.h>

struct samples {
	double	*v;
	size_t	 n;
	size_t	 cap;
	int	 sorted;
};

void	samples_init(struct samples *s);
void	samples_free(struct samples *s);
int	samples_add(struct samples *s, double value);
/*
 * The kit's one definition of a percentile (docs/data.md, "The statistics
 * engine"): the nearest rank. samples_rank() is the 1-based rank of the
 * p-th percentile of n > 0 sorted numbers, ceil(p / 100 x n), at least 1
 * and at most n; the median (p = 50) of an even count is the lower middle.
 */
size_t	samples_rank(size_t n, double p);
/* Nearest-rank percentile, p in (0, 100]; NAN when there are no samples. */
double	samples_percentile(struct samples *s, double p);
double	samples_min(struct samples *s);
double	samples_max(struct samples *s);
double	samples_mean(const struct samples *s);
/* Prints "<prefix>n=.. <prefix>min=.. p50 p90 p95 p99 max mean", one per line. */
void	samples_print(FILE *out, const char *prefix, struct samples *s);

#endif
