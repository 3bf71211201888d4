/*
 * sshperf-hashcost: what one check of an account's password hash costs.
 * Reads the account's entry in the shadow database (or takes a hash with
 * -s), names its scheme and parameters, and times crypt(3) of a throwaway
 * phrase with that very setting (same scheme, cost and salt) -n times:
 * what pam_unix spends on every password login, without the password.
 * Each check is timed twice: on the monotonic clock (check_ms_*, what a
 * login waits, a busy CPU's waits included) and on this thread's CPU
 * clock (check_cpu_ms_*, the work alone). Prints key=value lines;
 * readable=no when the entry cannot be read.
 */
#include <crypt.h>
#include <err.h>
#include <errno.h>
#include <shadow.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "stats.h"

#define THROWAWAY	"sshperf-hashcost: not the password"

/* The scheme of a crypt(3) hash by its prefix, and its cost parameter. */
static const char *
scheme_of(const char *hash, char *params, size_t len)
{
	static const struct { const char *prefix, *name; } s[] = {
		{ "$y$", "yescrypt" }, { "$gy$", "gost-yescrypt" },
		{ "$7$", "scrypt" }, { "$2b$", "bcrypt" }, { "$2a$", "bcrypt" },
		{ "$2y$", "bcrypt" }, { "$6$", "sha512crypt" },
		{ "$5$", "sha256crypt" }, { "$1$", "md5crypt" },
	};
	const char *p;
	size_t i, n;

	snprintf(params, len, "-");
	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		n = strlen(s[i].prefix);
		if (strncmp(hash, s[i].prefix, n) != 0)
			continue;
		p = hash + n;
		if (strncmp(s[i].name, "sha", 3) == 0) {
			if (strncmp(p, "rounds=", 7) == 0)
				snprintf(params, len, "rounds=%.*s",
				    (int)strcspn(p + 7, "$"), p + 7);
			else
				snprintf(params, len, "rounds=5000 (default)");
		} else if (strcmp(s[i].name, "md5crypt") != 0)
			snprintf(params, len, "%.*s", (int)strcspn(p, "$"), p);
		return s[i].name;
	}
	if (strlen(hash) == 13)
		return "descrypt";
	return "unknown";
}

/* The CPU time this thread has used, in ns. */
static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == -1)
		err(2, "clock_gettime CLOCK_THREAD_CPUTIME_ID");
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static void
usage(void)
{
	fprintf(stderr, "usage: sshperf-hashcost [-n checks] user\n"
	    "       sshperf-hashcost [-n checks] -s hash\n"
	    "Times crypt(3) of a throwaway phrase with the account's own hash "
	    "setting\n(scheme, cost, salt), -n times (21, at least 20), and "
	    "prints the scheme,\nits parameters and the p50 of one check, "
	    "wall time and CPU time.\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	help_option(argc, argv, usage);
	const char *hash = NULL, *user = NULL, *scheme;
	char params[64];
	struct crypt_data *cd;
	struct samples s, cpu;
	struct spwd *sp;
	uint64_t n = 21, i, t0, c0;
	int ch;

	while ((ch = getopt(argc, argv, "n:s:")) != -1) {
		switch (ch) {
		case 'n':
			n = opt_u64("-n", optarg, 20, 1000);
			break;
		case 's':
			hash = optarg;
			break;
		default:
			usage();
		}
	}
	/* A user, or a hash with -s, never both. */
	if (argc - optind != (hash == NULL ? 1 : 0))
		usage();
	if (hash == NULL) {
		user = argv[optind];
		printf("user=%s\n", user);
		errno = 0;
		if ((sp = getspnam(user)) == NULL) {
			/* The files module may fail without an errno. */
			if (errno == 0 && access("/etc/shadow", R_OK) == -1)
				printf("readable=no\nreason=/etc/shadow: %s\n",
				    strerror(errno));
			else
				printf("readable=no\nreason=%s\n", errno != 0 ?
				    strerror(errno) : "no shadow entry");
			return 0;
		}
		hash = sp->sp_pwdp;
	}
	printf("readable=yes\n");
	/* A locked account keeps its hash after a "!". */
	while (*hash == '!')
		hash++;
	if (*hash == '\0' || *hash == '*') {
		printf("scheme=none\n");
		return 0;
	}
	scheme = scheme_of(hash, params, sizeof(params));
	printf("scheme=%s\nparams=%s\n", scheme, params);
	/* crypt(3) would take an unknown string as a DES salt: no figure. */
	if (strcmp(scheme, "unknown") == 0)
		return 0;
	if ((cd = calloc(1, sizeof(*cd))) == NULL)
		err(2, NULL);
	samples_init(&s);
	samples_init(&cpu);
	for (i = 0; i < n; i++) {
		t0 = now_ns();
		c0 = thread_cpu_ns();
		if (crypt_r(THROWAWAY, hash, cd) == NULL || cd->output[0] == '*')
			errx(1, "crypt(3) does not take this %s setting", scheme);
		if (samples_add(&cpu, ns_to_ms(thread_cpu_ns() - c0)) != 0 ||
		    samples_add(&s, ns_to_ms(now_ns() - t0)) != 0)
			err(2, NULL);
	}
	samples_print(stdout, "check_ms_", &s);
	samples_print(stdout, "check_cpu_ms_", &cpu);
	samples_free(&s);
	samples_free(&cpu);
	free(cd);
	return 0;
}
