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
 *	shift B - A (the median of all differences) and its interval
 *	(Moses' ranks of the sorted differences).
 *   sshperf-rank rate [-p prefix] [-c conf] [FILE]
 *	a rate measured in parts (one transfer timed in chunks, files
 *	copied in batches): each line "AMOUNT SECONDS" is one part. The
 *	rate is sum(AMOUNT) / sum(SECONDS), the whole's; its interval is
 *	the Student t interval of the time per unit over the parts (the
 *	ratio estimator, k - 1 degrees of freedom), inverted into a rate.
 *
 * Input: one number per line ("-" and empty lines are skipped); two for
 * rate.
 * Output: key=value lines on stdout (docs/data.md, "sshperf-rank").
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
 * Reads the parts of a rate: "AMOUNT SECONDS" per line, both positive
 * (blank lines are skipped), into amount and secs in their order.
 */
static void
read_parts(const char *path, struct samples *amount, struct samples *secs)
{
	FILE *f = stdin;
	char *line = NULL, *end, *p;
	size_t cap = 0;
	double a, t;

	if (path != NULL && strcmp(path, "-") != 0 &&
	    (f = fopen(path, "re")) == NULL)
		err(2, "%s", path);
	while (getline(&line, &cap, f) >= 0) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[strspn(line, " \t")] == '\0')
			continue;
		errno = 0;
		a = strtod(line, &p);
		t = p != line ? strtod(p, &end) : 0;
		if (errno != 0 || p == line || end == p ||
		    end[strspn(end, " \t")] != '\0' || !isfinite(a) ||
		    !isfinite(t) || a <= 0 || t <= 0)
			errx(2, "%s: not \"AMOUNT SECONDS\", both above 0: %s",
			    path ? path : "stdin", line);
		if (samples_add(amount, a) != 0 || samples_add(secs, t) != 0)
			err(2, NULL);
	}
	free(line);
	if (f != stdin)
		fclose(f);
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
		print_value(prefix, key, n > 0, n > 0 ?
		    samples_percentile(s, pct[i]) : 0);
		snprintf(key, sizeof(key), "p%d_lo", pct[i]);
		print_value(prefix, key, lo > 0, lo > 0 ? s->v[lo - 1] : 0);
		snprintf(key, sizeof(key), "p%d_hi", pct[i]);
		print_value(prefix, key, hi > 0, hi > 0 ? s->v[hi - 1] : 0);
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
	shift = m % 2 ? d[m / 2] : (d[m / 2 - 1] + d[m / 2]) / 2;
	print_value(prefix, "shift", 1, shift);
	/* Moses: the C-th smallest and largest differences, 1-based. */
	c = m / 2.0 - z_two_sided(conf) * sqrt(na * nb * (na + nb + 1) / 12.0);
	lo = (long)floor(c);
	print_value(prefix, "shift_lo", lo >= 1, lo >= 1 ? d[lo - 1] : 0);
	print_value(prefix, "shift_hi", lo >= 1, lo >= 1 ? d[m - lo] : 0);
	free(d);
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-rank interval [-p prefix] [-c confidence] [file]\n"
	    "       sshperf-rank compare [-p prefix] [-c confidence] file_a "
	    "file_b\n"
	    "       sshperf-rank rate [-p prefix] [-c confidence] [file]\n"
	    "Reads numbers, one per line. interval: p50, p90, p95, p99 with "
	    "their\ndistribution-free interval (order statistics). compare: "
	    "Mann-Whitney U\ntest of b against a and the Hodges-Lehmann shift "
	    "b - a with its interval. rate: lines \"amount seconds\", one per part;\n"
	    "the whole's rate and its t interval (ratio estimator).\nConfidence 0.95 unless -c (0.5 to "
	    "0.999).\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	help_option(argc, argv, usage);
	const char *prefix = "", *mode;
	double conf = 0.95;
	struct samples a, b;
	int ch;

	if (argc < 2)
		usage();
	mode = argv[1];
	argc--, argv++;
	while ((ch = getopt(argc, argv, "p:c:")) != -1) {
		switch (ch) {
		case 'p':
			prefix = optarg;
			break;
		case 'c':
			conf = opt_double("-c", optarg, 0.5, 0.999);
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
	} else
		usage();
	samples_free(&a);
	samples_free(&b);
	return 0;
}
