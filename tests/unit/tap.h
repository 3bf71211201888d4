/* TAP output for the C unit tests: ok(cond, "what"), then return test_failed != 0. */
#ifndef SSHPERF_TAP_H
#define SSHPERF_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int test_num, test_failed;

static void __attribute__((format(printf, 2, 3)))
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", cond ? "" : "not ", ++test_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		test_failed++;
}

#endif
