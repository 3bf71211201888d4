/*
 * with_empty_path(1): PATH is one empty folder of the test's own, so a
 * program looked up by name is "not found" (ENOENT, exit 127) whatever
 * the caller's PATH holds; a PATH entry the caller may not search (root's
 * PATH kept by "su user", as in an unprivileged rpmbuild) would turn it
 * into "permission denied" (EACCES, 126). with_empty_path(0) puts the
 * caller's PATH back and removes the folder.
 */
#ifndef SSHPERF_EMPTYPATH_H
#define SSHPERF_EMPTYPATH_H

#include <err.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"

static void
with_empty_path(int on)
{
	static char dir[4096];
	static char *saved;
	const char *p;

	if (on) {
		p = getenv("PATH");
		if ((saved = strdup(p != NULL ? p : "")) == NULL)
			err(2, "strdup");
		tap_scratch(dir, sizeof(dir), "sshperf-empty-path");
		if (mkdtemp(dir) == NULL)
			err(2, "mkdtemp");
		if (setenv("PATH", dir, 1) == -1)
			err(2, "setenv");
		return;
	}
	if (setenv("PATH", saved, 1) == -1)
		err(2, "setenv");
	free(saved);
	saved = NULL;
	if (rmdir(dir) == -1)
		err(2, "rmdir %s", dir);
	strcpy(dir + strlen(dir) - 6, "XXXXXX");
}

#endif
