/*
 * Unit tests of sshperf-wire's pure parts: the held packets leave first
 * in first out and only when due, a full fifo refuses, the losses follow
 * the percentage and repeat with the seed, the delay is parsed to the
 * microsecond and bad values are refused, a packet's headers give the
 * record its ports, flags and payload length. (The wire itself, with real
 * namespaces and queues, is tested in tests/t62-wire.sh.) Prints TAP.
 */
#define main wire_main
#include "../../helpers/wire.c"
#undef main

#include "tap.h"

static struct fifo f;

static void
test_fifo(void)
{
	const struct held *h;
	uint32_t i;
	int order = 1, refused;

	ok(fifo_due(&f, UINT64_MAX) == NULL, "an empty fifo has nothing due");
	fifo_push(&f, 1, 100);
	fifo_push(&f, 2, 100);
	fifo_push(&f, 3, 250);
	ok(fifo_due(&f, 99) == NULL, "nothing is due before its time");
	h = fifo_due(&f, 100);
	ok(h != NULL && h->id == 1, "the first packet is due at its time");
	fifo_pop(&f);
	h = fifo_due(&f, 100);
	ok(h != NULL && h->id == 2, "then the second, due at the same time");
	fifo_pop(&f);
	ok(fifo_due(&f, 249) == NULL && f.count == 1, "the third waits for its own time");
	fifo_pop(&f);
	fifo_pop(&f);
	ok(f.count == 0, "popping an empty fifo leaves it empty");

	/* Around the ring's end: the order holds across the wrap. */
	for (i = 0; i < HELD_MAX; i++)
		fifo_push(&f, i, i);
	refused = fifo_push(&f, HELD_MAX, HELD_MAX);
	ok(refused == -1 && f.count == HELD_MAX, "a full fifo refuses the next packet");
	for (i = 0; i < HELD_MAX / 2; i++)
		fifo_pop(&f);
	for (i = 0; i < HELD_MAX / 2; i++)
		fifo_push(&f, HELD_MAX + i, HELD_MAX + i);
	for (i = HELD_MAX / 2; (h = fifo_due(&f, UINT64_MAX)) != NULL; i++) {
		if (h->id != i)
			order = 0;
		fifo_pop(&f);
	}
	ok(order && i == HELD_MAX + HELD_MAX / 2, "packets leave in the order they came, across the wrap (%u)", i);
}

static void
test_loss(void)
{
	uint64_t a = 7, b = 7, s = 1;
	int i, lost = 0, same = 1, none = 1, all = 1;

	for (i = 0; i < 100000; i++)
		lost += lose_packet(&s, 10);
	ok(lost > 9500 && lost < 10500, "10 %% loss drops about a tenth (%d of 100000)", lost);
	for (i = 0; i < 1000; i++) {
		if (lose_packet(&a, 33) != lose_packet(&b, 33))
			same = 0;
		if (lose_packet(&s, 0))
			none = 0;
		if (!lose_packet(&s, 100))
			all = 0;
	}
	ok(same, "the same seed loses the same packets");
	ok(none, "0 %% loses none");
	ok(all, "100 %% loses every packet");
}

static void
test_parse(void)
{
	const char *e = NULL;
	uint64_t ns = 1;

	ok(parse_delay_ms("0.5", &ns, &e) == 0 && ns == 500000, "0.5 ms is 500000 ns (%llu)", (unsigned long long)ns);
	ok(parse_delay_ms("0", &ns, &e) == 0 && ns == 0, "0 ms is no delay");
	ok(parse_delay_ms("50", &ns, &e) == 0 && ns == 50 * NS_PER_MS, "50 ms");
	ok(parse_delay_ms("0.0004", &ns, &e) == 0 && ns == 0, "less than half a microsecond rounds to 0");
	ok(parse_delay_ms("-1", &ns, &e) == -1, "a negative delay is refused (%s)", e);
	ok(parse_delay_ms("10001", &ns, &e) == -1, "more than 10 s is refused (%s)", e);
	ok(parse_delay_ms("ten", &ns, &e) == -1, "a word is refused (%s)", e);
}

static void
test_summary(void)
{
	/* IPv4 (IHL 5) and TCP with a 32-byte header (doff 8), SYN | ACK,
	 * 10.0.0.1:2222 -> 10.0.0.2:40000; LEN counts 100 payload bytes. */
	uint8_t p[64] = { 0x45, 0, 0, 152, 0, 0, 0, 0, 64, IPPROTO_TCP, 0, 0,
		10, 0, 0, 1, 10, 0, 0, 2,
		0x08, 0xae, 0x9c, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x12 };
	struct pktsum ps = { 0 };

	ok(packet_summary(p, sizeof(p), 152, &ps) == 0 && ps.sport == 2222 && ps.dport == 40000,
	    "the ports are read (%u -> %u)", (unsigned)ps.sport, (unsigned)ps.dport);
	ok(strcmp(ps.flags, "S") == 0 && ps.payload == 100, "a SYN with 100 payload bytes (%s %u)", ps.flags, (unsigned)ps.payload);
	p[33] = 0x11;
	ok(packet_summary(p, sizeof(p), 52, &ps) == 0 && strcmp(ps.flags, "F") == 0 && ps.payload == 0,
	    "a FIN without payload (%s %u)", ps.flags, (unsigned)ps.payload);
	p[33] = 0x10;
	ok(packet_summary(p, sizeof(p), 65000, &ps) == 0 && strcmp(ps.flags, "-") == 0 && ps.payload == 65000 - 52,
	    "a GSO packet counts its whole length (%u)", (unsigned)ps.payload);
	ok(packet_summary(p, 30, 152, &ps) == -1, "headers cut short are refused");
	p[9] = IPPROTO_UDP;
	ok(packet_summary(p, sizeof(p), 152, &ps) == -1, "a packet not TCP is left out");
}

int
main(void)
{
	test_summary();
	test_fifo();
	test_loss();
	test_parse();
	printf("1..%d\n", test_num);
	return test_failed != 0;
}
