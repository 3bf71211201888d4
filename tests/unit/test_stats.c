/* Unit tests of stats.c: nearest-rank percentiles, min, max, mean. TAP. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "tap.h"


static void
add_all(struct samples *s, const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (samples_add(s, v[i]) != 0) {
			perror("samples_add");
			exit(2);
		}
}

static void
test_one_to_hundred(void)
{
	struct samples s;
	int i;

	samples_init(&s);
	/* Added from 100 down to 1, so the module has to sort. */
	for (i = 100; i >= 1; i--)
		samples_add(&s, i);
	ok(s.n == 100, "1..100: n=100");
	ok(samples_percentile(&s, 50) == 50, "1..100: p50=50");
	ok(samples_percentile(&s, 90) == 90, "1..100: p90=90");
	ok(samples_percentile(&s, 95) == 95, "1..100: p95=95");
	ok(samples_percentile(&s, 99) == 99, "1..100: p99=99");
	ok(samples_percentile(&s, 100) == 100, "1..100: p100=100");
	ok(samples_percentile(&s, 0.5) == 1, "1..100: p0.5=1 (rank 1)");
	ok(samples_min(&s) == 1 && samples_max(&s) == 100,
	    "1..100: min=1 max=100");
	ok(samples_mean(&s) == 50.5, "1..100: mean=50.5");
	samples_free(&s);
	ok(s.n == 0 && s.v == NULL, "free leaves an empty set");
}

static void
test_small_sets(void)
{
	static const double unsorted[] = { 5, 1, 4, 2, 3 };
	struct samples s;

	samples_init(&s);
	samples_add(&s, 7.25);
	ok(samples_percentile(&s, 1) == 7.25 &&
	    samples_percentile(&s, 50) == 7.25 &&
	    samples_percentile(&s, 99) == 7.25 &&
	    samples_min(&s) == 7.25 && samples_max(&s) == 7.25 &&
	    samples_mean(&s) == 7.25, "1 sample: every statistic is it");
	samples_free(&s);

	samples_init(&s);
	add_all(&s, unsorted, 5);
	/* Nearest rank: ceil(p / 100 * n). */
	ok(samples_percentile(&s, 50) == 3, "unsorted 5,1,4,2,3: p50=3");
	ok(samples_percentile(&s, 20) == 1, "unsorted: p20=1 (rank 1)");
	ok(samples_percentile(&s, 21) == 2, "unsorted: p21=2 (rank 2)");
	ok(samples_percentile(&s, 80) == 4 && samples_percentile(&s, 81) == 5,
	    "unsorted: p80=4 p81=5");
	ok(samples_mean(&s) == 3, "unsorted: mean=3");
	samples_add(&s, 0);
	ok(samples_min(&s) == 0 && samples_max(&s) == 5,
	    "a sample added after a percentile is sorted in");
	samples_free(&s);

	samples_init(&s);
	samples_add(&s, -2);
	samples_add(&s, 2);
	ok(samples_mean(&s) == 0 && samples_percentile(&s, 50) == -2,
	    "negative values: mean 0, p50 -2");
	samples_free(&s);
}

static void
test_empty(void)
{
	struct samples s;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	samples_init(&s);
	ok(isnan(samples_percentile(&s, 50)), "empty: percentile is NAN");
	ok(isnan(samples_mean(&s)), "empty: mean is NAN");
	ok(isnan(samples_min(&s)) && isnan(samples_max(&s)),
	    "empty: min and max are NAN");
	if ((f = open_memstream(&buf, &size)) == NULL) {
		perror("open_memstream");
		exit(2);
	}
	samples_print(f, "x_", &s);
	fclose(f);
	ok(strcmp(buf, "x_n=0\n") == 0, "empty: print gives only n=0");
	free(buf);
	samples_free(&s);
}

static void
test_print(void)
{
	static const double v[] = { 3, 1, 2, 4 };
	struct samples s;
	char *buf = NULL;
	size_t size = 0;
	FILE *f;

	samples_init(&s);
	add_all(&s, v, 4);
	if ((f = open_memstream(&buf, &size)) == NULL) {
		perror("open_memstream");
		exit(2);
	}
	samples_print(f, "login_", &s);
	fclose(f);
	ok(strcmp(buf, "login_n=4\nlogin_min=1.000\nlogin_p50=2.000\n"
	    "login_p90=4.000\nlogin_p95=4.000\nlogin_p99=4.000\n"
	    "login_max=4.000\nlogin_mean=2.500\n") == 0,
	    "print: every statistic with the prefix");
	free(buf);
	samples_free(&s);
}

/* The one definition's ranks: ceil(p / 100 n), within 1 and n. */
static void
test_rank(void)
{
	static const struct { size_t n; double p; size_t rank; } want[] = {
		{ 1, 50, 1 }, { 2, 50, 1 }, { 4, 50, 2 }, { 5, 50, 3 },
		{ 30, 95, 29 }, { 30, 99, 30 }, { 100, 95, 95 }, { 7, 0, 1 },
		{ 7, 100, 7 }, { 10, 10, 1 }, { 10, 11, 2 },
	};
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ok(samples_rank(want[i].n, want[i].p) == want[i].rank,
		    "rank of p%g of %zu is %zu (got %zu)", want[i].p, want[i].n,
		    want[i].rank, samples_rank(want[i].n, want[i].p));
}

int
main(void)
{
	test_rank();
	test_one_to_hundred();
	test_small_sets();
	test_empty();
	test_print();
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
