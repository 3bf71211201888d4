/*
 * Unit tests of sshperf-hashcost: schemes and cost parameters by prefix,
 * and a timed check of a sha512crypt and a yescrypt setting made here
 * with crypt_gensalt(3), never with anyone's password. TAP.
 */
#define main hashcost_main
#include "../../helpers/hashcost.c"
#undef main

#include <sys/wait.h>

#include "tap.h"

static void
scheme_is(const char *hash, const char *want, const char *want_params)
{
	char params[64];
	const char *got = scheme_of(hash, params, sizeof(params));

	ok(strcmp(got, want) == 0 && strcmp(params, want_params) == 0,
	    "%.12s...: %s %s (got %s %s)", hash, want, want_params, got, params);
}

/* Runs hashcost_main -s HASH and returns its output. */
static char *
run(const char *hash)
{
	static char out[4096];
	char *argv[] = { "sshperf-hashcost", "-s", (char *)hash, NULL };
	int p[2], status;
	ssize_t n, len = 0;
	pid_t pid;

	if (pipe(p) == -1)
		err(2, "pipe");
	fflush(stdout);
	if ((pid = fork()) == 0) {
		dup2(p[1], 1);
		close(p[0]);
		exit(hashcost_main(3, argv));
	}
	close(p[1]);
	while ((n = read(p[0], out + len, sizeof(out) - 1 - (size_t)len)) > 0)
		len += n;
	out[len] = '\0';
	close(p[0]);
	waitpid(pid, &status, 0);
	return out;
}

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
	ok(strstr(run("!$6$abcdefgh$xyz"), "scheme=sha512crypt") != NULL,
	    "a locked account's hash is still measured");
	ok(strstr(run("*"), "scheme=none\n") != NULL &&
	    strstr(run("*"), "check_ms") == NULL, "no password: no figure");
	ok(strstr(run("$9$what"), "check_ms") == NULL,
	    "an unknown scheme: no figure (crypt would take it as DES)");
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
