/*
 * sshperf-wire: the wire's delay. Takes the packets that an iptables rule
 * (-j NFQUEUE --queue-num N, in PREROUTING of a namespace the kit made)
 * hands to queue N, holds each one the one-way delay and then accepts it,
 * in the order they came; drops a share of them when a loss is asked for.
 * The packets are held where they arrive, after a veth: they belong to no
 * socket any more, so TCP's small-queue limit does not count them as in
 * flight at the sender.
 *
 * With -r FILE it also writes one line per packet as it arrives (its
 * addresses, ports, TCP flags and payload length, on the one clock of
 * the wire, both directions), and a mark line on SIGUSR1: the kit counts
 * from them the turns of each connection (lib/wire.sh, wire_turns).
 *
 * It stops at its deadline, on SIGTERM or SIGINT: the packets it still
 * holds are accepted at once, and it prints what it did. When it dies
 * without that, the kernel drops what it held and, with no program on the
 * queue, every later packet (the rule has no --queue-bypass): the wire
 * fails closed, the connections across it fail, and nothing is measured
 * at zero distance in its name.
 */
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/resource.h>

#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netinet/in.h>

#include <libmnl/libmnl.h>
#include <linux/netfilter.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_queue.h>

#include "common.h"

#define DEFAULT_DEADLINE_S	3600
#define HELD_MAX		65536	/* packets held at once (a power of 2) */
#define QUEUE_MAXLEN		65536	/* the kernel's queue length */
#define RCVBUF_BYTES		(16 * 1024 * 1024)
#define COPY_BYTES		64	/* headers only: the verdict needs none */
#define MAX_USEC		(10ULL * 1000 * 1000)	/* one-way delay, at most 10 s */

struct config {
	uint64_t	 queue_num;
	uint64_t	 delay_ns;	/* one way */
	double		 loss_pct;
	uint64_t	 deadline_ns;	/* relative */
	uint64_t	 seed;
	int		 no_realtime;	/* -n: ordinary scheduling */
	const char	*record;	/* -r: the packets' record, or NULL */
};

/* The columns of the packets' record (-r; docs/data.md raw/wire-N-packets.tsv).
 * A mark line has "mark" as src and its number as sport. */
#define RECORD_HEADER	"ms\tsrc\tsport\tdst\tdport\tflags\tpayload"

/* What the record keeps of one IPv4 TCP packet. */
struct pktsum {
	uint32_t	 src, dst;	/* network order */
	uint16_t	 sport, dport;	/* host order */
	char		 flags[4];	/* S, F, R or - */
	uint32_t	 payload;	/* TCP payload bytes */
};

/* A packet held: its id in the queue and when it is due. */
struct held {
	uint32_t	 id;
	uint64_t	 due_ns;
};

/* The held packets, first in first out: due times never decrease because
 * every packet gets the same delay. */
struct fifo {
	struct held	 slot[HELD_MAX];
	size_t		 head;	/* next to leave */
	size_t		 count;
};

struct counts {
	uint64_t	 packets;	/* accepted after the delay */
	uint64_t	 bytes;
	uint64_t	 lost;		/* dropped on purpose (-l) */
	uint64_t	 overflow;	/* accepted at once: the fifo was full */
	uint64_t	 held_max;
	uint64_t	 late_max_ns;	/* the latest a verdict left after its due time */
};

static struct fifo fifo;

/* ---- The pure parts (tests/unit/test_wire.c) ---------------------------- */

static int
fifo_push(struct fifo *f, uint32_t id, uint64_t due_ns)
{
	if (f->count == HELD_MAX)
		return -1;
	f->slot[(f->head + f->count) & (HELD_MAX - 1)] = (struct held){ id, due_ns };
	f->count++;
	return 0;
}

/* The first packet when it is due at now_ns, else NULL. */
static const struct held *
fifo_due(const struct fifo *f, uint64_t now_ns)
{
	if (f->count == 0 || f->slot[f->head].due_ns > now_ns)
		return NULL;
	return &f->slot[f->head];
}

static void
fifo_pop(struct fifo *f)
{
	if (f->count == 0)
		return;
	f->head = (f->head + 1) & (HELD_MAX - 1);
	f->count--;
}

/* xorshift64*: a small generator whose sequence a seed fixes, so that a
 * run's losses can be repeated. */
static uint64_t
next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* 1 when this packet is to be lost, loss_pct percent of the time. */
static int
lose_packet(uint64_t *state, double loss_pct)
{
	if (loss_pct <= 0)
		return 0;
	if (loss_pct >= 100)
		return 1;
	/* the top 53 bits as a uniform number in [0, 1) */
	return (double)(next_random(state) >> 11) / 9007199254740992.0 * 100.0 < loss_pct;
}

/* Reads the IPv4 and TCP headers of a packet: PKT holds its first CAPLEN
 * bytes, LEN is its whole length (of a GSO packet too). 0, or -1 when it
 * is not IPv4 TCP or the headers are cut short. */
static int
packet_summary(const uint8_t *pkt, size_t caplen, uint32_t len, struct pktsum *ps)
{
	size_t ihl, doff, n = 0;
	uint8_t fl;

	if (caplen < 20 || (pkt[0] >> 4) != 4 || pkt[9] != IPPROTO_TCP)
		return -1;
	ihl = (size_t)(pkt[0] & 0x0f) * 4;
	if (ihl < 20 || caplen < ihl + 14)
		return -1;
	doff = (size_t)(pkt[ihl + 12] >> 4) * 4;
	if (doff < 20)
		return -1;
	memcpy(&ps->src, pkt + 12, 4);
	memcpy(&ps->dst, pkt + 16, 4);
	ps->sport = (uint16_t)(pkt[ihl] << 8 | pkt[ihl + 1]);
	ps->dport = (uint16_t)(pkt[ihl + 2] << 8 | pkt[ihl + 3]);
	fl = pkt[ihl + 13];
	if (fl & 0x02)
		ps->flags[n++] = 'S';
	if (fl & 0x01)
		ps->flags[n++] = 'F';
	if (fl & 0x04)
		ps->flags[n++] = 'R';
	if (n == 0)
		ps->flags[n++] = '-';
	ps->flags[n] = '\0';
	ps->payload = len > ihl + doff ? len - (uint32_t)(ihl + doff) : 0;
	return 0;
}

/* "20" or "0.25" milliseconds into nanoseconds (rounded to the microsecond). */
static int
parse_delay_ms(const char *s, uint64_t *ns, const char **errstr)
{
	double ms;

	if (parse_double(s, 0, (double)MAX_USEC / 1000.0, &ms, errstr) == -1)
		return -1;
	*ns = (uint64_t)(ms * 1000.0 + 0.5) * 1000ULL;
	return 0;
}

/* ---- Netlink (nfnetlink_queue through libmnl, as the kernel's selftest
 * tools/testing/selftests/net/netfilter/nf_queue.c speaks it) ---------- */

static uint32_t seq;

static struct nlmsghdr *
queue_msg(char *buf, int type, uint16_t queue_num, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nfgenmsg *nfg;

	nlh->nlmsg_type = (NFNL_SUBSYS_QUEUE << 8) | type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++seq;
	nfg = mnl_nlmsg_put_extra_header(nlh, sizeof(*nfg));
	nfg->nfgen_family = AF_UNSPEC;
	nfg->version = NFNETLINK_V0;
	nfg->res_id = htons(queue_num);
	return nlh;
}

static void
send_verdict(struct mnl_socket *nl, uint16_t queue_num, uint32_t id, int verdict)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nfqnl_msg_verdict_hdr vh = { .verdict = htonl((uint32_t)verdict), .id = htonl(id) };
	struct nlmsghdr *nlh = queue_msg(buf, NFQNL_MSG_VERDICT, queue_num, 0);

	mnl_attr_put(nlh, NFQA_VERDICT_HDR, sizeof(vh), &vh);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		err(1, "sending a verdict");
}

/* Sends a config message and waits for the kernel's answer: 0, or -1 and
 * errno (EBUSY: another program holds the queue). No packet can come in
 * between: the kit adds the rule only after ready=1. */
static int
configure(struct mnl_socket *nl, struct nlmsghdr *nlh)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	uint32_t want = nlh->nlmsg_seq;
	ssize_t n;

	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	if ((n = mnl_socket_recvfrom(nl, buf, sizeof(buf))) < 0)
		return -1;
	return mnl_cb_run(buf, (size_t)n, want, mnl_socket_get_portid(nl), NULL, NULL) < 0 ? -1 : 0;
}

/* Binds the queue: headers copied (the kernel adds the whole length as
 * NFQA_CAP_LEN when it cuts), GSO packets queued whole, a long queue. */
static void
bind_queue(struct mnl_socket *nl, uint16_t queue_num)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nfqnl_msg_config_cmd cmd = { .command = NFQNL_CFG_CMD_BIND, .pf = htons(AF_INET) };
	struct nfqnl_msg_config_params params = { .copy_range = htonl(COPY_BYTES), .copy_mode = NFQNL_COPY_PACKET };
	struct nlmsghdr *nlh;
	int one = 1, rcvbuf = RCVBUF_BYTES;

	nlh = queue_msg(buf, NFQNL_MSG_CONFIG, queue_num, NLM_F_ACK);
	mnl_attr_put(nlh, NFQA_CFG_CMD, sizeof(cmd), &cmd);
	if (configure(nl, nlh) == -1)
		err(2, "binding queue %u (does another program hold it?)", queue_num);

	nlh = queue_msg(buf, NFQNL_MSG_CONFIG, queue_num, NLM_F_ACK);
	mnl_attr_put(nlh, NFQA_CFG_PARAMS, sizeof(params), &params);
	mnl_attr_put_u32(nlh, NFQA_CFG_FLAGS, htonl(NFQA_CFG_F_GSO));
	mnl_attr_put_u32(nlh, NFQA_CFG_MASK, htonl(NFQA_CFG_F_GSO));
	mnl_attr_put_u32(nlh, NFQA_CFG_QUEUE_MAXLEN, htonl(QUEUE_MAXLEN));
	if (configure(nl, nlh) == -1)
		err(2, "configuring queue %u", queue_num);

	/* A full socket buffer loses messages; the kernel then drops the
	 * packets itself. Ask for room and to hear of no ENOBUFS. */
	(void)setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	(void)mnl_socket_setsockopt(nl, NETLINK_NO_ENOBUFS, &one, sizeof(one));
}

/* One attribute of a packet message into tb[], checked for its size. */
static int
packet_attr(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (mnl_attr_type_valid(attr, NFQA_MAX) < 0)
		return MNL_CB_OK;
	switch (type) {
	case NFQA_PACKET_HDR:
		if (mnl_attr_validate2(attr, MNL_TYPE_UNSPEC, sizeof(struct nfqnl_msg_packet_hdr)) < 0)
			return MNL_CB_ERROR;
		break;
	case NFQA_CAP_LEN:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
			return MNL_CB_ERROR;
		break;
	default:
		break;
	}
	tb[type] = attr;
	return MNL_CB_OK;
}

struct packet_ctx {
	const struct config	*cfg;
	struct mnl_socket	*nl;
	struct counts		*counts;
	uint64_t		*random_state;
	uint64_t		 now_ns;
	FILE			*record;	/* -r, or NULL */
	uint64_t		 start_ns;
};

/* One line of the record for a packet (nothing for one not IPv4 TCP). */
static void
record_packet(FILE *f, uint64_t ms_ns, const uint8_t *pkt, size_t caplen, uint32_t len)
{
	struct pktsum ps;
	char src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];

	if (packet_summary(pkt, caplen, len, &ps) == -1 ||
	    inet_ntop(AF_INET, &ps.src, src, sizeof(src)) == NULL ||
	    inet_ntop(AF_INET, &ps.dst, dst, sizeof(dst)) == NULL)
		return;
	fprintf(f, "%.3f\t%s\t%u\t%s\t%u\t%s\t%u\n", ns_to_ms(ms_ns), src,
	    (unsigned)ps.sport, dst, (unsigned)ps.dport, ps.flags, (unsigned)ps.payload);
}

static int
on_packet(const struct nlmsghdr *nlh, void *data)
{
	struct packet_ctx *ctx = data;
	const struct nlattr *attr[NFQA_MAX + 1] = { 0 };
	const struct nfqnl_msg_packet_hdr *ph;
	uint32_t id, len = 0;

	if (mnl_attr_parse(nlh, sizeof(struct nfgenmsg), packet_attr, attr) < 0 ||
	    attr[NFQA_PACKET_HDR] == NULL)
		return MNL_CB_OK;
	ph = mnl_attr_get_payload(attr[NFQA_PACKET_HDR]);
	id = ntohl(ph->packet_id);
	if (attr[NFQA_CAP_LEN] != NULL)
		len = ntohl(mnl_attr_get_u32(attr[NFQA_CAP_LEN]));
	else if (attr[NFQA_PAYLOAD] != NULL)
		len = mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]);
	if (ctx->record != NULL && attr[NFQA_PAYLOAD] != NULL)
		record_packet(ctx->record, ctx->now_ns - ctx->start_ns,
		    mnl_attr_get_payload(attr[NFQA_PAYLOAD]),
		    mnl_attr_get_payload_len(attr[NFQA_PAYLOAD]), len);

	if (lose_packet(ctx->random_state, ctx->cfg->loss_pct)) {
		send_verdict(ctx->nl, (uint16_t)ctx->cfg->queue_num, id, NF_DROP);
		ctx->counts->lost++;
		return MNL_CB_OK;
	}
	ctx->counts->bytes += len;
	if (fifo_push(&fifo, id, ctx->now_ns + ctx->cfg->delay_ns) == -1) {
		send_verdict(ctx->nl, (uint16_t)ctx->cfg->queue_num, id, NF_ACCEPT);
		ctx->counts->overflow++;
		return MNL_CB_OK;
	}
	if (fifo.count > ctx->counts->held_max)
		ctx->counts->held_max = fifo.count;
	return MNL_CB_OK;
}

/* Accepts every held packet due at now_ns (all of them with UINT64_MAX). */
static void
release_due(struct mnl_socket *nl, const struct config *cfg, struct counts *c,
    uint64_t now_ns)
{
	const struct held *h;

	while ((h = fifo_due(&fifo, now_ns)) != NULL) {
		if (now_ns != UINT64_MAX && now_ns - h->due_ns > c->late_max_ns)
			c->late_max_ns = now_ns - h->due_ns;
		send_verdict(nl, (uint16_t)cfg->queue_num, h->id, NF_ACCEPT);
		c->packets++;
		fifo_pop(&fifo);
	}
}

static void
arm_timer(int tfd)
{
	struct itimerspec its = { 0 };

	if (fifo.count > 0) {
		uint64_t due = fifo.slot[fifo.head].due_ns;

		its.it_value.tv_sec = (time_t)(due / NS_PER_S);
		its.it_value.tv_nsec = (long)(due % NS_PER_S);
		if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
			its.it_value.tv_nsec = 1;
	}
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL) == -1)
		err(1, "timerfd_settime");
}

static void
usage(void)
{
	fprintf(stderr,
	    "usage: sshperf-wire -q queue -d delay_ms [-n] [-l loss_pct] [-r file] [-s seed] [-t seconds]\n"
	    "  -q N   the NFQUEUE number the iptables rule sends the packets to\n"
	    "  -d MS  the one-way delay in milliseconds (0 to 10000, e.g. 0.5)\n"
	    "  -l P   percent of the packets lost at random (0 to 100; default 0)\n"
	    "  -n     ordinary scheduling (default: SCHED_FIFO priority 1 when allowed)\n"
	    "  -r F   write a line per packet to F (" RECORD_HEADER "),\n"
	    "         with tabs; SIGUSR1 adds a line with src mark and sport its number\n"
	    "  -s N   the seed of the losses (default 1)\n"
	    "  -t S   deadline: stop after S seconds (default %d)\n"
	    "Prints realtime= and ready=1 once the queue is bound, and at the end packets, bytes,\n"
	    "lost, overflow, held_max, late_max_ms, cpu_ms and stopped=.\n",
	    DEFAULT_DEADLINE_S);
	exit(2);
}

/* Holds queue N's packets the one-way delay, then accepts them in order. */
int
main(int argc, char *argv[])
{
	struct config cfg = { .deadline_ns = DEFAULT_DEADLINE_S * NS_PER_S, .seed = 1 };
	struct counts counts = { 0 };
	char buf[MNL_SOCKET_BUFFER_SIZE * 4];
	struct packet_ctx ctx;
	struct mnl_socket *nl;
	struct pollfd pfd[3];
	struct rusage ru;
	const char *errstr, *stopped = "deadline";
	uint64_t start_ns, random_state;
	sigset_t sigs;
	FILE *record = NULL;
	unsigned marks = 0;
	int ch, have_q = 0, have_d = 0, tfd, sfd;

	help_option(argc, argv, usage);
	while ((ch = getopt(argc, argv, "q:d:l:nr:s:t:")) != -1) {
		switch (ch) {
		case 'q':
			cfg.queue_num = opt_u64("-q", optarg, 0, 65535);
			have_q = 1;
			break;
		case 'd':
			if (parse_delay_ms(optarg, &cfg.delay_ns, &errstr) == -1)
				errx(2, "-d %s: %s (milliseconds, 0 to 10000)", optarg, errstr);
			have_d = 1;
			break;
		case 'l':
			cfg.loss_pct = opt_double("-l", optarg, 0, 100);
			break;
		case 'n':
			cfg.no_realtime = 1;
			break;
		case 'r':
			cfg.record = optarg;
			break;
		case 's':
			cfg.seed = opt_u64("-s", optarg, 1, UINT64_MAX);
			break;
		case 't':
			cfg.deadline_ns = opt_u64("-t", optarg, 1, 7 * 86400) * NS_PER_S;
			break;
		default:
			usage();
		}
	}
	if (!have_q || !have_d || optind != argc)
		usage();
	random_state = cfg.seed;
	/* The timer wakes at the due time, not up to 50 us later (the
	 * default slack): the delay is the setting, not the setting plus. */
	(void)prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	/* On a busy machine a packet due now waits for a CPU: with the
	 * lowest real-time priority it waits only for other real-time work.
	 * Its CPU is small (bench: per packet) and the kernel keeps 5 % of
	 * every second for others (sched_rt_runtime_us). Without the right
	 * to it (a container), it runs as before and says so. */
	if (!cfg.no_realtime) {
		struct sched_param sp = { .sched_priority = 1 };

		if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) == -1)
			printf("realtime=no (%s)\n", strerror(errno));
		else
			printf("realtime=yes\n");
	} else
		printf("realtime=no (-n)\n");

	sigemptyset(&sigs);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGHUP);
	sigaddset(&sigs, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &sigs, NULL) == -1)
		err(2, "sigprocmask");
	if ((sfd = signalfd(-1, &sigs, SFD_CLOEXEC)) == -1)
		err(2, "signalfd");
	if ((tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC)) == -1)
		err(2, "timerfd_create");
	if ((nl = mnl_socket_open2(NETLINK_NETFILTER, SOCK_CLOEXEC)) == NULL)
		err(2, "opening a netfilter netlink socket (needs CAP_NET_ADMIN)");
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0)
		err(2, "mnl_socket_bind");
	if (cfg.record != NULL) {
		if ((record = fopen(cfg.record, "we")) == NULL)
			err(2, "-r %s", cfg.record);
		/* Fully buffered: written out at a mark and at the end. */
		(void)setvbuf(record, NULL, _IOFBF, 1 << 20);
		fprintf(record, RECORD_HEADER "\n");
	}
	bind_queue(nl, (uint16_t)cfg.queue_num);
	printf("ready=1\n");
	fflush(stdout);

	start_ns = now_ns();
	ctx = (struct packet_ctx){ &cfg, nl, &counts, &random_state, 0, record, start_ns };
	pfd[0] = (struct pollfd){ .fd = mnl_socket_get_fd(nl), .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = tfd, .events = POLLIN };
	pfd[2] = (struct pollfd){ .fd = sfd, .events = POLLIN };
	for (;;) {
		uint64_t now = now_ns(), left_ms;
		int n;

		if (now - start_ns >= cfg.deadline_ns)
			break;
		left_ms = (cfg.deadline_ns - (now - start_ns)) / NS_PER_MS + 1;
		n = poll(pfd, 3, left_ms > 60000 ? 60000 : (int)left_ms);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			err(1, "poll");
		}
		if (pfd[2].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(sfd, &si, sizeof(si)) != (ssize_t)sizeof(si))
				continue;
			if (si.ssi_signo == SIGUSR1) {
				/* A mark in the record: what follows is the
				 * next part of the run. */
				if (record != NULL) {
					fprintf(record, "%.3f\tmark\t%u\t-\t-\t-\t-\n",
					    ns_to_ms(now_ns() - start_ns), ++marks);
					(void)fflush(record);
				}
				continue;
			}
			stopped = strsignal((int)si.ssi_signo);
			break;
		}
		if (pfd[0].revents & POLLIN) {
			ssize_t got = mnl_socket_recvfrom(nl, buf, sizeof(buf));

			if (got == -1) {
				if (errno != ENOBUFS && errno != EINTR)
					err(1, "reading the queue");
			} else {
				ctx.now_ns = now_ns();
				if (mnl_cb_run(buf, (size_t)got, 0, 0, on_packet, &ctx) < 0 &&
				    errno != 0 && errno != ENOENT)
					warn("reading a packet message");
			}
		}
		if (pfd[1].revents & POLLIN) {
			uint64_t ticks;

			(void)read(tfd, &ticks, sizeof(ticks));
		}
		release_due(nl, &cfg, &counts, now_ns());
		arm_timer(tfd);
	}
	release_due(nl, &cfg, &counts, UINT64_MAX);
	mnl_socket_close(nl);
	if (record != NULL && fclose(record) != 0)
		warn("-r %s", cfg.record);

	getrusage(RUSAGE_SELF, &ru);
	printf("packets=%llu\nbytes=%llu\nlost=%llu\noverflow=%llu\nheld_max=%llu\n"
	    "late_max_ms=%.3f\ncpu_ms=%.1f\nstopped=%s\n",
	    (unsigned long long)counts.packets, (unsigned long long)counts.bytes,
	    (unsigned long long)counts.lost, (unsigned long long)counts.overflow,
	    (unsigned long long)counts.held_max, ns_to_ms(counts.late_max_ns),
	    (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000.0 +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000.0,
	    stopped);
	return 0;
}
