/*
 * Unit tests of sshperf-ceiling: a positive figure for every cipher the
 * kit knows (or a clear "untimed" where OpenSSL cannot do it here), the
 * MAC handling of CTR ciphers, and a clear refusal of an unknown cipher.
 * Prints TAP.
 */
#define main ceiling_main
#include "../../helpers/ceiling.c"
#undef main

#include "tap.h"
#include <sys/wait.h>
#include <fcntl.h>

static void
setup(struct config *cf, const char *cipher, const char *mac)
{
	memset(cf, 0, sizeof(*cf));
	cf->cipher = find_cipher(cipher);
	cf->mac_name = mac;
	cf->mac = find_mac(mac);
	cf->duration_ns = 20 * NS_PER_MS;
	cf->block_bytes = DEFAULT_BLOCK_BYTES;
}

static void
test_every_cipher(void)
{
	struct config cf;
	struct ceiling c;
	size_t i;

	for (i = 0; i < sizeof(ciphers) / sizeof(ciphers[0]); i++) {
		setup(&cf, ciphers[i].ssh, DEFAULT_MAC);
		if (measure(&cf, &c) != 0) {
			/* e.g. 3des-cbc under a FIPS provider: marked. */
			ok(!c.timed && strstr(c.why, "OpenSSL cannot") != NULL,
			    "%s: untimed, with the reason (%s)", ciphers[i].ssh,
			    c.why);
			continue;
		}
		ok(c.timed && c.bytes >= DEFAULT_BLOCK_BYTES &&
		    c.elapsed_ns >= cf.duration_ns && ceiling_mbs(&c) > 0 &&
		    c.mac_timed, "%s: %.0f MB/s (positive, MAC timed)",
		    ciphers[i].ssh, ceiling_mbs(&c));
	}
}

static void
test_macs(void)
{
	struct config cf;
	struct ceiling c;

	setup(&cf, "aes128-ctr", "umac-64-etm@openssh.com");
	ok(measure(&cf, &c) == 0 && c.timed && !c.mac_timed,
	    "aes128-ctr with UMAC: timed, marked as MAC not timed");
	setup(&cf, "aes128-ctr", "hmac-sha2-512-etm@openssh.com");
	ok(measure(&cf, &c) == 0 && c.mac_timed,
	    "aes128-ctr with hmac-sha2-512-etm: MAC timed");
	ok(find_mac("hmac-sha2-256-etm@openssh.com")->digest != NULL &&
	    find_mac("umac-128@openssh.com")->digest == NULL &&
	    find_mac("poly1305") == NULL, "MAC table: HMAC yes, UMAC no");
}

/* Runs the helper's main in a child; returns its exit status. */
static int
run_main(char *const argv[])
{
	pid_t pid;
	int st, argc = 0, devnull;

	while (argv[argc] != NULL)
		argc++;
	fflush(stdout);
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		if ((devnull = open("/dev/null", O_WRONLY)) != -1) {
			dup2(devnull, STDOUT_FILENO);
			dup2(devnull, STDERR_FILENO);
		}
		exit(ceiling_main(argc, (char **)argv));
	}
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void
test_refusals(void)
{
	char *unknown[] = { "sshperf-ceiling", "blowfish-cbc", NULL };
	char *badmac[] = { "sshperf-ceiling", "-m", "hmac-foo", "aes128-ctr",
	    NULL };
	char *badsec[] = { "sshperf-ceiling", "-s", "0", "aes128-ctr", NULL };
	char *good[] = { "sshperf-ceiling", "-s", "0.02",
	    "aes256-gcm@openssh.com", NULL };

	ok(find_cipher("blowfish-cbc") == NULL, "blowfish-cbc is unknown");
	ok(run_main(unknown) == 2, "an unknown cipher exits 2");
	ok(run_main(badmac) == 2, "an unknown MAC exits 2");
	ok(run_main(badsec) == 2, "-s 0 exits 2");
	ok(run_main(good) == 0, "a known cipher exits 0");
}

int
main(void)
{
	test_every_cipher();
	test_macs();
	test_refusals();
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
