/* TAP output for the C unit tests: ok(cond, "what"), then return test_failed != 0. */
#ifndef SSHPERF_TAP_H
#define SSHPERF_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/*
 * tap_scratch(buf, size, name): the template "$TMPDIR/name.XXXXXX" (/tmp
 * when TMPDIR is unset or empty) for mkdtemp or mkstemp. make stress-unit
 * gives every run a TMPDIR of its own and removes it afterwards, so a
 * program killed at its deadline leaves nothing behind.
 */
static inline void
tap_scratch(char *buf, size_t size, const char *name)
{
	const char *t = getenv("TMPDIR");
	int n;

	if (t == NULL || *t == '\0')
		t = "/tmp";
	n = snprintf(buf, size, "%s/%s.XXXXXX", t, name);
	if (n < 0 || (size_t)n >= size) {
		fprintf(stderr, "TMPDIR=%s is too long for this test's scratch folder (%zu bytes at most); set a shorter TMPDIR\n", t, size - sizeof("/.XXXXXX") - strlen(name));
		exit(2);
	}
}

#endif
