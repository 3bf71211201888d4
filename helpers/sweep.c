/*
 * sshperf-sweep: offers logins at a fixed rate (open loop) for a time and
 * records each one. Login k is due at t0 + k / rate, whether or not the
 * earlier ones have ended; its latency is counted from that due time, so
 * a server (or a driver) that falls behind shows as growing latency and
 * an achieved rate below the offered one, not as a quietly lower offer.
 *
 * Two drivers:
 *   libssh (default): the complete login that `ssh host true` does, in
 *     this process: key exchange with the algorithms given (-x, -C, -m,
 *     -H: what the system's ssh would offer), host key check against the
 *     pinned known_hosts file, public key authentication, exec "true",
 *     its exit status, close. Each of -c threads does one login at a time.
 *   command (after --): runs the command (typically ssh host true) for
 *     each login; a login is ok when it exits 0.
 */
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh/libssh.h>

#include "common.h"
#include "proc.h"

#define MAX_THREADS	256
#define MAX_LOGINS	1000000
#define ERR_BYTES	200
#define ALGO_BYTES	64

struct config {
	double		 rate;		/* -r logins per second offered */
	uint64_t	 duration_ns;	/* -d */
	uint64_t	 threads;	/* -c logins in flight at most */
	uint64_t	 timeout_ns;	/* -t */
	uint64_t	 give_up;	/* -g: no-answer logins in a row */
	const char	*tsv;		/* -o */
	const char	*host, *user, *key_path, *known_hosts;
	unsigned int	 port;
	const char	*kex, *ciphers, *macs, *hostkeys;
	const char	*bind_addr;	/* -b: the source address, or NULL */
	char		**argv;		/* command driver */
};

struct login {
	uint64_t	 due_ns, start_ns, end_ns;
	int		 done;
	int		 ok;
	int		 exit_status;
	char		 error[ERR_BYTES];
};

/* What the first ok login negotiated. */
struct negotiated {
	pthread_mutex_t	 lock;
	int		 have;
	char		 kex[ALGO_BYTES], cipher[ALGO_BYTES], mac[ALGO_BYTES];
	char		 hostkey[ALGO_BYTES];
};

static struct config cf;
static struct login *logins;
static uint64_t n_logins, t0_ns;
static atomic_uint_fast64_t next_login;
/* Logins in a row that got no answer within the timeout (the K rule). */
static atomic_uint_fast64_t no_answer_run;
static struct negotiated nego = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void
set_error(struct login *l, const char *what, const char *detail)
{
	size_t i;

	snprintf(l->error, sizeof(l->error), "%s%s%s", what,
	    detail != NULL ? ": " : "", detail != NULL ? detail : "");
	for (i = 0; l->error[i] != '\0'; i++)
		if ((unsigned char)l->error[i] < ' ')
			l->error[i] = ' ';
}

static void
copy_algo(char *dst, const char *src)
{
	snprintf(dst, ALGO_BYTES, "%s", src != NULL ? src : "-");
}

/* One complete login with libssh; the login's result in l. */
static void
libssh_login(struct login *l, ssh_key key)
{
	ssh_session s;
	ssh_channel ch = NULL;
	long timeout_s = (long)(cf.timeout_ns / NS_PER_S) + 1;
	int no = 0, rc, status;
	char buf[256];
	uint64_t deadline_ns = l->start_ns + cf.timeout_ns;

	if ((s = ssh_new()) == NULL) {
		set_error(l, "ssh_new failed", NULL);
		return;
	}
	/* Only the options given: the algorithms come from `ssh -G`. */
	if (ssh_options_set(s, SSH_OPTIONS_PROCESS_CONFIG, &no) != 0 ||
	    ssh_options_set(s, SSH_OPTIONS_HOST, cf.host) != 0 ||
	    ssh_options_set(s, SSH_OPTIONS_PORT, &cf.port) != 0 ||
	    ssh_options_set(s, SSH_OPTIONS_USER, cf.user) != 0 ||
	    ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, cf.known_hosts) != 0 ||
	    ssh_options_set(s, SSH_OPTIONS_GLOBAL_KNOWNHOSTS,
	    "/dev/null") != 0 ||
	    ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout_s) != 0 ||
	    (cf.kex != NULL &&
	    ssh_options_set(s, SSH_OPTIONS_KEY_EXCHANGE, cf.kex) != 0) ||
	    (cf.ciphers != NULL &&
	    (ssh_options_set(s, SSH_OPTIONS_CIPHERS_C_S, cf.ciphers) != 0 ||
	    ssh_options_set(s, SSH_OPTIONS_CIPHERS_S_C, cf.ciphers) != 0)) ||
	    (cf.macs != NULL &&
	    (ssh_options_set(s, SSH_OPTIONS_HMAC_C_S, cf.macs) != 0 ||
	    ssh_options_set(s, SSH_OPTIONS_HMAC_S_C, cf.macs) != 0)) ||
	    (cf.hostkeys != NULL &&
	    ssh_options_set(s, SSH_OPTIONS_HOSTKEYS, cf.hostkeys) != 0) ||
	    (cf.bind_addr != NULL &&
	    ssh_options_set(s, SSH_OPTIONS_BINDADDR, cf.bind_addr) != 0)) {
		set_error(l, "setting libssh options", ssh_get_error(s));
		goto out;
	}
	if (ssh_connect(s) != SSH_OK) {
		set_error(l, "connect", ssh_get_error(s));
		goto out;
	}
	if (ssh_session_is_known_server(s) != SSH_KNOWN_HOSTS_OK) {
		set_error(l, "host key not accepted by the pinned known_hosts",
		    cf.known_hosts);
		goto out;
	}
	if ((rc = ssh_userauth_publickey(s, NULL, key)) != SSH_AUTH_SUCCESS) {
		set_error(l, "public key authentication failed",
		    ssh_get_error(s));
		goto out;
	}
	if ((ch = ssh_channel_new(s)) == NULL ||
	    ssh_channel_open_session(ch) != SSH_OK ||
	    ssh_channel_request_exec(ch, "true") != SSH_OK) {
		set_error(l, "opening the session (exec true)",
		    ssh_get_error(s));
		goto out;
	}
	/* Until the server closes the channel; "true" prints nothing. */
	for (;;) {
		if (now_ns() >= deadline_ns) {
			set_error(l, "no answer within the timeout", NULL);
			goto out;
		}
		rc = ssh_channel_read_timeout(ch, buf, sizeof(buf), 0, 1000);
		if (rc == SSH_ERROR) {
			set_error(l, "reading the session", ssh_get_error(s));
			goto out;
		}
		if (rc == 0 && ssh_channel_is_eof(ch))
			break;
	}
	status = ssh_channel_get_exit_status(ch);
	l->exit_status = status;
	if (status != 0) {
		snprintf(buf, sizeof(buf), "%d", status);
		set_error(l, "true exited with status", buf);
		goto out;
	}
	ssh_channel_close(ch);
	l->ok = 1;
	pthread_mutex_lock(&nego.lock);
	if (!nego.have) {
		nego.have = 1;
		copy_algo(nego.kex, ssh_get_kex_algo(s));
		copy_algo(nego.cipher, ssh_get_cipher_out(s));
		copy_algo(nego.mac, ssh_get_hmac_out(s));
		{
			ssh_key pub = NULL;
			if (ssh_get_server_publickey(s, &pub) == SSH_OK) {
				copy_algo(nego.hostkey, ssh_key_type_to_char(
				    ssh_key_type(pub)));
				ssh_key_free(pub);
			} else
				copy_algo(nego.hostkey, NULL);
		}
	}
	pthread_mutex_unlock(&nego.lock);
out:
	if (ch != NULL)
		ssh_channel_free(ch);
	ssh_disconnect(s);
	ssh_free(s);
}

/* One login by running the command; ok when it exits 0. */
static void
command_login(struct login *l)
{
	pid_t pid;
	int r, wstatus;
	uint64_t deadline_ns = l->start_ns + cf.timeout_ns;

	r = proc_spawn(&pid, cf.argv, PROC_DEVNULL, PROC_DEVNULL, PROC_DEVNULL,
	    NULL, NULL);
	if (r != 0) {
		set_error(l, "cannot run the command", strerror(r));
		return;
	}
	/* Wait for the end so that the timeout holds without a signal. */
	if (!proc_wait_until(pid, deadline_ns, &wstatus, NULL)) {
		proc_kill(pid, &wstatus, NULL);
		set_error(l, "no answer within the timeout", NULL);
		return;
	}
	l->exit_status = exit_code_of(wstatus);
	if (l->exit_status == 0)
		l->ok = 1;
	else {
		char code[16];
		snprintf(code, sizeof(code), "%d", l->exit_status);
		set_error(l, "the command exited with status", code);
	}
}

static void *
worker(void *arg)
{
	ssh_key key = NULL;
	uint64_t k;

	(void)arg;
	if (cf.argv == NULL && ssh_pki_import_privkey_file(cf.key_path, NULL,
	    NULL, NULL, &key) != SSH_OK)
		errx(2, "-i %s: cannot read the private key", cf.key_path);
	while ((k = atomic_fetch_add(&next_login, 1)) < n_logins) {
		struct login *l = &logins[k];

		sleep_until_ns(l->due_ns);
		l->start_ns = now_ns();
		if (cf.give_up > 0 &&
		    atomic_load(&no_answer_run) >= cf.give_up) {
			/* The server does not answer: no more waiting. */
			set_error(l, "not run: the logins before it got no "
			    "answer within the timeout", NULL);
			l->end_ns = l->start_ns;
			l->done = 1;
			continue;
		}
		if (cf.argv != NULL)
			command_login(l);
		else
			libssh_login(l, key);
		l->end_ns = now_ns();
		l->done = 1;
		if (l->ok)
			atomic_store(&no_answer_run, 0);
		else if (l->end_ns - l->start_ns >= cf.timeout_ns)
			atomic_fetch_add(&no_answer_run, 1);
	}
	ssh_key_free(key);
	return NULL;
}

/* Busy and total jiffies of the machine (/proc/stat "cpu" line). */
static void
machine_cpu(uint64_t *busy, uint64_t *total)
{
	unsigned long long v[8] = { 0 };
	FILE *f;
	int n, i;

	*busy = *total = 0;
	if ((f = fopen("/proc/stat", "re")) == NULL)
		err(2, "/proc/stat");
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
	    &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	fclose(f);
	if (n < 4)
		errx(2, "/proc/stat: no cpu line");
	for (i = 0; i < n; i++)
		*total += v[i];
	*busy = *total - v[3] - (n > 4 ? v[4] : 0);
}

static uint64_t
tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * NS_PER_S + (uint64_t)tv.tv_usec * 1000;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-sweep -r logins_per_s -d seconds [-c threads] "
	    "[-t timeout_s] [-g K] -o logins.tsv\n"
	    "           -h host -p port -u user -i key -k known_hosts\n"
	    "           [-x kex] [-C ciphers] [-m macs] [-H hostkey_algorithms]"
	    " [-b source]\n"
	    "       sshperf-sweep -r logins_per_s -d seconds [-c threads] "
	    "[-t timeout_s] [-g K] -o logins.tsv -- command [arg ...]\n");
	exit(2);
}

/* Orders end times (qsort). */
static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The middle of v[0..n-1], n > 0, as a position on the time axis (the mean
 * of the two middle ones for an even n); sorts v. Not a figure the kit
 * reports, and so not its percentile (stats.c): completion_rate() needs a
 * middle that one slow login moves by half a period at most, where the
 * nearest rank would take that login's own end (test_sweep: 4.3 per s
 * instead of 4 with a slow first login).
 */
static double
median_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return n % 2 ? (double)v[n / 2] :
	    ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
}

/*
 * The completion rate of the ok logins of l[0..n-1] (in due order), in
 * logins per second, or 0 when it cannot be told. A server that keeps up
 * ends logins 1 / rate apart, whatever each one's latency; one that falls
 * behind ends the later ones later and later. The ok logins are cut in
 * thirds: the median end time of the first third and of the last third
 * lie (their median positions apart) logins apart, and the rate is that
 * count over the time between them. A median moves with a server that
 * falls behind, not with one slow login: the span from the first ok end
 * to the last, used before, took a single 612 ms login at the end of a
 * step of 20 (the others 120 ms) as a 10 % lower rate, and called a step
 * broken that sshd kept up with at 7 % of the CPUs. Under 6 ok logins
 * (thirds of one): that span.
 */
static double
completion_rate(const struct login *l, uint64_t n)
{
	uint64_t *end, i, k = 0, third;
	double pos_a, pos_c, med_a, med_c, rate = 0;

	if ((end = calloc(n > 0 ? n : 1, sizeof(*end))) == NULL)
		err(2, "calloc");
	for (i = 0; i < n; i++)
		if (l[i].ok)
			end[k++] = l[i].end_ns;
	if (k >= 6) {
		third = k / 3;
		pos_a = (double)(third - 1) / 2;
		pos_c = (double)(k - third) + (double)(third - 1) / 2;
		med_a = median_u64(end, third);
		med_c = median_u64(end + (k - third), third);
		if (med_c > med_a)
			rate = (pos_c - pos_a) / ((med_c - med_a) / (double)NS_PER_S);
	} else if (k >= 2) {
		qsort(end, k, sizeof(*end), cmp_u64);
		if (end[k - 1] > end[0])
			rate = (double)(k - 1) /
			    ((double)(end[k - 1] - end[0]) / (double)NS_PER_S);
	}
	free(end);
	return rate;
}

/*
 * Offers rate x seconds logins, login k due at k / rate s, at most
 * -c at a time. With -g K, once K logins in a row got no answer within
 * the timeout, the logins not yet begun are not made (failed, "not run"). Writes one TSV row per login to -o: login, due_ms,
 * start_ms, end_ms (from the first due time), latency_ms (end - due),
 * service_ms (end - start), status (ok, fail), error. Prints key=value
 * lines: driver, offered_per_s, logins, ok, failed, wall_ms (first due
 * time to the last end), achieved_per_s (the completion rate of the ok
 * logins: completion_rate), late_starts (logins
 * that started more than 10 ms after they were due: every thread was
 * busy), the driver's CPU (client_cpu_ms: this process and its children),
 * client_cpu_ms_per_login, cores, client_cpu_pct, machine_busy_pct, and
 * for libssh the kex, cipher, mac and host key type of the first ok
 * login. Exit 0 when every login was ok, 1 when one was not, 2 on a usage
 * error.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	pthread_t *tid;
	struct rusage self, children;
	uint64_t i, ok = 0, late = 0, last_end = 0, busy0, total0, busy1,
	    total1, cpu_ns;
	double achieved;
	double timeout_s = 30, duration_s = 0;
	long cores;
	FILE *out;
	int ch, fd, r;

	memset(&cf, 0, sizeof(cf));
	cf.threads = 10;
	while ((ch = getopt(argc, argv, "+C:b:c:d:g:H:h:i:k:m:o:p:r:t:u:x:")) !=
	    -1) {
		switch (ch) {
		case 'C': cf.ciphers = optarg; break;
		case 'b': cf.bind_addr = optarg; break;
		case 'c':
			cf.threads = opt_u64("-c threads", optarg, 1,
			    MAX_THREADS);
			break;
		case 'd':
			duration_s = opt_double("-d seconds", optarg,
			    0.1, 3600);
			break;
		case 'g':
			cf.give_up = opt_u64("-g logins", optarg, 0, 1000000);
			break;
		case 'H': cf.hostkeys = optarg; break;
		case 'h': cf.host = optarg; break;
		case 'i': cf.key_path = optarg; break;
		case 'k': cf.known_hosts = optarg; break;
		case 'm': cf.macs = optarg; break;
		case 'o': cf.tsv = optarg; break;
		case 'p':
			cf.port = (unsigned int)opt_u64("-p port", optarg, 1,
			    65535);
			break;
		case 'r':
			cf.rate = opt_double("-r logins_per_s", optarg,
			    0.01, 100000);
			break;
		case 't':
			timeout_s = opt_double("-t timeout_s", optarg,
			    0.001, 86400);
			break;
		case 'u': cf.user = optarg; break;
		case 'x': cf.kex = optarg; break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 0)
		cf.argv = argv;
	if (cf.rate == 0 || duration_s == 0 || cf.tsv == NULL)
		errx(2, "-r logins_per_s, -d seconds and -o logins.tsv are "
		    "needed");
	if (cf.argv == NULL && (cf.host == NULL || cf.port == 0 ||
	    cf.user == NULL || cf.key_path == NULL || cf.known_hosts == NULL))
		errx(2, "the libssh driver needs -h host -p port -u user "
		    "-i key -k known_hosts (or give a command after --)");
	cf.duration_ns = (uint64_t)(duration_s * (double)NS_PER_S);
	cf.timeout_ns = (uint64_t)(timeout_s * (double)NS_PER_S);
	n_logins = (uint64_t)(cf.rate * duration_s + 0.5);
	if (n_logins < 1)
		n_logins = 1;
	if (n_logins > MAX_LOGINS)
		errx(2, "-r x -d asks for %" PRIu64 " logins; at most %d",
		    n_logins, MAX_LOGINS);
	if ((cores = sysconf(_SC_NPROCESSORS_ONLN)) < 1)
		cores = 1;
	if ((fd = open(cf.tsv, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1)
		err(2, "-o %s", cf.tsv);
	if ((out = fdopen(fd, "w")) == NULL)
		err(2, "%s", cf.tsv);
	if ((logins = calloc(n_logins, sizeof(*logins))) == NULL ||
	    (tid = calloc(cf.threads, sizeof(*tid))) == NULL)
		err(2, "calloc");
	signal(SIGPIPE, SIG_IGN);
	if (cf.argv == NULL && ssh_init() != SSH_OK)
		errx(2, "ssh_init failed");

	machine_cpu(&busy0, &total0);
	/* The first login is due a little after the threads exist. */
	t0_ns = now_ns() + 20 * NS_PER_MS;
	for (i = 0; i < n_logins; i++)
		logins[i].due_ns = t0_ns +
		    (uint64_t)((double)i * (double)NS_PER_S / cf.rate);
	for (i = 0; i < cf.threads; i++)
		if ((r = pthread_create(&tid[i], NULL, worker, NULL)) != 0)
			errno = r, err(2, "pthread_create");
	for (i = 0; i < cf.threads; i++)
		pthread_join(tid[i], NULL);
	machine_cpu(&busy1, &total1);
	if (getrusage(RUSAGE_SELF, &self) != 0 ||
	    getrusage(RUSAGE_CHILDREN, &children) != 0)
		err(2, "getrusage");
	cpu_ns = tv_ns(self.ru_utime) + tv_ns(self.ru_stime) +
	    tv_ns(children.ru_utime) + tv_ns(children.ru_stime);

	fprintf(out, "login\tdue_ms\tstart_ms\tend_ms\tlatency_ms\t"
	    "service_ms\tstatus\terror\n");
	for (i = 0; i < n_logins; i++) {
		struct login *l = &logins[i];

		ok += (uint64_t)l->ok;
		if (l->start_ns > l->due_ns + 10 * NS_PER_MS)
			late++;
		if (l->end_ns > last_end)
			last_end = l->end_ns;
		fprintf(out, "%" PRIu64 "\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%s\t"
		    "%s\n", i + 1, ns_to_ms(l->due_ns - t0_ns),
		    ns_to_ms(l->start_ns - t0_ns), ns_to_ms(l->end_ns - t0_ns),
		    ns_to_ms(l->end_ns - l->due_ns),
		    ns_to_ms(l->end_ns - l->start_ns), l->ok ? "ok" : "fail",
		    l->ok ? "-" : l->error[0] ? l->error : "unknown");
	}
	if (fclose(out) == EOF)
		err(2, "%s", cf.tsv);

	printf("driver=%s\n", cf.argv != NULL ? "command" : "libssh");
	printf("offered_per_s=%.2f\nlogins=%" PRIu64 "\nok=%" PRIu64
	    "\nfailed=%" PRIu64 "\n", cf.rate, n_logins, ok, n_logins - ok);
	achieved = completion_rate(logins, n_logins);
	if (achieved <= 0 && last_end > t0_ns)
		achieved = (double)ok / ((double)(last_end - t0_ns) / NS_PER_S);
	printf("wall_ms=%.3f\nachieved_per_s=%.2f\nlate_starts=%" PRIu64
	    "\nthreads=%" PRIu64 "\n", ns_to_ms(last_end - t0_ns), achieved,
	    late, cf.threads);
	printf("client_cpu_ms=%.3f\nclient_cpu_ms_per_login=%.3f\n",
	    ns_to_ms(cpu_ns), ok > 0 ? ns_to_ms(cpu_ns) / (double)ok : 0.0);
	printf("cores=%ld\nclient_cpu_pct=%.1f\n", cores,
	    last_end > t0_ns ? 100.0 * (double)cpu_ns /
	    ((double)cores * (double)(last_end - t0_ns)) : 0.0);
	printf("machine_busy_pct=%.1f\n", total1 > total0 ?
	    100.0 * (double)(busy1 - busy0) / (double)(total1 - total0) :
	    0.0);
	if (cf.argv == NULL)
		printf("kex=%s\ncipher=%s\nmac=%s\nhostkey=%s\n",
		    nego.have ? nego.kex : "-", nego.have ? nego.cipher : "-",
		    nego.have ? nego.mac : "-", nego.have ? nego.hostkey : "-");
	free(logins);
	free(tid);
	return ok == n_logins ? 0 : 1;
}
