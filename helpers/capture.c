/*
 * sshperf-capture: whose time a login is, from its packets.
 *
 *   sshperf-capture record -p PORT [-i IFACE] [-d SECONDS] -o FILE
 *	Takes the TCP packets to and from PORT on IFACE (lo) until SIGTERM,
 *	SIGINT or the deadline, and writes one row per packet: when it was
 *	seen (the kernel's timestamp on CLOCK_MONOTONIC), the client's port,
 *	the direction, the TCP flags, sequence and acknowledgement numbers
 *	and the payload length. A kernel filter passes only that port, and
 *	only the headers: no payload byte reaches this program. The header
 *	line is written once the socket is open, so a caller may wait for
 *	it before it starts the first login. Prints packets= and dropped= at
 *	the end, and refused=: frames the filter let through that this
 *	program's own check of each frame dropped (another interface or port,
 *	not TCP, or more than the headers); 0 expected.
 *   sshperf-capture turns -p PORT PACKETS LOGINS
 *	Joins the packets with the login table of sshperf-login (one row per
 *	login, phases in ms; a connection on which the client sent no data,
 *	such as a poller's, is none of them) and splits every login into the server's turns,
 *	the client's turns and TCP waits, per phase (docs/metrics.md,
 *	"Whose time"). One row per login, phase and part.
 *   sshperf-capture pad -p PORT PACKETS LOGINS
 *	The same join; one row per login, found by the messages' sizes:
 *	from the key's query to sshd's answer (query_ms), to the signed
 *	request (signed_ms) and to sshd's success (pair_ms), the two requests
 *	sshd pads to its base time (docs/metrics.md, "The login test
 *	measures the padding").
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

/* A release this soon after the peer's pure ACK was waiting for it ... */
#define RELEASE_NS	(500 * 1000ULL)
/* ... when that ACK came this long after the data it acknowledges. */
#define HELD_MIN_NS	(10 * NS_PER_MS)

#define TCP_FIN	0x01
#define TCP_SYN	0x02
#define TCP_RST	0x04
#define TCP_PSH	0x08
#define TCP_ACK	0x10

static volatile sig_atomic_t stop_requested;

static void
on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/*
 * The kernel filter: IPv4 (not a fragment) or IPv6 TCP with PORT at
 * either end; not loopback's outgoing copy, so each packet is kept once,
 * as it arrives; cut after the TCP header, so no payload byte is copied
 * (the payload length comes from the IP header). Jumps count the
 * instructions to skip, as the comments' numbers show.
 */
static size_t
filter_program(struct sock_filter *f, size_t cap, uint16_t port)
{
	const struct sock_filter prog[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, SKF_AD_OFF + SKF_AD_PKTTYPE),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PACKET_OUTGOING, 29, 0),
		/* 2 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 12),
		/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 0, 15),
		/* 4 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + 9),
		/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 25),
		/* 6 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 14 + 6),
		/* 7 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 23, 0),
		/* 8 */ BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 14),
		/* 9 */ BPF_STMT(BPF_LD | BPF_H | BPF_IND, 14),
		/* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 2, 0),
		/* 11 */ BPF_STMT(BPF_LD | BPF_H | BPF_IND, 14 + 2),
		/* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 0, 18),
		/* 13 */ BPF_STMT(BPF_LD | BPF_B | BPF_IND, 14 + 12),
		/* 14 */ BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 2),
		/* 15 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x3c),
		/* 16 */ BPF_STMT(BPF_ALU | BPF_ADD | BPF_X, 0),
		/* 17 */ BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 14),
		/* 18 */ BPF_STMT(BPF_RET | BPF_A, 0),
		/* 19 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 0, 11),
		/* 20 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + 6),
		/* 21 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_TCP, 0, 9),
		/* 22 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 14 + 40),
		/* 23 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 2, 0),
		/* 24 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 14 + 42),
		/* 25 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 0, 5),
		/* 26 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 14 + 40 + 12),
		/* 27 */ BPF_STMT(BPF_ALU | BPF_RSH | BPF_K, 2),
		/* 28 */ BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0x3c),
		/* 29 */ BPF_STMT(BPF_ALU | BPF_ADD | BPF_K, 14 + 40),
		/* 30 */ BPF_STMT(BPF_RET | BPF_A, 0),
		/* 31 */ BPF_STMT(BPF_RET | BPF_K, 0),
	};
	size_t n = sizeof(prog) / sizeof(prog[0]);

	if (n > cap)
		errx(2, "filter: %zu instructions, room for %zu", n, cap);
	memcpy(f, prog, sizeof(prog));
	return n;
}

/* One packet as the record mode writes it. */
struct pkt {
	uint64_t	t_ns;
	unsigned	cport;
	int		c2s;		/* from the client to the server */
	unsigned	flags;
	uint32_t	seq, ack, len;
};

static const char table_header[] =
    "t_ns\tclient_port\tdir\tflags\tseq\tack\tlen\n";

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

static unsigned
be16(const unsigned char *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/*
 * The headers of one frame, checked again here whatever the kernel filter
 * passed: Ethernet, then IPv4 (not a fragment) or IPv6 carrying TCP, with
 * PORT at one end. Returns the length of the headers (Ethernet, IP, TCP),
 * or -1 for a short frame or any other packet.
 */
static long
parse_frame(const unsigned char *b, size_t n, unsigned port, struct pkt *p)
{
	const unsigned char *tcp;
	size_t ip_hlen;
	unsigned ip_len, sport, dport, doff;

	if (n < 14 + 20)
		return -1;
	switch (be16(b + 12)) {
	case ETH_P_IP:
		if ((b[14] >> 4) != 4 || b[14 + 9] != IPPROTO_TCP ||
		    (be16(b + 14 + 6) & 0x1fff) != 0 ||
		    (be16(b + 14 + 6) & 0x2000) != 0)
			return -1;
		ip_hlen = (size_t)(b[14] & 0x0f) * 4;
		ip_len = be16(b + 16);
		if (ip_hlen < 20)
			return -1;
		break;
	case ETH_P_IPV6:
		if ((b[14] >> 4) != 6 || b[14 + 6] != IPPROTO_TCP)
			return -1;
		ip_hlen = 40;
		ip_len = 40 + be16(b + 18);
		break;
	default:
		return -1;
	}
	if (n < 14 + ip_hlen + 20)
		return -1;
	tcp = b + 14 + ip_hlen;
	doff = (unsigned)(tcp[12] >> 4) * 4;
	if (doff < 20 || ip_len < ip_hlen + doff)
		return -1;
	sport = be16(tcp);
	dport = be16(tcp + 2);
	if (sport != port && dport != port)
		return -1;
	p->c2s = dport == port;
	p->cport = p->c2s ? sport : dport;
	p->seq = be32(tcp + 4);
	p->ack = be32(tcp + 8);
	p->flags = tcp[13];
	p->len = ip_len - (unsigned)ip_hlen - doff;
	return (long)(14 + ip_hlen + doff);
}

static void
flag_letters(unsigned flags, char *out)
{
	static const struct { unsigned bit; char c; } l[] = {
		{ TCP_SYN, 'S' }, { TCP_FIN, 'F' }, { TCP_RST, 'R' },
		{ TCP_PSH, 'P' }, { TCP_ACK, 'A' },
	};
	size_t i, k = 0;

	for (i = 0; i < sizeof(l) / sizeof(l[0]); i++)
		if (flags & l[i].bit)
			out[k++] = l[i].c;
	if (k == 0)
		out[k++] = '-';
	out[k] = '\0';
}

/* CLOCK_REALTIME minus CLOCK_MONOTONIC, read between two monotonic reads. */
static int64_t
realtime_offset_ns(void)
{
	struct timespec r;
	uint64_t a, b;

	a = now_ns();
	clock_gettime(CLOCK_REALTIME, &r);
	b = now_ns();
	return (int64_t)r.tv_sec * (int64_t)NS_PER_S + r.tv_nsec -
	    (int64_t)(a + (b - a) / 2);
}

/*
 * The packet socket on IFACE for PORT. It is made with protocol 0, so it
 * receives nothing until it is bound; the filter goes on first, and only
 * the bind to IFACE with a protocol starts the flow: no frame of another
 * interface or port is queued before the filter is in place. *ifindex is
 * IFACE's index, for the check of every frame.
 */
static int
open_capture(const char *iface, unsigned port, int *ifindex)
{
	struct sock_filter code[64];
	struct sock_fprog prog;
	struct sockaddr_ll sll;
	int fd, on = 1;
	unsigned idx;

	if ((idx = if_nametoindex(iface)) == 0)
		err(2, "-i %s", iface);
	if ((fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0)) == -1)
		err(2, "packet socket (needs root or CAP_NET_RAW)");
	prog.len = (unsigned short)filter_program(code, 64, (uint16_t)port);
	prog.filter = code;
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
	    sizeof(prog)) == -1)
		err(2, "SO_ATTACH_FILTER");
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) == -1)
		err(2, "SO_TIMESTAMPNS");
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = (int)idx;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) == -1)
		err(2, "bind %s", iface);
	*ifindex = (int)idx;
	return fd;
}

/* One frame as the socket queued it. */
struct frame {
	size_t		 caplen;	/* bytes copied into the buffer */
	size_t		 queued;	/* bytes the kernel kept of it (MSG_TRUNC) */
	int		 ifindex;
	unsigned	 pkttype;
	struct timespec	 ts;
};

/*
 * Reads one frame into buf without waiting: 1, 0 when there is none, -1
 * on an error. With MSG_TRUNC recvmsg returns how long the frame was as
 * the kernel queued it, after the filter cut it, not only what fitted in
 * buf: the proof that no payload byte reached this process.
 */
static int
read_frame(int fd, unsigned char *buf, size_t cap, struct frame *f)
{
	char cbuf[CMSG_SPACE(sizeof(struct timespec))];
	struct iovec iov = { buf, cap };
	struct sockaddr_ll from;
	struct msghdr msg;
	struct cmsghdr *c;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	memset(&from, 0, sizeof(from));
	msg.msg_name = &from;
	msg.msg_namelen = sizeof(from);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	if ((n = recvmsg(fd, &msg, MSG_DONTWAIT | MSG_TRUNC)) == -1)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	f->queued = (size_t)n;
	f->caplen = (size_t)n < cap ? (size_t)n : cap;
	f->ifindex = from.sll_ifindex;
	f->pkttype = from.sll_pkttype;
	f->ts.tv_sec = 0;
	f->ts.tv_nsec = 0;
	for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_TIMESTAMPNS)
			memcpy(&f->ts, CMSG_DATA(c), sizeof(f->ts));
	return 1;
}

/*
 * Whether a frame read from the socket is one to record: from IFACE
 * (ifindex), not loopback's outgoing copy, TCP to or from PORT, and no
 * byte beyond its headers queued. Fills *p.
 */
static int
frame_wanted(const unsigned char *buf, const struct frame *f, int ifindex,
    unsigned port, struct pkt *p)
{
	long hlen;

	if (f->ifindex != ifindex || f->pkttype == PACKET_OUTGOING)
		return 0;
	if ((hlen = parse_frame(buf, f->caplen, port, p)) < 0)
		return 0;
	return f->queued <= (size_t)hlen;
}

static int
record(unsigned port, const char *iface, double seconds, const char *path)
{
	unsigned char frame[256];
	char flags[8];
	uint64_t deadline = now_ns() + (uint64_t)(seconds * NS_PER_S), now = 0;
	unsigned long long packets = 0, dropped_here = 0;
	struct timespec stop_ts = { 0, 0 };
	int draining = 0;
	struct tpacket_stats st;
	socklen_t stlen = sizeof(st);
	struct sigaction sa;
	struct pollfd pfd;
	int64_t offset;
	FILE *out;
	int fd, ifindex;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGINT, &sa, NULL) == -1)
		err(2, "sigaction");
	if ((out = fopen(path, "we")) == NULL)
		err(2, "%s", path);
	fd = open_capture(iface, port, &ifindex);
	offset = realtime_offset_ns();
	/* The header says the capture runs. */
	if (fputs(table_header, out) == EOF || fflush(out) == EOF)
		err(2, "%s", path);
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		struct frame f;
		struct pkt p;
		int r;

		if (!draining && (stop_requested || (now = now_ns()) >= deadline)) {
			/*
			 * What the kernel queued before the stop is recorded
			 * too: a recorder that got little CPU (nice -n 19
			 * beside busy loops) was stopped with every login's
			 * frames still queued. It reads on without waiting, up
			 * to the first frame stamped after the stop.
			 */
			draining = 1;
			clock_gettime(CLOCK_REALTIME, &stop_ts);
		}
		if (!draining) {
			uint64_t left_ms = (deadline - now) / NS_PER_MS + 1;

			r = poll(&pfd, 1, left_ms > 1000 ? 1000 : (int)left_ms);
			if (r == -1 && errno == EINTR)
				continue;
			if (r == -1)
				err(2, "poll");
			if (r == 0)
				continue;
		}
		if ((r = read_frame(fd, frame, sizeof(frame), &f)) == -1)
			err(2, "recvmsg");
		if (r == 0) {
			if (draining)
				break;
			continue;
		}
		if (draining && (f.ts.tv_sec > stop_ts.tv_sec ||
		    (f.ts.tv_sec == stop_ts.tv_sec && f.ts.tv_nsec > stop_ts.tv_nsec)))
			break;
		if (!frame_wanted(frame, &f, ifindex, port, &p)) {
			dropped_here++;
			continue;
		}
		p.t_ns = (uint64_t)((int64_t)f.ts.tv_sec * (int64_t)NS_PER_S +
		    f.ts.tv_nsec - offset);
		flag_letters(p.flags, flags);
		fprintf(out, "%llu\t%u\t%s\t%s\t%u\t%u\t%u\n",
		    (unsigned long long)p.t_ns, p.cport, p.c2s ? "c2s" : "s2c",
		    flags, p.seq, p.ack, p.len);
		packets++;
	}
	memset(&st, 0, sizeof(st));
	getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &stlen);
	close(fd);
	if (fclose(out) == EOF)
		err(2, "%s", path);
	printf("packets=%llu\ndropped=%u\nrefused=%llu\nclock_step_ns=%lld\n",
	    packets, st.tp_drops, dropped_here,
	    (long long)(realtime_offset_ns() - offset));
	return 0;
}

/* ---- turns ---- */

enum whose { SERVER, CLIENT, TCP_WAIT, NWHOSE };
static const char *const whose_name[NWHOSE] = { "server", "client", "tcp_wait" };

#define NPHASE 5
static const char *const phase_name[NPHASE] = {
	"connect", "greeting", "kex", "auth", "session"
};

struct login {
	long	sample;
	int	ok;		/* status ok: every phase is known */
	int	reached;	/* it got as far as a TCP connection */
	double	phase_ms[NPHASE];
	double	total_ms;
};

struct table {
	struct pkt	*p;
	size_t		 n, cap;
};

static int
cmp_time(const void *a, const void *b)
{
	const struct pkt *x = a, *y = b;

	return (x->t_ns > y->t_ns) - (x->t_ns < y->t_ns);
}

static int
parse_flags(const char *s)
{
	unsigned f = 0;

	for (; *s != '\0'; s++)
		f |= *s == 'S' ? TCP_SYN : *s == 'F' ? TCP_FIN :
		    *s == 'R' ? TCP_RST : *s == 'P' ? TCP_PSH :
		    *s == 'A' ? TCP_ACK : 0;
	return (int)f;
}

/* Opens a table and finds its columns by name; exits 2 when one is missing. */
static FILE *
open_table(const char *path, const char *const *names, int *idx, size_t n,
    char **line, size_t *cap)
{
	FILE *f;
	size_t i;

	if ((f = fopen(path, "re")) == NULL)
		err(2, "%s", path);
	if (getline(line, cap, f) < 0)
		errx(2, "%s: no header line", path);
	for (i = 0; i < n; i++) {
		char *copy = strdup(*line);

		if (copy == NULL)
			err(2, NULL);
		if ((idx[i] = tsv_column(copy, names[i])) < 0)
			errx(2, "%s: no column %s", path, names[i]);
		free(copy);
	}
	return f;
}

static void
read_packets(const char *path, struct table *t)
{
	static const char *const names[] = {
		"t_ns", "client_port", "dir", "flags", "seq", "ack", "len"
	};
	int idx[7];
	char *line = NULL, buf[64];
	size_t cap = 0;
	uint64_t v[7];
	const char *errstr;
	FILE *f = open_table(path, names, idx, 7, &line, &cap);
	struct pkt p;
	int i;

	while (getline(&line, &cap, f) >= 0) {
		for (i = 0; i < 7; i++) {
			if (i == 2 || i == 3)
				continue;
			if (parse_u64(tsv_cell(line, idx[i], buf, sizeof(buf)),
			    0, UINT64_MAX, &v[i], &errstr) != 0)
				errx(2, "%s: %s %s: %s", path, names[i], buf,
				    errstr);
		}
		p.t_ns = v[0];
		p.cport = (unsigned)v[1];
		p.c2s = strcmp(tsv_cell(line, idx[2], buf, sizeof(buf)),
		    "c2s") == 0;
		p.flags = (unsigned)parse_flags(tsv_cell(line, idx[3], buf,
		    sizeof(buf)));
		p.seq = (uint32_t)v[4];
		p.ack = (uint32_t)v[5];
		p.len = (uint32_t)v[6];
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 256;
			if ((t->p = realloc(t->p, t->cap * sizeof(*t->p))) == NULL)
				err(2, NULL);
		}
		t->p[t->n++] = p;
	}
	free(line);
	fclose(f);
	qsort(t->p, t->n, sizeof(*t->p), cmp_time);
}

static size_t
read_logins(const char *path, struct login **out)
{
	static const char *const names[] = {
		"sample", "status", "connect_ms", "greeting_ms", "kex_ms",
		"auth_ms", "session_ms", "total_ms"
	};
	int idx[8], i;
	char *line = NULL, buf[64];
	size_t cap = 0, n = 0, lcap = 0;
	const char *errstr;
	FILE *f = open_table(path, names, idx, 8, &line, &cap);
	struct login *l = NULL, *x;
	double d;

	while (getline(&line, &cap, f) >= 0) {
		if (n == lcap) {
			lcap = lcap ? 2 * lcap : 64;
			if ((l = realloc(l, lcap * sizeof(*l))) == NULL)
				err(2, NULL);
		}
		x = &l[n++];
		memset(x, 0, sizeof(*x));
		x->sample = atol(tsv_cell(line, idx[0], buf, sizeof(buf)));
		x->ok = strcmp(tsv_cell(line, idx[1], buf, sizeof(buf)),
		    "ok") == 0;
		x->reached = parse_double(tsv_cell(line, idx[2], buf,
		    sizeof(buf)), 0, 1e9, &d, &errstr) == 0;
		for (i = 0; i < NPHASE; i++)
			if (parse_double(tsv_cell(line, idx[2 + i], buf,
			    sizeof(buf)), 0, 1e9, &x->phase_ms[i], &errstr) != 0)
				x->ok = 0;
		if (parse_double(tsv_cell(line, idx[7], buf, sizeof(buf)), 0,
		    1e9, &x->total_ms, &errstr) != 0)
			x->ok = 0;
	}
	free(line);
	fclose(f);
	*out = l;
	return n;
}

static int
is_message(const struct pkt *p)
{
	return p->len > 0 || (p->flags & (TCP_SYN | TCP_FIN | TCP_RST));
}

/* Adds [a, b) to the parts of the phases it overlaps. */
static void
credit(double parts[NPHASE][NWHOSE], const uint64_t *bound, uint64_t a,
    uint64_t b, enum whose w)
{
	int k;

	for (k = 0; k < NPHASE; k++) {
		uint64_t lo = a > bound[k] ? a : bound[k];
		uint64_t hi = b < bound[k + 1] ? b : bound[k + 1];

		if (hi > lo)
			parts[k][w] += ns_to_ms(hi - lo);
	}
}

/*
 * Whether message m (index mi in c) left only because the peer's pure ACK
 * let it: that ACK came at most RELEASE_NS before m, it is the first to
 * acknowledge the sender's last data, and it came at least HELD_MIN_NS
 * after that data (Nagle held m until a delayed ACK). Sets *ack_t.
 */
static int
released_by_ack(const struct pkt *c, size_t mi, uint64_t since,
    uint64_t *ack_t)
{
	const struct pkt *m = &c[mi], *a = NULL, *d = NULL;
	size_t j, ai = 0, di = 0;

	for (j = mi; j-- > 0 && c[j].t_ns >= since;)
		if (c[j].c2s != m->c2s) {
			a = &c[j];
			ai = j;
			break;
		}
	if (a == NULL || a->len != 0 || (a->flags & (TCP_SYN | TCP_FIN |
	    TCP_RST)) || m->t_ns - a->t_ns > RELEASE_NS)
		return 0;
	for (j = ai; j-- > 0;)
		if (c[j].c2s == m->c2s && c[j].len > 0) {
			d = &c[j];
			di = j;
			break;
		}
	if (d == NULL || a->t_ns - d->t_ns < HELD_MIN_NS ||
	    (int32_t)(a->ack - (d->seq + d->len)) < 0)
		return 0;
	for (j = di + 1; j < ai; j++)
		if (c[j].c2s != m->c2s &&
		    (int32_t)(c[j].ack - (d->seq + d->len)) >= 0)
			return 0;
	*ack_t = a->t_ns;
	return 1;
}

/*
 * The phases' bounds of one login on the packets' clock, from its
 * connection's packets c[0..n): bound[k] to bound[k + 1] is phase k.
 * False when the TCP handshake is not among them.
 */
static int
login_bounds(const struct login *l, const struct pkt *c, size_t n,
    uint64_t bound[NPHASE + 1])
{
	uint64_t start, hs = 0;
	size_t i;
	int k, synack = 0;

	for (i = 0; i < n && hs == 0; i++) {
		if (!c[i].c2s && (c[i].flags & TCP_SYN))
			synack = 1;
		else if (synack && c[i].c2s && !(c[i].flags & TCP_SYN))
			hs = c[i].t_ns;
	}
	if (hs == 0)
		return 0;
	/* ssh -v prints "Connection established" as the handshake ends. */
	start = hs - (uint64_t)(l->phase_ms[0] * NS_PER_MS);
	bound[0] = start;
	for (k = 0; k < NPHASE; k++)
		bound[k + 1] = bound[k] + (uint64_t)(l->phase_ms[k] * NS_PER_MS);
	bound[NPHASE] = start + (uint64_t)(l->total_ms * NS_PER_MS);
	return 1;
}

/* The parts of one login over its connection's packets c[0..n). */
static void
split_login(const struct login *l, const struct pkt *c, size_t n,
    double parts[NPHASE][NWHOSE])
{
	uint64_t bound[NPHASE + 1], start, end, prev, ack_t;
	size_t i;
	int have = 0;

	if (!login_bounds(l, c, n, bound))
		return;
	start = bound[0];
	end = bound[NPHASE];
	prev = start;
	for (i = 0; i < n && c[i].t_ns <= end; i++) {
		if (!is_message(&c[i]))
			continue;
		if (have && released_by_ack(c, i, prev, &ack_t)) {
			credit(parts, bound, prev, ack_t, TCP_WAIT);
			credit(parts, bound, ack_t, c[i].t_ns,
			    c[i].c2s ? CLIENT : SERVER);
		} else
			credit(parts, bound, prev, c[i].t_ns,
			    !have || c[i].c2s ? CLIENT : SERVER);
		prev = c[i].t_ns > prev ? c[i].t_ns : prev;
		have = 1;
	}
	credit(parts, bound, prev, end, CLIENT);
}

/* Whether the client sent data on the connection that starts at t->p[i]. */
static int
client_sent(const struct table *t, size_t i)
{
	size_t j;

	for (j = i + 1; j < t->n; j++) {
		if (t->p[j].cport != t->p[i].cport)
			continue;
		if (t->p[j].c2s && (t->p[j].flags & TCP_SYN) &&
		    !(t->p[j].flags & TCP_ACK) && t->p[j].seq != t->p[i].seq)
			return 0;	/* the port's next connection */
		if (t->p[j].c2s && t->p[j].len > 0)
			return 1;
	}
	return 0;
}

/* What is done with each login that matched a connection: its row(s). */
typedef void (*login_fn)(const struct login *, const struct pkt *, size_t);

static void
print_parts(const struct login *l, const struct pkt *c, size_t cn)
{
	double parts[NPHASE][NWHOSE];
	int k, w;

	memset(parts, 0, sizeof(parts));
	split_login(l, c, cn, parts);
	for (k = 0; k < NPHASE; k++)
		for (w = 0; w < NWHOSE; w++)
			printf("%ld\t%u\t%s\t%s\t%.3f\n", l->sample, c[0].cport,
			    phase_name[k], whose_name[w], parts[k][w]);
}

/* An unencrypted NEWKEYS, the one message of 16 bytes sent alone. */
#define PAD_UNENCRYPTED 16

/* The last data message of direction c2s before index i, or -1. */
static long
last_data(const struct pkt *c, long i, int c2s)
{
	while (--i >= 0)
		if (c[i].len > 0 && c[i].c2s == c2s)
			return i;
	return -1;
}

/*
 * A key login's last two requests: the key's query Q, sshd's answer P
 * (PK_OK), the signed request G and sshd's success S. P - Q is sshd's
 * work on the query (it answers before it pads); G - Q when the client's
 * signed request came; S - Q holds both padded requests (auth2.c,
 * ensure_minimum_time_since): twice the base time when neither request's
 * work was longer than it.
 *
 * S is found by its size, not by the clock: USERAUTH_SUCCESS has a
 * payload of one byte, so no encrypted server message is shorter on the
 * wire, and every one before it (the service accept, the failure of
 * "none", PK_OK) is longer. It is the first of the connection's shortest
 * server messages, leaving out the first one (the version string) and
 * unencrypted 16-byte ones (NEWKEYS sent alone). The end of the
 * authentication phase as the driver read it from ssh -v was up to 3 ms
 * off the packets' clock on an idle machine and more than 10 ms beside
 * another test. Only key logins have that exchange: a password login
 * (one request) would give other figures, so only the login test's
 * logins are read (lib/capture.sh capture_pad); "-" when the messages
 * are not there.
 */
static void
print_pad(const struct login *l, const struct pkt *c, size_t cn)
{
	long s = -1, g = -1, pk = -1, q = -1, i, first = -1;
	uint32_t shortest = UINT32_MAX;

	for (i = 0; i < (long)cn; i++) {
		if (c[i].len == 0 || c[i].c2s)
			continue;
		if (first < 0) {
			first = i;
			continue;
		}
		if (c[i].len > PAD_UNENCRYPTED && c[i].len < shortest) {
			shortest = c[i].len;
			s = i;
		}
	}
	if (s >= 0 && (g = last_data(c, s, 1)) >= 0 &&
	    (pk = last_data(c, g, 0)) >= 0 && pk != first)
		q = last_data(c, pk, 1);
	if (q < 0) {
		printf("%ld\t%u\t-\t-\t-\n", l->sample, c[0].cport);
		return;
	}
	printf("%ld\t%u\t%.3f\t%.3f\t%.3f\n", l->sample, c[0].cport,
	    ns_to_ms(c[pk].t_ns - c[q].t_ns), ns_to_ms(c[g].t_ns - c[q].t_ns),
	    ns_to_ms(c[s].t_ns - c[q].t_ns));
}

/* Matches the logins to the connections of the packets; fn for each ok one. */
static int
each_login(unsigned port, const char *packets, const char *logins,
    login_fn fn)
{
	struct table t = { NULL, 0, 0 };
	struct login *l;
	size_t nl, i, j, nconn = 0, reached = 0, li;
	size_t *conn;

	read_packets(packets, &t);
	nl = read_logins(logins, &l);
	if ((conn = calloc(t.n + 1, sizeof(*conn))) == NULL)
		err(2, NULL);
	/* A connection starts at the client's SYN; a SYN sent again (the
	 * same port and sequence number) is the same connection. */
	for (i = 0; i < t.n; i++)
		if (t.p[i].c2s && (t.p[i].flags & TCP_SYN) &&
		    !(t.p[i].flags & TCP_ACK) && (nconn == 0 ||
		    t.p[conn[nconn - 1]].cport != t.p[i].cport ||
		    t.p[conn[nconn - 1]].seq != t.p[i].seq))
			conn[nconn++] = i;
	/* A connection that never carried the client's data (a poller's that
	 * only read the greeting; a SYN refused while the server was down)
	 * is no login. */
	for (i = 0, j = 0; i < nconn; i++)
		if (client_sent(&t, conn[i]))
			conn[j++] = conn[i];
	nconn = j;
	for (i = 0; i < nl; i++)
		reached += l[i].reached;
	if (reached != nconn)
		errx(1, "%zu logins reached the server, %zu connections to "
		    "port %u were seen: the packets cannot be matched to them",
		    reached, nconn, port);
	for (i = 0, li = 0; i < nl; i++) {
		struct pkt *c;
		size_t cn = 0, first, last;

		if (!l[i].reached)
			continue;
		first = conn[li];
		last = li + 1 < nconn ? conn[li + 1] : t.n;
		li++;
		if (!l[i].ok)
			continue;
		if ((c = calloc(last - first, sizeof(*c))) == NULL)
			err(2, NULL);
		for (j = first; j < last; j++)
			if (t.p[j].cport == t.p[first].cport)
				c[cn++] = t.p[j];
		fn(&l[i], c, cn);
		free(c);
	}
	free(conn);
	free(l);
	free(t.p);
	return 0;
}

static int
turns(unsigned port, const char *packets, const char *logins)
{
	printf("sample\tclient_port\tphase\twhose\tms\n");
	return each_login(port, packets, logins, print_parts);
}

static int
pad(unsigned port, const char *packets, const char *logins)
{
	printf("sample\tclient_port\tquery_ms\tsigned_ms\tpair_ms\n");
	return each_login(port, packets, logins, print_pad);
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-capture record -p port [-i iface] [-d seconds] "
	    "-o file\n"
	    "       sshperf-capture turns -p port packets.tsv logins.tsv\n"
	    "       sshperf-capture pad -p port packets.tsv logins.tsv\n"
	    "record: the TCP headers to and from port on iface (lo) until "
	    "SIGTERM or\nthe deadline (-d, 300 s), one row per packet, no "
	    "payload. turns: each\nlogin of an sshperf-login table split into "
	    "the server's turns, the\nclient's turns and TCP waits, per "
	    "phase. pad: each key login's time from\nits key's query to "
	    "sshd's answer, to the signed request and to sshd's\nsuccess.\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	help_option(argc, argv, usage);
	const char *mode, *iface = "lo", *out = NULL;
	double seconds = 300;
	unsigned port = 0;
	int ch;

	if (argc < 2)
		usage();
	mode = argv[1];
	argc--, argv++;
	while ((ch = getopt(argc, argv, "p:i:d:o:")) != -1) {
		switch (ch) {
		case 'p':
			port = (unsigned)opt_u64("-p", optarg, 1, 65535);
			break;
		case 'i':
			iface = optarg;
			break;
		case 'd':
			seconds = opt_double("-d", optarg, 0.1, 86400);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage();
		}
	}
	if (port == 0)
		usage();
	if (strcmp(mode, "record") == 0 && out != NULL && optind == argc)
		return record(port, iface, seconds, out);
	if (strcmp(mode, "turns") == 0 && argc - optind == 2)
		return turns(port, argv[optind], argv[optind + 1]);
	if (strcmp(mode, "pad") == 0 && argc - optind == 2)
		return pad(port, argv[optind], argv[optind + 1]);
	usage();
	return 2;
}
