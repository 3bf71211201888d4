/*
 * sshperf-ceiling: how fast one CPU core can encrypt with an SSH cipher's
 * algorithm through OpenSSL EVP, in-process, packet by packet: the upper
 * bound for one SSH connection, which encrypts on one core per side.
 */
#include <err.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "common.h"

#define DEFAULT_SECONDS		1.0
#define DEFAULT_BLOCK_BYTES	32768	/* OpenSSH's largest channel packet */
#define DEFAULT_MAC		"hmac-sha2-256-etm@openssh.com"
#define TAG_BYTES		16
#define MB			1000000.0	/* MB = 10^6 bytes */

enum kind {
	KIND_GCM,	/* AEAD: new nonce per packet, 4 bytes of AAD */
	KIND_CHACHA,	/* AEAD, see the note */
	KIND_STREAM	/* CTR or CBC, plus a separate MAC */
};

/* An SSH cipher and the OpenSSL algorithm that does its work. */
struct cipher_map {
	const char	*ssh;
	const char	*evp;		/* name for EVP_CIPHER_fetch */
	enum kind	 kind;
	const char	*note;
};

static const struct cipher_map ciphers[] = {
	{ "aes128-gcm@openssh.com", "AES-128-GCM", KIND_GCM, NULL },
	{ "aes256-gcm@openssh.com", "AES-256-GCM", KIND_GCM, NULL },
	{ "chacha20-poly1305@openssh.com", "ChaCha20-Poly1305", KIND_CHACHA,
	    "OpenSSH's chacha20-poly1305 is its own construction (a second "
	    "ChaCha20 key for the length); OpenSSL's RFC 8439 AEAD does the "
	    "same work per byte and is used as the approximation" },
	{ "aes128-ctr", "AES-128-CTR", KIND_STREAM, NULL },
	{ "aes192-ctr", "AES-192-CTR", KIND_STREAM, NULL },
	{ "aes256-ctr", "AES-256-CTR", KIND_STREAM, NULL },
	{ "aes128-cbc", "AES-128-CBC", KIND_STREAM, NULL },
	{ "aes192-cbc", "AES-192-CBC", KIND_STREAM, NULL },
	{ "aes256-cbc", "AES-256-CBC", KIND_STREAM, NULL },
	{ "rijndael-cbc@lysator.liu.se", "AES-256-CBC", KIND_STREAM, NULL },
	{ "3des-cbc", "DES-EDE3-CBC", KIND_STREAM, NULL },
};

/* An SSH MAC and its OpenSSL digest; NULL: OpenSSL has no such MAC. */
struct mac_map {
	const char	*ssh;
	const char	*digest;
};

static const struct mac_map macs[] = {
	{ "hmac-sha2-256", "SHA2-256" },
	{ "hmac-sha2-256-etm@openssh.com", "SHA2-256" },
	{ "hmac-sha2-512", "SHA2-512" },
	{ "hmac-sha2-512-etm@openssh.com", "SHA2-512" },
	{ "hmac-sha1", "SHA1" },
	{ "hmac-sha1-etm@openssh.com", "SHA1" },
	{ "hmac-sha1-96", "SHA1" },
	{ "hmac-sha1-96-etm@openssh.com", "SHA1" },
	{ "hmac-md5", "MD5" },
	{ "hmac-md5-etm@openssh.com", "MD5" },
	{ "hmac-md5-96", "MD5" },
	{ "hmac-md5-96-etm@openssh.com", "MD5" },
	{ "umac-64@openssh.com", NULL },
	{ "umac-64-etm@openssh.com", NULL },
	{ "umac-128@openssh.com", NULL },
	{ "umac-128-etm@openssh.com", NULL },
};

struct config {
	const struct cipher_map	*cipher;
	const struct mac_map	*mac;	/* NULL for the AEAD ciphers */
	const char		*mac_name;
	uint64_t		 duration_ns;
	size_t			 block_bytes;
};

/* What one timing gave. */
struct ceiling {
	int		 timed;		/* 0: OpenSSL could not do it */
	int		 mac_timed;
	uint64_t	 bytes;
	uint64_t	 elapsed_ns;
	char		 why[256];	/* when not timed */
};

static const struct cipher_map *
find_cipher(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(ciphers) / sizeof(ciphers[0]); i++)
		if (strcmp(ciphers[i].ssh, name) == 0)
			return &ciphers[i];
	return NULL;
}

static const struct mac_map *
find_mac(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(macs) / sizeof(macs[0]); i++)
		if (strcmp(macs[i].ssh, name) == 0)
			return &macs[i];
	return NULL;
}

static void
openssl_why(struct ceiling *c, const char *what)
{
	unsigned long e = ERR_get_error();

	snprintf(c->why, sizeof(c->why), "OpenSSL cannot %s: %s", what,
	    e ? ERR_reason_error_string(e) : "no reason given");
	ERR_clear_error();
}

/*
 * Encrypts block_bytes packets for duration_ns, as the sending side of an
 * SSH connection does: per packet a new nonce, the 4-byte length as AAD
 * and a 16-byte tag for the AEAD ciphers; a running CTR/CBC stream and an
 * HMAC over sequence number and ciphertext for the others (UMAC is not in
 * OpenSSL: then the MAC is left out and mac_timed is 0). Returns 0, or -1
 * with c->why set when OpenSSL cannot do it.
 */
static int
measure(const struct config *cf, struct ceiling *c)
{
	unsigned char key[64] = { 0 }, iv[16] = { 0 }, tag[EVP_MAX_MD_SIZE];
	unsigned char aad[4] = { 0, 0, 0x80, 0 }, seq[4] = { 0 };
	unsigned char *in = NULL, *out = NULL;
	EVP_CIPHER *evp = NULL;
	EVP_CIPHER_CTX *ctx = NULL;
	EVP_MAC *hmac = NULL;
	EVP_MAC_CTX *mctx = NULL;
	OSSL_PARAM params[2];
	uint64_t start_ns, now, counter = 0;
	size_t maclen;
	int outl, rc = -1, ivlen;

	memset(c, 0, sizeof(*c));
	if ((in = calloc(1, cf->block_bytes + 64)) == NULL ||
	    (out = calloc(1, cf->block_bytes + 64)) == NULL)
		err(2, "calloc");
	if ((evp = EVP_CIPHER_fetch(NULL, cf->cipher->evp, NULL)) == NULL) {
		openssl_why(c, "fetch the cipher");
		goto done;
	}
	if ((ctx = EVP_CIPHER_CTX_new()) == NULL)
		errx(2, "EVP_CIPHER_CTX_new failed");
	if (EVP_EncryptInit_ex2(ctx, evp, key, iv, NULL) != 1) {
		openssl_why(c, "set up the cipher");
		goto done;
	}
	ivlen = EVP_CIPHER_CTX_get_iv_length(ctx);
	if (ivlen < 4 || ivlen > (int)sizeof(iv))
		ivlen = 12;
	if (cf->cipher->kind == KIND_STREAM && cf->mac->digest != NULL) {
		if ((hmac = EVP_MAC_fetch(NULL, "HMAC", NULL)) == NULL ||
		    (mctx = EVP_MAC_CTX_new(hmac)) == NULL) {
			openssl_why(c, "fetch HMAC");
			goto done;
		}
		params[0] = OSSL_PARAM_construct_utf8_string(
		    OSSL_MAC_PARAM_DIGEST, (char *)cf->mac->digest, 0);
		params[1] = OSSL_PARAM_construct_end();
		if (EVP_MAC_init(mctx, key, 32, params) != 1) {
			openssl_why(c, "set up the MAC");
			goto done;
		}
		c->mac_timed = 1;
	} else if (cf->cipher->kind != KIND_STREAM)
		c->mac_timed = 1;	/* the AEAD's tag is its MAC */

	start_ns = now_ns();
	do {
		counter++;
		switch (cf->cipher->kind) {
		case KIND_GCM:
		case KIND_CHACHA:
			/* A new nonce per packet, as both SSH AEADs do. */
			memcpy(iv + ivlen - 4, &counter, 4);
			if (EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, iv) != 1 ||
			    EVP_EncryptUpdate(ctx, NULL, &outl, aad, 4) != 1 ||
			    EVP_EncryptUpdate(ctx, out, &outl, in,
			    (int)cf->block_bytes) != 1 ||
			    EVP_EncryptFinal_ex(ctx, out + outl, &outl) != 1 ||
			    EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG,
			    TAG_BYTES, tag) != 1) {
				openssl_why(c, "encrypt");
				goto done;
			}
			break;
		case KIND_STREAM:
			if (EVP_EncryptUpdate(ctx, out, &outl, in,
			    (int)cf->block_bytes) != 1) {
				openssl_why(c, "encrypt");
				goto done;
			}
			if (mctx == NULL)
				break;
			memcpy(seq, &counter, 4);
			if (EVP_MAC_init(mctx, NULL, 0, NULL) != 1 ||
			    EVP_MAC_update(mctx, seq, 4) != 1 ||
			    EVP_MAC_update(mctx, out, cf->block_bytes) != 1 ||
			    EVP_MAC_final(mctx, tag, &maclen, sizeof(tag)) != 1) {
				openssl_why(c, "compute the MAC");
				goto done;
			}
			break;
		}
		c->bytes += cf->block_bytes;
		now = now_ns();
	} while (now - start_ns < cf->duration_ns);
	c->elapsed_ns = now - start_ns;
	c->timed = 1;
	rc = 0;
done:
	EVP_MAC_CTX_free(mctx);
	EVP_MAC_free(hmac);
	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_free(evp);
	free(in);
	free(out);
	return rc;
}

static double
ceiling_mbs(const struct ceiling *c)
{
	return c->elapsed_ns ? (double)c->bytes / MB /
	    ((double)c->elapsed_ns / (double)NS_PER_S) : 0.0;
}

static void
print_result(const struct config *cf, const struct ceiling *c)
{
	const char *mac = cf->cipher->kind == KIND_STREAM ? cf->mac_name :
	    "aead";

	printf("status=%s\n", c->timed ? "ok" : "untimed");
	printf("cipher=%s\n", cf->cipher->ssh);
	printf("evp=%s\n", cf->cipher->evp);
	printf("mac=%s\n", mac);
	printf("mac_timed=%s\n", c->mac_timed ? "yes" : "no");
	printf("block_bytes=%zu\n", cf->block_bytes);
	if (c->timed) {
		printf("mbs=%.1f\n", ceiling_mbs(c));
		printf("bytes=%llu\n", (unsigned long long)c->bytes);
		printf("seconds=%.6f\n",
		    (double)c->elapsed_ns / (double)NS_PER_S);
	} else {
		printf("mbs=-\n");
		printf("note=%s\n", c->why);
		return;
	}
	if (!c->mac_timed)
		printf("note=%s is not in OpenSSL: the MAC was not timed, so "
		    "this is the cipher alone and too high\n", mac);
	else if (cf->cipher->note != NULL)
		printf("note=%s\n", cf->cipher->note);
}

static void
usage(void)
{
	fprintf(stderr, "usage: sshperf-ceiling [-b block_bytes] [-m mac] "
	    "[-s seconds] cipher\n");
	exit(2);
}

/*
 * Times one SSH cipher (an OpenSSH name such as aes128-gcm@openssh.com)
 * for -s seconds (default 1) on -b byte packets (default 32768) on one
 * core, and prints key=value lines: status (ok, untimed), cipher, evp,
 * mac (aead for AES-GCM and ChaCha20-Poly1305; for CTR/CBC the -m MAC,
 * default hmac-sha2-256-etm@openssh.com), mac_timed, block_bytes, mbs
 * (MB/s, MB = 10^6 bytes), bytes, seconds, note. Exit 0 timed, 1 OpenSSL
 * cannot do this algorithm here (e.g. FIPS mode), 2 unknown cipher or MAC,
 * or a usage error.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct config cf;
	struct ceiling c;
	double seconds = DEFAULT_SECONDS;
	int ch;

	memset(&cf, 0, sizeof(cf));
	cf.block_bytes = DEFAULT_BLOCK_BYTES;
	cf.mac_name = DEFAULT_MAC;
	while ((ch = getopt(argc, argv, "b:m:s:")) != -1) {
		switch (ch) {
		case 'b':
			/* A multiple of every block size (CBC needs it). */
			cf.block_bytes = (size_t)opt_u64("-b block_bytes",
			    optarg, 16, 1024 * 1024);
			if (cf.block_bytes % 16 != 0)
				errx(2, "-b block_bytes: %zu is not a multiple "
				    "of 16", cf.block_bytes);
			break;
		case 'm':
			cf.mac_name = optarg;
			break;
		case 's':
			seconds = opt_double("-s seconds", optarg, 0.01, 3600);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		usage();
	if ((cf.cipher = find_cipher(argv[0])) == NULL)
		errx(2, "unknown cipher \"%s\"; known: aes128-gcm@openssh.com, "
		    "aes256-gcm@openssh.com, chacha20-poly1305@openssh.com, "
		    "aes{128,192,256}-ctr, aes{128,192,256}-cbc, "
		    "rijndael-cbc@lysator.liu.se, 3des-cbc", argv[0]);
	if ((cf.mac = find_mac(cf.mac_name)) == NULL)
		errx(2, "-m: unknown MAC \"%s\"; known: hmac-sha2-256, "
		    "hmac-sha2-512, hmac-sha1, hmac-md5 (also -96 and "
		    "-etm@openssh.com), umac-64, umac-128", cf.mac_name);
	cf.duration_ns = (uint64_t)(seconds * (double)NS_PER_S);

	(void)measure(&cf, &c);
	print_result(&cf, &c);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "writing the result");
	return c.timed ? 0 : 1;
}
