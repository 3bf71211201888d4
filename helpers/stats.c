/* Samples and nearest-rank percentiles; nothing else lives here. */
#include <math.h>
#include <stdlib.h>

#include "stats.h"

void
samples_init(struct samples *s)
{
	s->v = NULL;
	s->n = s->cap = 0;
	s->sorted = 1;
}

void
samples_free(struct samples *s)
{
	free(s->v);
	samples_init(s);
}

int
samples_add(struct samples *s, double value)
{
	double *nv;
	size_t ncap;

	if (s->n == s->cap) {
		ncap = s->cap ? s->cap * 2 : 64;
		if ((nv = realloc(s->v, ncap * sizeof(*nv))) == NULL)
			return -1;
		s->v = nv;
		s->cap = ncap;
	}
	s->v[s->n++] = value;
	s->sorted = 0;
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
samples_sort(struct samples *s)
{
	if (!s->sorted) {
		qsort(s->v, s->n, sizeof(*s->v), cmp_double);
		s->sorted = 1;
	}
}

size_t
samples_rank(size_t n, double p)
{
	double r = ceil(p / 100.0 * (double)n);

	if (r < 1)
		return 1;
	if (r > (double)n)
		return n;
	return (size_t)r;
}

double
samples_percentile(struct samples *s, double p)
{
	if (s->n == 0)
		return NAN;
	samples_sort(s);
	return s->v[samples_rank(s->n, p) - 1];
}

double
samples_min(struct samples *s)
{
	return samples_percentile(s, 0);
}

double
samples_max(struct samples *s)
{
	return samples_percentile(s, 100);
}

double
samples_mean(const struct samples *s)
{
	double sum = 0;
	size_t i;

	if (s->n == 0)
		return NAN;
	for (i = 0; i < s->n; i++)
		sum += s->v[i];
	return sum / (double)s->n;
}

void
samples_print(FILE *out, const char *prefix, struct samples *s)
{
	fprintf(out, "%sn=%zu\n", prefix, s->n);
	if (s->n == 0)
		return;
	fprintf(out, "%smin=%.3f\n", prefix, samples_min(s));
	fprintf(out, "%sp50=%.3f\n", prefix, samples_percentile(s, 50));
	fprintf(out, "%sp90=%.3f\n", prefix, samples_percentile(s, 90));
	fprintf(out, "%sp95=%.3f\n", prefix, samples_percentile(s, 95));
	fprintf(out, "%sp99=%.3f\n", prefix, samples_percentile(s, 99));
	fprintf(out, "%smax=%.3f\n", prefix, samples_max(s));
	fprintf(out, "%smean=%.3f\n", prefix, samples_mean(s));
}
