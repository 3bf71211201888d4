#!/usr/bin/env bash
# The test hosts at a distance (lib/wire.sh, host without systemd): bad
# distance settings and a range in use are refused with exit 2 and one
# line before anything changes; a run with distances measures its wire
# (raw/wire.tsv); and ./start-ssh.sh cleanup leaves the host's network as
# it found it (namespaces, links, addresses, routes, rules, iptables, nft)
# after a run with distances, after SIGINT in the middle of a distance,
# and after the wire's helper was killed (which the run reports: the wire
# failed closed). At a distance the run also counts the round trips of a
# login in the packets, puts small files with sftp and makes one
# transfer, every byte of which arrives. The turns are counted right in a
# record made up here. The traffic stays in the namespaces the kit makes,
# on addresses of NETWORK_RANGE.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/procs.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

host_kit_test 'wire' direct
if ! command -v iptables >/dev/null || ! unshare --net true 2>/dev/null; then
	test_skip 'test hosts at a distance' 'needs iptables and network namespaces (unshare --net); ./install-deps.sh installs iptables'
	test_done
	exit 0
fi
# A range of this instance's own in the block set aside for benchmarks.
NETWORK_RANGE=198.18.$(( $(instance_port_offset "$TEST_INSTANCE") % 200 + 20 )).0/24
# Small samples: the test checks that each part ran and what it gave,
# not how fast.
export NETWORK_RANGE RESULTS_DIR="$TEST_TMP/results" LOGIN_SAMPLES=2 ECHO_COUNT=20 SFTP_SMALL_FILES=5 SFTP_SMALL_FILE_KB=4 TRANSFER_MB=8
mkdir -p "$RESULTS_DIR"
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

. "$TEST_DIR/lib/netsnap.sh"
net_snapshot >"$TEST_TMP/net.before"

# A made-up record of the wire at 10 ms (ms src sport dst dport flags
# payload, as sshperf-wire -r writes it): one login from the test host
# between marks 1 and 2, with a server packet sent before the client's
# leg could have reached it (no turn), pure ACKs and the client's close
# after the server's last data (no round trip); a second login whose
# client holds its second message until the server's ACK of the first
# arrives (Nagle: a round trip), an ACK the server delayed 20 ms (a TCP
# wait of 20 ms, which no turn counts); before mark 1 a connection of another
# part, on the port of the test server, and a probe on another port
# inside the part.
q_to_tab >"$TEST_TMP/record.tsv" <<-EOF
	msQsrcQsportQdstQdportQflagsQpayload
	0.100Q198.18.99.129Q39999Q198.18.99.1Q2222QSQ0
	0.200Q198.18.99.129Q39999Q198.18.99.1Q2222Q-Q500
	1.000QmarkQ1Q-Q-Q-Q-
	2.000Q198.18.99.129Q40000Q198.18.99.1Q2222QSQ0
	7.000Q198.18.99.1Q2222Q198.18.99.129Q40000QSQ0
	12.000Q198.18.99.129Q40000Q198.18.99.1Q2222Q-Q21
	13.000Q198.18.99.1Q2222Q198.18.99.129Q40000Q-Q30
	17.100Q198.18.99.1Q2222Q198.18.99.129Q40000Q-Q1000
	17.200Q198.18.99.129Q40000Q198.18.99.1Q2222Q-Q0
	22.300Q198.18.99.129Q40000Q198.18.99.1Q2222Q-Q1500
	22.400Q198.18.99.129Q40000Q198.18.99.1Q2222Q-Q100
	23.000Q198.18.99.129Q41000Q198.18.99.1Q7777QSQ0
	27.500Q198.18.99.1Q2222Q198.18.99.129Q40000Q-Q600
	32.600Q198.18.99.129Q40000Q198.18.99.1Q2222Q-Q200
	37.700Q198.18.99.1Q2222Q198.18.99.129Q40000Q-Q80
	42.800Q198.18.99.129Q40000Q198.18.99.1Q2222Q-Q36
	42.900Q198.18.99.129Q40000Q198.18.99.1Q2222QFQ0
	52.000Q198.18.99.129Q40002Q198.18.99.1Q2222QSQ0
	57.000Q198.18.99.1Q2222Q198.18.99.129Q40002QSQ0
	62.000Q198.18.99.129Q40002Q198.18.99.1Q2222Q-Q16
	87.000Q198.18.99.1Q2222Q198.18.99.129Q40002Q-Q0
	92.200Q198.18.99.129Q40002Q198.18.99.1Q2222Q-Q44
	97.300Q198.18.99.1Q2222Q198.18.99.129Q40002Q-Q44
	98.000Q198.18.99.129Q40002Q198.18.99.1Q2222QFQ0
	100.000QmarkQ2Q-Q-Q-Q-
	101.000Q198.18.99.129Q40001Q198.18.99.1Q2222QSQ0
EOF
test_expect 'the turns of a connection are counted from its packets, the answers only, up to the server last data' '
	(
		declare -A SETTING=([NETWORK_RANGE]=198.18.99.0/24 [TEST_PORT]=2222)
		. "$KIT_DIR/lib/wire.sh"
		wire_turns "$TEST_TMP/record.tsv" 1 2 10
	) >"$TEST_TMP/turns" &&
	printf "%s\n" "198.18.99.129:40000 9 4.0 1857 1710 1600 0.0" "198.18.99.129:40002 6 3.0 60 44 44 20.0" >"$TEST_TMP/want" &&
	test_cmp "$TEST_TMP/want" "$TEST_TMP/turns"
'

# The logins over loopback, as sshperf-capture records them (t_ns
# client_port dir flags seq ack len): no wire, so an answer may come at
# once; the server delays its ACK of the client's 16 bytes by 40 ms, and
# the client's next 44 bytes leave as it arrives: a TCP wait of 40 ms.
# (The clock is the machine's since boot, in ns: 14.6 hours here, whose
# ms need more than awk's 6 digits.)
q_to_tab >"$TEST_TMP/lo.tsv" <<-EOF
	t_nsQclient_portQdirQflagsQseqQackQlen
	52482978000000Q40000Qc2sQSQ1Q0Q0
	52482978050000Q40000Qs2cQSAQ1Q2Q0
	52482978100000Q40000Qc2sQAQ2Q2Q0
	52482979000000Q40000Qc2sQPAQ2Q2Q16
	52483019000000Q40000Qs2cQAQ2Q18Q0
	52483019050000Q40000Qc2sQPAQ18Q2Q44
	52483020000000Q40000Qs2cQPAQ2Q62Q44
	52483021000000Q40000Qc2sQFAQ62Q46Q0
EOF
test_expect 'the TCP waits of logins over loopback are read from their capture' '
	(
		declare -A SETTING=([NETWORK_RANGE]=198.18.99.0/24 [TEST_PORT]=2222)
		. "$KIT_DIR/lib/wire.sh"
		wire_lo_turns "$TEST_TMP/lo.tsv"
	) >"$TEST_TMP/lo-turns" &&
	echo "client:40000 6 3.0 60 44 0 40.0" >"$TEST_TMP/want" &&
	test_cmp "$TEST_TMP/want" "$TEST_TMP/lo-turns"
'

# The base's median wait, and none from a capture the kernel dropped
# packets of: it would miss waits.
test_expect 'the base logins.s wait: from their capture, none when it lost packets' '
	mkdir -p "$TEST_TMP/basecap" &&
	cp "$TEST_TMP/lo.tsv" "$TEST_TMP/basecap/wire-7-base-packets.tsv" &&
	echo dropped=0 >"$TEST_TMP/basecap/wire-7-base-capture.env" &&
	base () (
		declare -A SETTING=([NETWORK_RANGE]=198.18.99.0/24 [TEST_PORT]=2222)
		RAW_DIR=$TEST_TMP/basecap
		. "$KIT_DIR/lib/data.sh"
		. "$KIT_DIR/lib/wire.sh"
		wire_base_wait_ms 7
	) &&
	test_eq "$(base)" 40.0 &&
	echo dropped=2 >"$TEST_TMP/basecap/wire-7-base-capture.env" &&
	test_eq "$(base)" ""
'

# A trimmed wire (wire_trim) holds less than its setting: the answers
# come half the hold after the arrival, not half the setting. Read with
# the setting 10.4 and the hold 10, the record gives the turns it gives
# at 10; with the setting alone, answers 5 ms after a leg are too early
# to be answers, and turns are lost.
test_expect 'the turns of a trimmed wire are read by what it held, not by its setting' '
	(
		declare -A SETTING=([NETWORK_RANGE]=198.18.99.0/24 [TEST_PORT]=2222)
		. "$KIT_DIR/lib/wire.sh"
		wire_turns "$TEST_TMP/record.tsv" 1 2 10.4 10 | cut -d" " -f1-3 >"$TEST_TMP/held" &&
		wire_turns "$TEST_TMP/record.tsv" 1 2 10.4 | cut -d" " -f1-3 >"$TEST_TMP/setting"
	) &&
	printf "%s\n" "198.18.99.129:40000 9 4.0" "198.18.99.129:40002 6 3.0" >"$TEST_TMP/want" &&
	test_cmp "$TEST_TMP/want" "$TEST_TMP/held" &&
	! test_cmp "$TEST_TMP/want" "$TEST_TMP/setting" >/dev/null
'

# refused SETTING=VALUE...: start with these settings exits 2 with one
# line and changes nothing.
refused () {
	local rc=0
	env "$@" NETWORK_RTT_MS="${NETWORK_RTT_MS_:-0 5}" "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
	cat "$TEST_TMP/err"
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TEST_TMP/err")" -eq 1 ] &&
	[ ! -d "$STATE_DIR" ] &&
	net_snapshot >"$TEST_TMP/net.now" && test_cmp "$TEST_TMP/net.before" "$TEST_TMP/net.now"
}

test_expect 'a negative round-trip time is refused with exit 2, one line, nothing changed' '
	NETWORK_RTT_MS_="0 -5" refused &&
	test_grep "NETWORK_RTT_MS" "$TEST_TMP/err"
'
test_expect 'a round-trip time that is not a number is refused' '
	NETWORK_RTT_MS_="0 20ms" refused &&
	test_grep "NETWORK_RTT_MS=\"0 20ms\"" "$TEST_TMP/err"
'
test_expect 'a loss over 100 % is refused' '
	refused NETWORK_LOSS_PCT=101 &&
	test_grep "NETWORK_LOSS_PCT" "$TEST_TMP/err"
'
test_expect 'a rate limit that is not a number is refused' '
	refused NETWORK_MBIT=fast &&
	test_grep "NETWORK_MBIT" "$TEST_TMP/err"
'
# 127.0.0.1/8 is on lo on every host: a range inside it is in use.
test_expect 'a range the host uses is refused, naming what uses it' '
	refused NETWORK_RANGE=127.0.0.0/24 &&
	test_grep "NETWORK_RANGE=127.0.0.0/24 is in use on this host (address 127.0.0.1/8 on lo" "$TEST_TMP/err"
'
test_expect 'test-ssh.sh refuses a distance the test hosts were not made for' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	rc=0 && NETWORK_RTT_MS="0 5" "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$? &&
	cat "$TEST_TMP/err" &&
	[ "$rc" -eq 2 ] && [ "$(wc -l <"$TEST_TMP/err")" -eq 1 ] &&
	test_grep "run NETWORK_RTT_MS=\"0 5\" ./start-ssh.sh first" "$TEST_TMP/err" &&
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	net_snapshot >"$TEST_TMP/net.now" && test_cmp "$TEST_TMP/net.before" "$TEST_TMP/net.now"
'

# wire_procs: what runs in this instance's wire namespace (its
# sshperf-wire while a distance is in place; nothing otherwise). Not
# pgrep: the other instances beside this one run their own helpers.
wire_procs () {
	ip netns pids "$WIRE_NS" 2>/dev/null | paste -sd" " -
}

# the_run: the report folder the last run printed.
the_run () {
	dirname "$(grep -o "/[^ ]*/report.md" "$TEST_TMP/run.out" | tail -n 1)"
}

export NETWORK_RTT_MS="0 5"
test_expect 'start makes the test hosts: the server listens on the wire, every piece recorded' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	p=${NETWORK_RANGE%.0/24} &&
	ip netns list >"$TEST_TMP/ns" &&
	test_grep "^$WIRE_NS" "$TEST_TMP/ns" && test_grep "^$TESTHOST_NS" "$TEST_TMP/ns" &&
	test_grep -x "ListenAddress $p.1" "$SSHD_CONFIG" &&
	test_grep -x "netns $TESTHOST_NS" "$MANIFEST" &&
	test_grep -x "link $WIRE_DEV_HOST" "$MANIFEST" &&
	test_grep -x "route $p.0/24 via $p.2 dev $WIRE_DEV_HOST" "$MANIFEST" &&
	ip -n "$TESTHOST_NS" -4 -o addr show >"$TEST_TMP/addrs" &&
	test_grep " $p.129/32 " "$TEST_TMP/addrs" && test_grep " $p.136/32 " "$TEST_TMP/addrs"
'

test_expect 'a run with a distance measures its wire before it and leaves no helper running' '
	# 6 logins: 4 or more on each side give the shift an interval.
	{ LOGIN_SAMPLES=6 "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/run.out" 2>&1 || :; } &&
	cat "$TEST_TMP/run.out" &&
	run=$(the_run) && [ -f "$run/raw/wire.tsv" ] &&
	tsv_select "$run/raw/wire.tsv" rtt_ms helper status connect_n echo_n >"$TEST_TMP/row" &&
	printf "0\tnone\tok\t-\t-\n5\theld\tok\t20\t20\n" >"$TEST_TMP/want" &&
	test_cmp "$TEST_TMP/want" "$TEST_TMP/row" &&
	test_grep "distance 5 ms: TCP connect p50 " "$TEST_TMP/run.out" &&
	# Logins from the test host across the wire, and the round trips
	# they added (a number; how many depends on the machine: not asserted).
	tsv_select "$run/raw/wire.tsv" login_n login_round_trips | sed 1d >"$TEST_TMP/logins" &&
	test_grep -E "^6	-?[0-9]+[.][0-9]$" "$TEST_TMP/logins" &&
	# Their base: logins over loopback at the same time, none at 0.
	tsv_select "$run/raw/wire.tsv" rtt_ms login_base_ms_p50 >"$TEST_TMP/base" &&
	test_grep -E "^0	-$" "$TEST_TMP/base" && test_grep -E "^5	[0-9]+[.][0-9]$" "$TEST_TMP/base" &&
	# The round trips from the time carry their interval, around them.
	tsv_select "$run/raw/wire.tsv" rtt_ms login_round_trips_low login_round_trips login_round_trips_high >"$TEST_TMP/rti" &&
	awk -F"\t" "\$1 == 5 && \$2 <= \$3 && \$3 <= \$4 { ok = 1 } END { exit !ok }" "$TEST_TMP/rti" ||
		{ cat "$TEST_TMP/rti"; false; } &&
	test -s "$run/raw/wire-5-logins.tsv.base1" && test -s "$run/raw/wire-5-logins.tsv.base2" &&
	# The round trips the packets show: a login takes a few (TCP, the
	# banners, key exchange, authentication, the session).
	tsv_select "$run/raw/wire.tsv" rtt_ms login_rt_packets | sed 1d >"$TEST_TMP/rt" &&
	test_grep -E "^5	([3-9]|1[0-9])[.][05]$" "$TEST_TMP/rt" &&
	test_eq "$(awk -F"\t" "\$2 == \"mark\" { n++ } END { print n + 0 }" "$run/raw/wire-5-packets.tsv")" 6 &&
	# The sftp files and the transfer at 0 and at 5 ms: all arrived, with
	# their figures and, at 5 ms, their round trips and bounds.
	tsv_select "$run/raw/wire.tsv" rtt_ms sftp_files sftp_check xfer_mb xfer_bytes xfer_check >"$TEST_TMP/far" &&
	printf "0\t5\tok\t8\t8388608\tok\n5\t5\tok\t8\t8388608\tok\n" >"$TEST_TMP/want" &&
	test_cmp "$TEST_TMP/want" "$TEST_TMP/far" &&
	tsv_select "$run/raw/wire.tsv" sftp_files_per_s sftp_rt_per_file sftp_bound_files_per_s xfer_mbs xfer_window_bytes xfer_bound | sed -n 2p >"$TEST_TMP/bounds" &&
	test_grep -E "^[0-9.]+	[0-9]+[.][0-9]{2}	[0-9.]+	[0-9.]+	[0-9]+	(window|cipher)$" "$TEST_TMP/bounds" &&
	test_grep "round trips per login: time / packets" "$run/report.md" &&
	test_grep -E "\"login_rt_packets\": [0-9]" "$run/results.json" &&
	# The TCP waits of the logins both ways, and the round trips from
	# the time without them: that figure less the waits'"'"' difference.
	test -s "$run/raw/wire-5-base-packets.tsv" &&
	tsv_select "$run/raw/wire.tsv" rtt_ms login_round_trips login_wait_ms login_base_wait_ms login_rt_less_waits |
		awk -F"\t" "\$1 == 5" >"$TEST_TMP/waits" &&
	test_grep -E "^5	-?[0-9.]+	[0-9]+[.][0-9]	[0-9]+[.][0-9]	-?[0-9]+[.][0-9]$" "$TEST_TMP/waits" &&
	awk -F"\t" "{ d = \$2 - (\$3 - \$4) / 5 - \$5; exit !(d < 0.051 && d > -0.051) }" "$TEST_TMP/waits" ||
		{ cat "$TEST_TMP/waits"; false; } &&
	test_grep "time without the TCP waits" "$run/report.md" &&
	# The wire trimmed by its own cost when its first connect was slower
	# than the setting by more than 0.05 ms (lib/wire.sh wire_trim): by
	# that excess (at most the setting), with the first measurement kept;
	# untrimmed, the first connect was within 0.05 ms of it or faster.
	trim=$(tsv_select "$run/raw/wire.tsv" rtt_ms wire_trim_ms | awk -F"\t" "\$1 == 5 { print \$2 }") &&
	if [ -n "$trim" ] && [ "$trim" != - ]; then
		first=$(kv_get "$run/raw/wire-5-probe.env.untrimmed" connect_ms_p50) &&
		test_eq "$trim" "$(awk -v m="$first" "BEGIN { e = m - 5; printf \"%.3f\", (e > 5 ? 5 : e) }")" &&
		test_grep "held $trim ms less" "$run/report.md"
	else
		test ! -e "$run/raw/wire-5-probe.env.untrimmed" &&
		awk -v m="$(kv_get "$run/raw/wire-5-probe.env" connect_ms_p50)" "BEGIN { exit !(m - 5 <= 0.05) }" ||
			{ echo "untrimmed, but the connect p50 was $(kv_get "$run/raw/wire-5-probe.env" connect_ms_p50) ms at 5 ms"; false; }
	fi &&
	test_eq "$(wire_procs)" "" &&
	ip netns exec "$WIRE_NS" iptables -t mangle -S PREROUTING >"$TEST_TMP/rules" &&
	! test_grep NFQUEUE "$TEST_TMP/rules"
'

test_expect 'cleanup after a run with distances leaves the host network identical' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	net_snapshot >"$TEST_TMP/net.now" && test_cmp "$TEST_TMP/net.before" "$TEST_TMP/net.now"
'

# The wire of a distance in place: its rule is in the wire's namespace.
wire_on () {
	ip netns exec "$WIRE_NS" iptables -t mangle -S PREROUTING 2>/dev/null | grep -q NFQUEUE
}

# A background command that gets SIGINT (a non-interactive shell's
# background jobs ignore it unless job control is on), as in t91.
spawn () {
	set -m
	"$@" </dev/null >"$TEST_TMP/run.out" 2>&1 &
	# shellcheck disable=SC2034 # read in the test bodies (single-quoted)
	runner=$!
	set +m
	test_when_finished '[ -z "$runner" ] || kill -KILL "$runner" 2>/dev/null || :'
}

# A long distance, so that the wire is in place for seconds.
export NETWORK_RTT_MS="0 200"
test_expect 'SIGINT in the middle of a distance: the wire is taken down, cleanup leaves the network identical' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	spawn "$KIT_DIR/test-ssh.sh" login &&
	waits_for 300 wire_on && kill -INT "$runner" &&
	rc=0 && { wait "$runner" || rc=$?; } &&
	runner="" &&
	cat "$TEST_TMP/run.out" &&
	[ "$rc" -eq 130 ] &&
	! wire_on &&
	test_eq "$(wire_procs)" "" &&
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	net_snapshot >"$TEST_TMP/net.now" && test_cmp "$TEST_TMP/net.before" "$TEST_TMP/net.now"
'

test_expect 'a wire helper killed mid-distance: the run says the wire failed closed, cleanup leaves the network identical' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	spawn "$KIT_DIR/test-ssh.sh" login &&
	waits_for 300 wire_on &&
	pid=$(sed -n "s/^wirepid //p" "$MANIFEST" | tail -n 1) &&
	kill -KILL "$pid" &&
	{ wait "$runner" || :; } &&
	runner="" &&
	cat "$TEST_TMP/run.out" &&
	run=$(the_run) &&
	tsv_select "$run/raw/wire.tsv" rtt_ms helper status | sed 1d >"$TEST_TMP/row" &&
	printf "200\tdied\tERROR\n" >"$TEST_TMP/want" &&
	test_cmp "$TEST_TMP/want" "$TEST_TMP/row" &&
	test_grep "the wire failed closed" "$TEST_TMP/run.out" &&
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	net_snapshot >"$TEST_TMP/net.now" && test_cmp "$TEST_TMP/net.before" "$TEST_TMP/net.now"
'

test_done
