/*
 * Unit tests of sshperf-hashcost: schemes and cost parameters by prefix,
 * and a timed check of a sha512crypt and a yescrypt setting made here
 * with crypt_gensalt(3), never with anyone's password. TAP.
 */
#define main hashcost_main
#include "../../helpers/hashcost.c"
#undef main

#include <grp.h>
#include <pwd.h>

#include "child.h"
#include "tap.h"

static void
scheme_is(const char *hash, const char *want, const char *want_params)
{
	char params[64];
	const char *got = scheme_of(hash, params, sizeof(params));

	ok(strcmp(got, want) == 0 && strcmp(params, want_params) == 0,
	    "%.12s...: %s %s (got %s %s)", hash, want, want_params, got, params);
}

struct args {
	uid_t uid;
	char *argv[4];
};

/* hashcost_main in the child, as the uid asked for. */
static int
hashcost_child(void *arg)
{
	struct args *a = arg;

	if (a->uid != (uid_t)-1 && (setgroups(0, NULL) == -1 ||
	    setgid((gid_t)a->uid) == -1 || setuid(a->uid) == -1))
		return 2;
	return hashcost_main(a->argv[2] == NULL ? 2 : 3, a->argv);
}

/* Runs hashcost_main with ARG1 ARG2 (ARG2 may be NULL), as UID when it
 * is not -1, and returns its output. */
static char *
run_as(uid_t uid, const char *arg1, const char *arg2)
{
	struct args a = { uid, { "sshperf-hashcost", (char *)arg1,
	    (char *)arg2, NULL } };

	return child_output(hashcost_child, &a, NULL);
}

/* Runs hashcost_main -s HASH and returns its output. */
static char *
run(const char *hash)
{
	return run_as((uid_t)-1, "-s", hash);
}

#define value out_value

int
main(void)
{
	char setting[CRYPT_GENSALT_OUTPUT_SIZE];

	scheme_is("$6$abcdefgh$xyz", "sha512crypt", "rounds=5000 (default)");
	scheme_is("$6$rounds=65536$abcdefgh$xyz", "sha512crypt", "rounds=65536");
	scheme_is("$5$abcdefgh$xyz", "sha256crypt", "rounds=5000 (default)");
	scheme_is("$y$j9T$abcdefgh$xyz", "yescrypt", "j9T");
	scheme_is("$2b$12$abcdefghijklmnopqrstuv", "bcrypt", "12");
	scheme_is("$1$abcdefgh$xyz", "md5crypt", "-");
	scheme_is("abcdefghijklm", "descrypt", "-");
	scheme_is("$9$what", "unknown", "-");

	if (crypt_gensalt_rn("$6$", 0, NULL, 0, setting, sizeof(setting)) == NULL)
		err(2, "crypt_gensalt sha512");
	ok(strstr(run(setting), "scheme=sha512crypt\n") != NULL &&
	    strstr(run(setting), "check_ms_n=21\n") != NULL,
	    "a sha512crypt setting: 21 timed checks");
	if (crypt_gensalt_rn("$y$", 0, NULL, 0, setting, sizeof(setting)) == NULL)
		err(2, "crypt_gensalt yescrypt");
	ok(strstr(run(setting), "scheme=yescrypt\n") != NULL &&
	    strstr(run(setting), "check_ms_p50=") != NULL,
	    "a yescrypt setting: a p50");
	{
		char *out = run(setting);
		double wall = value(out, "check_ms_p50");
		double cpu = value(out, "check_cpu_ms_p50");

		/* Each check's CPU interval lies inside its wall interval, so
		 * every order statistic of the CPU times is at most the wall
		 * one (two clocks: 1 % and 10 us of slack). */
		ok(value(out, "check_cpu_ms_n") == 21 && cpu > 0 &&
		    cpu <= wall * 1.01 + 0.01, "a yescrypt setting: CPU time "
		    "per check too, 21 of them, p50 %.3f ms at most the wall "
		    "p50 %.3f ms", cpu, wall);
	}
	ok(strstr(run("!$6$abcdefgh$xyz"), "scheme=sha512crypt") != NULL,
	    "a locked account's hash is still measured");
	ok(strstr(run("*"), "scheme=none\n") != NULL &&
	    strstr(run("*"), "check_ms") == NULL, "no password: no figure");
	ok(strstr(run("$9$what"), "check_ms") == NULL,
	    "an unknown scheme: no figure (crypt would take it as DES)");
	{
		char *out = run_as((uid_t)-1, "sshperf-no-such-user-x", NULL);

		ok(strstr(out, "readable=no\n") != NULL &&
		    strstr(out, "check_ms") == NULL && strstr(out, "scheme=") ==
		    NULL, "an account with no shadow entry: readable=no, no "
		    "scheme, no figure");
	}
	if (geteuid() == 0 && getpwnam("daemon") != NULL) {
		/* daemon's entry exists (in the files, not made up by
		 * nss-systemd as root's may be); an unprivileged reader may
		 * not read it. */
		char *out = run_as(65534, "daemon", NULL);

		ok(strstr(out, "user=daemon\nreadable=no\nreason=") != NULL &&
		    strstr(out, "check_ms") == NULL, "an existing account whose "
		    "hash it may not read: readable=no with the reason, no "
		    "figure (%.40s)", out);
	} else
		ok(1, "an unreadable existing account # SKIP needs root and "
		    "an account daemon");
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
