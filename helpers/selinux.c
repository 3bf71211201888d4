/* sshperf-selinux: SELinux mode, file labels and restorecon via libselinux. */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <selinux/restorecon.h>
#include <selinux/selinux.h>

#include "common.h"

/* Labelling matters when SELinux is on, enforcing or permissive. */
static int
selinux_on(void)
{
	return is_selinux_enabled() > 0;
}

/* "enforcing", "permissive" or "disabled"; NULL when the kernel won't say. */
static const char *
selinux_mode(void)
{
	if (!selinux_on())
		return "disabled";
	switch (security_getenforce()) {
	case 1:
		return "enforcing";
	case 0:
		return "permissive";
	default:
		return NULL;
	}
}

/*
 * The file's context, or NULL with errno 0 when it has none (no label on
 * the file, or a file system without labels), or NULL with errno set.
 * The caller frees the result with freecon().
 */
static char *
file_context(const char *path)
{
	char *con;

	if (getfilecon(path, &con) >= 0) {
		errno = 0;
		return con;
	}
	if (errno == ENODATA || errno == ENOTSUP)
		errno = 0;
	return NULL;
}

/* Index of the first path that does not exist, or -1 when all do. */
static int
first_missing(char *const paths[], int npaths)
{
	struct stat st;
	int i;

	for (i = 0; i < npaths; i++)
		if (lstat(paths[i], &st) != 0)
			return i;
	return -1;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: %s mode | restorecon path ... | context path\n",
	    program_invocation_short_name);
	exit(2);
}

/*
 * Report the SELinux mode, reset file labels to the policy's defaults
 * (recursively, as `restorecon -R`), or print one file's label:
 *
 *   mode            -> mode=enforcing|permissive|disabled
 *   restorecon P... -> restorecon=done paths=N
 *                      | restorecon=skipped reason=selinux-disabled
 *   context P       -> context=CONTEXT|none
 *
 * A missing path is an error (exit 1) even when SELinux is off, so that a
 * wrong path shows on a machine without SELinux too.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	const char *verb, *mode;
	char *con;
	int i, missing;

	if (argc < 2)
		usage();
	verb = argv[1];

	if (strcmp(verb, "mode") == 0) {
		if (argc != 2)
			errx(2, "mode takes no arguments");
		if ((mode = selinux_mode()) == NULL)
			err(1, "security_getenforce");
		printf("mode=%s\n", mode);
	} else if (strcmp(verb, "restorecon") == 0) {
		if (argc < 3)
			errx(2, "restorecon needs at least one path");
		if ((missing = first_missing(argv + 2, argc - 2)) >= 0)
			err(1, "restorecon: %s", argv[2 + missing]);
		if (!selinux_on()) {
			printf("restorecon=skipped reason=selinux-disabled\n");
		} else {
			for (i = 2; i < argc; i++)
				if (selinux_restorecon(argv[i],
				    SELINUX_RESTORECON_RECURSE) != 0)
					err(1, "restorecon: %s", argv[i]);
			printf("restorecon=done paths=%d\n", argc - 2);
		}
	} else if (strcmp(verb, "context") == 0) {
		if (argc != 3)
			errx(2, "context takes one path");
		if ((con = file_context(argv[2])) == NULL && errno != 0)
			err(1, "context: %s", argv[2]);
		printf("context=%s\n", con ? con : "none");
		freecon(con);
	} else {
		errx(2, "unknown command \"%s\" (use mode, restorecon or "
		    "context)", verb);
	}
	if (fflush(stdout) != 0)
		err(1, "stdout");
	return 0;
}
