/*
 * sshperf-xfer: the bulk-data source and sink of the transfer tests. It
 * writes or counts bytes with large buffers (splice into /dev/null where
 * the kernel allows it), so that it is never what limits a transfer, and
 * times from the first to the last byte. It can also run the client
 * (ssh, sftp) itself as a child, to feed or drain it and to report the
 * child's own CPU time from wait4().
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
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

#define DEFAULT_BUF_BYTES	(1024 * 1024)
#define PIPE_BYTES		(1024 * 1024)	/* asked for; the kernel may refuse */
#define DEFAULT_TIMEOUT_S	3600
#define REPLY_MAX		256		/* "ready" line and count of up */
#define MB			1000000.0	/* MB = 10^6 bytes, everywhere */

enum mode { MODE_SOURCE, MODE_SINK, MODE_UP, MODE_DOWN, MODE_RUN };

struct config {
	enum mode	 mode;
	uint64_t	 bytes;		/* to send, or expected */
	int		 have_bytes;
	uint64_t	 timeout_ns;
	size_t		 buf_bytes;
	int		 from_output;	/* run: also time from first output */
	const char	*watch;		/* run -w: the file whose size is read */
};

/* Bytes counted on one stream and when the first and last of them came. */
struct counter {
	uint64_t	 bytes;
	uint64_t	 first_ns;	/* 0: nothing yet */
	uint64_t	 last_ns;
};

/* What a run of a child gave. */
struct outcome {
	struct counter	 c;		/* bytes the receiver counted */
	uint64_t	 sent;		/* up: bytes written into the child */
	int		 exit_code;	/* 0..255, 128+signal, -1 none */
	int		 timed_out;
	struct rusage	 ru;		/* the child's own CPU time */
	uint64_t	 start_ns;	/* run: spawn; up, down: see counter */
	uint64_t	 output_ns;	/* run -o: first byte of output, 0 none */
	uint64_t	 end_ns;
	char		 note[128];	/* what went wrong, if anything */
};

/*
 * -k: the transfer timed in parts, for the interval of its rate. The bytes
 * are split into k equal spans; each span's rate is taken when its last
 * byte is counted (down) or written (up; the last span when the
 * receiver's count arrives, where the transfer's own time ends, so that
 * the parts add up to it). Spans that end in the same read or write are
 * timed together, as one part.
 */
#define MAX_CHUNKS		64

/* run -w: how often the watched file's size is read. */
#define WATCH_NS		NS_PER_MS

struct chunks {
	unsigned	 k;		/* 0: not asked for */
	uint64_t	 total;		/* the bytes split into k spans */
	unsigned	 next;		/* the span that ends next, 1-based */
	uint64_t	 mark_bytes;	/* where the current part began */
	uint64_t	 mark_ns;	/* and when; 0: not started */
	unsigned	 n;		/* parts timed */
	int		 hold_last;	/* up: the last part ends at the count */
	double		 mbs[MAX_CHUNKS];
	uint64_t	 part_bytes[MAX_CHUNKS];
	uint64_t	 part_ns[MAX_CHUNKS];
};

/*
 * run -o: when each line of the command's output began, for a batch whose
 * commands are echoed as they start (sftp -b): the time between two echoes
 * is the first command's. The first MAX_LINES lines are kept.
 */
#define MAX_LINES		256

struct lines {
	unsigned	 n;		/* lines begun */
	int		 at_start;	/* the next byte begins a line */
	uint64_t	 start_ns[MAX_LINES];
};

static char *buf;
static int devnull_fd = -1;
static struct chunks chunks;
static struct lines lines = { .at_start = 1 };

/* n bytes of output arrived at t: notes the lines that begin in them. */
static void
lines_mark(const char *p, size_t n, uint64_t t)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (lines.at_start) {
			if (lines.n < MAX_LINES)
				lines.start_ns[lines.n] = t;
			lines.n++;
		}
		lines.at_start = p[i] == '\n';
	}
}

/* Starts the clock of the first part (if not yet). */
static void
chunk_start(uint64_t t)
{
	if (chunks.k != 0 && chunks.mark_ns == 0) {
		chunks.mark_ns = t;
		chunks.next = 1;
	}
}

/* bytes counted so far at time t: closes the parts whose end it passed. */
static void
chunk_mark(uint64_t bytes, uint64_t t)
{
	uint64_t end = 0;
	int passed = 0;

	if (chunks.k == 0 || chunks.mark_ns == 0 || chunks.total == 0)
		return;
	/* The last byte written is not yet the last byte received: the
	 * parts still open end with the receiver's count. */
	if (chunks.hold_last && bytes >= chunks.total)
		return;
	while (chunks.next <= chunks.k &&
	    bytes >= (end = chunks.total / chunks.k * chunks.next +
	    (chunks.next == chunks.k ? chunks.total % chunks.k : 0))) {
		chunks.next++;
		passed = 1;
	}
	if (!passed || t <= chunks.mark_ns || chunks.n >= MAX_CHUNKS)
		return;
	end = bytes < chunks.total ? bytes : chunks.total;
	chunks.part_bytes[chunks.n] = end - chunks.mark_bytes;
	chunks.part_ns[chunks.n] = t - chunks.mark_ns;
	chunks.mbs[chunks.n++] = (double)(end - chunks.mark_bytes) / 1e6 /
	    ((double)(t - chunks.mark_ns) / 1e9);
	chunks.mark_bytes = end;
	chunks.mark_ns = t;
}

static void
count_bytes(struct counter *c, uint64_t n)
{
	uint64_t t;

	if (n == 0)
		return;
	t = now_ns();
	if (c->first_ns == 0) {
		c->first_ns = t;
		chunk_start(t);
	}
	c->last_ns = t;
	c->bytes += n;
	chunk_mark(c->bytes, t);
}

/* "ok", "short" or "long": a stream compared with what was expected. */
static const char *
stream_status(uint64_t expected, uint64_t got)
{
	if (got < expected)
		return "short";
	if (got > expected)
		return "long";
	return "ok";
}

static double
seconds_between(uint64_t a_ns, uint64_t b_ns)
{
	return b_ns > a_ns ? (double)(b_ns - a_ns) / (double)NS_PER_S : 0.0;
}

/* MB/s (10^6 bytes per second), 0 when the interval is empty. */
static double
rate_mbs(uint64_t bytes, double seconds)
{
	return seconds > 0 ? (double)bytes / MB / seconds : 0.0;
}

static void
set_nonblock(int fd, int on)
{
	int fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK) == -1)
		err(2, "fcntl");
}

/* A larger pipe means fewer wake-ups; not being allowed one is fine. */
static void
grow_pipe(int fd)
{
	(void)fcntl(fd, F_SETPIPE_SZ, PIPE_BYTES);
}

/*
 * Reads fd until end of file, counting. A pipe is spliced into /dev/null
 * (no copy); anything else is read into buf. Returns 0 at end of file,
 * 1 when deadline_ns (0: none) passed first; exits 2 on a read error.
 */
static int
drain(int fd, struct counter *c, size_t buf_bytes, uint64_t deadline_ns)
{
	struct pollfd pfd;
	uint64_t now;
	ssize_t n;
	int use_splice = 1, timeout_ms;

	set_nonblock(fd, 1);
	for (;;) {
		if (use_splice) {
			n = splice(fd, NULL, devnull_fd, NULL, buf_bytes,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n == -1 && errno == EINVAL) {
				use_splice = 0;
				continue;
			}
		} else
			n = read(fd, buf, buf_bytes);
		if (n > 0) {
			count_bytes(c, (uint64_t)n);
			continue;
		}
		if (n == 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			err(2, "reading the stream");
		timeout_ms = -1;
		if (deadline_ns != 0) {
			if ((now = now_ns()) >= deadline_ns)
				return 1;
			timeout_ms = (int)((deadline_ns - now) / NS_PER_MS) + 1;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, timeout_ms) == -1 && errno != EINTR)
			err(2, "poll");
	}
}

/* Writes exactly bytes zero bytes to fd; returns what was written. */
static uint64_t
fill(int fd, uint64_t bytes, size_t buf_bytes)
{
	uint64_t done = 0;
	size_t chunk;
	ssize_t n;

	while (done < bytes) {
		chunk = bytes - done < buf_bytes ? (size_t)(bytes - done) :
		    buf_bytes;
		n = write(fd, buf, chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		done += (uint64_t)n;
	}
	return done;
}

/*
 * Waits for the child until deadline_ns, then stops it (proc_stop: TERM,
 * and KILL after a grace period). Fills exit_code, ru, end_ns and timed_out.
 */
static void
reap(pid_t pid, uint64_t deadline_ns, struct outcome *o)
{
	int wstatus = 0;

	if (!proc_wait_until(pid, deadline_ns, &wstatus, &o->ru)) {
		/* An early end we asked for is not a time-out. */
		o->timed_out = o->note[0] == '\0';
		(void)proc_stop(pid, PROC_KILL_GRACE_NS, &wstatus, &o->ru);
	}
	o->end_ns = now_ns();
	o->exit_code = exit_code_of(wstatus);
}

/*
 * Starts argv with the given descriptors as its stdin and stdout (-1:
 * inherited); stderr is always inherited. Exits 127 when it cannot start.
 */
static pid_t
spawn(char *argv[], int in_fd, int out_fd)
{
	pid_t pid;
	int r;

	if ((r = proc_spawn(&pid, argv, in_fd, out_fd, PROC_INHERIT, NULL,
	    NULL)) != 0)
		errno = r, err(127, "%s", argv[0]);
	return pid;
}

/* down: the child writes the data to its stdout; count it. */
static void
run_down(const struct config *cf, char *argv[], struct outcome *o)
{
	uint64_t deadline_ns;
	pid_t pid;
	int p[2], devnull_in;

	if (pipe2(p, O_CLOEXEC) == -1)
		err(2, "pipe2");
	grow_pipe(p[0]);
	if ((devnull_in = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		err(2, "/dev/null");
	o->start_ns = now_ns();
	deadline_ns = o->start_ns + cf->timeout_ns;
	pid = spawn(argv, devnull_in, p[1]);
	close(p[1]);
	close(devnull_in);
	(void)drain(p[0], &o->c, cf->buf_bytes, deadline_ns);
	close(p[0]);
	reap(pid, deadline_ns, o);
}

/*
 * Takes the receiver's reply of an upload from what the child printed:
 * "ready" on the first line, the receiver's byte count on the last.
 * Returns 0 and sets *count, or -1 and a note.
 */
static int
parse_count(const char *reply, uint64_t *count, char *note, size_t size)
{
	const char *errstr, *nl, *last;
	char num[32];
	size_t len;

	if (strncmp(reply, "ready\n", 6) != 0) {
		snprintf(note, size, "the receiver did not say ready");
		return -1;
	}
	last = reply + 6;
	if ((nl = strchr(last, '\n')) == NULL || nl[1] != '\0') {
		snprintf(note, size, "no byte count from the receiver");
		return -1;
	}
	len = (size_t)(nl - last);
	while (len > 0 && last[0] == ' ')	/* BSD wc pads */
		last++, len--;
	if (len == 0 || len >= sizeof(num)) {
		snprintf(note, size, "no byte count from the receiver");
		return -1;
	}
	memcpy(num, last, len);
	num[len] = '\0';
	if (parse_u64(num, 0, UINT64_MAX, count, &errstr) != 0) {
		snprintf(note, size, "the receiver's count \"%s\" is %s", num,
		    errstr);
		return -1;
	}
	return 0;
}

/*
 * up: the child's stdin gets the data once it has printed "ready"; when it
 * exits, its output must end with the number of bytes the receiver got.
 * The time runs from "ready" to the arrival of the count.
 */
static void
run_up(const struct config *cf, char *argv[], struct outcome *o)
{
	struct pollfd pfd[2];
	char reply[REPLY_MAX + 1];
	size_t reply_len = 0, chunk;
	uint64_t deadline_ns, now, ready_ns = 0, count;
	ssize_t n;
	int in[2], out[2], in_open = 1, out_open = 1, nfds, timeout_ms;
	pid_t pid;

	if (pipe2(in, O_CLOEXEC) == -1 || pipe2(out, O_CLOEXEC) == -1)
		err(2, "pipe2");
	grow_pipe(in[1]);
	o->start_ns = now_ns();
	deadline_ns = o->start_ns + cf->timeout_ns;
	pid = spawn(argv, in[0], out[1]);
	close(in[0]);
	close(out[1]);
	set_nonblock(in[1], 1);
	set_nonblock(out[0], 1);

	while (out_open) {
		nfds = 0;
		pfd[nfds].fd = out[0];
		pfd[nfds++].events = POLLIN;
		if (in_open && ready_ns != 0) {
			pfd[nfds].fd = in[1];
			pfd[nfds++].events = POLLOUT;
		}
		now = now_ns();
		if (now >= deadline_ns)
			break;
		timeout_ms = (int)((deadline_ns - now) / NS_PER_MS) + 1;
		if (poll(pfd, (nfds_t)nfds, timeout_ms) == -1) {
			if (errno == EINTR)
				continue;
			err(2, "poll");
		}
		if (pfd[0].revents != 0) {
			n = read(out[0], reply + reply_len, REPLY_MAX - reply_len);
			if (n == -1 && errno != EAGAIN && errno != EINTR)
				err(2, "reading the receiver's reply");
			if (n == 0 || (n == -1 && errno != EAGAIN &&
			    errno != EINTR))
				out_open = 0;
			if (n > 0) {
				reply_len += (size_t)n;
				o->c.last_ns = now_ns();
				if (reply_len == REPLY_MAX) {
					snprintf(o->note, sizeof(o->note),
					    "more output than a ready line "
					    "and a count");
					out_open = 0;
				}
			}
			reply[reply_len] = '\0';
			if (ready_ns == 0 && strncmp(reply, "ready\n", 6) == 0) {
				ready_ns = now_ns();
				chunk_start(ready_ns);
			}
		}
		if (nfds == 2 && pfd[1].revents != 0) {
			if (pfd[1].revents & (POLLERR | POLLHUP)) {
				close(in[1]);
				in_open = 0;
				continue;
			}
			while (o->sent < cf->bytes) {
				chunk = cf->bytes - o->sent < cf->buf_bytes ?
				    (size_t)(cf->bytes - o->sent) : cf->buf_bytes;
				n = write(in[1], buf, chunk);
				if (n > 0) {
					o->sent += (uint64_t)n;
					chunk_mark(o->sent, now_ns());
					continue;
				}
				if (n == -1 && errno == EINTR)
					continue;
				if (n == -1 && errno != EAGAIN) {
					/* EPIPE: the receiver is gone. */
					close(in[1]);
					in_open = 0;
				}
				break;
			}
			if (in_open && o->sent == cf->bytes) {
				close(in[1]);
				in_open = 0;
			}
		}
	}
	if (in_open)
		close(in[1]);
	close(out[0]);
	reap(pid, o->note[0] ? now_ns() : deadline_ns, o);
	o->c.first_ns = ready_ns;
	if (o->timed_out)
		snprintf(o->note, sizeof(o->note), "not finished after %.0f s",
		    seconds_between(o->start_ns, deadline_ns));
	if (ready_ns == 0)
		o->c.last_ns = 0;
	if (o->note[0] == '\0' &&
	    parse_count(reply, &count, o->note, sizeof(o->note)) == 0)
		o->c.bytes = count;
	/* The last part ends when the receiver's count arrived. */
	chunks.hold_last = 0;
	if (o->c.last_ns != 0 && o->c.bytes == cf->bytes)
		chunk_mark(cf->bytes, o->c.last_ns);
}

/* The size of the watched file, 0 when it cannot be read (not there yet). */
static uint64_t
watch_size(const char *path)
{
	struct stat st;

	if (stat(path, &st) == -1 || st.st_size < 0)
		return 0;
	return (uint64_t)st.st_size;
}

/* run -w: the watched file's size now closes the parts it passed. */
static void
watch_mark(const struct config *cf)
{
	if (cf->watch != NULL)
		chunk_mark(watch_size(cf->watch), now_ns());
}

/*
 * run: only time the child and report its CPU. Its stdin and stderr are
 * ours; its stdout goes to our stderr, so that our stdout holds only the
 * result. With -o the stdout passes through a pipe on its way, and the
 * arrival of its first byte is noted (sftp -b echoes each batch command
 * once it is logged in: the copy starts there).
 */
static void
run_plain(const struct config *cf, char *argv[], struct outcome *o)
{
	uint64_t deadline_ns;
	ssize_t n;
	pid_t pid;
	int p[2];

	if (!cf->from_output) {
		o->start_ns = now_ns();
		pid = spawn(argv, -1, STDERR_FILENO);
		reap(pid, o->start_ns + cf->timeout_ns, o);
		o->c.first_ns = o->start_ns;
		o->c.last_ns = o->end_ns;
		return;
	}
	if (pipe2(p, O_CLOEXEC) == -1)
		err(2, "pipe2");
	o->start_ns = now_ns();
	deadline_ns = o->start_ns + cf->timeout_ns;
	pid = spawn(argv, -1, p[1]);
	close(p[1]);
	set_nonblock(p[0], 1);
	for (;;) {
		struct pollfd pfd = { .fd = p[0], .events = POLLIN };
		uint64_t now = now_ns(), wait_ns;

		if (now >= deadline_ns)
			break;
		wait_ns = deadline_ns - now;
		if (cf->watch != NULL && wait_ns > WATCH_NS)
			wait_ns = WATCH_NS;
		if (poll(&pfd, 1, (int)((wait_ns + NS_PER_MS - 1) / NS_PER_MS))
		    == -1 && errno != EINTR)
			err(2, "poll");
		watch_mark(cf);
		n = read(p[0], buf, cf->buf_bytes);
		if (n > 0) {
			now = now_ns();
			if (o->output_ns == 0) {
				o->output_ns = now;
				if (cf->watch != NULL)
					chunk_start(now);
			}
			lines_mark(buf, (size_t)n, now);
			(void)!write(STDERR_FILENO, buf, (size_t)n);
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EINTR))
			break;
	}
	close(p[0]);
	reap(pid, deadline_ns, o);
	o->c.first_ns = o->start_ns;
	o->c.last_ns = o->end_ns;
	if (cf->watch != NULL) {
		/* The last part ends with the command: the copy's own end. */
		chunks.hold_last = 0;
		o->c.bytes = watch_size(cf->watch);
		if (o->c.bytes == cf->bytes)
			chunk_mark(cf->bytes, o->end_ns);
	}
}

static double
tv_s(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static const char *
outcome_status(const struct config *cf, const struct outcome *o)
{
	if (o->timed_out)
		return "timeout";
	if (cf->mode != MODE_RUN && cf->have_bytes &&
	    strcmp(stream_status(cf->bytes, o->c.bytes), "ok") != 0)
		return stream_status(cf->bytes, o->c.bytes);
	if (o->exit_code != 0 || o->note[0] != '\0')
		return "failed";
	return "ok";
}

static void
print_counter(const struct counter *c)
{
	double s = seconds_between(c->first_ns, c->last_ns);

	printf("bytes=%llu\n", (unsigned long long)c->bytes);
	printf("seconds=%.6f\n", s);
	printf("mbs=%.1f\n", rate_mbs(c->bytes, s));
}

static void
print_outcome(const struct config *cf, const struct outcome *o)
{
	static const char *const mode_name[] = {
		"source", "sink", "up", "down", "run"
	};
	const char *status = outcome_status(cf, o);

	printf("status=%s\n", status);
	printf("mode=%s\n", mode_name[cf->mode]);
	if (cf->mode != MODE_RUN) {
		printf("bytes_expected=%llu\n", (unsigned long long)cf->bytes);
		print_counter(&o->c);
	} else {
		printf("seconds=%.6f\n", seconds_between(o->start_ns,
		    o->end_ns));
		if (cf->from_output) {
			unsigned i;

			printf("output_seconds=%.6f\n", o->output_ns == 0 ?
			    0.0 : seconds_between(o->output_ns, o->end_ns));
			printf("lines=%u\nline_seconds=", lines.n);
			for (i = 0; i < lines.n && i < MAX_LINES; i++)
				printf("%s%.6f", i ? "," : "", seconds_between(
				    o->output_ns, lines.start_ns[i]));
			printf("\n");
		}
	}
	if (cf->mode == MODE_UP)
		printf("bytes_sent=%llu\n", (unsigned long long)o->sent);
	if (cf->watch != NULL) {
		printf("watch_bytes_expected=%llu\n",
		    (unsigned long long)cf->bytes);
		printf("watch_bytes=%llu\n", (unsigned long long)o->c.bytes);
	}
	printf("exit=%d\n", o->exit_code);
	printf("wall_seconds=%.6f\n", seconds_between(o->start_ns, o->end_ns));
	printf("client_user_s=%.3f\n", tv_s(o->ru.ru_utime));
	printf("client_system_s=%.3f\n", tv_s(o->ru.ru_stime));
	printf("client_cpu_s=%.3f\n", tv_s(o->ru.ru_utime) +
	    tv_s(o->ru.ru_stime));
	if (chunks.k != 0) {
		unsigned i;

		printf("chunks=%u\nchunk_mbs=", chunks.n);
		for (i = 0; i < chunks.n; i++)
			printf("%s%.1f", i ? "," : "", chunks.mbs[i]);
		printf("\nchunk_bytes=");
		for (i = 0; i < chunks.n; i++)
			printf("%s%llu", i ? "," : "",
			    (unsigned long long)chunks.part_bytes[i]);
		printf("\nchunk_seconds=");
		for (i = 0; i < chunks.n; i++)
			printf("%s%.6f", i ? "," : "",
			    (double)chunks.part_ns[i] / 1e9);
		printf("\n");
	}
	if (o->note[0] != '\0')
		printf("note=%s\n", o->note);
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-xfer source [-b buf_bytes] bytes\n"
	    "       sshperf-xfer sink [-b buf_bytes] [-n bytes]\n"
	    "       sshperf-xfer up -n bytes [-b buf_bytes] [-k chunks] "
	    "[-t seconds] -- command [arg ...]\n"
	    "       sshperf-xfer down -n bytes [-b buf_bytes] [-k chunks] "
	    "[-t seconds] "
	    "-- command [arg ...]\n"
	    "       sshperf-xfer run [-o] [-w file -n bytes -k chunks] "
	    "[-t seconds] -- command [arg ...]\n");
	exit(2);
}

static enum mode
parse_mode(const char *s)
{
	if (strcmp(s, "source") == 0)
		return MODE_SOURCE;
	if (strcmp(s, "sink") == 0)
		return MODE_SINK;
	if (strcmp(s, "up") == 0)
		return MODE_UP;
	if (strcmp(s, "down") == 0)
		return MODE_DOWN;
	if (strcmp(s, "run") == 0)
		return MODE_RUN;
	warnx("unknown mode \"%s\": source, sink, up, down or run", s);
	usage();
	return MODE_RUN;
}

/*
 * Modes (MB is 10^6 bytes throughout):
 *   source BYTES   writes exactly BYTES zero bytes to stdout; exit 1 when
 *                  the reader went away before.
 *   sink           counts stdin to its end; prints status (ok, short, long
 *                  against -n), bytes, seconds and mbs from the first to
 *                  the last byte; exit 1 unless ok.
 *   down           runs the command and counts its stdout like sink.
 *   up             runs the command; once its first output line is
 *                  "ready", writes -n bytes to its stdin and closes it; the
 *                  command's last line must be the receiver's byte count
 *                  (e.g. ssh host 'echo ready; exec wc -c'). The time runs
 *                  from "ready" to the count.
 *   run            runs the command and times it; its stdout goes to
 *                  stderr, stdin and stderr are shared. With -o also
 *                  output_seconds: from the first byte the command
 *                  writes to its stdout to its exit (0 without output).
 *                  With -o -w FILE -n BYTES -k K the copy of one file by
 *                  the command (sftp -b with one put or get) is timed in
 *                  K parts too: FILE's size is read every millisecond
 *                  from the first output byte on, and the last part ends
 *                  with the command's exit; watch_bytes is FILE's size
 *                  then (the status stays the command's).
 * up and down (and run -w) with -k K also time the bytes in K equal parts (up to 64)
 * and print chunks (the parts timed; parts that end in one read or write
 * are timed as one) and chunk_mbs, their rates, comma-separated.
 * The three modes with a command also print the command's exit status and
 * its own user and system CPU time (client_*_s, from wait4), and end it
 * after -t seconds (status=timeout). Exit 0 ok, 1 the transfer or command
 * failed or was short, 2 usage, 127 the command could not be started.
 */
int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	struct config cf;
	struct outcome o;
	uint64_t written;
	int ch;

	memset(&cf, 0, sizeof(cf));
	memset(&o, 0, sizeof(o));
	o.exit_code = -1;
	cf.timeout_ns = DEFAULT_TIMEOUT_S * NS_PER_S;
	cf.buf_bytes = DEFAULT_BUF_BYTES;
	if (argc < 2)
		usage();
	cf.mode = parse_mode(argv[1]);
	argc--;
	argv++;
	while ((ch = getopt(argc, argv, "+b:k:n:ot:w:")) != -1) {
		switch (ch) {
		case 'b':
			cf.buf_bytes = (size_t)opt_u64("-b buf_bytes", optarg,
			    4096, 64 * 1024 * 1024);
			break;
		case 'k':
			chunks.k = (unsigned)opt_u64("-k chunks", optarg, 2,
			    MAX_CHUNKS);
			break;
		case 'n':
			cf.bytes = opt_u64("-n bytes", optarg, 0, UINT64_MAX);
			cf.have_bytes = 1;
			break;
		case 'o':
			cf.from_output = 1;
			break;
		case 't':
			cf.timeout_ns = NS_PER_S * opt_u64("-t seconds", optarg,
			    1, 86400 * 7);
			break;
		case 'w':
			cf.watch = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (cf.from_output && cf.mode != MODE_RUN)
		errx(2, "-o is for run only");
	if (cf.watch != NULL && (cf.mode != MODE_RUN || !cf.from_output ||
	    !cf.have_bytes || cf.bytes == 0 || chunks.k == 0))
		errx(2, "-w is for run -o only, with -n bytes and -k chunks");
	if (chunks.k != 0 && cf.mode != MODE_UP && cf.mode != MODE_DOWN &&
	    cf.watch == NULL)
		errx(2, "-k is for up, down and run -w only");
	chunks.total = cf.bytes;
	chunks.hold_last = cf.mode == MODE_UP || cf.watch != NULL;

	if ((buf = calloc(1, cf.buf_bytes)) == NULL)
		err(2, "calloc");
	if ((devnull_fd = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1)
		err(2, "/dev/null");
	signal(SIGPIPE, SIG_IGN);

	switch (cf.mode) {
	case MODE_SOURCE:
		if (argc != 1 || cf.have_bytes)
			usage();
		cf.bytes = opt_u64("bytes", argv[0], 0, UINT64_MAX);
		grow_pipe(STDOUT_FILENO);
		written = fill(STDOUT_FILENO, cf.bytes, cf.buf_bytes);
		if (written != cf.bytes)
			errx(1, "the reader went away after %llu of %llu bytes",
			    (unsigned long long)written,
			    (unsigned long long)cf.bytes);
		return 0;
	case MODE_SINK:
		if (argc != 0)
			usage();
		grow_pipe(STDIN_FILENO);
		drain(STDIN_FILENO, &o.c, cf.buf_bytes, 0);
		printf("status=%s\n", cf.have_bytes ?
		    stream_status(cf.bytes, o.c.bytes) : "ok");
		if (cf.have_bytes)
			printf("bytes_expected=%llu\n",
			    (unsigned long long)cf.bytes);
		print_counter(&o.c);
		if (fflush(stdout) == EOF || ferror(stdout))
			err(2, "writing the result");
		return cf.have_bytes && cf.bytes != o.c.bytes;
	case MODE_UP:
	case MODE_DOWN:
		if (!cf.have_bytes)
			errx(2, "%s needs -n bytes", cf.mode == MODE_UP ? "up" :
			    "down");
		/* FALLTHROUGH */
	case MODE_RUN:
		if (argc < 1)
			usage();
		if (cf.mode == MODE_UP)
			run_up(&cf, argv, &o);
		else if (cf.mode == MODE_DOWN)
			run_down(&cf, argv, &o);
		else
			run_plain(&cf, argv, &o);
		break;
	}
	print_outcome(&cf, &o);
	if (fflush(stdout) == EOF || ferror(stdout))
		err(2, "writing the result");
	return strcmp(outcome_status(&cf, &o), "ok") != 0;
}
