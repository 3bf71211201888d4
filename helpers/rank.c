/*
 * sshperf-rank: distribution-free statistics on raw samples, for telling a
 * change from noise.
 *
 *   sshperf-rank interval [-p prefix] [-c conf] [FILE]
 *	the 95 % interval of p50, p90, p95 and p99 from order statistics:
 *	the ranks l < u with P(X(l) <= true quantile <= X(u)) >= conf, from
 *	the binomial distribution of the number of samples below the
 *	quantile. A bound that n samples cannot give is printed empty.
 *   sshperf-rank compare [-p prefix] [-c conf] FILE_A FILE_B
 *	Mann-Whitney U test of B against A (two-sided, ties by mid-ranks,
 *	normal approximation with continuity correction), the Hodges-Lehmann
 *	shift B - A (the median of all differences, by the nearest rank as
 *	every median of the kit) and its interval
 *	(Moses' ranks of the sorted differences).
 *   sshperf-rank rate [-p prefix] [-c conf] [FILE]
 *	a rate measured in parts (one transfer timed in chunks, files
 *	copied in batches): each line "AMOUNT SECONDS" is one part. The
 *	rate is sum(AMOUNT) / sum(SECONDS), the whole's; its interval is
 *	the Student t interval of the time per unit over the parts (the
 *	ratio estimator, k - 1 degrees of freedom), inverted into a rate.
 *   sshperf-rank percentile [-p prefix] [-q P[,P...]] [FILE]
 *	the P-th percentiles (50, the median, unless -q) by the nearest
 *	rank, the kit's one definition (stats.c): the ceil(P/100 * n)-th
 *	smallest number, a number of the input.
 *   sshperf-rank mean [-p prefix] [-c conf] [-m centre] [-z] [FILE]
 *	the mean, the standard deviation and the Student t interval of the
 *	mean (n - 1 degrees of freedom, t exact), centred on the mean or on
 *	-m; -z: a lower bound below 0 is 0 (a figure that cannot be less).
 *   sshperf-rank levels [-p prefix] [FILE]
 *	whether the numbers (ms) sit at two levels (a step of sshd's
 *	padding): see levels() below.
 *   sshperf-rank distribution [-p prefix] [-c conf] [FILE]
 *	the central range of a discrete distribution given as "VALUE
 *	PROBABILITY" lines (a model's outcomes): the values where the
 *	cumulative probability, in value order, first passes (1 - conf) / 2
 *	and first reaches 1 - (1 - conf) / 2.
 *   sshperf-rank plan [-p prefix] [-c conf] BASE PCT
 *	the sample counts of a staged measurement of the PCT percentile:
 *	BASE, then twice BASE or the fewest samples whose interval has both
 *	bounds when that is more, then four times BASE, the cap.
 *
 * Input: one number per line ("-" and empty lines are skipped); two for
 * rate.
 * Output: key=value lines on stdout (docs/data.md, "The statistics engine: sshperf-rank").
 */
#include <err.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "stats.h"

/* The normal quantile for a two-sided interval of the given confidence. */
static double
z_two_sided(double conf)
{
	/* Inverse of erfc by bisection: exact enough, and no table. */
	double lo = 0, hi = 10, mid, want = 1 - conf;
	int i;

	for (i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		if (erfc(mid / M_SQRT2) > want)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/*
 * P(|T| <= t) for Student's T with df degrees of freedom, in closed form
 * for a whole df (Abramowitz and Stegun 26.7.3 and 26.7.4).
 */
static double
t_abs_cdf(double t, long df)
{
	double th = atan(t / sqrt((double)df)), c2, term, sum;
	long k;

	c2 = cos(th) * cos(th);
	if (df % 2 == 1) {
		sum = 0;
		if (df > 1) {
			term = sum = cos(th);
			for (k = 3; k <= df - 2; k += 2) {
				term *= c2 * (double)(k - 1) / (double)k;
				sum += term;
			}
		}
		return 2 / M_PI * (th + sin(th) * sum);
	}
	term = sum = 1;
	for (k = 2; k <= df - 2; k += 2) {
		term *= c2 * (double)(k - 1) / (double)k;
		sum += term;
	}
	return sin(th) * sum;
}

/* The t quantile of a two-sided interval: P(|T| <= t) = conf. */
static double
t_two_sided(double conf, long df)
{
	double lo = 0, hi = 1e6, mid;
	int i;

	for (i = 0; i < 200; i++) {
		mid = (lo + hi) / 2;
		if (t_abs_cdf(mid, df) < conf)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

/* P(X <= k) for X ~ Bin(n, p), 0 < p < 1, summed in log space. */
static double
binom_cdf(long k, long n, double p)
{
	double sum = 0, lp = log(p), lq = log1p(-p);
	long i;

	if (k < 0)
		return 0;
	if (k >= n)
		return 1;
	for (i = 0; i <= k; i++)
		sum += exp(lgamma(n + 1.0) - lgamma(i + 1.0) -
		    lgamma(n - i + 1.0) + i * lp + (n - i) * lq);
	return sum > 1 ? 1 : sum;
}

/*
 * The 1-based ranks of the order statistics that bound the q-quantile of
 * n samples with at least the given confidence, split evenly between the
 * two tails: *lo is the largest l with P(X <= l-1) <= alpha/2 and *hi the
 * smallest u with P(X <= u-1) >= 1 - alpha/2, where X counts samples below
 * the quantile. 0 means n is too small for that bound.
 */
static void
quantile_ranks(long n, double q, double conf, long *lo, long *hi)
{
	double tail = (1 - conf) / 2;
	long l, u;

	*lo = *hi = 0;
	for (l = 1; l <= n && binom_cdf(l - 1, n, q) <= tail; l++)
		*lo = l;
	for (u = 1; u <= n; u++)
		if (binom_cdf(u - 1, n, q) >= 1 - tail) {
			*hi = u;
			break;
		}
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
read_samples(const char *path, struct samples *s)
{
	FILE *f = stdin;
	char *line = NULL, *end;
	size_t cap = 0;
	double v;

	if (path != NULL && strcmp(path, "-") != 0 &&
	    (f = fopen(path, "re")) == NULL)
		err(2, "%s", path);
	while (getline(&line, &cap, f) >= 0) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '\0' || strcmp(line, "-") == 0)
			continue;
		errno = 0;
		v = strtod(line, &end);
		if (errno != 0 || end == line || *end != '\0' || !isfinite(v))
			errx(2, "%s: not a number: %s", path ? path : "stdin",
			    line);
		if (samples_add(s, v) != 0)
			err(2, NULL);
	}
	free(line);
	if (f != stdin)
		fclose(f);
	qsort(s->v, s->n, sizeof(*s->v), cmp_double);
	s->sorted = 1;
}

/*
 * Reads "X Y" per line (blank lines are skipped) into xs and ys, in their
 * order. A line that is not two finite numbers, or whose pair ok()
 * refuses, ends the program with status 2: "not FORM: LINE".
 */
static void
read_pairs(const char *path, struct samples *xs, struct samples *ys,
    int (*ok)(double, double), const char *form)
{
	FILE *f = stdin;
	char *line = NULL, *end, *p;
	size_t cap = 0;
	double x, y;

	if (path != NULL && strcmp(path, "-") != 0 &&
	    (f = fopen(path, "re")) == NULL)
		err(2, "%s", path);
	while (getline(&line, &cap, f) >= 0) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[strspn(line, " \t")] == '\0')
			continue;
		errno = 0;
		x = strtod(line, &p);
		y = p != line ? strtod(p, &end) : 0;
		if (errno != 0 || p == line || end == p ||
		    end[strspn(end, " \t")] != '\0' || !isfinite(x) ||
		    !isfinite(y) || !ok(x, y))
			errx(2, "%s: not %s: %s", path ? path : "stdin", form,
			    line);
		if (samples_add(xs, x) != 0 || samples_add(ys, y) != 0)
			err(2, NULL);
	}
	free(line);
	if (f != stdin)
		fclose(f);
}

/* The parts of a rate: "AMOUNT SECONDS", both above 0. */
static int
part_ok(double amount, double secs)
{
	return amount > 0 && secs > 0;
}

static void
read_parts(const char *path, struct samples *amount, struct samples *secs)
{
	read_pairs(path, amount, secs, part_ok,
	    "\"AMOUNT SECONDS\", both above 0");
}

/* Prints the value, or nothing after the "=" when there is none. */
static void
print_value(const char *prefix, const char *key, int have, double v)
{
	if (have)
		printf("%s%s=%.6g\n", prefix, key, v);
	else
		printf("%s%s=\n", prefix, key);
}

/*
 * Prints a sample itself (a percentile or an order statistic), with the
 * digits it was read with: %.6g cut 1343.853 ms to 1343.85, which is no
 * sample (t42 saw it once logins took over a second). As `percentile`.
 */
static void
print_sample(const char *prefix, const char *key, int have, double v)
{
	if (have)
		printf("%s%s=%.15g\n", prefix, key, v);
	else
		printf("%s%s=\n", prefix, key);
}

static void
interval(const char *prefix, double conf, struct samples *s)
{
	static const int pct[] = { 50, 90, 95, 99 };
	char key[32];
	long lo, hi, n = (long)s->n;
	size_t i;

	printf("%sn=%ld\n%sconfidence=%g\n", prefix, n, prefix, conf);
	for (i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
		quantile_ranks(n, pct[i] / 100.0, conf, &lo, &hi);
		snprintf(key, sizeof(key), "p%d", pct[i]);
		print_sample(prefix, key, n > 0, n > 0 ?
		    samples_percentile(s, pct[i]) : 0);
		snprintf(key, sizeof(key), "p%d_lo", pct[i]);
		print_sample(prefix, key, lo > 0, lo > 0 ? s->v[lo - 1] : 0);
		snprintf(key, sizeof(key), "p%d_hi", pct[i]);
		print_sample(prefix, key, hi > 0, hi > 0 ? s->v[hi - 1] : 0);
	}
}

/*
 * A rate from k parts: the whole's rate, sum(a) / sum(t), and its
 * interval. The time per unit, mu = sum(t) / sum(a), has the standard
 * error of a ratio estimator, sqrt(sum((t_i - mu a_i)^2) / (k - 1) / k) /
 * mean(a) (for equal parts, the standard error of the mean part time,
 * over its size); mu +- t(k - 1) times it, inverted, bounds the rate. No
 * upper bound when the interval of mu reaches 0.
 */
static void
rate_interval(const char *prefix, double conf, struct samples *a,
    struct samples *t)
{
	size_t k = a->n, i;
	double sa = 0, st = 0, mu, e, ss = 0, se, q, r, rmin = 0, rmax = 0;

	printf("%sn=%zu\n%sconfidence=%g\n", prefix, k, prefix, conf);
	for (i = 0; i < k; i++) {
		sa += a->v[i];
		st += t->v[i];
		r = a->v[i] / t->v[i];
		if (i == 0 || r < rmin)
			rmin = r;
		if (i == 0 || r > rmax)
			rmax = r;
	}
	print_value(prefix, "amount", k > 0, sa);
	print_value(prefix, "seconds", k > 0, st);
	print_value(prefix, "rate", k > 0, k > 0 ? sa / st : 0);
	print_value(prefix, "part_rate_min", k > 0, rmin);
	print_value(prefix, "part_rate_max", k > 0, rmax);
	if (k < 2) {
		printf("%srate_lo=\n%srate_hi=\n", prefix, prefix);
		return;
	}
	mu = st / sa;
	for (i = 0; i < k; i++) {
		e = t->v[i] - mu * a->v[i];
		ss += e * e;
	}
	se = sqrt(ss / (double)(k - 1) / (double)k) / (sa / (double)k);
	q = t_two_sided(conf, (long)k - 1);
	print_value(prefix, "rate_lo", 1, 1 / (mu + q * se));
	print_value(prefix, "rate_hi", mu - q * se > 0,
	    mu - q * se > 0 ? 1 / (mu - q * se) : 0);
}

/*
 * Mann-Whitney U of b against a: U counts the pairs (x in a, y in b) with
 * y > x, ties counting one half. z > 0 means b tends to be larger.
 */
static void
mann_whitney(struct samples *a, struct samples *b, double *u, double *z,
    double *p)
{
	size_t na = a->n, nb = b->n, n = na + nb, i = 0, j = 0, k;
	double rank_b = 0, ties = 0, mean, var, d;

	/* Merge the two sorted lists, giving each run of ties its mid-rank. */
	for (k = 0; k < n;) {
		double v = (j >= nb || (i < na && a->v[i] <= b->v[j])) ?
		    a->v[i] : b->v[j];
		size_t ta = 0, tb = 0, t;

		while (i < na && a->v[i] == v)
			i++, ta++;
		while (j < nb && b->v[j] == v)
			j++, tb++;
		t = ta + tb;
		rank_b += tb * (k + 1 + k + t) / 2.0;
		ties += (double)t * t * t - t;
		k += t;
	}
	*u = rank_b - nb * (nb + 1) / 2.0;
	mean = na * nb / 2.0;
	var = na * nb / 12.0 * ((n + 1) - ties / ((double)n * (n - 1)));
	if (var <= 0) {
		*z = 0;
		*p = 1;
		return;
	}
	d = *u - mean;
	d = d > 0.5 ? d - 0.5 : d < -0.5 ? d + 0.5 : 0;
	*z = d / sqrt(var);
	*p = erfc(fabs(*z) / M_SQRT2);
	if (*p > 1)
		*p = 1;
}

static void
compare(const char *prefix, double conf, struct samples *a,
    struct samples *b)
{
	size_t na = a->n, nb = b->n, m = na * nb, i, j, k = 0;
	double u, z, p, *d, c, shift;
	long lo;

	printf("%sn_a=%zu\n%sn_b=%zu\n%sconfidence=%g\n", prefix, na, prefix,
	    nb, prefix, conf);
	print_value(prefix, "p50_a", na > 0, na ? samples_percentile(a, 50) : 0);
	print_value(prefix, "p50_b", nb > 0, nb ? samples_percentile(b, 50) : 0);
	if (na < 2 || nb < 2) {
		printf("%su=\n%sz=\n%sp=\n", prefix, prefix, prefix);
		print_value(prefix, "shift", 0, 0);
		printf("%sshift_lo=\n%sshift_hi=\n", prefix, prefix);
		return;
	}
	mann_whitney(a, b, &u, &z, &p);
	printf("%su=%.6g\n%sz=%.4f\n%sp=%.6g\n", prefix, u, prefix, z, prefix, p);
	if ((d = calloc(m, sizeof(*d))) == NULL)
		err(2, NULL);
	for (i = 0; i < na; i++)
		for (j = 0; j < nb; j++)
			d[k++] = b->v[j] - a->v[i];
	qsort(d, m, sizeof(*d), cmp_double);
	shift = d[samples_rank(m, 50) - 1];
	print_value(prefix, "shift", 1, shift);
	/* Moses: the C-th smallest and largest differences, 1-based. */
	c = m / 2.0 - z_two_sided(conf) * sqrt(na * nb * (na + nb + 1) / 12.0);
	lo = (long)floor(c);
	print_value(prefix, "shift_lo", lo >= 1, lo >= 1 ? d[lo - 1] : 0);
	print_value(prefix, "shift_hi", lo >= 1, lo >= 1 ? d[m - lo] : 0);
	free(d);
}

/* percentile: n and the nearest-rank percentiles listed in qs. */
static void
percentiles(const char *prefix, const char *qs, struct samples *s)
{
	char *list, *q, *save = NULL, *end;
	double p;

	printf("%sn=%zu\n", prefix, s->n);
	if ((list = strdup(qs)) == NULL)
		err(2, NULL);
	for (q = strtok_r(list, ",", &save); q != NULL;
	    q = strtok_r(NULL, ",", &save)) {
		errno = 0;
		p = strtod(q, &end);
		if (errno != 0 || end == q || *end != '\0' || !(p > 0) ||
		    p > 100)
			errx(2, "-q: not a percentile above 0 and at most 100: "
			    "%s", q);
		if (s->n > 0)
			printf("%sp%s=%.15g\n", prefix, q,
			    samples_percentile(s, p));
		else
			printf("%sp%s=\n", prefix, q);
	}
	free(list);
}

/*
 * mean: the mean of the numbers, their standard deviation (n - 1) and the
 * t interval of the mean, centre +- t(n - 1) sd / sqrt(n); centre is the
 * mean unless have_centre. floor0: a lower bound below 0 is printed as 0.
 */
static void
mean_interval(const char *prefix, double conf, int have_centre,
    double centre, int floor0, struct samples *s)
{
	size_t n = s->n, i;
	double m, ss = 0, sd, t, half, lo;

	printf("%sn=%zu\n%sconfidence=%g\n", prefix, n, prefix, conf);
	m = n > 0 ? samples_mean(s) : 0;
	print_value(prefix, "mean", n > 0, m);
	if (n < 2) {
		printf("%ssd=\n%st=\n%shalf=\n%slo=\n%shi=\n", prefix,
		    prefix, prefix, prefix, prefix);
		return;
	}
	for (i = 0; i < n; i++)
		ss += (s->v[i] - m) * (s->v[i] - m);
	sd = sqrt(ss / (double)(n - 1));
	t = t_two_sided(conf, (long)n - 1);
	half = t * sd / sqrt((double)n);
	if (!have_centre)
		centre = m;
	lo = centre - half;
	if (floor0 && lo < 0)
		lo = 0;
	print_value(prefix, "sd", 1, sd);
	print_value(prefix, "t", 1, t);
	print_value(prefix, "half", 1, half);
	print_value(prefix, "lo", 1, lo);
	print_value(prefix, "hi", 1, centre + half);
}

/* The nearest-rank percentile of the sorted numbers v[a..b], 0-based. */
static double
side_percentile(struct samples *s, size_t a, size_t b, double p)
{
	struct samples side = { s->v + a, b - a + 1, b - a + 1, 1 };

	return samples_percentile(&side, p);
}

/*
 * levels: whether the sorted numbers (ms) sit at two levels. Two levels:
 * the widest gap between neighbours is at least LEVELS_GAP_MS (the least
 * base time of sshd's padding, one step of which makes such levels), each
 * side holds at least 2 numbers, and the gap is more than twice the wider
 * side's spread (its p90 - p10). One slow number, or a long tail, is one
 * level. Prints levels=1 or 2, - with fewer than 4 numbers (not known),
 * then low_n, low_p50, high_n, high_p50 and step_ms (the two p50s apart):
 * with 2 their values, else empty, so that a run prints the same keys
 * whichever it found. Percentiles by nearest rank.
 */
#define LEVELS_GAP_MS 5.0
static void
print_levels(const char *prefix, const char *levels, size_t low_n,
    double low_p50, size_t high_n, double high_p50)
{
	int two = strcmp(levels, "2") == 0;

	printf("%slevels=%s\n", prefix, levels);
	if (two)
		printf("%slow_n=%zu\n%slow_p50=%.1f\n%shigh_n=%zu\n"
		    "%shigh_p50=%.1f\n%sstep_ms=%.1f\n", prefix, low_n,
		    prefix, low_p50, prefix, high_n, prefix, high_p50, prefix,
		    high_p50 - low_p50);
	else
		printf("%slow_n=\n%slow_p50=\n%shigh_n=\n%shigh_p50=\n"
		    "%sstep_ms=\n", prefix, prefix, prefix, prefix, prefix);
}

static void
levels(const char *prefix, struct samples *s)
{
	size_t n = s->n, i, k = 0;
	double g = 0, wide, w;

	if (n < 4) {
		print_levels(prefix, "-", 0, 0, 0, 0);
		return;
	}
	for (i = 0; i + 1 < n; i++)
		if (s->v[i + 1] - s->v[i] > g) {
			g = s->v[i + 1] - s->v[i];
			k = i;		/* the low side is v[0..k] */
		}
	if (g < LEVELS_GAP_MS || k + 1 < 2 || n - k - 1 < 2) {
		print_levels(prefix, "1", 0, 0, 0, 0);
		return;
	}
	wide = side_percentile(s, 0, k, 90) - side_percentile(s, 0, k, 10);
	w = side_percentile(s, k + 1, n - 1, 90) -
	    side_percentile(s, k + 1, n - 1, 10);
	if (w > wide)
		wide = w;
	if (g <= 2 * wide) {
		print_levels(prefix, "1", 0, 0, 0, 0);
		return;
	}
	print_levels(prefix, "2", k + 1, side_percentile(s, 0, k, 50),
	    n - k - 1, side_percentile(s, k + 1, n - 1, 50));
}

/*
 * The fewest samples whose interval of the q-quantile has both bounds:
 * the n at which quantile_ranks() first finds rank 1 below (l = 1) and
 * rank n above (u = n), by the same two sums it does.
 */
static long
plan_need(double q, double conf)
{
	double tail = (1 - conf) / 2;
	long n;

	for (n = 1;; n++)
		if (binom_cdf(0, n, q) <= tail &&
		    binom_cdf(n - 1, n, q) >= 1 - tail)
			return n;
}

/*
 * plan: the stages of a staged measurement, fixed before it starts:
 * BASE; then twice BASE, or need when that is more; then four times
 * BASE, the cap. Prints need= and stages= (the counts, blank-separated).
 */
static void
plan(const char *prefix, double conf, long base, double pct)
{
	long need = plan_need(pct / 100, conf), s2 = 2 * base;

	if (need > s2)
		s2 = need;
	if (s2 > 4 * base)
		s2 = 4 * base;
	printf("%sneed=%ld\n%sstages=%ld", prefix, need, prefix, base);
	if (s2 > base)
		printf(" %ld", s2);
	if (4 * base > s2)
		printf(" %ld", 4 * base);
	printf("\n");
}

/* One outcome of a distribution: its value and probability. */
struct outcome {
	double	value;
	double	p;
};

static int
cmp_outcome(const void *a, const void *b)
{
	return cmp_double(&((const struct outcome *)a)->value,
	    &((const struct outcome *)b)->value);
}

/*
 * distribution: reads "VALUE PROBABILITY" lines (blank lines skipped; a
 * probability from 0 to 1) and prints n, lo and hi: the value at which
 * the cumulative probability, in value order, first passes the lower
 * tail (1 - conf) / 2, and the one at which it first reaches 1 - tail;
 * empty when it never does (probabilities that sum to less).
 */
/* An outcome of a model: "VALUE PROBABILITY", a probability from 0 to 1. */
static int
outcome_ok(double value, double p)
{
	(void)value;
	return p >= 0 && p <= 1;
}

static void
distribution(const char *prefix, double conf, const char *path)
{
	struct samples vs = { 0 }, ps = { 0 };
	struct outcome *o;
	size_t n, i;
	double c = 0, tail = (1 - conf) / 2, lo = 0, hi = 0;
	int have_lo = 0, have_hi = 0;

	read_pairs(path, &vs, &ps, outcome_ok,
	    "\"VALUE PROBABILITY\", a probability from 0 to 1");
	n = vs.n;
	if ((o = calloc(n ? n : 1, sizeof(*o))) == NULL)
		err(2, NULL);
	for (i = 0; i < n; i++) {
		o[i].value = vs.v[i];
		o[i].p = ps.v[i];
	}
	free(vs.v);
	free(ps.v);
	qsort(o, n, sizeof(*o), cmp_outcome);
	for (i = 0; i < n; i++) {
		c += o[i].p;
		if (!have_lo && c > tail) {
			lo = o[i].value;
			have_lo = 1;
		}
		if (!have_hi && c >= 1 - tail) {
			hi = o[i].value;
			have_hi = 1;
		}
	}
	free(o);
	printf("%sn=%zu\n%sconfidence=%g\n", prefix, n, prefix, conf);
	print_value(prefix, "lo", have_lo, lo);
	print_value(prefix, "hi", have_hi, hi);
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-rank interval [-p prefix] [-c confidence] [file]\n"
	    "       sshperf-rank compare [-p prefix] [-c confidence] file_a "
	    "file_b\n"
	    "       sshperf-rank rate [-p prefix] [-c confidence] [file]\n"
	    "       sshperf-rank percentile [-p prefix] [-q p[,p...]] [file]\n"
	    "       sshperf-rank mean [-p prefix] [-c confidence] [-m centre] "
	    "[-z] [file]\n"
	    "       sshperf-rank levels [-p prefix] [file]\n"
	    "       sshperf-rank distribution [-p prefix] [-c confidence] "
	    "[file]\n"
	    "       sshperf-rank plan [-p prefix] [-c confidence] base pct\n"
	    "Reads numbers, one per line. interval: p50, p90, p95, p99 with "
	    "their\ndistribution-free interval (order statistics). compare: "
	    "Mann-Whitney U\ntest of b against a and the Hodges-Lehmann shift "
	    "b - a with its interval. rate: lines \"amount seconds\", one per part;\n"
	    "the whole's rate and its t interval (ratio estimator).\n"
	    "percentile: nearest-rank percentiles (the median unless -q). mean: "
	    "the\nmean, sd and t interval of the mean. levels: one level or two "
	    "(ms).\ndistribution: lines \"value probability\", the central "
	    "range.\nplan: the sample counts of the stages of a percentile's "
	    "measurement.\nConfidence 0.95 unless -c (0.5 to 0.999).\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	help_option(argc, argv, usage);
	const char *prefix = "", *mode, *qs = "50";
	double conf = 0.95, centre = 0;
	struct samples a, b;
	int ch, have_centre = 0, floor0 = 0;

	if (argc < 2)
		usage();
	mode = argv[1];
	argc--, argv++;
	while ((ch = getopt(argc, argv, "p:c:q:m:z")) != -1) {
		switch (ch) {
		case 'p':
			prefix = optarg;
			break;
		case 'c':
			conf = opt_double("-c", optarg, 0.5, 0.999);
			break;
		case 'q':
			qs = optarg;
			break;
		case 'm':
			centre = opt_double("-m", optarg, -1e300, 1e300);
			have_centre = 1;
			break;
		case 'z':
			floor0 = 1;
			break;
		default:
			usage();
		}
	}
	samples_init(&a);
	samples_init(&b);
	if (strcmp(mode, "interval") == 0 && argc - optind <= 1) {
		read_samples(optind < argc ? argv[optind] : NULL, &a);
		interval(prefix, conf, &a);
	} else if (strcmp(mode, "compare") == 0 && argc - optind == 2) {
		read_samples(argv[optind], &a);
		read_samples(argv[optind + 1], &b);
		compare(prefix, conf, &a, &b);
	} else if (strcmp(mode, "rate") == 0 && argc - optind <= 1) {
		read_parts(optind < argc ? argv[optind] : NULL, &a, &b);
		rate_interval(prefix, conf, &a, &b);
	} else if (strcmp(mode, "percentile") == 0 && argc - optind <= 1) {
		read_samples(optind < argc ? argv[optind] : NULL, &a);
		percentiles(prefix, qs, &a);
	} else if (strcmp(mode, "mean") == 0 && argc - optind <= 1) {
		read_samples(optind < argc ? argv[optind] : NULL, &a);
		mean_interval(prefix, conf, have_centre, centre, floor0, &a);
	} else if (strcmp(mode, "levels") == 0 && argc - optind <= 1) {
		read_samples(optind < argc ? argv[optind] : NULL, &a);
		levels(prefix, &a);
	} else if (strcmp(mode, "distribution") == 0 && argc - optind <= 1) {
		distribution(prefix, conf, optind < argc ? argv[optind] : NULL);
	} else if (strcmp(mode, "plan") == 0 && argc - optind == 2) {
		plan(prefix, conf, (long)opt_u64("BASE", argv[optind], 1,
		    1000000), opt_double("PCT", argv[optind + 1], 1, 99.9));
	} else
		usage();
	samples_free(&a);
	samples_free(&b);
	return 0;
}
