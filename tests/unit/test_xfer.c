/*
 * Unit tests of sshperf-xfer: the sink counts exactly (odd sizes, several
 * buffer lengths, a pipe and a regular file), a short or long stream is
 * reported as such, an upload's count comes from the receiver, and a
 * command that hangs is ended at the deadline. Prints TAP.
 */
#define main xfer_main
#include "../../helpers/xfer.c"
#undef main

#include "tap.h"

/*
 * Counts what a child writes into a pipe with fill(), bytes long. The
 * deadline is a safety net, below stress-unit's 300 s per program: a run
 * starved past it (nice -n 19 beside busy loops on a loaded machine once
 * took more than 30 s for 10 MB) says so, instead of only a short count.
 */
static uint64_t
count_pipe(uint64_t bytes, size_t buf_bytes)
{
	struct counter c;
	pid_t pid;
	int p[2], st;

	memset(&c, 0, sizeof(c));
	if (pipe2(p, O_CLOEXEC) == -1)
		err(2, "pipe2");
	if ((pid = fork()) == -1)
		err(2, "fork");
	if (pid == 0) {
		close(p[0]);
		_exit(fill(p[1], bytes, 7919) == bytes ? 0 : 1);
	}
	close(p[1]);
	if (drain(p[0], &c, buf_bytes, now_ns() + 240 * NS_PER_S) == 1)
		printf("# the pipe was not drained in 240 s: %llu of %llu "
		    "bytes (a starved CPU?)\n", (unsigned long long)c.bytes,
		    (unsigned long long)bytes);
	close(p[0]);
	waitpid(pid, &st, 0);
	return c.bytes;
}

static void
test_counting(void)
{
	static const uint64_t sizes[] = { 0, 1, 4095, 65536, 65537,
	    10 * 1000 * 1000 + 3 };
	struct counter c;
	char path[4096];
	size_t i;
	int fd;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ok(count_pipe(sizes[i], 4096) == sizes[i] &&
		    count_pipe(sizes[i], DEFAULT_BUF_BYTES) == sizes[i],
		    "sink counts %llu bytes from a pipe exactly",
		    (unsigned long long)sizes[i]);
	}

	/* A regular file cannot be spliced: the read path counts it. */
	tap_scratch(path, sizeof(path), "test_xfer");
	if ((fd = mkostemp(path, O_CLOEXEC)) == -1)
		err(2, "mkostemp");
	unlink(path);
	ok(fill(fd, 123457, 4096) == 123457, "fill writes a file exactly");
	lseek(fd, 0, SEEK_SET);
	memset(&c, 0, sizeof(c));
	drain(fd, &c, 65536, 0);
	close(fd);
	ok(c.bytes == 123457 && c.first_ns != 0 && c.last_ns >= c.first_ns,
	    "sink counts a regular file exactly and stamps first <= last");
}

static void
test_status(void)
{
	ok(strcmp(stream_status(10, 10), "ok") == 0 &&
	    strcmp(stream_status(10, 9), "short") == 0 &&
	    strcmp(stream_status(10, 11), "long") == 0 &&
	    strcmp(stream_status(0, 0), "ok") == 0,
	    "stream_status: ok, short, long");
	ok(rate_mbs(2000000, 2.0) == 1.0 && rate_mbs(5, 0) == 0.0,
	    "rate is in MB/s of 10^6 bytes, 0 for an empty interval");
}

static void
test_parse_count(void)
{
	char note[128];
	uint64_t n = 0;

	ok(parse_count("ready\n1048576\n", &n, note, sizeof(note)) == 0 &&
	    n == 1048576, "count after ready is read");
	ok(parse_count("ready\n   42\n", &n, note, sizeof(note)) == 0 &&
	    n == 42, "a padded count (BSD wc) is read");
	ok(parse_count("ready\n", &n, note, sizeof(note)) == -1 &&
	    strstr(note, "no byte count") != NULL,
	    "no count: refused with a note");
	ok(parse_count("hello\n5\n", &n, note, sizeof(note)) == -1 &&
	    strstr(note, "ready") != NULL, "no ready line: refused");
	ok(parse_count("ready\n5x\n", &n, note, sizeof(note)) == -1,
	    "a count that is not a number is refused");
}

static void
run_mode(enum mode mode, uint64_t bytes, uint64_t timeout_s,
    const char *script, struct config *cf, struct outcome *o)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };

	memset(cf, 0, sizeof(*cf));
	memset(o, 0, sizeof(*o));
	cf->mode = mode;
	cf->bytes = bytes;
	cf->have_bytes = 1;
	cf->timeout_ns = timeout_s * NS_PER_S;
	cf->buf_bytes = DEFAULT_BUF_BYTES;
	if (mode == MODE_UP)
		run_up(cf, argv, o);
	else if (mode == MODE_DOWN)
		run_down(cf, argv, o);
	else
		run_plain(cf, argv, o);
}

/* run mode with fd 2 sent to a file: the command's "hello" lands there. */
static int
run_output_goes_to_stderr(void)
{
	struct config cf;
	struct outcome o;
	char path[4096], got[64];
	ssize_t n;
	int fd, saved;

	tap_scratch(path, sizeof(path), "test_xfer");
	if ((fd = mkostemp(path, O_CLOEXEC)) == -1)
		err(2, "mkostemp");
	unlink(path);
	fflush(stdout);
	fflush(stderr);
	if ((saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)) == -1 ||
	    dup2(fd, STDERR_FILENO) == -1)
		err(2, "dup2");
	run_mode(MODE_RUN, 0, 30, "echo hello", &cf, &o);
	if (dup2(saved, STDERR_FILENO) == -1)
		err(2, "dup2");
	close(saved);
	n = pread(fd, got, sizeof(got) - 1, 0);
	close(fd);
	got[n > 0 ? n : 0] = '\0';
	return o.exit_code == 0 && strcmp(got, "hello\n") == 0;
}

/* run -o with the command's output (on fd 2) thrown away. */
static void
run_from_output(const char *script, struct config *cf, struct outcome *o)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	int saved, null;

	memset(cf, 0, sizeof(*cf));
	memset(o, 0, sizeof(*o));
	cf->mode = MODE_RUN;
	cf->from_output = 1;
	cf->timeout_ns = 30 * NS_PER_S;
	cf->buf_bytes = DEFAULT_BUF_BYTES;
	fflush(stderr);
	if ((saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)) == -1 ||
	    (null = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1 ||
	    dup2(null, STDERR_FILENO) == -1)
		err(2, "dup2");
	run_plain(cf, argv, o);
	if (dup2(saved, STDERR_FILENO) == -1)
		err(2, "dup2");
	close(saved);
	close(null);
}

/* run -o -w with cf's watch, bytes and chunks kept, output thrown away. */
static void
run_watched(const char *script, struct config *cf, struct outcome *o)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	int saved, null;

	memset(o, 0, sizeof(*o));
	cf->mode = MODE_RUN;
	cf->from_output = 1;
	cf->timeout_ns = 30 * NS_PER_S;
	cf->buf_bytes = DEFAULT_BUF_BYTES;
	fflush(stderr);
	if ((saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3)) == -1 ||
	    (null = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1 ||
	    dup2(null, STDERR_FILENO) == -1)
		err(2, "dup2");
	run_plain(cf, argv, o);
	if (dup2(saved, STDERR_FILENO) == -1)
		err(2, "dup2");
	close(saved);
	close(null);
}

static void
test_commands(void)
{
	struct config cf;
	struct outcome o;
	uint64_t t0;

	run_mode(MODE_DOWN, 3000001, 30, "head -c 3000001 /dev/zero", &cf, &o);
	ok(o.c.bytes == 3000001 && strcmp(outcome_status(&cf, &o), "ok") == 0,
	    "down: all bytes counted, ok");
	run_mode(MODE_DOWN, 3000001, 30, "head -c 3000000 /dev/zero", &cf, &o);
	ok(o.c.bytes == 3000000 && strcmp(outcome_status(&cf, &o), "short") == 0,
	    "down: one byte missing is reported short, not fast");
	run_mode(MODE_DOWN, 100, 30, "head -c 50 /dev/zero; exit 255", &cf, &o);
	ok(strcmp(outcome_status(&cf, &o), "short") == 0 && o.exit_code == 255,
	    "down: a client that fails half way is short, with its exit 255");
	run_mode(MODE_DOWN, 10, 30, "head -c 10 /dev/zero; exit 1", &cf, &o);
	ok(strcmp(outcome_status(&cf, &o), "failed") == 0,
	    "down: all bytes but a failed client is failed");

	run_mode(MODE_UP, 5000003, 30, "echo ready; exec wc -c", &cf, &o);
	ok(o.c.bytes == 5000003 && o.sent == 5000003 &&
	    strcmp(outcome_status(&cf, &o), "ok") == 0,
	    "up: the receiver's count matches, ok");
	run_mode(MODE_UP, 5000003, 30,
	    "echo ready; head -c 1000 >/dev/null; echo 1000", &cf, &o);
	ok(o.c.bytes == 1000 && strcmp(outcome_status(&cf, &o), "short") == 0,
	    "up: a receiver that stops early is short");
	run_mode(MODE_UP, 1000, 30, "exit 255", &cf, &o);
	ok(o.c.bytes == 0 && o.sent == 0 &&
	    strcmp(outcome_status(&cf, &o), "short") == 0 && o.exit_code == 255,
	    "up: no ready (login failed): nothing sent, short, exit 255");

	t0 = now_ns();
	run_mode(MODE_DOWN, 10, 1, "exec sleep 30", &cf, &o);
	ok(strcmp(outcome_status(&cf, &o), "timeout") == 0 &&
	    now_ns() - t0 >= NS_PER_S,
	    "down: a hanging command is ended at the deadline (timeout)");
	run_mode(MODE_RUN, 0, 30, "exit 3", &cf, &o);
	ok(strcmp(outcome_status(&cf, &o), "failed") == 0 && o.exit_code == 3,
	    "run: the command's exit status is kept");
	run_from_output("sleep 0.3; echo x; sleep 0.1", &cf, &o);
	ok(o.exit_code == 0 && o.output_ns != 0 &&
	    o.output_ns - o.start_ns >= 300 * NS_PER_MS &&
	    o.end_ns >= o.output_ns,
	    "run -o: the first output is noted after the 0.3 s before it");
	run_from_output("exit 0", &cf, &o);
	ok(o.exit_code == 0 && o.output_ns == 0,
	    "run -o: a command without output has no output time");
	ok(run_output_goes_to_stderr(), "run: the command's stdout goes to "
	    "stderr, so that stdout holds only the result");
}

/*
 * run -w: a command that writes 4 MiB into a file in two halves, 0.2 s
 * apart, after its first output: the copy is timed in 2 parts of 2 MiB
 * that add up to the time from the first output to the exit, the second
 * at least the 0.2 s the command waited; the file's size at the end is
 * watch_bytes. A file that stays short leaves the last part untimed.
 */
static void
test_watch(void)
{
	struct config cf;
	struct outcome o;
	char path[] = "/tmp/test_xfer_watch.XXXXXX", script[256];
	uint64_t sum;
	int fd;

	if ((fd = mkstemp(path)) == -1)
		err(2, "mkstemp");
	close(fd);
	snprintf(script, sizeof(script), "echo put; head -c 2097152 /dev/zero "
	    ">%s; sleep 0.2; head -c 2097152 /dev/zero >>%s; sleep 0.1",
	    path, path);
	memset(&cf, 0, sizeof(cf));
	memset(&chunks, 0, sizeof(chunks));
	chunks.k = 2;
	chunks.total = 4194304;
	chunks.hold_last = 1;
	cf.watch = path;
	cf.bytes = 4194304;
	cf.have_bytes = 1;
	run_watched(script, &cf, &o);
	sum = chunks.n == 2 ? chunks.part_ns[0] + chunks.part_ns[1] : 0;
	ok(o.exit_code == 0 && o.c.bytes == 4194304 && chunks.n == 2 &&
	    chunks.part_bytes[0] == 2097152 && chunks.part_bytes[1] == 2097152 &&
	    sum == o.end_ns - o.output_ns &&
	    chunks.part_ns[1] >= 200 * NS_PER_MS,
	    "run -w: 2 parts of 2 MiB that add up to the copy, the second "
	    "at least 0.2 s (got %u parts, %llu bytes)", chunks.n,
	    (unsigned long long)o.c.bytes);
	snprintf(script, sizeof(script), "echo put; head -c 1000 /dev/zero "
	    ">%s", path);
	memset(&chunks, 0, sizeof(chunks));
	chunks.k = 2;
	chunks.total = 4194304;
	chunks.hold_last = 1;
	run_watched(script, &cf, &o);
	ok(o.c.bytes == 1000 && chunks.n == 0,
	    "run -w: a file that stays short: its size, no part timed "
	    "(got %u parts, %llu bytes)", chunks.n,
	    (unsigned long long)o.c.bytes);
	memset(&chunks, 0, sizeof(chunks));
	unlink(path);
}

/*
 * -k: 100 MB in 4 parts of 25 MB; the clock in ns given by the test. The
 * first part takes 0.25 s (100 MB/s), the second 0.5 s (50 MB/s); one
 * count that passes the ends of both the third and fourth parts times
 * them together (50 MB in 0.1 s, 500 MB/s), and nothing counts twice.
 */
static void
test_chunks(void)
{
	memset(&chunks, 0, sizeof(chunks));
	chunks.k = 4;
	chunks.total = 100000000;
	chunk_start(1000000000);
	chunk_mark(10000000, 1100000000);
	ok(chunks.n == 0, "no part ends before its last byte (got %u)",
	    chunks.n);
	chunk_mark(25000000, 1250000000);
	chunk_mark(50000000, 1750000000);
	chunk_mark(100000000, 1850000000);
	chunk_mark(100000000, 1900000000);
	ok(chunks.n == 3, "three parts timed (got %u)", chunks.n);
	ok(chunks.n == 3 && chunks.mbs[0] > 99.9 && chunks.mbs[0] < 100.1 &&
	    chunks.mbs[1] > 49.9 && chunks.mbs[1] < 50.1 &&
	    chunks.mbs[2] > 499.9 && chunks.mbs[2] < 500.1,
	    "parts at 100, 50 and 500 MB/s (got %.1f %.1f %.1f)",
	    chunks.mbs[0], chunks.mbs[1], chunks.mbs[2]);
	ok(chunks.part_bytes[0] == 25000000 && chunks.part_bytes[2] ==
	    50000000 && chunks.part_ns[1] == 500000000 &&
	    chunks.part_ns[2] == 100000000,
	    "each part's bytes and ns are kept for the rate's interval");
	memset(&chunks, 0, sizeof(chunks));
	/* up: the last byte written does not end the last part; the
	 * receiver's count does, later. */
	chunks.k = 2;
	chunks.total = 100000000;
	chunks.hold_last = 1;
	chunk_start(1000000000);
	chunk_mark(50000000, 1500000000);
	chunk_mark(100000000, 1600000000);
	ok(chunks.n == 1, "up: the last write does not end the last part "
	    "(got %u parts)", chunks.n);
	chunks.hold_last = 0;
	chunk_mark(100000000, 2000000000);
	ok(chunks.n == 2 && chunks.part_ns[1] == 500000000 &&
	    chunks.part_bytes[1] == 50000000,
	    "up: the count ends it, 50 MB in 0.5 s (got %u parts)", chunks.n);
	memset(&chunks, 0, sizeof(chunks));
}

/*
 * run -o: the start of each line of output. Three reads at 1, 2 and 5 s:
 * "sftp> a\nsftp", "> b\n", "sftp> c\nsftp> d\n": four lines, begun at 1,
 * 1, 5 and 5 s (a line begins with the read that brings its first byte).
 */
static void
test_lines(void)
{
	static const char *reads[] = { "sftp> a\nsftp", "> b\n",
	    "sftp> c\nsftp> d\n" };
	static const uint64_t at[] = { 1, 2, 5 };
	size_t i;

	memset(&lines, 0, sizeof(lines));
	lines.at_start = 1;
	for (i = 0; i < 3; i++)
		lines_mark(reads[i], strlen(reads[i]), at[i] * NS_PER_S);
	ok(lines.n == 4 && lines.start_ns[0] == NS_PER_S &&
	    lines.start_ns[1] == NS_PER_S && lines.start_ns[2] == 5 * NS_PER_S &&
	    lines.start_ns[3] == 5 * NS_PER_S,
	    "four lines, begun at 1, 1, 5 and 5 s (got %u)", lines.n);
	memset(&lines, 0, sizeof(lines));
	lines.at_start = 1;
}

int
main(void)
{
	if ((buf = calloc(1, DEFAULT_BUF_BYTES)) == NULL)
		err(2, "calloc");
	if ((devnull_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1)
		err(2, "/dev/null");
	signal(SIGPIPE, SIG_IGN);
	test_status();
	test_counting();
	test_parse_count();
	test_commands();
	test_chunks();
	test_watch();
	test_lines();
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
