/* sshperf-seport: the SELinux port label ssh_port_t for the test port. */
#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <semanage/semanage.h>

#include "common.h"

#define SSH_PORT_TYPE "ssh_port_t"
#define PORT_MAX      65535

enum verb { VERB_QUERY, VERB_ADD, VERB_DELETE };

/* One connection to a policy store, and why the last call failed. */
struct seport {
	semanage_handle_t *sh;
	int connected;
	char why[512];          /* the failure, for main to print */
	char libmsg[256];       /* the first libsemanage error */
};

/* What labels a port: a local customisation or the policy. */
struct port_label {
	int local;              /* a local (semanage -a) entry exists */
	char type[128];         /* its type, or "none" */
};

/* Searching the policy's port list for the narrowest entry with a port. */
struct port_search {
	int port;
	int width;              /* high - low of the best match so far, -1 none */
	char type[128];
};

/*
 * Types that only say "some port in this range" rather than "this port
 * belongs to that service": a port labelled with one of them is free to take.
 */
static const char *const generic_types[] = {
	"port_t", "reserved_port_t", "hi_reserved_port_t", "unreserved_port_t",
	"ephemeral_port_t", NULL
};

/*
 * libsemanage's messages: errors are kept for the one line main prints,
 * warnings go to stderr, information is dropped.
 */
static void
library_message(void *arg, semanage_handle_t *sh, const char *fmt, ...)
{
	struct seport *sp = arg;
	char line[sizeof(sp->libmsg)];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	line[strcspn(line, "\n")] = '\0';
	switch (semanage_msg_get_level(sh)) {
	case SEMANAGE_MSG_ERR:
		if (sp->libmsg[0] == '\0')
			snprintf(sp->libmsg, sizeof(sp->libmsg), "%s", line);
		break;
	case SEMANAGE_MSG_WARN:
		fprintf(stderr, "%s: libsemanage: %s\n",
		    program_invocation_short_name, line);
		break;
	default:
		break;
	}
}

/*
 * Record why an operation failed (with libsemanage's own message, if it
 * gave one) and return the exit status to use.
 */
__attribute__((format(printf, 3, 4)))
static int
fail(struct seport *sp, int status, const char *fmt, ...)
{
	va_list ap;
	size_t len;

	va_start(ap, fmt);
	vsnprintf(sp->why, sizeof(sp->why), fmt, ap);
	va_end(ap);
	len = strlen(sp->why);
	if (sp->libmsg[0] != '\0' && len < sizeof(sp->why))
		snprintf(sp->why + len, sizeof(sp->why) - len, " (%s)",
		    sp->libmsg);
	return status;
}

/*
 * Open the store: ROOT (before the handle exists, as libsemanage wants),
 * STORE, then the checks semanage(8) makes; a transaction for writes.
 */
static int
store_open(struct seport *sp, const char *root, const char *store,
    int write)
{
	int access, managed;

	if (root != NULL && semanage_set_root(root) != 0)
		return fail(sp, 2, "cannot use %s as the policy root", root);
	if ((sp->sh = semanage_handle_create()) == NULL)
		return fail(sp, 2, "cannot create a libsemanage handle");
	semanage_msg_set_callback(sp->sh, library_message, sp);
	if (store != NULL)
		/* The prototype takes char *; the store name is not written. */
		semanage_select_store(sp->sh, (char *)store,
		    SEMANAGE_CON_DIRECT);

	managed = semanage_is_managed(sp->sh);
	if (managed < 0)
		return fail(sp, 2, "cannot tell whether the SELinux policy "
		    "store%s%s is managed", root ? " under " : "",
		    root ? root : "");
	if (managed == 0)
		return fail(sp, 2, "no SELinux policy store%s%s%s%s "
		    "(is a policy package installed?)",
		    store ? " named " : "", store ? store : "",
		    root ? " under " : "", root ? root : "");
	access = semanage_access_check(sp->sh);
	if (access < SEMANAGE_CAN_READ)
		return fail(sp, 2, "cannot read the SELinux policy store "
		    "(run as root)");
	if (write && access < SEMANAGE_CAN_WRITE)
		return fail(sp, 2, "cannot write the SELinux policy store "
		    "(run as root)");
	if (semanage_connect(sp->sh) < 0)
		return fail(sp, 2, "cannot connect to the SELinux policy store");
	sp->connected = 1;
	if (write && semanage_begin_transaction(sp->sh) < 0)
		return fail(sp, 1, "cannot start a transaction on the SELinux "
		    "policy store (is semanage running?)");
	return 0;
}

static void
store_close(struct seport *sp)
{
	if (sp->sh == NULL)
		return;
	if (sp->connected)
		semanage_disconnect(sp->sh);
	semanage_handle_destroy(sp->sh);
	sp->sh = NULL;
	sp->connected = 0;
}

static void
copy_type(char *dst, size_t size, const semanage_port_t *record)
{
	const char *type = semanage_context_get_type(
	    semanage_port_get_con(record));

	snprintf(dst, size, "%s", type ? type : "none");
}

/* Keep the narrowest TCP entry of the policy that holds the port. */
static int
narrowest_entry(const semanage_port_t *record, void *arg)
{
	struct port_search *search = arg;
	int low = semanage_port_get_low(record);
	int high = semanage_port_get_high(record);

	if (semanage_port_get_proto(record) != SEMANAGE_PROTO_TCP ||
	    search->port < low || search->port > high)
		return 0;
	if (search->width < 0 || high - low < search->width) {
		search->width = high - low;
		copy_type(search->type, sizeof(search->type), record);
	}
	return 0;
}

/*
 * The port's label: the local entry for exactly this port if there is
 * one, else the narrowest policy entry holding it (ranges included, as the
 * kernel takes the most specific portcon).
 */
static int
port_label_get(struct seport *sp, int port, const semanage_port_key_t *key,
    struct port_label *label)
{
	struct port_search search = { .port = port, .width = -1 };
	semanage_port_t *record;
	int exists;

	if (semanage_port_exists_local(sp->sh, key, &exists) < 0)
		return fail(sp, 1, "cannot check the local label of tcp "
		    "port %d", port);
	label->local = exists;
	if (exists) {
		if (semanage_port_query_local(sp->sh, key, &record) < 0)
			return fail(sp, 1, "cannot read the local label of "
			    "tcp port %d", port);
		copy_type(label->type, sizeof(label->type), record);
		semanage_port_free(record);
		return 0;
	}
	snprintf(search.type, sizeof(search.type), "none");
	if (semanage_port_iterate(sp->sh, narrowest_entry, &search) < 0)
		return fail(sp, 1, "cannot list the policy's port labels");
	snprintf(label->type, sizeof(label->type), "%s", search.type);
	return 0;
}

static int
is_generic_type(const char *type)
{
	size_t i;

	if (strcmp(type, "none") == 0)
		return 1;
	for (i = 0; generic_types[i] != NULL; i++)
		if (strcmp(type, generic_types[i]) == 0)
			return 1;
	return 0;
}

/* system_u:object_r:ssh_port_t, with s0 when the policy has MLS/MCS. */
static int
ssh_port_context(struct seport *sp, semanage_context_t **con)
{
	int mls;

	if ((mls = semanage_mls_enabled(sp->sh)) < 0)
		return fail(sp, 1, "cannot tell whether the policy uses MLS");
	if (semanage_context_create(sp->sh, con) < 0)
		return fail(sp, 1, "out of memory");
	if (semanage_context_set_user(sp->sh, *con, "system_u") < 0 ||
	    semanage_context_set_role(sp->sh, *con, "object_r") < 0 ||
	    semanage_context_set_type(sp->sh, *con, SSH_PORT_TYPE) < 0 ||
	    (mls && semanage_context_set_mls(sp->sh, *con, "s0") < 0))
		return fail(sp, 1, "cannot build the context for %s",
		    SSH_PORT_TYPE);
	return 0;
}

/* What `semanage port -a -t ssh_port_t -p tcp PORT` does, minus the CLI. */
static int
port_add(struct seport *sp, int port, const semanage_port_key_t *key,
    int *added)
{
	struct port_label label;
	semanage_context_t *con = NULL;
	semanage_port_t *record = NULL;
	int rc;

	*added = 0;
	if ((rc = port_label_get(sp, port, key, &label)) != 0)
		return rc;
	if (strcmp(label.type, SSH_PORT_TYPE) == 0)
		return 0;
	if (label.local)
		return fail(sp, 1, "port %d is already labelled %s by a local "
		    "customisation (semanage port -l -C); choose another "
		    "TEST_PORT", port, label.type);
	if (!is_generic_type(label.type))
		return fail(sp, 1, "port %d is already labelled %s by the "
		    "policy; choose another TEST_PORT", port, label.type);

	if ((rc = ssh_port_context(sp, &con)) != 0)
		goto out;
	if (semanage_port_create(sp->sh, &record) < 0) {
		rc = fail(sp, 1, "out of memory");
		goto out;
	}
	semanage_port_set_proto(record, SEMANAGE_PROTO_TCP);
	semanage_port_set_range(record, port, port);
	if (semanage_port_set_con(sp->sh, record, con) < 0 ||
	    semanage_port_modify_local(sp->sh, key, record) < 0) {
		rc = fail(sp, 1, "cannot add %s to tcp port %d",
		    SSH_PORT_TYPE, port);
		goto out;
	}
	if (semanage_commit(sp->sh) < 0) {
		rc = fail(sp, 1, "cannot commit %s for tcp port %d to the "
		    "policy store", SSH_PORT_TYPE, port);
		goto out;
	}
	*added = 1;
out:
	semanage_port_free(record);
	semanage_context_free(con);
	return rc;
}

/*
 * Remove the local ssh_port_t entry; a port without one, or whose local
 * entry has another type (not the kit's), is left alone.
 */
static int
port_delete(struct seport *sp, int port, const semanage_port_key_t *key,
    const char **reason)
{
	struct port_label label;
	int rc;

	*reason = NULL;
	if ((rc = port_label_get(sp, port, key, &label)) != 0)
		return rc;
	if (!label.local) {
		*reason = "not-local";
		return 0;
	}
	if (strcmp(label.type, SSH_PORT_TYPE) != 0) {
		*reason = "not-" SSH_PORT_TYPE;
		return 0;
	}
	if (semanage_port_del_local(sp->sh, key) < 0)
		return fail(sp, 1, "cannot remove the local label of tcp "
		    "port %d", port);
	if (semanage_commit(sp->sh) < 0)
		return fail(sp, 1, "cannot commit the removal of tcp port %d "
		    "to the policy store", port);
	return 0;
}

static int
run(struct seport *sp, enum verb verb, int port)
{
	semanage_port_key_t *key = NULL;
	struct port_label label;
	const char *reason;
	int added, rc;

	if (semanage_port_key_create(sp->sh, port, port, SEMANAGE_PROTO_TCP,
	    &key) < 0)
		return fail(sp, 1, "out of memory");
	switch (verb) {
	case VERB_QUERY:
		if ((rc = port_label_get(sp, port, key, &label)) == 0)
			printf("port=%d proto=tcp type=%s local=%s\n", port,
			    label.type, label.local ? "yes" : "no");
		break;
	case VERB_ADD:
		if ((rc = port_add(sp, port, key, &added)) == 0)
			printf(added ? "added=yes\n" :
			    "added=no reason=already-" SSH_PORT_TYPE "\n");
		break;
	case VERB_DELETE:
		if ((rc = port_delete(sp, port, key, &reason)) == 0) {
			if (reason == NULL)
				printf("deleted=yes\n");
			else
				printf("deleted=no reason=%s\n", reason);
		}
		break;
	}
	semanage_port_key_free(key);
	return rc;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: %s [-r root] [-s store] query|add|delete "
	    "port\n", program_invocation_short_name);
	exit(2);
}

/*
 * Query, add or delete the local SELinux label ssh_port_t of a TCP port,
 * through libsemanage, in the machine's store or in a store under -r ROOT
 * (a throwaway copy for tests).
 *
 *   query  -> port=N proto=tcp type=TYPE|none local=yes|no
 *   add    -> added=yes | added=no reason=already-ssh_port_t
 *   delete -> deleted=yes | deleted=no reason=not-local|not-ssh_port_t
 *
 * add refuses (exit 1) a port the policy or a local entry gives to
 * another service; exit 2 is a usage or setup error.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct seport sp = { 0 };
	char rootbuf[PATH_MAX];
	const char *root = NULL, *store = NULL, *verbname;
	enum verb verb;
	int ch, port, rc;

	opterr = 0;
	while ((ch = getopt(argc, argv, "r:s:")) != -1) {
		switch (ch) {
		case 'r':
			if (realpath(optarg, rootbuf) == NULL)
				err(2, "-r %s", optarg);
			root = rootbuf;
			break;
		case 's':
			if (*optarg == '\0' || strchr(optarg, '/') != NULL)
				errx(2, "-s: \"%s\" is not a store name",
				    optarg);
			store = optarg;
			break;
		default:
			if (optopt == 'r' || optopt == 's')
				errx(2, "-%c needs a value", optopt);
			errx(2, "unknown option -%c", optopt);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage();

	verbname = argv[0];
	if (strcmp(verbname, "query") == 0)
		verb = VERB_QUERY;
	else if (strcmp(verbname, "add") == 0)
		verb = VERB_ADD;
	else if (strcmp(verbname, "delete") == 0)
		verb = VERB_DELETE;
	else
		errx(2, "unknown command \"%s\" (use query, add or delete)",
		    verbname);
	port = (int)opt_u64("port", argv[1], 1, PORT_MAX);

	rc = store_open(&sp, root, store, verb != VERB_QUERY);
	if (rc == 0)
		rc = run(&sp, verb, port);
	store_close(&sp);
	if (rc != 0)
		errx(rc, "%s", sp.why);
	if (fflush(stdout) != 0)
		err(1, "stdout");
	return 0;
}
