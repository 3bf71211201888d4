/*
 * sshperf-passgen: print a random password drawn from OpenSSL's RNG,
 * for the test user. Letters and digits only, so it survives every shell
 * and PAM without quoting.
 */
#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "common.h"

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

static void
usage(void)
{
	fprintf(stderr, "usage: sshperf-passgen [-l length]\n"
	    "Prints a random password of length (20-128, default 32) "
	    "characters.\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	help_option(argc, argv, usage);
	unsigned char byte;
	uint64_t length = 32, i;
	int ch;

	while ((ch = getopt(argc, argv, "l:h")) != -1) {
		switch (ch) {
		case 'l':
			length = opt_u64("-l", optarg, 20, 128);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	for (i = 0; i < length; ) {
		if (RAND_bytes(&byte, 1) != 1)
			errx(1, "OpenSSL's random generator failed");
		/* Reject bytes that would bias the choice (62 * 4 = 248). */
		if (byte >= 248)
			continue;
		putchar(alphabet[byte % 62]);
		i++;
	}
	putchar('\n');
	return 0;
}
