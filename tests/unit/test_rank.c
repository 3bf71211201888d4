/*
 * Unit tests of sshperf-rank: the order-statistic ranks of a quantile's
 * interval against the binomial tables, their coverage over many random
 * samples, the Mann-Whitney U test and the Hodges-Lehmann shift. TAP.
 */
#define main rank_main
#include "../../helpers/rank.c"
#undef main

#include "tap.h"

static void
fill(struct samples *s, double from, double step, int n)
{
	int i;

	samples_init(s);
	for (i = 0; i < n; i++)
		if (samples_add(s, from + i * step) != 0)
			err(2, NULL);
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	s->sorted = 1;
}

static void
test_ranks(void)
{
	long lo, hi;

	quantile_ranks(30, 0.5, 0.95, &lo, &hi);
	ok(lo == 10 && hi == 21, "median of 30: ranks 10 and 21 (got %ld %ld)",
	    lo, hi);
	quantile_ranks(30, 0.95, 0.95, &lo, &hi);
	ok(lo == 26 && hi == 0,
	    "p95 of 30: lower rank 26, no upper bound (got %ld %ld)", lo, hi);
	quantile_ranks(5, 0.5, 0.95, &lo, &hi);
	ok(lo == 0 && hi == 0, "median of 5: no bound at 95 %% (got %ld %ld)",
	    lo, hi);
	quantile_ranks(100, 0.95, 0.95, &lo, &hi);
	ok(lo == 90 && hi == 100, "p95 of 100: ranks 90 and 100 (the maximum) (got %ld %ld)",
	    lo, hi);
	ok(fabs(binom_cdf(9, 30, 0.5) - 0.021387) < 1e-5,
	    "P(Bin(30, .5) <= 9) = 0.021387 (got %.6f)", binom_cdf(9, 30, 0.5));
}

/* Over 2000 samples of 40 uniform numbers, the median's interval holds the
 * true median (0.5) at least as often as promised, and not far more. */
static void
test_coverage(void)
{
	int trial, hits = 0, i;
	long lo, hi;
	struct samples s;

	srand48(42);
	quantile_ranks(40, 0.5, 0.95, &lo, &hi);
	for (trial = 0; trial < 2000; trial++) {
		samples_init(&s);
		for (i = 0; i < 40; i++)
			samples_add(&s, drand48());
		qsort(s.v, s.n, sizeof(*s.v), cmp_double);
		hits += s.v[lo - 1] <= 0.5 && 0.5 <= s.v[hi - 1];
		samples_free(&s);
	}
	ok(hits >= 1880 && hits <= 1990,
	    "median interval of 40 covers the true median in 94-99.5 %% of "
	    "2000 trials (got %d)", hits);
}

static void
test_mann_whitney(void)
{
	struct samples a, b;
	double u, z, p;

	fill(&a, 1, 1, 10);
	fill(&b, 11, 1, 10);
	mann_whitney(&a, &b, &u, &z, &p);
	ok(u == 100 && z > 3 && p < 0.001,
	    "b all above a: U = 100, p < 0.001 (got U %g z %g p %g)", u, z, p);
	mann_whitney(&b, &a, &u, &z, &p);
	ok(u == 0 && z < -3, "a all below b: U = 0, z < 0 (got %g %g)", u, z);
	samples_free(&b);
	fill(&b, 1, 1, 10);
	mann_whitney(&a, &b, &u, &z, &p);
	ok(u == 50 && p == 1, "the same samples: U = 50, p = 1 (got %g %g)",
	    u, p);
	samples_free(&a);
	samples_free(&b);
	fill(&a, 3, 0, 8);
	fill(&b, 3, 0, 6);
	mann_whitney(&a, &b, &u, &z, &p);
	ok(p == 1 && z == 0, "all values tied: p = 1 (got z %g p %g)", z, p);
	samples_free(&a);
	samples_free(&b);
	/* The classic example, Hollander & Wolfe: interleaved with ties. */
	fill(&a, 1, 2, 12);	/* 1 3 5 ... 23 */
	fill(&b, 2, 2, 12);	/* 2 4 6 ... 24 */
	mann_whitney(&a, &b, &u, &z, &p);
	ok(u == 78 && p > 0.5, "interleaved samples: U = 78, p > 0.5 "
	    "(got %g %g)", u, p);
	samples_free(&a);
	samples_free(&b);
}

/* Runs compare() into a buffer and returns the value of one key. */
static double
compare_key(struct samples *a, struct samples *b, const char *key)
{
	char *buf = NULL, line[128], want[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len), *saved = stdout;
	double v = NAN;

	stdout = f;
	compare("", 0.95, a, b);
	fflush(f);
	stdout = saved;
	fclose(f);
	snprintf(want, sizeof(want), "%s=", key);
	f = fmemopen(buf, len, "r");
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, want, strlen(want)) == 0 &&
		    line[strlen(want)] != '\n')
			v = strtod(line + strlen(want), NULL);
	fclose(f);
	free(buf);
	return v;
}

static void
test_shift(void)
{
	struct samples a, b;
	double shift, lo, hi;

	fill(&a, 1, 1, 20);
	fill(&b, 6, 1, 20);
	shift = compare_key(&a, &b, "shift");
	lo = compare_key(&a, &b, "shift_lo");
	hi = compare_key(&a, &b, "shift_hi");
	ok(shift == 5 && lo < 5 && hi > 5 && lo > 0,
	    "b = a + 5: shift 5 inside its interval, which excludes 0 "
	    "(got %g [%g, %g])", shift, lo, hi);
	samples_free(&a);
	samples_free(&b);
	fill(&a, 1, 1, 1);
	fill(&b, 1, 1, 5);
	ok(isnan(compare_key(&a, &b, "shift")) &&
	    isnan(compare_key(&a, &b, "p")),
	    "one sample in a: no shift and no p-value, empty values");
	samples_free(&a);
	samples_free(&b);
}

int
main(void)
{
	test_ranks();
	test_coverage();
	test_mann_whitney();
	test_shift();
	ok(fabs(z_two_sided(0.95) - 1.959964) < 1e-5, "z for 95 %% is 1.96");
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
