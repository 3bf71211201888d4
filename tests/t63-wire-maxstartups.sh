#!/usr/bin/env bash
# MaxStartups at a distance (lib/wire-load.sh, host without systemd): a
# run of burst with MAX_STARTUPS=10:30:100 and a 100 ms wire measures from the
# listener's own count how long each login stays unauthenticated, and
# predicts by Little's law the arrival rate where MaxStartups begins to
# refuse (start / that time). A rate step well below the prediction sees
# no MaxStartups drop in sshd's log; a step at 1.5 times it sees drops.
# The rate and burst steps' rows are in raw/wire-load.tsv, the
# prediction in raw/wire-maxstartups.tsv, and cleanup leaves the host's
# network as it found it. Sizes for CI: one distance, a slow step of 20
# logins, a step above of about 4 s, one burst of 5 clients.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/procs.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

host_kit_test 'MaxStartups at a distance' direct
if ! command -v iptables >/dev/null || ! unshare --net true 2>/dev/null; then
	test_skip 'MaxStartups at a distance' 'needs iptables and network namespaces (unshare --net); ./install-deps.sh installs iptables'
	test_done
	exit 0
fi
# A range of this instance's own in the block set aside for benchmarks
# (t62's, which runs in the same lane, never at the same time).
NETWORK_RANGE=198.18.$(( $(instance_port_offset "$TEST_INSTANCE") % 200 + 20 )).0/24
export NETWORK_RANGE RESULTS_DIR="$TEST_TMP/results" LOGIN_SAMPLES=2 ECHO_COUNT=20
export MAX_STARTUPS=10:30:100 NETWORK_RTT_MS="0 100" BURST_STEPS=5
mkdir -p "$RESULTS_DIR"
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

. "$TEST_DIR/lib/netsnap.sh"
net_snapshot >"$TEST_TMP/net.before"

# ms COLUMN: the 100 ms row of raw/wire-maxstartups.tsv.
ms () {
	tsv_select "$run/raw/wire-maxstartups.tsv" rtt_ms "$1" | awk -F'\t' '$1 == 100 { print $2 }'
}
# step TEST STEP COLUMN: a cell of raw/wire-load.tsv at 100 ms.
step () {
	tsv_select "$run/raw/wire-load.tsv" rtt_ms test step "$3" | awk -F'\t' -v t="$1" -v s="$2" '$1 == 100 && $2 == t && $3 == s { print $4 }'
}

test_expect 'a run at 100 ms with MaxStartups 10:30:100 writes the rate and burst steps and a prediction' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	{ "$KIT_DIR/test-ssh.sh" burst >"$TEST_TMP/run.out" 2>&1 || :; } &&
	cat "$TEST_TMP/run.out" &&
	dirname "$(grep -o "/[^ ]*/report.md" "$TEST_TMP/run.out" | tail -n 1)" >"$TEST_TMP/run" &&
	run=$(cat "$TEST_TMP/run") &&
	cat "$run/raw/wire-maxstartups.tsv" "$run/raw/wire-load.tsv" &&
	test_eq "$(ms max_startups)" 10:30:100 &&
	test_eq "$(ms begin)" 10 &&
	tsv_select "$run/raw/wire-load.tsv" rtt_ms test step status >steps &&
	printf "100\trate\t1\tok\n100\trate\t2\tok\n100\tburst\t5\tok\n" >want &&
	test_cmp want steps
'
run=$(cat "$TEST_TMP/run" 2>/dev/null || :)

# At least two round trips pass between sshd accepting a connection and
# its authentication (the key exchange, then the user authentication;
# each waits for the other side), so at 100 ms the time unauthenticated
# is at least 200 ms, and the prediction at most 10 / 0.2 s.
test_expect 'the time unauthenticated is measured from the listener.s count: at least two round trips' '
	a=$(ms auth_ms) && p=$(ms predicted_per_s) &&
	echo "unauthenticated per login $a ms, refusals from $p logins/s" &&
	awk -v a="$a" -v p="$p" "BEGIN { exit !(a >= 200 && p > 0 && p <= 50) }" &&
	test_eq "$(awk -v a="$a" "BEGIN { printf \"%.1f\", 10 * 1000 / a }")" "$p" &&
	test_grep "keep 10 connections unauthenticated: MaxStartups 10:30:100 begins to refuse" "$run/report.md"
'

test_expect 'below the predicted rate sshd drops nothing, above it sshd.s log has MaxStartups drops' '
	below=$(ms below_per_s) above=$(ms above_per_s) p=$(ms predicted_per_s) &&
	echo "below $below/s: $(ms below_drops) drops, max $(step rate 1 startups_max) unauthenticated; above $above/s: $(ms above_drops) drops, max $(step rate 2 startups_max)" &&
	awk -v b="$below" -v p="$p" -v a="$above" "BEGIN { exit !(b < p && a > p) }" &&
	test_eq "$(ms below_drops)" 0 &&
	test_eq "$(step rate 1 log_drops)" 0 &&
	awk -v d="$(ms above_drops)" "BEGIN { exit !(d > 0) }" &&
	test_eq "$(ms outcome)" confirmed &&
	awk -v m="$(step rate 2 startups_max)" "BEGIN { exit !(m >= 10) }"
'

test_expect 'the burst across the wire: every client counted, the listener sampled' '
	ok=$(step burst 5 ok) failed=$(step burst 5 failed) &&
	test_eq "$((ok + failed))" 5 &&
	test -n "$(step burst 5 startups_max)" &&
	test -s "$run/raw/wire-100-burst-5-startups.tsv"
'

test_expect 'cleanup leaves the host network identical, no helper of the steps left' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	! pgrep -f "sshperf-startups -p .* -o $run/" &&
	net_snapshot >"$TEST_TMP/net.now" && test_cmp "$TEST_TMP/net.before" "$TEST_TMP/net.now"
'

test_done
