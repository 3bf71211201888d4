/*
 * sshperf-selinux: SELinux mode, file labels, restorecon, the label check
 * against the kit's table (selinux/expectations.tsv) and the SELinux user
 * of an account, via libselinux.
 */
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <selinux/label.h>
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

/*
 * The type (third field) of a context "user:role:type[:level]", in buf;
 * "none" for NULL, the whole string when it has fewer fields.
 */
static const char *
context_type(const char *con, char *buf, size_t len)
{
	const char *p, *q;

	if (con == NULL)
		return "none";
	p = strchr(con, ':');
	if (p != NULL)
		p = strchr(p + 1, ':');
	if (p == NULL) {
		snprintf(buf, len, "%s", con);
		return buf;
	}
	p++;
	q = strchr(p, ':');
	snprintf(buf, len, "%.*s", q ? (int)(q - p) : (int)strlen(p), p);
	return buf;
}

/*
 * check PATH TYPE ...: for each pair the type the file has (its label;
 * "none" when it has none or does not exist), the type the policy's file
 * contexts give it (what restorecon sets; "none" when no entry matches,
 * "unknown" when the file contexts cannot be read) and the type the kit
 * needs. One line per pair; exit 1 when a file has another type than the
 * one needed. fc is a file_contexts file (its .homedirs, .local and
 * .subs_dist are read too), NULL for the host's own.
 */
static int
check_labels(const char *fc, char *const pairs[], int npairs)
{
	struct selinux_opt opt[] = { { SELABEL_OPT_PATH, fc } };
	struct selabel_handle *h;
	struct stat st;
	char *has, *pol, hbuf[256], pbuf[256];
	const char *htype, *ptype;
	int i, bad = 0;

	h = selabel_open(SELABEL_CTX_FILE, fc ? opt : NULL, fc ? 1 : 0);
	if (h == NULL && fc != NULL)
		err(2, "file contexts %s", fc);
	for (i = 0; i + 1 < npairs; i += 2) {
		const char *path = pairs[i], *want = pairs[i + 1];
		int exists = lstat(path, &st) == 0;

		has = exists ? file_context(path) : NULL;
		htype = context_type(has, hbuf, sizeof(hbuf));
		pol = NULL;
		if (h == NULL)
			ptype = "unknown";
		else if (selabel_lookup_raw(h, &pol, path,
		    exists ? st.st_mode : 0) == 0)
			ptype = context_type(pol, pbuf, sizeof(pbuf));
		else
			ptype = "none";
		printf("path=%s has=%s policy=%s want=%s ok=%s\n", path, htype,
		    ptype, want, strcmp(htype, want) == 0 ? "yes" : "no");
		if (strcmp(htype, want) != 0)
			bad = 1;
		freecon(has);
		freecon(pol);
	}
	if (h != NULL)
		selabel_close(h);
	return bad;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: %s mode | restorecon path ... | context path |"
	    " [-f file_contexts] check path type ... | seuser user\n",
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
 *   [-f FC] check P T ... -> path=P has=T policy=T want=T ok=yes|no, each
 *   seuser U        -> seuser=SEUSER level=LEVEL (the login mapping)
 *
 * A missing path is an error (exit 1) even when SELinux is off, so that a
 * wrong path shows on a machine without SELinux too (check reports it as
 * has=none instead: a file the kit expected and did not make is wrong).
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	const char *verb, *mode, *fc = NULL;
	char *con, *seuser, *level;
	int i, missing;

	if (argc >= 3 && strcmp(argv[1], "-f") == 0) {
		fc = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2)
		usage();
	verb = argv[1];
	if (fc != NULL && strcmp(verb, "check") != 0)
		errx(2, "-f goes with check only");

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
	} else if (strcmp(verb, "check") == 0) {
		if (argc < 4 || (argc - 2) % 2 != 0)
			errx(2, "check takes pairs: path type ...");
		missing = check_labels(fc, argv + 2, argc - 2);
		if (fflush(stdout) != 0)
			err(1, "stdout");
		return missing;
	} else if (strcmp(verb, "seuser") == 0) {
		if (argc != 3)
			errx(2, "seuser takes one user name");
		if (getseuserbyname(argv[2], &seuser, &level) != 0)
			err(1, "seuser: %s", argv[2]);
		printf("seuser=%s level=%s\n", seuser, level ? level : "-");
		free(seuser);
		free(level);
	} else {
		errx(2, "unknown command \"%s\" (use mode, restorecon, "
		    "context, check or seuser)", verb);
	}
	if (fflush(stdout) != 0)
		err(1, "stdout");
	return 0;
}
