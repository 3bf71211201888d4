/*
 * sshperf-rate: the login-rate driver. N workers each run a client command
 * (typically "ssh host true") again and again until a deadline; every run
 * is recorded with its start, end and outcome, and the clients' own CPU
 * and the machine's CPU are measured over the whole run.
 */
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "proc.h"

#define MAX_WORKERS	1000
#define ERR_BYTES	512	/* the end of a client's stderr that is kept */

struct config {
	uint64_t	 workers;
	uint64_t	 duration_ns;
	uint64_t	 timeout_ns;
	const char	*tsv;		/* -o: one row per login */
	char		**argv;
};

/* One worker: the client it runs now, if any. */
struct worker {
	pid_t		 pid;		/* 0: idle */
	int		 err_fd;	/* read end of the client's stderr */
	uint64_t	 start_ns;
	struct proc_ladder stop;	/* from the timeout on: timed out */
	uint64_t	 logins;
	char		 tail_buf[ERR_BYTES];	/* last bytes of stderr */
	struct proc_tail tail;
};

static uint64_t
tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * NS_PER_S + (uint64_t)tv.tv_usec * 1000;
}

static void
start_client(const struct config *cf, struct worker *w)
{
	int p[2], r;

	if (pipe2(p, O_CLOEXEC) == -1)
		err(2, "pipe2");
	if (fcntl(p[0], F_SETFL, O_NONBLOCK) == -1)
		err(2, "fcntl");
	w->start_ns = now_ns();
	r = proc_spawn(&w->pid, cf->argv, PROC_DEVNULL, PROC_DEVNULL, p[1],
	    NULL, NULL);
	close(p[1]);
	if (r != 0) {
		errno = r;
		err(r == ENOENT ? 127 : 126, "cannot run %s", cf->argv[0]);
	}
	w->err_fd = p[0];
	proc_ladder_init(&w->stop, w->start_ns + cf->timeout_ns,
	    PROC_KILL_GRACE_NS);
	proc_tail_init(&w->tail, w->tail_buf, sizeof(w->tail_buf));
}

/* The client's stderr is at EOF: reap it and write its row. */
static int
finish_client(FILE *out, size_t index, struct worker *w, uint64_t t0_ns)
{
	char error[ERR_BYTES + 1];
	uint64_t end_ns;
	int wstatus, code, ok, timed_out = w->stop.step != PROC_RUNNING;

	proc_reap(w->pid, &wstatus, NULL);
	end_ns = now_ns();
	close(w->err_fd);
	w->pid = 0;
	w->logins++;
	code = exit_code_of(wstatus);
	ok = !timed_out && code == 0;
	if (ok)
		snprintf(error, sizeof(error), "-");
	else if (timed_out)
		snprintf(error, sizeof(error), "no answer within the timeout");
	else {
		proc_tail_last_line(&w->tail, error, sizeof(error));
		if (error[0] == '\0')
			snprintf(error, sizeof(error), "-");
	}
	fprintf(out, "%zu\t%" PRIu64 "\t%.3f\t%.3f\t%.3f\t%s\t%d\t%s\n",
	    index + 1, w->logins, ns_to_ms(w->start_ns - t0_ns),
	    ns_to_ms(end_ns - t0_ns), ns_to_ms(end_ns - w->start_ns),
	    ok ? "ok" : timed_out ? "timeout" : "fail", code, error);
	if (fflush(out) == EOF)
		err(2, "writing the logins");
	return ok;
}

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-rate -w workers -d seconds [-t timeout_s] "
	    "-o logins.tsv -- command [arg ...]\n");
	exit(2);
}

/*
 * Runs `workers` loops of a client command for `seconds` (no run starts
 * after the deadline; the ones running then finish) and writes one TSV row
 * per login to -o: worker, login, start_ms, end_ms (from the run's start),
 * login_ms, status (ok, fail, timeout), exit code, the last line of a
 * failed client's stderr. Prints key=value lines: logins, ok, failed,
 * wall_ms, logins_per_s (ok logins / wall time), the clients' CPU
 * (client_user_ms, client_system_ms: every finished client's rusage), the
 * machine's busy share and its steal (machine_busy_pct, steal_pct from
 * /proc/stat), cores, client_cpu_pct (client CPU / (cores x wall)) and
 * t0_mono_ns, the CLOCK_MONOTONIC time start_ms and end_ms count from.
 * Exit 0 when every login was ok, 1 when one was not, 2 usage error,
 * 126/127 when the command cannot be run.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct config cf;
	struct worker *w;
	struct pollfd *pfd;
	struct machine_cpu m0, m1;
	struct rusage ru;
	FILE *out;
	double timeout_s = 30;
	uint64_t t0_ns, deadline_ns, end_ns, now, logins = 0, ok = 0, wait_ns;
	uint64_t user_ns, sys_ns;
	size_t i, busy, *slot;
	long cores;
	char buf[4096];
	ssize_t n;
	int ch, fd, timeout_ms;

	memset(&cf, 0, sizeof(cf));
	while ((ch = getopt(argc, argv, "+d:o:t:w:")) != -1) {
		switch (ch) {
		case 'd':
			cf.duration_ns = opt_u64("-d seconds", optarg, 1, 86400) *
			    NS_PER_S;
			break;
		case 'o':
			cf.tsv = optarg;
			break;
		case 't':
			timeout_s = opt_double("-t timeout_s", optarg,
			    0.001, 86400);
			break;
		case 'w':
			cf.workers = opt_u64("-w workers", optarg, 1,
			    MAX_WORKERS);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		errx(2, "no command given: put it after --");
	if (cf.workers == 0 || cf.duration_ns == 0 || cf.tsv == NULL)
		errx(2, "-w workers, -d seconds and -o logins.tsv are needed");
	cf.argv = argv;
	cf.timeout_ns = (uint64_t)(timeout_s * (double)NS_PER_S);
	if ((cores = sysconf(_SC_NPROCESSORS_ONLN)) < 1)
		cores = 1;

	if ((fd = open(cf.tsv, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) == -1)
		err(2, "-o %s", cf.tsv);
	if ((out = fdopen(fd, "w")) == NULL)
		err(2, "%s", cf.tsv);
	fprintf(out, "worker\tlogin\tstart_ms\tend_ms\tlogin_ms\tstatus\texit"
	    "\terror\n");
	if ((w = calloc(cf.workers, sizeof(*w))) == NULL ||
	    (pfd = calloc(cf.workers, sizeof(*pfd))) == NULL ||
	    (slot = calloc(cf.workers, sizeof(*slot))) == NULL)
		err(2, "calloc");
	signal(SIGPIPE, SIG_IGN);

	read_machine_cpu(&m0);
	t0_ns = now_ns();
	deadline_ns = t0_ns + cf.duration_ns;
	for (i = 0; i < cf.workers; i++)
		start_client(&cf, &w[i]);
	for (;;) {
		now = now_ns();
		busy = 0;
		wait_ns = NS_PER_S;
		for (i = 0; i < cf.workers; i++) {
			if (w[i].pid == 0)
				continue;
			(void)proc_ladder_signal(&w[i].stop, w[i].pid, now);
			if (w[i].stop.due_ns - now < wait_ns)
				wait_ns = w[i].stop.due_ns - now;
			pfd[busy].fd = w[i].err_fd;
			pfd[busy].events = POLLIN;
			slot[busy++] = i;
		}
		if (busy == 0)
			break;
		timeout_ms = (int)(wait_ns / NS_PER_MS) + 1;
		if (poll(pfd, busy, timeout_ms) == -1) {
			if (errno == EINTR)
				continue;
			err(2, "poll");
		}
		for (i = 0; i < busy; i++) {
			struct worker *x = &w[slot[i]];

			if (pfd[i].revents == 0)
				continue;
			n = read(x->err_fd, buf, sizeof(buf));
			if (n > 0) {
				proc_tail_add(&x->tail, buf, (size_t)n);
				continue;
			}
			if (n == -1 && (errno == EAGAIN || errno == EINTR))
				continue;
			/* EOF (or a broken pipe): the client has ended. */
			logins++;
			ok += (uint64_t)finish_client(out, slot[i], x, t0_ns);
			if (now_ns() < deadline_ns)
				start_client(&cf, x);
		}
	}
	end_ns = now_ns();
	read_machine_cpu(&m1);
	if (fclose(out) == EOF)
		err(2, "%s", cf.tsv);
	if (getrusage(RUSAGE_CHILDREN, &ru) != 0)
		err(2, "getrusage");
	user_ns = tv_ns(ru.ru_utime);
	sys_ns = tv_ns(ru.ru_stime);

	printf("workers=%" PRIu64 "\nduration_s=%.3f\nlogins=%" PRIu64
	    "\nok=%" PRIu64 "\nfailed=%" PRIu64 "\n", cf.workers,
	    (double)cf.duration_ns / NS_PER_S, logins, ok, logins - ok);
	printf("wall_ms=%.3f\nlogins_per_s=%.2f\n", ns_to_ms(end_ns - t0_ns),
	    (double)ok / ((double)(end_ns - t0_ns) / NS_PER_S));
	printf("client_user_ms=%.3f\nclient_system_ms=%.3f\n"
	    "client_cpu_ms=%.3f\n", ns_to_ms(user_ns), ns_to_ms(sys_ns),
	    ns_to_ms(user_ns + sys_ns));
	printf("cores=%ld\nclient_cpu_pct=%.1f\n", cores,
	    100.0 * (double)(user_ns + sys_ns) /
	    ((double)cores * (double)(end_ns - t0_ns)));
	printf("machine_busy_pct=%.1f\n", m1.total > m0.total ?
	    100.0 * (double)(m1.busy - m0.busy) / (double)(m1.total - m0.total)
	    : 0.0);
	printf("steal_pct=%.1f\n", m1.total > m0.total ?
	    100.0 * (double)(m1.steal - m0.steal) /
	    (double)(m1.total - m0.total) : 0.0);
	/* The clock of start_ms and end_ms, for samples taken meanwhile. */
	printf("t0_mono_ns=%" PRIu64 "\n", t0_ns);
	free(w);
	free(pfd);
	free(slot);
	return logins == ok ? 0 : 1;
}
