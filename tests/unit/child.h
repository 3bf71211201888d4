/*
 * For the unit tests of a helper's main(): run it in a child and read
 * what it printed. child_output(fn, arg, &code) runs fn(arg) in a forked
 * child whose stdout is a pipe, and returns that output (a static buffer,
 * overwritten by the next call) with the child's exit status in *code
 * (when code is not NULL). out_value(out, key) is the number after
 * "key=" at the start of a line of out, or -1.
 */
#ifndef SSHPERF_CHILD_H
#define SSHPERF_CHILD_H

#include <sys/wait.h>

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *
child_output(int (*fn)(void *), void *arg, int *code)
{
	static char out[4096];
	int p[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	if (pipe(p) == -1)
		err(2, "pipe");
	fflush(stdout);
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		exit(fn(arg));
	}
	close(p[1]);
	while ((n = read(p[0], out + len, sizeof(out) - 1 - (size_t)len)) > 0)
		len += n;
	out[len] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	if (code != NULL)
		*code = WIFEXITED(status) ? WEXITSTATUS(status) :
		    128 + WTERMSIG(status);
	return out;
}

static double
out_value(const char *out, const char *key)
{
	char want[64];
	const char *p;

	snprintf(want, sizeof(want), "\n%s=", key);
	if (strncmp(out, want + 1, strlen(want + 1)) == 0)
		p = out + strlen(want + 1);
	else if ((p = strstr(out, want)) != NULL)
		p += strlen(want);
	else
		return -1;
	return strtod(p, NULL);
}

#endif
