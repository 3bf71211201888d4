/*
 * sshperf-netwatch: the network waits a login's start files may cause.
 *
 *   sshperf-netwatch [-d SECONDS] -o FILE
 *	Watches the packets of every interface until SIGTERM, SIGINT or the
 *	deadline and writes one row per connection attempt or DNS query:
 *	when it was seen (the wall clock, seconds since the epoch, as bash's
 *	$EPOCHREALTIME), what it was (connect: a TCP SYN without ACK that
 *	left by an interface other than loopback; dns: a UDP or TCP packet
 *	to port 53, on any interface, loopback's incoming copy only), the
 *	interface, the address and the port it went to. A connection on
 *	loopback is not counted (the kit's own logins, and every other local
 *	client, make them all the time); a query to a resolver on loopback
 *	is. A kernel filter passes only IPv4 and IPv6 and cuts each frame
 *	after its first 96 bytes, so no payload beyond the headers reaches
 *	this program. The header line is written once the socket is open.
 *	Prints packets= (frames looked at) and dropped= (frames the kernel
 *	could not queue) at the end.
 * It cannot tell which process sent a packet: a caller counts the rows
 * within a time window, and a packet another program sent then counts too.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <err.h>
#include <errno.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#define SNAP_BYTES	96
#define TCP_SYN		0x02
#define TCP_ACK		0x10
#define DNS_PORT	53

static volatile sig_atomic_t stop_requested;

static void
on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static int
open_watch(void)
{
	struct sock_filter code[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS,
		    (uint32_t)(SKF_AD_OFF + SKF_AD_PROTOCOL)),
		/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IP, 2, 0),
		/* 2 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ETH_P_IPV6, 1, 0),
		/* 3 */ BPF_STMT(BPF_RET | BPF_K, 0),
		/* 4 */ BPF_STMT(BPF_RET | BPF_K, SNAP_BYTES),
	};
	struct sock_fprog prog = { sizeof(code) / sizeof(code[0]), code };
	int fd;

	if ((fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC,
	    htons(ETH_P_ALL))) == -1)
		err(2, "packet socket (needs root or CAP_NET_RAW)");
	if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
	    sizeof(prog)) == -1)
		err(2, "SO_ATTACH_FILTER");
	return fd;
}

/* What a packet is: "connect", "dns" or NULL; its address and port. */
static const char *
classify(const unsigned char *p, size_t n, int loopback, unsigned pkttype,
    char *addr, size_t addrlen, unsigned *port)
{
	const unsigned char *l4;
	unsigned proto, hl;
	size_t left;

	if (n >= 20 && (p[0] >> 4) == 4) {
		hl = (unsigned)(p[0] & 0x0f) * 4;
		if (hl < 20 || n < hl + 4 || (((p[6] & 0x1f) << 8) | p[7]) != 0)
			return NULL;	/* short, or a later fragment */
		proto = p[9];
		inet_ntop(AF_INET, p + 16, addr, (socklen_t)addrlen);
		l4 = p + hl;
		left = n - hl;
	} else if (n >= 44 && (p[0] >> 4) == 6) {
		proto = p[6];
		inet_ntop(AF_INET6, p + 24, addr, (socklen_t)addrlen);
		l4 = p + 40;
		left = n - 40;
	} else
		return NULL;
	if (proto != IPPROTO_TCP && proto != IPPROTO_UDP)
		return NULL;
	*port = ((unsigned)l4[2] << 8) | l4[3];
	if (*port == DNS_PORT)
		return (loopback && pkttype == PACKET_OUTGOING) ||
		    (!loopback && pkttype != PACKET_OUTGOING) ? NULL : "dns";
	if (proto != IPPROTO_TCP || loopback || pkttype != PACKET_OUTGOING ||
	    left < 14)
		return NULL;
	return (l4[13] & (TCP_SYN | TCP_ACK)) == TCP_SYN ? "connect" : NULL;
}

static void
usage(void)
{
	fprintf(stderr, "usage: sshperf-netwatch [-d seconds] -o file\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	help_option(argc, argv, usage);
	version_option(argc, argv);
	struct tpacket_stats st;
	socklen_t stlen = sizeof(st);
	unsigned char buf[SNAP_BYTES];
	char addr[INET6_ADDRSTRLEN], ifname[IF_NAMESIZE];
	const char *out = NULL, *kind;
	double seconds = 3600;
	uint64_t deadline, packets = 0;
	struct sigaction sa;
	FILE *f;
	int ch, fd;

	while ((ch = getopt(argc, argv, "d:o:")) != -1) {
		switch (ch) {
		case 'd':
			seconds = opt_double("-d seconds", optarg, 0.001, 86400);
			break;
		case 'o':
			out = optarg;
			break;
		default:
			usage();
		}
	}
	if (out == NULL || optind != argc)
		usage();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = open_watch();
	if ((f = fopen(out, "we")) == NULL)
		err(2, "%s", out);
	setvbuf(f, NULL, _IOLBF, 0);
	fprintf(f, "epoch_s\tkind\tiface\taddress\tport\n");
	deadline = now_ns() + (uint64_t)(seconds * NS_PER_S);
	while (!stop_requested && now_ns() < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t fromlen = sizeof(from);
		struct timespec ts;
		unsigned port;
		ssize_t n;

		if (poll(&p, 1, 50) <= 0)
			continue;
		n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT,
		    (struct sockaddr *)&from, &fromlen);
		if (n <= 0) {
			if (n == -1 && errno != EAGAIN && errno != EINTR)
				err(2, "recvfrom");
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		packets++;
		kind = classify(buf, (size_t)n, from.sll_hatype == ARPHRD_LOOPBACK,
		    from.sll_pkttype, addr, sizeof(addr), &port);
		if (kind == NULL)
			continue;
		if (if_indextoname((unsigned)from.sll_ifindex, ifname) == NULL)
			snprintf(ifname, sizeof(ifname), "%d", from.sll_ifindex);
		fprintf(f, "%lld.%06ld\t%s\t%s\t%s\t%u\n", (long long)ts.tv_sec,
		    ts.tv_nsec / 1000, kind, ifname, addr, port);
	}
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &stlen) == -1)
		st.tp_drops = 0;
	if (fclose(f) != 0)
		err(2, "%s", out);
	printf("packets=%llu\ndropped=%u\n", (unsigned long long)packets,
	    st.tp_drops);
	return 0;
}
