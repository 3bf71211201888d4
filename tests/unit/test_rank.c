/*
 * Unit tests of sshperf-rank: the order-statistic ranks of a quantile's
 * interval against the binomial tables, their coverage over many random
 * samples, the Mann-Whitney U test and the Hodges-Lehmann shift, the t
 * quantiles and the interval of a rate measured in parts. TAP.
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

/* Runs FN (compare() or rate_interval()) on a and b into a buffer and
 * returns the value of one key of what it printed (NAN when empty). */
static double
key_of(void (*fn)(const char *, double, struct samples *, struct samples *),
    struct samples *a, struct samples *b, const char *key)
{
	char *buf = NULL, line[128], want[64];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len), *saved = stdout;
	double v = NAN;

	stdout = f;
	fn("", 0.95, a, b);
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

static double
compare_key(struct samples *a, struct samples *b, const char *key)
{
	return key_of(compare, a, b, key);
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

/* rate_interval() on k parts (a) and their times (t): one key's value. */
static double
rate_key(struct samples *a, struct samples *t, const char *key)
{
	return key_of(rate_interval, a, t, key);
}

static void
test_t_quantiles(void)
{
	static const struct { long df; double t; } table[] = {
		{ 1, 12.7062 }, { 2, 4.3027 }, { 3, 3.1824 }, { 9, 2.2622 },
		{ 15, 2.1314 }, { 30, 2.0423 }, { 120, 1.9799 },
	};
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		ok(fabs(t_two_sided(0.95, table[i].df) - table[i].t) < 5e-4,
		    "t for 95 %% with %ld degrees of freedom is %.4f (got %.4f)",
		    table[i].df, table[i].t, t_two_sided(0.95, table[i].df));
}

/*
 * Four parts of 16 MB in 0.10, 0.11, 0.09 and 0.12 s: the rate is the
 * whole's, 64 / 0.42; the interval, by hand: mean 0.105 s, sd 0.012910,
 * t(3) 3.1824, so 16 / (0.105 +- 0.020543). Then the coverage of the
 * true rate over many transfers of 16 parts with uneven times, and one
 * part alone: no interval.
 */
static void
test_rate(void)
{
	struct samples a, t;
	static const double secs[] = { 0.10, 0.11, 0.09, 0.12 };
	int i, trial, hits = 0;
	double lo, hi;

	samples_init(&a);
	samples_init(&t);
	for (i = 0; i < 4; i++)
		samples_add(&a, 16), samples_add(&t, secs[i]);
	ok(fabs(rate_key(&a, &t, "rate") - 64 / 0.42) < 1e-3,
	    "the rate is the whole's, 152.381 (got %g)",
	    rate_key(&a, &t, "rate"));
	lo = rate_key(&a, &t, "rate_lo");
	hi = rate_key(&a, &t, "rate_hi");
	ok(fabs(lo - 127.447) < 0.01 && fabs(hi - 189.445) < 0.01,
	    "its interval is 127.447-189.445 (got %g-%g)", lo, hi);
	samples_free(&a);
	samples_free(&t);

	srand48(7);
	for (trial = 0; trial < 2000; trial++) {
		samples_init(&a);
		samples_init(&t);
		/* Part times uniform in 0.08-0.12 s: the true rate is 160. */
		for (i = 0; i < 16; i++)
			samples_add(&a, 16), samples_add(&t, 0.08 + 0.04 * drand48());
		lo = rate_key(&a, &t, "rate_lo");
		hi = rate_key(&a, &t, "rate_hi");
		hits += lo <= 160 && 160 <= hi;
		samples_free(&a);
		samples_free(&t);
	}
	ok(hits >= 1860 && hits <= 1940,
	    "the interval of 16 parts covers the true rate in 93-97 %% of "
	    "2000 transfers (got %d)", hits);

	samples_init(&a);
	samples_init(&t);
	samples_add(&a, 16), samples_add(&t, 0.1);
	ok(fabs(rate_key(&a, &t, "rate") - 160) < 1e-9 &&
	    isnan(rate_key(&a, &t, "rate_lo")) &&
	    isnan(rate_key(&a, &t, "rate_hi")),
	    "one part: its rate, no interval");
	samples_free(&a);
	samples_free(&t);
}

int
main(void)
{
	test_ranks();
	test_coverage();
	test_mann_whitney();
	test_shift();
	test_t_quantiles();
	test_rate();
	ok(fabs(z_two_sided(0.95) - 1.959964) < 1e-5, "z for 95 %% is 1.96");
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
