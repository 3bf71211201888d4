/*
 * Unit tests of sshperf-rank: the order-statistic ranks of a quantile's
 * interval against the binomial tables, their coverage over many random
 * samples, the Mann-Whitney U test and the Hodges-Lehmann shift, the t
 * quantiles and the interval of a rate measured in parts; percentile,
 * mean, levels and plan with their edge cases (no numbers, one, ties, all
 * equal), and the one median the kit's four former median sites now
 * share. TAP.
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

/* What one of the subcommands printed: stdout captured into a buffer. */
static char *cap_buf;
static size_t cap_len;
static FILE *cap_saved;

static void
capture_begin(void)
{
	cap_saved = stdout;
	stdout = open_memstream(&cap_buf, &cap_len);
}

/* Ends the capture; returns what was printed (free it). */
static char *
capture_end(void)
{
	fflush(stdout);
	fclose(stdout);
	stdout = cap_saved;
	return cap_buf;
}

/* KEY's value in OUT ("KEY=VALUE" lines): a copy, "" when empty, NULL
 * when the key is missing. */
static const char *
value_in(const char *out, const char *key)
{
	static char v[256];
	size_t kl = strlen(key), n;
	const char *l;

	for (l = out; l != NULL && *l != '\0';
	    l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (strncmp(l, key, kl) == 0 && l[kl] == '=') {
			n = strcspn(l + kl + 1, "\n");
			snprintf(v, sizeof(v), "%.*s", (int)n, l + kl + 1);
			return v;
		}
	return NULL;
}

/* OUT on one line, for a test's message: a copy, newlines as blanks. */
static const char *
flat(const char *out)
{
	static char buf[1024];
	char *c;

	snprintf(buf, sizeof(buf), "%s", out);
	for (c = buf; *c != '\0'; c++)
		if (*c == '\n')
			*c = ' ';
	return buf;
}

static int
has(const char *out, const char *key, const char *want)
{
	const char *v = value_in(out, key);

	return v != NULL && strcmp(v, want) == 0;
}

/* s from a list of numbers, sorted as read_samples() leaves them. */
static void
fill_list(struct samples *s, const double *v, size_t n)
{
	size_t i;

	samples_init(s);
	for (i = 0; i < n; i++)
		if (samples_add(s, v[i]) != 0)
			err(2, NULL);
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	s->sorted = 1;
}

static void
test_percentile(void)
{
	static const double odd[] = { 7, 1, 3, 5, 9 }, even[] = { 4, 1, 3, 2 },
	    one[] = { 42.5 }, ties[] = { 2, 2, 2, 9, 9, 1 },
	    same[] = { 3.25, 3.25, 3.25, 3.25 };
	struct samples s;
	char *out;

	fill_list(&s, odd, 5);
	capture_begin();
	percentiles("", "50,90,100", &s);
	out = capture_end();
	ok(has(out, "n", "5") && has(out, "p50", "5") && has(out, "p90", "9") &&
	    has(out, "p100", "9"), "percentile of 5 numbers: p50 the 3rd, p90 "
	    "and p100 the 5th (got %s)", flat(out));
	free(out);
	samples_free(&s);

	fill_list(&s, even, 4);
	capture_begin();
	percentiles("x_", "50,25,75,99.9", &s);
	out = capture_end();
	ok(has(out, "x_p50", "2") && has(out, "x_p25", "1") &&
	    has(out, "x_p75", "3") && has(out, "x_p99.9", "4"),
	    "percentile of 4: the median is the 2nd smallest (nearest rank, "
	    "a number of the input, not 2.5), prefixed keys (got %s)", flat(out));
	free(out);
	samples_free(&s);

	fill_list(&s, one, 1);
	capture_begin();
	percentiles("", "1,50,100", &s);
	out = capture_end();
	ok(has(out, "n", "1") && has(out, "p1", "42.5") &&
	    has(out, "p50", "42.5") && has(out, "p100", "42.5"),
	    "percentile of one number: every percentile is it (got %s)", flat(out));
	free(out);
	samples_free(&s);

	fill_list(&s, ties, 6);
	capture_begin();
	percentiles("", "50,70", &s);
	out = capture_end();
	ok(has(out, "p50", "2") && has(out, "p70", "9"),
	    "percentile with ties: 1 2 2 2 9 9, p50 the 3rd (2), p70 the 5th "
	    "(9) (got %s)", flat(out));
	free(out);
	samples_free(&s);

	fill_list(&s, same, 4);
	capture_begin();
	percentiles("", "10,50,99", &s);
	out = capture_end();
	ok(has(out, "p10", "3.25") && has(out, "p50", "3.25") &&
	    has(out, "p99", "3.25"), "percentile of all equal numbers: that "
	    "number (got %s)", flat(out));
	free(out);
	samples_free(&s);

	samples_init(&s);
	capture_begin();
	percentiles("", "50", &s);
	out = capture_end();
	ok(strcmp(out, "n=0\np50=\n") == 0,
	    "percentile of no numbers: n=0 and an empty p50 (got %s)", flat(out));
	free(out);
}

static void
test_mean(void)
{
	static const double four[] = { 1, 2, 3, 4 }, same[] = { 5, 5, 5 },
	    low[] = { 0.1, 0.2, 3.0 };
	struct samples s;
	char *out;
	double lo, hi;

	fill_list(&s, four, 4);
	capture_begin();
	mean_interval("", 0.95, 0, 0, 0, &s);
	out = capture_end();
	lo = strtod(value_in(out, "lo"), NULL);
	hi = strtod(value_in(out, "hi"), NULL);
	/* By hand: mean 2.5, sd 1.290994, t(3) 3.182446, half 2.054260. */
	ok(has(out, "n", "4") && has(out, "mean", "2.5") &&
	    has(out, "sd", "1.29099") && has(out, "t", "3.18245") &&
	    fabs(lo - 0.44574) < 1e-4 && fabs(hi - 4.55426) < 1e-4,
	    "mean of 1 2 3 4: 2.5 +- 3.1824 x 1.2910 / 2 (got %s)", flat(out));
	free(out);
	capture_begin();
	mean_interval("", 0.95, 1, 10, 0, &s);
	out = capture_end();
	lo = strtod(value_in(out, "lo"), NULL);
	hi = strtod(value_in(out, "hi"), NULL);
	ok(has(out, "mean", "2.5") && fabs(lo - 7.94574) < 1e-4 &&
	    fabs(hi - 12.05426) < 1e-4,
	    "mean -m 10: the same half-width around 10 (got %s)", flat(out));
	free(out);
	samples_free(&s);

	fill_list(&s, low, 3);
	capture_begin();
	mean_interval("", 0.95, 0, 0, 1, &s);
	out = capture_end();
	ok(has(out, "lo", "0") && strtod(value_in(out, "hi"), NULL) > 5,
	    "mean -z: a lower bound below 0 is 0 (got %s)", flat(out));
	free(out);
	samples_free(&s);

	fill_list(&s, same, 3);
	capture_begin();
	mean_interval("", 0.95, 0, 0, 0, &s);
	out = capture_end();
	ok(has(out, "sd", "0") && has(out, "half", "0") && has(out, "lo", "5") &&
	    has(out, "hi", "5"), "mean of all equal numbers: sd 0, the "
	    "interval is the number (got %s)", flat(out));
	free(out);
	samples_free(&s);

	fill_list(&s, same, 1);
	capture_begin();
	mean_interval("", 0.95, 0, 0, 0, &s);
	out = capture_end();
	ok(has(out, "n", "1") && has(out, "mean", "5") && has(out, "sd", "") &&
	    has(out, "lo", "") && has(out, "hi", ""),
	    "mean of one number: it, and no sd nor interval (got %s)", flat(out));
	free(out);
	samples_free(&s);

	samples_init(&s);
	capture_begin();
	mean_interval("", 0.95, 0, 0, 0, &s);
	out = capture_end();
	ok(has(out, "n", "0") && has(out, "mean", "") && has(out, "hi", ""),
	    "mean of no numbers: n=0, every value empty (got %s)", flat(out));
	free(out);
}

/* levels() of the numbers v[0..n-1]: what it printed (free it). */
static char *
levels_of(const double *v, size_t n)
{
	struct samples s;

	fill_list(&s, v, n);
	capture_begin();
	levels("m_", &s);
	samples_free(&s);
	return capture_end();
}

/* The keys of key=value lines, one a line, without their values (free it). */
static char *
keys_only(const char *out)
{
	char *k = strdup(out), *w = k;
	const char *r = out;

	if (k == NULL)
		err(2, "strdup");
	while (*r != '\0') {
		while (*r != '\0' && *r != '=')
			*w++ = *r++;
		while (*r != '\0' && *r != '\n')
			r++;
		if (*r == '\n')
			*w++ = *r++;
	}
	*w = '\0';
	return k;
}

/*
 * One level, or too few numbers to tell: the keys of two levels all the
 * same, empty, so that whoever compares two runs' keys finds the same.
 */
#define EMPTY_SIDES "m_low_n=\nm_low_p50=\nm_high_n=\nm_high_p50=\nm_step_ms=\n"
#define ONE "m_levels=1\n" EMPTY_SIDES
#define UNKNOWN "m_levels=-\n" EMPTY_SIDES

static void
test_levels(void)
{
	static const double two[] = { 39, 39.4, 39.8, 40, 70.4, 70.7, 70.5 },
	    few[] = { 39, 71, 39 }, same[] = { 7, 7, 7, 7, 7 },
	    tail[] = { 22, 23, 24, 25, 26, 22, 23, 24, 40 },
	    small[] = { 10, 11, 12, 14 }, lone[] = { 10, 10, 10, 80 },
	    four[] = { 10, 10, 40, 40 };
	char *out, *k0, *k1, *k2;

	out = levels_of(two, 7);
	ok(has(out, "m_levels", "2") && has(out, "m_low_n", "4") &&
	    has(out, "m_low_p50", "39.4") && has(out, "m_high_n", "3") &&
	    has(out, "m_high_p50", "70.5") && has(out, "m_step_ms", "31.1"),
	    "levels: 4 near 39 ms and 3 near 70: two, each side's nearest-rank "
	    "median (got %s)", flat(out));
	free(out);
	out = levels_of(four, 4);
	ok(has(out, "m_levels", "2") && has(out, "m_low_p50", "10.0") &&
	    has(out, "m_step_ms", "30.0"),
	    "levels: 4 numbers, two ties on each side: two levels (got %s)",
	    flat(out));
	free(out);
	out = levels_of(few, 3);
	ok(strcmp(out, UNKNOWN) == 0,
	    "levels of 3 numbers: not known, every key there all the same, "
	    "empty (got %s)", flat(out));
	free(out);
	out = levels_of(NULL, 0);
	ok(strcmp(out, UNKNOWN) == 0, "levels of no numbers: - (got %s)",
	    flat(out));
	free(out);
	out = levels_of(same, 5);
	ok(strcmp(out, ONE) == 0,
	    "levels of all equal numbers: one (got %s)", flat(out));
	free(out);
	out = levels_of(tail, 9);
	ok(strcmp(out, ONE) == 0,
	    "levels: one slow number is no second level (got %s)", flat(out));
	free(out);
	out = levels_of(small, 4);
	ok(strcmp(out, ONE) == 0,
	    "levels: a widest gap under 5 ms is one level (got %s)", flat(out));
	free(out);
	out = levels_of(lone, 4);
	ok(strcmp(out, ONE) == 0,
	    "levels: one number alone above the gap is one level (got %s)", flat(out));
	free(out);

	out = levels_of(two, 7);
	k2 = keys_only(out);
	free(out);
	out = levels_of(same, 5);
	k1 = keys_only(out);
	free(out);
	out = levels_of(few, 3);
	k0 = keys_only(out);
	free(out);
	ok(strcmp(k2, "m_levels\nm_low_n\nm_low_p50\nm_high_n\nm_high_p50\n"
	    "m_step_ms\n") == 0, "levels: two levels print levels, low_n, "
	    "low_p50, high_n, high_p50, step_ms (got %s)", flat(k2));
	ok(strcmp(k1, k2) == 0, "levels: one level prints the keys of two, in "
	    "their order (got %s)", flat(k1));
	ok(strcmp(k0, k2) == 0, "levels: too few numbers print the keys of "
	    "two, in their order (got %s)", flat(k0));
	free(k2);
	free(k1);
	free(k0);
}

/* distribution() of the lines TEXT, from a scratch file: what it printed. */
static char *
distribution_of(const char *text)
{
	char path[512];
	int fd;
	FILE *f;

	tap_scratch(path, sizeof(path), "test_rank");
	if ((fd = mkstemp(path)) < 0 || (f = fdopen(fd, "w")) == NULL)
		err(2, "%s", path);
	fputs(text, f);
	fclose(f);
	capture_begin();
	distribution("", 0.95, path);
	unlink(path);
	return capture_end();
}

static void
test_distribution(void)
{
	char *out;

	/* In value order the sums are .01 .03 .33 .83 1: 1 passes .025
	 * first, 4 reaches .975 first. */
	out = distribution_of("3 0.5\n1 0.02\n2 0.3\n0 0.01\n4 0.17\n");
	ok(has(out, "n", "5") && has(out, "lo", "1") && has(out, "hi", "4"),
	    "distribution: the central 95 %% of 5 outcomes is 1 to 4 (got %s)",
	    flat(out));
	free(out);
	out = distribution_of("10 1\n");
	ok(has(out, "lo", "10") && has(out, "hi", "10"),
	    "distribution of one sure outcome: it, both ends (got %s)",
	    flat(out));
	free(out);
	out = distribution_of("5 0.5\n5 0.5\n");
	ok(has(out, "lo", "5") && has(out, "hi", "5"),
	    "distribution: one value listed twice (ties) (got %s)", flat(out));
	free(out);
	out = distribution_of("1 0.2\n2 0.2\n");
	ok(has(out, "lo", "1") && has(out, "hi", ""),
	    "distribution whose probabilities sum to 0.4: no upper end (got "
	    "%s)", flat(out));
	free(out);
	out = distribution_of("");
	ok(has(out, "n", "0") && has(out, "lo", "") && has(out, "hi", ""),
	    "distribution of nothing: n=0, no ends (got %s)", flat(out));
	free(out);
}

/*
 * plan: need is the first n at which quantile_ranks() gives both bounds,
 * the stages are BASE, max(2 BASE, need) capped at 4 BASE, and 4 BASE.
 */
static void
test_plan(void)
{
	static const struct { long base; double pct; const char *stages; }
	    want[] = {
		{ 30, 95, "30 72 120" }, { 3, 95, "3 12" },
		{ 200, 95, "200 400 800" }, { 100, 99, "100 368 400" },
		{ 10, 50, "10 20 40" }, { 1, 50, "1 4" },
	};
	static const double pcts[] = { 50, 90, 95, 99 };
	long lo, hi, need;
	size_t i;
	char *out;
	int agree = 1;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		capture_begin();
		plan("", 0.95, want[i].base, want[i].pct);
		out = capture_end();
		ok(has(out, "stages", want[i].stages),
		    "plan %ld at p%g: stages %s (got %s)", want[i].base,
		    want[i].pct, want[i].stages, flat(out));
		free(out);
	}
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++) {
		need = plan_need(pcts[i] / 100, 0.95);
		quantile_ranks(need, pcts[i] / 100, 0.95, &lo, &hi);
		agree &= lo > 0 && hi > 0;
		quantile_ranks(need - 1, pcts[i] / 100, 0.95, &lo, &hi);
		agree &= lo == 0 || hi == 0;
	}
	ok(agree, "plan's need is where the interval's ranks first have both "
	    "bounds, for p50, p90, p95 and p99");
}

/*
 * The kit computed the median four ways: stats.c's nearest rank, the
 * levels split's rounded rank, the mean of the two middle values
 * (repeat.sh) and the lower median (sftp.sh). On 10 11 12 13 they gave 11,
 * 12, 11.5 and 11. All four now come from samples_percentile(): the
 * percentile subcommand (sftp.sh's stats_median), interval's p50
 * (repeat.sh), levels' low_p50 (the low side of 10 11 12 13 110 111 112
 * 113) and stats.c itself give one figure, 11.
 */
static void
test_one_median(void)
{
	static const double v[] = { 13, 11, 10, 12 },
	    split[] = { 13, 11, 10, 12, 110, 111, 112, 113 };
	struct samples s;
	char *pc, *iv, *lv;
	double st;
	size_t k;
	int same;

	fill_list(&s, v, 4);
	st = samples_percentile(&s, 50);
	capture_begin();
	percentiles("", "50", &s);
	pc = capture_end();
	capture_begin();
	interval("", 0.95, &s);
	iv = capture_end();
	samples_free(&s);
	lv = levels_of(split, 8);
	same = st == 11 && has(pc, "p50", "11") && has(iv, "p50", "11") &&
	    has(lv, "m_low_p50", "11.0");
	/* On one line each, for the message. */
	for (k = 0; pc[k] != '\0'; k++)
		pc[k] = pc[k] == '\n' ? ' ' : pc[k];
	for (k = 0; iv[k] != '\0'; k++)
		iv[k] = iv[k] == '\n' ? ' ' : iv[k];
	for (k = 0; lv[k] != '\0'; k++)
		lv[k] = lv[k] == '\n' ? ' ' : lv[k];
	ok(same, "one median of 10 11 12 13: stats.c %g; percentile, interval "
	    "and levels (got %s| %s| %s)", st, pc, iv, lv);
	free(pc);
	free(iv);
	free(lv);
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
	test_percentile();
	test_mean();
	test_levels();
	test_plan();
	test_distribution();
	test_one_median();
	ok(fabs(z_two_sided(0.95) - 1.959964) < 1e-5, "z for 95 %% is 1.96");
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
