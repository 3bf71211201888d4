/*
 * sshperf-settings: read settings.conf and the environment, check every value
 * against lib/settings.schema, and print the result as shell assignments.
 */
#include <ctype.h>
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "common.h"

#define MAX_SETTINGS	128
#define MAX_LINE	1024

enum kind { K_INT, K_NUM, K_PORT, K_USER, K_MAXSTARTUPS, K_INTLIST, K_ENUM,
	K_DIR, K_CIPHERS, K_PREFIX, K_SSHDOPTS, K_INSTANCE, K_NUMLIST, K_OPTNUM,
	K_NET4, K_LISTENADDR, K_HOSTS };

struct setting {
	char		*name;
	enum kind	 kind;
	double		 min, max;
	char		*words;		/* K_ENUM: "a|b|c" */
	char		*value;		/* NULL until set */
	const char	*from;		/* "file" or "environment" */
	int		 line;
};

struct settings {
	struct setting	 s[MAX_SETTINGS];
	size_t		 n;
	const char	*file;
};

static struct setting *
find(struct settings *all, const char *name)
{
	size_t i;

	for (i = 0; i < all->n; i++)
		if (strcmp(all->s[i].name, name) == 0)
			return &all->s[i];
	return NULL;
}

static char *
trim(char *p)
{
	char *e;

	while (isspace((unsigned char)*p))
		p++;
	e = p + strlen(p);
	while (e > p && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return p;
}

/* Reads the schema; a broken schema is the kit's bug, exit 2. */
static void
read_schema(struct settings *all, const char *path)
{
	char buf[MAX_LINE], *p, *name, *kind, *a1, *a2;
	struct setting *s;
	const char *errstr;
	FILE *f;
	int line = 0;

	if ((f = fopen(path, "re")) == NULL)
		err(2, "%s", path);
	while (fgets(buf, sizeof(buf), f) != NULL) {
		line++;
		p = trim(buf);
		if (*p == '\0' || *p == '#')
			continue;
		name = strtok(p, " \t");
		kind = strtok(NULL, " \t");
		a1 = strtok(NULL, " \t");
		a2 = strtok(NULL, " \t");
		if (kind == NULL || all->n == MAX_SETTINGS)
			errx(2, "%s line %d: broken schema line", path, line);
		s = &all->s[all->n++];
		memset(s, 0, sizeof(*s));
		if ((s->name = strdup(name)) == NULL)
			err(2, NULL);
		if (strcmp(kind, "int") == 0 || strcmp(kind, "num") == 0 ||
		    strcmp(kind, "intlist") == 0 || strcmp(kind, "numlist") == 0 ||
		    strcmp(kind, "optnum") == 0) {
			s->kind = strcmp(kind, "num") == 0 ? K_NUM :
			    strcmp(kind, "numlist") == 0 ? K_NUMLIST :
			    strcmp(kind, "optnum") == 0 ? K_OPTNUM :
			    strcmp(kind, "int") == 0 ? K_INT : K_INTLIST;
			if (parse_double(a1, 0, 1e18, &s->min, &errstr) != 0 ||
			    parse_double(a2, 0, 1e18, &s->max, &errstr) != 0)
				errx(2, "%s line %d: bad range", path, line);
		} else if (strcmp(kind, "port") == 0) {
			s->kind = K_PORT;
			s->min = 1024;
			s->max = 65535;
		} else if (strcmp(kind, "user") == 0)
			s->kind = K_USER;
		else if (strcmp(kind, "maxstartups") == 0)
			s->kind = K_MAXSTARTUPS;
		else if (strcmp(kind, "enum") == 0 && a1 != NULL) {
			s->kind = K_ENUM;
			if ((s->words = strdup(a1)) == NULL)
				err(2, NULL);
		} else if (strcmp(kind, "dir") == 0)
			s->kind = K_DIR;
		else if (strcmp(kind, "ciphers") == 0)
			s->kind = K_CIPHERS;
		else if (strcmp(kind, "prefix") == 0)
			s->kind = K_PREFIX;
		else if (strcmp(kind, "sshdopts") == 0)
			s->kind = K_SSHDOPTS;
		else if (strcmp(kind, "instance") == 0)
			s->kind = K_INSTANCE;
		else if (strcmp(kind, "net4") == 0)
			s->kind = K_NET4;
		else if (strcmp(kind, "listenaddr") == 0)
			s->kind = K_LISTENADDR;
		else if (strcmp(kind, "hosts") == 0)
			s->kind = K_HOSTS;
		else
			errx(2, "%s line %d: unknown kind %s", path, line, kind);
	}
	fclose(f);
}

/*
 * Reads NAME=value lines. Returns NULL when fine, else a message for
 * "<file> line N: <message>" in *line_out.
 */
static const char *
read_settings(struct settings *all, FILE *f, int *line_out, char *bad,
    size_t badlen)
{
	char buf[MAX_LINE], *p, *eq, *v, *e;
	struct setting *s;
	int line = 0;
	size_t len;

	while (fgets(buf, sizeof(buf), f) != NULL) {
		*line_out = ++line;
		len = strlen(buf);
		if (len == sizeof(buf) - 1 && buf[len - 1] != '\n')
			return "line too long";
		p = trim(buf);
		if (*p == '\0' || *p == '#')
			continue;
		snprintf(bad, badlen, "%s", p);
		if ((eq = strchr(p, '=')) == NULL)
			return "is not NAME=value";
		*eq = '\0';
		v = eq + 1;
		for (e = p; *e != '\0'; e++)
			if (!isupper((unsigned char)*e) && *e != '_' &&
			    !isdigit((unsigned char)*e))
				return "is not NAME=value (NAME is upper case, "
				    "no spaces around =)";
		if (*p == '\0')
			return "is not NAME=value";
		if ((s = find(all, p)) == NULL)
			return "names an unknown setting (the valid names are "
			    "in lib/settings.schema)";
		if (s->value != NULL)
			return "sets a setting a second time";
		if (*v == '"') {
			v++;
			if ((e = strchr(v, '"')) == NULL || e[1] != '\0')
				return "has a value with an unmatched or inner "
				    "double quote";
			*e = '\0';
		} else if (strpbrk(v, " \t\"'") != NULL)
			return "has a value with spaces or quotes: write it "
			    "in double quotes, without comments after it";
		if ((s->value = strdup(v)) == NULL)
			err(2, NULL);
		s->from = "file";
		s->line = line;
	}
	if (ferror(f))
		return "cannot be read";
	return NULL;
}

static int
is_whole(const char *v, double min, double max, uint64_t *out)
{
	const char *errstr;

	return parse_u64(v, (uint64_t)min, (uint64_t)max, out, &errstr) == 0;
}

/*
 * An IPv4 or IPv6 address, written as inet_pton reads it; *v6 says which.
 */
static int
is_addr(const char *v, int *v6, unsigned char *bytes)
{
	if (inet_pton(AF_INET, v, bytes) == 1) {
		*v6 = 0;
		return 1;
	}
	if (inet_pton(AF_INET6, v, bytes) == 1) {
		*v6 = 1;
		return 1;
	}
	return 0;
}

/*
 * One load host: an address, a network ADDR/N (IPv4 /24 to /32, IPv6
 * /120 to /128: at most 256 addresses, see settings.conf) with its host
 * part zero, or a host name (letters, digits, - and ., no - first).
 */
static int
is_load_host(const char *v)
{
	unsigned char b[16];
	char addr[64], *slash, *end;
	const char *p;
	long n;
	int v6, bits, i;

	if ((slash = strchr(v, '/')) != NULL) {
		if ((size_t)(slash - v) >= sizeof(addr))
			return 0;
		memcpy(addr, v, slash - v);
		addr[slash - v] = '\0';
		if (!is_addr(addr, &v6, b) || !isdigit((unsigned char)slash[1]))
			return 0;
		errno = 0;
		n = strtol(slash + 1, &end, 10);
		if (*end != '\0' || errno != 0)
			return 0;
		if (n < (v6 ? 120 : 24) || n > (v6 ? 128 : 32))
			return 0;
		bits = v6 ? 128 : 32;
		for (i = (int)n; i < bits; i++)
			if (b[i / 8] & (0x80 >> (i % 8)))
				return 0;
		return 1;
	}
	if (is_addr(v, &v6, b))
		return 1;
	if (v[0] == '-' || v[0] == '.' || strlen(v) > 253)
		return 0;
	for (p = v; *p != '\0'; p++)
		if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.')
			return 0;
	/* Digits and dots only: a mistyped address, not a name. */
	for (p = v; *p != '\0'; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return 1;
	return 0;
}

/* Returns NULL if the value is valid, else the allowed form. */
static const char *
check(const struct setting *s, char *form, size_t formlen)
{
	const char *v = s->value, *errstr, *p;
	uint64_t a, b, c, prev;
	double d;
	char *copy, *tok, *save;
	int ok, count;

	switch (s->kind) {
	case K_INT:
		snprintf(form, formlen, "a whole number from %.0f to %.0f",
		    s->min, s->max);
		return is_whole(v, s->min, s->max, &a) ? NULL : form;
	case K_NUM:
		snprintf(form, formlen, "a number from %.10g to %.10g", s->min,
		    s->max);
		return parse_double(v, s->min, s->max, &d, &errstr) == 0 ?
		    NULL : form;
	case K_PORT:
		snprintf(form, formlen, "a TCP port from 1024 to 65535 "
		    "(ports below 1024 are privileged)");
		return is_whole(v, 1024, 65535, &a) ? NULL : form;
	case K_USER:
		snprintf(form, formlen, "a user name of lower-case letters, "
		    "digits, _ and -, starting with a letter or _, at most 32 "
		    "characters, not root");
		if (strcmp(v, "root") == 0 || strlen(v) > 32 ||
		    !(islower((unsigned char)v[0]) || v[0] == '_'))
			return form;
		for (p = v; *p != '\0'; p++)
			if (!islower((unsigned char)*p) &&
			    !isdigit((unsigned char)*p) && *p != '_' &&
			    *p != '-')
				return form;
		return NULL;
	case K_MAXSTARTUPS:
		snprintf(form, formlen, "start:rate:full, three whole numbers "
		    "with start >= 1, rate 1-100 and full > start "
		    "(e.g. 10:30:100)");
		if ((copy = strdup(v)) == NULL)
			err(2, NULL);
		ok = 0;
		if (strchr(v, ':') != NULL && (tok = strtok_r(copy, ":",
		    &save)) != NULL && is_whole(tok, 1, 100000, &a) &&
		    (tok = strtok_r(NULL, ":", &save)) != NULL &&
		    is_whole(tok, 1, 100, &b) &&
		    (tok = strtok_r(NULL, ":", &save)) != NULL &&
		    is_whole(tok, 1, 100000, &c) &&
		    strtok_r(NULL, ":", &save) == NULL && c > a &&
		    strstr(v, "::") == NULL && v[strlen(v) - 1] != ':')
			ok = 1;
		free(copy);
		return ok ? NULL : form;
	case K_INTLIST:
		snprintf(form, formlen, "whole numbers from %.0f to %.0f, "
		    "rising, separated by spaces (e.g. \"5 10 20\")",
		    s->min, s->max);
		if ((copy = strdup(v)) == NULL)
			err(2, NULL);
		ok = 1;
		count = 0;
		prev = 0;
		for (tok = strtok_r(copy, " \t", &save); tok != NULL;
		    tok = strtok_r(NULL, " \t", &save)) {
			if (!is_whole(tok, s->min, s->max, &a) ||
			    (count > 0 && a <= prev))
				ok = 0;
			prev = a;
			count++;
		}
		free(copy);
		return ok && count > 0 ? NULL : form;
	case K_ENUM:
		snprintf(form, formlen, "one of %s", s->words);
		if ((copy = strdup(s->words)) == NULL)
			err(2, NULL);
		ok = 0;
		for (tok = strtok_r(copy, "|", &save); tok != NULL;
		    tok = strtok_r(NULL, "|", &save))
			if (strcmp(tok, v) == 0)
				ok = 1;
		free(copy);
		return ok ? NULL : form;
	case K_DIR:
		snprintf(form, formlen, "empty, or a path of letters, digits "
		    "and . _ - / + @ , :");
		for (p = v; *p != '\0'; p++)
			if (!isalnum((unsigned char)*p) &&
			    strchr("._-/+@,:", *p) == NULL)
				return form;
		return NULL;
	case K_PREFIX:
		snprintf(form, formlen, "empty (the system's OpenSSH), or the "
		    "absolute path of an OpenSSH installation prefix (letters, "
		    "digits and . _ - / + @ , :; no ..), e.g. /opt/openssh-9.9p1");
		if (v[0] == '\0')
			return NULL;
		if (v[0] != '/' || strstr(v, "/../") != NULL ||
		    (strlen(v) >= 3 && strcmp(v + strlen(v) - 3, "/..") == 0))
			return form;
		for (p = v; *p != '\0'; p++)
			if (!isalnum((unsigned char)*p) &&
			    strchr("._-/+@,:", *p) == NULL)
				return form;
		return NULL;
	case K_CIPHERS:
		snprintf(form, formlen, "empty (every allowed cipher), or "
		    "cipher names separated by spaces (see ssh -Q cipher)");
		for (p = v; *p != '\0'; p++)
			if (!islower((unsigned char)*p) &&
			    !isdigit((unsigned char)*p) &&
			    strchr("@.- ", *p) == NULL)
				return form;
		return NULL;
	case K_SSHDOPTS:
		/* start-ssh.sh checks each line with sshd -t; here only what
		 * the shell and the key=value files cannot carry. */
		snprintf(form, formlen, "empty, or sshd_config lines separated "
		    "by ; or newlines (e.g. \"UseDNS yes; MaxSessions 20\"), "
		    "without ' ` $ \\ or control characters");
		for (p = v; *p != '\0'; p++)
			if ((iscntrl((unsigned char)*p) && *p != '\n' &&
			    *p != '\t') || strchr("'`$\\", *p) != NULL ||
			    (unsigned char)*p >= 0x80)
				return form;
		return NULL;
	case K_NUMLIST:
		snprintf(form, formlen, "numbers from %.10g to %.10g, rising, "
		    "separated by spaces (e.g. \"0 1 20 50\")", s->min, s->max);
		if ((copy = strdup(v)) == NULL)
			err(2, NULL);
		ok = 1;
		count = 0;
		d = 0;
		for (tok = strtok_r(copy, " \t", &save); tok != NULL;
		    tok = strtok_r(NULL, " \t", &save)) {
			double prevd = d;

			if (parse_double(tok, s->min, s->max, &d, &errstr) != 0 ||
			    (count > 0 && d <= prevd))
				ok = 0;
			count++;
		}
		free(copy);
		return ok && count > 0 ? NULL : form;
	case K_OPTNUM:
		snprintf(form, formlen, "empty (none), or a number from %.10g "
		    "to %.10g", s->min, s->max);
		if (v[0] == '\0')
			return NULL;
		return parse_double(v, s->min, s->max, &d, &errstr) == 0 ?
		    NULL : form;
	case K_NET4:
		/* An IPv4 network of at least 256 addresses, written exactly. */
		snprintf(form, formlen, "an IPv4 network A.B.C.D/N with N from "
		    "8 to 24 and the host part zero (e.g. 198.18.0.0/24)");
		{
			unsigned int o[4], n;
			uint32_t addr;
			char tail;

			if (sscanf(v, "%3u.%3u.%3u.%3u/%2u%c", &o[0], &o[1], &o[2],
			    &o[3], &n, &tail) != 5 || o[0] > 255 || o[1] > 255 ||
			    o[2] > 255 || o[3] > 255 || n < 8 || n > 24 ||
			    !isdigit((unsigned char)v[0]))
				return form;
			addr = o[0] << 24 | o[1] << 16 | o[2] << 8 | o[3];
			if ((addr & ((1U << (32 - n)) - 1)) != 0)
				return form;
		}
		return NULL;
	case K_LISTENADDR:
		/* start-ssh.sh checks that this host has it (ip -o addr). */
		snprintf(form, formlen, "empty (127.0.0.1 only), or one IPv4 "
		    "or IPv6 address of this host's interfaces, written out, "
		    "neither a wildcard (0.0.0.0, ::, *) nor loopback "
		    "(127.0.0.1 is always there), e.g. 192.0.2.10");
		if (v[0] == '\0')
			return NULL;
		{
			static const unsigned char zero[16];
			unsigned char b[16];
			int v6;

			if (!is_addr(v, &v6, b) ||
			    memcmp(b, zero, v6 ? 16 : 4) == 0 ||
			    (!v6 && b[0] == 127) ||
			    (v6 && memcmp(b, zero, 15) == 0 && b[15] == 1) ||
			    (v6 && memcmp(b, zero, 10) == 0 && b[10] == 0xff &&
			    b[11] == 0xff))
				return form;
		}
		return NULL;
	case K_HOSTS:
		snprintf(form, formlen, "empty (none), or load hosts separated "
		    "by spaces: IPv4 or IPv6 addresses, host names, or "
		    "networks with at most 256 addresses (IPv4 /24 to /32, "
		    "IPv6 /120 to /128, host part zero), e.g. \"192.0.2.21 "
		    "load2.example.com 198.51.100.0/28\"");
		if ((copy = strdup(v)) == NULL)
			err(2, NULL);
		ok = 1;
		for (tok = strtok_r(copy, " \t", &save); tok != NULL;
		    tok = strtok_r(NULL, " \t", &save))
			if (!is_load_host(tok))
				ok = 0;
		free(copy);
		return ok ? NULL : form;
	case K_INSTANCE:
		/* It goes into file, unit, user and host alias names. */
		snprintf(form, formlen, "empty (the default instance), or a "
		    "name of 1 to 16 lower-case letters and digits, starting "
		    "with a letter (e.g. second)");
		if (v[0] == '\0')
			return NULL;
		if (strlen(v) > 16 || !islower((unsigned char)v[0]))
			return form;
		for (p = v; *p != '\0'; p++)
			if (!islower((unsigned char)*p) &&
			    !isdigit((unsigned char)*p))
				return form;
		return NULL;
	}
	return form;
}

static int
empty_allowed(const struct setting *s)
{
	return s->kind == K_DIR || s->kind == K_CIPHERS ||
	    s->kind == K_PREFIX ||
	    s->kind == K_SSHDOPTS || s->kind == K_INSTANCE ||
	    s->kind == K_OPTNUM || s->kind == K_LISTENADDR ||
	    s->kind == K_HOSTS;
}

/*
 * -k NAME: only that setting, from its line of the file (the other lines
 * are not read: a command that needs only this one, such as a cleanup,
 * works with a broken file) or the environment; a file that cannot be
 * read counts as one without the line.
 */
static int
one_setting(struct settings *all, const char *name)
{
	char buf[MAX_LINE], formbuf[256], *p, *e;
	const char *env, *form;
	struct setting *s;
	size_t len;
	FILE *f;
	int line = 0;

	if ((s = find(all, name)) == NULL)
		errx(2, "-k %s: no such setting in the schema", name);
	len = strlen(name);
	if ((f = fopen(all->file, "re")) != NULL) {
		while (s->value == NULL && fgets(buf, sizeof(buf), f) != NULL) {
			line++;
			p = trim(buf);
			if (strncmp(p, name, len) != 0 || p[len] != '=')
				continue;
			p += len + 1;
			if (*p == '"' && (e = strchr(p + 1, '"')) != NULL &&
			    e[1] == '\0') {
				p++;
				*e = '\0';
			}
			if ((s->value = strdup(p)) == NULL)
				err(2, NULL);
			s->from = "file";
			s->line = line;
		}
		fclose(f);
	}
	if ((env = getenv(name)) != NULL) {
		free(s->value);
		if ((s->value = strdup(env)) == NULL)
			err(2, NULL);
		s->from = "environment";
	}
	if (s->value == NULL) {
		if (!empty_allowed(s))
			errx(2, "setting %s is missing: add a line %s=... to "
			    "%s", name, name, all->file);
		if ((s->value = strdup("")) == NULL)
			err(2, NULL);
		s->from = "file";
	}
	form = check(s, formbuf, sizeof(formbuf));
	if (s->value[0] == '\0' && !empty_allowed(s))
		errx(2, "setting %s is empty; allowed: %s", name, form);
	if (form != NULL) {
		if (s->from[0] == 'f')
			errx(2, "setting %s=\"%s\" (%s line %d) is not valid; "
			    "allowed: %s", name, s->value, all->file, s->line,
			    form);
		errx(2, "setting %s=\"%s\" (from the environment) is not "
		    "valid; allowed: %s", name, s->value, form);
	}
	printf("%s='%s'\n", name, s->value);
	return 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: sshperf-settings -s schema -f settings.conf\n"
	    "       sshperf-settings -s schema -f settings.conf -k NAME\n"
	    "       sshperf-settings -s schema -l\n"
	    "Checks every setting (an environment variable of the same name "
	    "overrides the file)\nand prints NAME='value' lines for the "
	    "shell. -l prints, per setting of the schema,\nNAME, a tab and "
	    "its allowed form (the text of the error messages; the man\n"
	    "page sshd-perf-kit.conf(5) is made from it). -k prints only "
	    "the setting NAME\n(its line of the file or the environment; the "
	    "rest of the file is not read).\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	help_option(argc, argv, usage);
	struct settings all = { .n = 0 };
	const char *schema = NULL, *msg, *env, *form, *only = NULL;
	char bad[MAX_LINE], formbuf[256];
	struct setting *s;
	size_t i;
	char *p;
	FILE *f;
	int ch, line = 0, list = 0;

	while ((ch = getopt(argc, argv, "s:f:k:lh")) != -1) {
		switch (ch) {
		case 'k':
			only = optarg;
			break;
		case 's':
			schema = optarg;
			break;
		case 'l':
			list = 1;
			break;
		case 'f':
			all.file = optarg;
			break;
		default:
			usage();
		}
	}
	if (schema == NULL || optind != argc || (list == (all.file != NULL)))
		usage();
	read_schema(&all, schema);
	if (only != NULL) {
		if (list)
			usage();
		return one_setting(&all, only);
	}
	if (list) {
		/* check() writes the form whatever the value. */
		for (i = 0; i < all.n; i++) {
			s = &all.s[i];
			free(s->value);
			if ((s->value = strdup("")) == NULL)
				err(2, NULL);
			(void)check(s, formbuf, sizeof(formbuf));
			printf("%s\t%s%s\n", s->name, formbuf,
			    empty_allowed(s) ? "" : "; never empty");
		}
		return 0;
	}

	if ((f = fopen(all.file, "re")) == NULL)
		errx(2, "cannot read the settings file %s: %s; set "
		    "SETTINGS_FILE to a readable file", all.file,
		    strerror(errno));
	msg = read_settings(&all, f, &line, bad, sizeof(bad));
	fclose(f);
	if (msg != NULL)
		errx(2, "%s line %d: \"%s\" %s", all.file, line, bad, msg);

	for (i = 0; i < all.n; i++) {
		s = &all.s[i];
		if ((env = getenv(s->name)) != NULL) {
			free(s->value);
			if ((s->value = strdup(env)) == NULL)
				err(2, NULL);
			s->from = "environment";
		}
		if (s->value == NULL)
			errx(2, "setting %s is missing: add a line %s=... to "
			    "%s", s->name, s->name, all.file);
		form = check(s, formbuf, sizeof(formbuf));
		if (s->value[0] == '\0' && !empty_allowed(s))
			errx(2, "setting %s is empty (from the %s); allowed: "
			    "%s", s->name, s->from[0] == 'f' ? "settings file" :
			    "environment", form);
		if (form != NULL) {
			if (s->from[0] == 'f')
				errx(2, "setting %s=\"%s\" (%s line %d) is not "
				    "valid; allowed: %s", s->name, s->value,
				    all.file, s->line, form);
			errx(2, "setting %s=\"%s\" (from the environment) is "
			    "not valid; allowed: %s", s->name, s->value, form);
		}
	}
	for (i = 0; i < all.n; i++) {
		/* Lines of sshd options are kept on one line, ; between. */
		if (all.s[i].kind == K_SSHDOPTS)
			for (p = all.s[i].value; *p != '\0'; p++)
				if (*p == '\n')
					*p = ';';
		printf("%s='%s'\n", all.s[i].name, all.s[i].value);
	}
	printf("SETTINGS_FROM_ENV='");
	for (i = 0, ch = 0; i < all.n; i++)
		if (all.s[i].from[0] == 'e')
			printf("%s%s", ch++ ? " " : "", all.s[i].name);
	printf("'\n");
	return 0;
}
