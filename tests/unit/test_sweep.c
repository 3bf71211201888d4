/*
 * Unit tests of sshperf-sweep's completion rate (completion_rate): a
 * server that keeps up gives the offered rate whatever one slow login
 * does, one that falls behind gives its own, slower rate. Prints TAP.
 */
#define main sweep_main
#include "../../helpers/sweep.c"
#undef main

#include "tap.h"

#define N 20
#define MS (NS_PER_S / 1000)

static struct login step[N];

/*
 * Fills step[] with N logins offered at `rate` per second, each taking
 * `latency_ms`, or, with `service_ms` > 0, served one at a time in
 * `service_ms` each (a server that falls behind when it exceeds 1 / rate).
 */
static void
fill(double rate, double latency_ms, double service_ms)
{
	uint64_t i, free_at = 0;

	memset(step, 0, sizeof(step));
	for (i = 0; i < N; i++) {
		struct login *l = &step[i];

		l->due_ns = (uint64_t)((double)i * (double)NS_PER_S / rate);
		l->start_ns = l->due_ns;
		if (service_ms > 0) {
			uint64_t begin = l->due_ns > free_at ? l->due_ns : free_at;

			free_at = begin + (uint64_t)(service_ms * (double)MS);
			l->end_ns = free_at;
		} else
			l->end_ns = l->due_ns + (uint64_t)(latency_ms * (double)MS);
		l->ok = 1;
	}
}

static int
near(double got, double want, double tol)
{
	return got > want - tol && got < want + tol;
}

int
main(void)
{
	double r, span;

	fill(4, 120, 0);
	r = completion_rate(step, N);
	ok(near(r, 4.0, 0.01), "steady 120 ms logins at 4/s: %.3f per s", r);

	/* The case seen: the last of 20 took 612 ms. */
	step[N - 1].end_ns = step[N - 1].due_ns + 612 * MS;
	r = completion_rate(step, N);
	span = (double)(N - 1) /
	    ((double)(step[N - 1].end_ns - step[0].end_ns) / (double)NS_PER_S);
	ok(near(r, 4.0, 0.01) && span < 0.95 * 4,
	    "one slow last login: %.3f per s (the first-to-last span says %.3f)",
	    r, span);

	/*
	 * A slow first login too, and one in the middle: the first third's
	 * median moves by a fraction of a period (1 %), far from the 5 %
	 * that break a step.
	 */
	step[0].end_ns = step[0].due_ns + 700 * MS;
	step[N / 2].end_ns = step[N / 2].due_ns + 900 * MS;
	r = completion_rate(step, N);
	ok(near(r, 4.0, 0.08), "slow first, middle and last: %.3f per s", r);

	/* One at a time, 300 ms each, offered 4/s: it keeps 3.33/s. */
	fill(4, 0, 300);
	r = completion_rate(step, N);
	ok(near(r, 1000.0 / 300, 0.01), "a server that falls behind: %.3f per s, not 4", r);
	ok(r < 0.95 * 4, "... which is below 95 %% of the offered rate");

	/* Failed logins do not count; under 6 ok: the first-to-last span. */
	fill(4, 120, 0);
	for (int i = 0; i < N; i++)
		step[i].ok = i < 5;
	r = completion_rate(step, N);
	ok(near(r, 4.0, 0.01), "5 ok logins: the span, %.3f per s", r);
	step[1].ok = step[2].ok = step[3].ok = step[4].ok = 0;
	ok(completion_rate(step, N) == 0, "one ok login: no rate");
	ok(completion_rate(step, 0) == 0, "no logins: no rate");
	return test_failed != 0;
}
