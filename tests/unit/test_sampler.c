/*
 * Unit tests of sshperf-sampler: /proc/PID/stat parsing (names with spaces
 * and parentheses), the CPU of a process tree against a child that burns a
 * known CPU time (alive, then reaped), PSS against a child that touches a
 * known amount of memory, processes that vanish, and the process lists
 * (tree, group, ps). Prints TAP.
 */
#define main sampler_main
#include "../../helpers/sampler.c"
#undef main

#include <sys/prctl.h>

#include <stdarg.h>
#include <sys/wait.h>

#define BURN_MS		300
#define CPU_TOLERANCE_MS 60	/* clock ticks (10 ms) and scheduling */
#define TOUCH_MB	50

static int test_num, test_failed;

static void
ok(int cond, const char *fmt, ...)
{
	va_list ap;

	test_num++;
	if (!cond)
		test_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", test_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static uint64_t
own_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

static void
test_parse_stat(void)
{
	struct pstat ps;
	int r;
	const char *odd = "4242 (a b) (c) d)) S 17 4242 4242 0 -1 4194560 "
	    "100 0 0 0 123 45 6 7 20 0 1 0 99 1000 10 "
	    "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";

	r = parse_stat(odd, &ps);
	ok(r == 0 && strcmp(ps.comm, "a b) (c) d)") == 0,
	    "stat: command name with spaces and ')' is \"%s\"", ps.comm);
	ok(ps.state == 'S' && ps.ppid == 17, "stat: state %c, ppid %d",
	    ps.state, (int)ps.ppid);
	ok(ps.utime == 123 && ps.stime == 45 && ps.cutime == 6 &&
	    ps.cstime == 7, "stat: utime stime cutime cstime = %llu %llu "
	    "%llu %llu", (unsigned long long)ps.utime,
	    (unsigned long long)ps.stime, (unsigned long long)ps.cutime,
	    (unsigned long long)ps.cstime);
	ok(parse_stat("12 (cut", &ps) == -1 &&
	    parse_stat("12 (x) S 1 2", &ps) == -1 && parse_stat("", &ps) == -1,
	    "stat: truncated lines are rejected");
	r = read_pstat(getpid(), &ps);
	ok(r == 0 && ps.ppid == getppid(), "stat: own /proc/PID/stat read, "
	    "ppid %d", (int)ps.ppid);
}

/*
 * A "listener" with one child that burns BURN_MS of CPU, then waits on a
 * pipe; closing go lets the child exit, and the listener reaps it and
 * waits on its own pipe. ready gets one byte when the burn is done and one
 * when the child was reaped.
 */
static pid_t
start_burner(int *go_w, int *ready_r, int *quit_w)
{
	int go[2], ready[2], quit[2];
	pid_t listener, child;
	char c;

	if (pipe2(go, O_CLOEXEC) || pipe2(ready, O_CLOEXEC) ||
	    pipe2(quit, O_CLOEXEC))
		err(2, "pipe2");
	if ((listener = fork()) == -1)
		err(2, "fork");
	if (listener == 0) {
		if ((child = fork()) == -1)
			_exit(2);
		if (child == 0) {
			volatile uint64_t spin = 0;
			int i;

			close(go[1]);
			close(quit[1]);
			/* Mostly user time: one clock call per million spins. */
			while (own_cpu_ns() < BURN_MS * NS_PER_MS)
				for (i = 0; i < 1000000; i++)
					spin++;
			(void)!write(ready[1], "b", 1);
			(void)!read(go[0], &c, 1);	/* EOF: go */
			_exit(0);
		}
		close(go[0]);
		close(go[1]);
		close(quit[1]);
		waitpid(child, NULL, 0);
		(void)!write(ready[1], "r", 1);
		(void)!read(quit[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	close(quit[0]);
	*go_w = go[1];
	*ready_r = ready[0];
	*quit_w = quit[1];
	return listener;
}

static void
test_cpu(void)
{
	struct sampler s;
	struct config cf;
	struct cpu before, live, reaped;
	int go_w, ready_r, quit_w;
	pid_t listener;
	double live_ms, reaped_ms;
	char c;
	int r;

	memset(&s, 0, sizeof(s));
	memset(&cf, 0, sizeof(cf));
	s.cf = &cf;
	s.clk_tck = sysconf(_SC_CLK_TCK);

	listener = start_burner(&go_w, &ready_r, &quit_w);
	cf.pid = listener;
	s.pids.n = 0;
	if (tree_cpu(&s, listener, &before) != 0)
		errx(2, "listener gone");
	ok(read(ready_r, &c, 1) == 1 && c == 'b', "cpu: child burned %d ms",
	    BURN_MS);
	s.pids.n = 0;
	r = tree_cpu(&s, listener, &live);
	ok(r == 0 && s.pids.n == 2,
	    "cpu: tree of listener and child found (%zu processes)",
	    s.pids.n);
	live_ms = ns_to_ms(live.total_ns - before.total_ns);
	ok(live_ms > BURN_MS - CPU_TOLERANCE_MS &&
	    live_ms < BURN_MS + CPU_TOLERANCE_MS,
	    "cpu: live child counted: %.0f ms (want %d +- %d)", live_ms,
	    BURN_MS, CPU_TOLERANCE_MS);
	ok(live.user_ns > live.system_ns,
	    "cpu: a busy loop is user time (user %.0f ms, system %.0f ms)",
	    ns_to_ms(live.user_ns), ns_to_ms(live.system_ns));

	close(go_w);
	ok(read(ready_r, &c, 1) == 1 && c == 'r', "cpu: child ended, reaped");
	s.pids.n = 0;
	r = tree_cpu(&s, listener, &reaped);
	ok(r == 0 && s.pids.n == 1,
	    "cpu: only the listener is left");
	reaped_ms = ns_to_ms(reaped.total_ns - before.total_ns);
	ok(reaped_ms > BURN_MS - CPU_TOLERANCE_MS &&
	    reaped_ms < BURN_MS + CPU_TOLERANCE_MS,
	    "cpu: ended child still counted (cutime): %.0f ms", reaped_ms);

	close(quit_w);
	waitpid(listener, NULL, 0);
	close(ready_r);
	s.pids.n = 0;
	ok(tree_cpu(&s, listener, &reaped) == -1,
	    "cpu: a listener that is gone is reported, not read as 0");
	free(s.pids.v);
}

static void
test_memory(void)
{
	struct sampler s;
	struct config cf;
	struct sample before, after;
	int ready[2], quit[2], r;
	double grown_mb;
	pid_t child;
	char c, *mem;

	memset(&s, 0, sizeof(s));
	memset(&cf, 0, sizeof(cf));
	s.cf = &cf;
	s.clk_tck = sysconf(_SC_CLK_TCK);
	if (pipe2(ready, O_CLOEXEC) || pipe2(quit, O_CLOEXEC))
		err(2, "pipe2");
	if ((child = fork()) == -1)
		err(2, "fork");
	if (child == 0) {
		close(quit[1]);
		(void)!write(ready[1], "s", 1);
		(void)!read(quit[0], &c, 1);	/* touch now */
		if ((mem = malloc(TOUCH_MB * 1000000)) == NULL)
			_exit(2);
		/* volatile: the compiler must not drop the unused buffer. */
		for (size_t i = 0; i < TOUCH_MB * 1000000; i += 4096)
			((volatile char *)mem)[i] = 1;
		(void)!write(ready[1], "t", 1);
		(void)!read(quit[0], &c, 1);
		_exit(((volatile char *)mem)[4096] == 1 ? 0 : 1);
	}
	close(ready[1]);
	close(quit[0]);
	(void)!read(ready[0], &c, 1);
	cf.pid = child;
	r = take_sample(&s, &before);
	ok(r == 0 && before.processes == 1,
	    "memory: one process sampled, PSS %llu kB",
	    (unsigned long long)before.pss_kb);
	(void)!write(quit[1], "g", 1);
	(void)!read(ready[0], &c, 1);
	ok(take_sample(&s, &after) == 0, "memory: sampled after touching");
	grown_mb = (double)(after.pss_kb - before.pss_kb) * 1024 / 1e6;
	ok(grown_mb > TOUCH_MB * 0.95 && grown_mb < TOUCH_MB * 1.1,
	    "memory: PSS grew by %.1f MB (touched %d MB)", grown_mb,
	    TOUCH_MB);
	ok(after.rss_kb >= after.pss_kb, "memory: RSS %llu kB >= PSS",
	    (unsigned long long)after.rss_kb);
	close(quit[1]);
	waitpid(child, NULL, 0);
	close(ready[0]);
	free(s.pids.v);
}

static void
test_vanishing(void)
{
	struct sampler s;
	struct config cf;
	struct sample x;
	struct pstat ps;
	uint64_t pss, rss;
	pid_t gone;

	memset(&s, 0, sizeof(s));
	memset(&cf, 0, sizeof(cf));
	s.cf = &cf;
	if ((gone = fork()) == -1)
		err(2, "fork");
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	ok(read_pstat(gone, &ps) == -1 && read_memory(gone, &pss, &rss) == -1,
	    "vanished: a process that ended reads as gone");
	pidlist_add(&s.pids, getpid());
	pidlist_add(&s.pids, gone);
	pidlist_add(&s.pids, getpid());		/* listed twice: once */
	sum_memory(&s, &x);
	ok(x.processes == 1 && x.pss_kb > 0,
	    "vanished: skipped in the sum, duplicates once (%zu processes)",
	    x.processes);
	free(s.pids.v);
}

static void
test_field_kb(void)
{
	const char *rollup = "55d0-7ffe ---p 00000000 00:00 0  [rollup]\n"
	    "Rss:                5120 kB\nPss:                2048 kB\n"
	    "Pss_Anon:           1000 kB\n";

	ok(field_kb(rollup, "Rss:") == 5120 && field_kb(rollup, "Pss:") == 2048
	    && field_kb(rollup, "Swap:") == UNKNOWN,
	    "smaps_rollup: Rss and Pss read, missing key unknown");
	ok(field_kb("usage_usec 900\nuser_usec 600\nsystem_usec 300\n",
	    "system_usec ") == 300, "cpu.stat: system_usec read");
}

/*
 * cgroup_text_has on recorded /proc/PID/cgroup texts (v2 and hybrid v1):
 * a whole path component matches, a prefix or a longer name does not;
 * role_of puts the listener's pid first, then the manager's cgroup.
 */
static void
test_roles(void)
{
	static const char v2[] = "0::/user.slice/user-1001.slice/"
	    "user@1001.service/init.scope\n";
	static const char v2_session[] = "0::/user.slice/user-1001.slice/"
	    "session-7.scope\n";
	static const char v1[] = "12:cpu,cpuacct:/user.slice\n"
	    "1:name=systemd:/user.slice/user-1001.slice/user@1001.service\n"
	    "0::/user.slice/user-1001.slice/user@1001.service\n";
	char buf[512];
	struct config cf;
	struct sampler s;

#define HAS(text, name) (snprintf(buf, sizeof(buf), "%s", text), \
	cgroup_text_has(buf, name))
	ok(HAS(v2, "user@1001.service") && HAS(v1, "user@1001.service"),
	    "roles: the manager's cgroup found (v2, hybrid)");
	ok(!HAS(v2_session, "user@1001.service") &&
	    !HAS(v2, "user@100.service") && !HAS(v2, "user@1001.serv") &&
	    !HAS(v2, "user@10011.service") && !HAS("", "user@1001.service"),
	    "roles: a session scope, another uid, a prefix: not the manager");
#undef HAS
	ok(!in_cgroup_named(INT_MAX, "user@1001.service"),
	    "roles: a process that is gone is in no cgroup");

	memset(&cf, 0, sizeof(cf));
	memset(&s, 0, sizeof(s));
	s.cf = &cf;
	s.listener = getpid();
	ok(role_of(&s, getpid()) == ROLE_LISTENER &&
	    role_of(&s, getppid()) == ROLE_OTHER,
	    "roles: the listener by its pid; without a manager, other");
}

/* What a list function printed, into buf; *rows: how many run. */
static void
rows_of(char *buf, size_t size, size_t *rows, int tree, pid_t pid)
{
	FILE *f;
	size_t n;

	if ((f = tmpfile()) == NULL)
		err(2, "tmpfile");
	*rows = tree ? list_tree(f, pid) : list_group(f, pid);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void
test_lists(void)
{
	char buf[65536], want[256], pidtext[32], comm[16], state;
	int p[2], wstatus, got[3];
	uint64_t start;
	pid_t child, grandchild;
	struct pstat ps;
	size_t rows;
	ssize_t n;

	/* A shell with a sleeping child: it says the child's pid. */
	if (pipe(p) == -1)
		err(2, "pipe");
	if ((child = fork()) == -1)
		err(2, "fork");
	if (child == 0) {
		dup2(p[1], 1);
		execlp("sh", "sh", "-c", "sleep 30 & echo $!; wait", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	n = read(p[0], pidtext, sizeof(pidtext) - 1);
	close(p[0]);
	if (n <= 0)
		errx(2, "the shell did not start its child");
	pidtext[n] = '\0';
	grandchild = (pid_t)atoi(pidtext);

	/* The child is a fork of sh until it has run sleep: wait for that. */
	for (n = 0; n < 500; n++) {
		rows_of(buf, sizeof(buf), &rows, 1, child);
		if (strstr(buf, "\tsleep\n") != NULL)
			break;
		usleep(10000);
	}
	if (read_pstat(child, &ps) != 0)
		errx(2, "no stat of the shell");
	/* Its state may change between two reads: any letter. */
	ok(rows == 2 && sscanf(buf, "%d\t%d\t%d\t%c\t%" SCNu64 "\t%15s\n",
	    &got[0], &got[1], &got[2], &state, &start, comm) == 6 &&
	    got[0] == child && got[1] == getpid() && got[2] == getpgrp() &&
	    state >= 'A' && state <= 'Z' && start == ps.start &&
	    strcmp(comm, "sh") == 0, "tree: the root first, with its ppid, "
	    "pgid, state and start (%zu rows)", rows);
	snprintf(want, sizeof(want), "\n%d\t%d\t%d\t", (int)grandchild,
	    (int)child, (int)getpgrp());
	ok(strstr(buf, want) != NULL && strstr(buf, "\tsleep\n") != NULL,
	    "tree: then its child, the sleep");
	rows_of(buf, sizeof(buf), &rows, 0, getpgrp());
	snprintf(want, sizeof(want), "%d\t", (int)grandchild);
	ok(rows >= 3 && strstr(buf, want) != NULL,
	    "group: our process group has us, the shell and its child "
	    "(%zu rows)", rows);

	kill(grandchild, SIGKILL);
	if (waitid(P_PID, (id_t)child, NULL, WEXITED | WNOWAIT) == -1)
		err(2, "waitid");
	rows_of(buf, sizeof(buf), &rows, 1, child);
	ok(rows == 0 && strstr(buf, "\tZ\t") != NULL, "tree: a zombie is "
	    "listed, and does not count as running");
	waitpid(child, &wstatus, 0);
	rows_of(buf, sizeof(buf), &rows, 1, child);
	ok(rows == 0 && buf[0] == '\0', "tree: a root that is gone has no "
	    "rows");

	/* A name with a tab must not split the row. */
	if (prctl(PR_SET_NAME, "a\tb\nc", 0, 0, 0) != 0)
		err(2, "prctl");
	rows_of(buf, sizeof(buf), &rows, 1, getpid());
	ok(strstr(buf, "\ta?b?c\n") != NULL, "tree: control characters of a "
	    "name become ?");
}

int
main(void)
{
	test_parse_stat();
	test_field_kb();
	test_cpu();
	test_memory();
	test_vanishing();
	test_roles();
	test_lists();
	printf("1..%d\n", test_num);
	return test_failed ? 1 : 0;
}
