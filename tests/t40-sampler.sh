#!/usr/bin/env bash
# sshperf-sampler against the real test server: a one-shot sample, the
# per-process rows, CPU that grows with logins, and a CSV from run mode.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"

host_kit_test 'sampler on the test server'
STATE=$STATE_DIR
CFG="$STATE/client/ssh_config"
S="$BUILD_DIR/sshperf-sampler"
export CFG S

test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'
host_snapshot_save

test_expect 'the test server starts' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null
'
# The sampler's target options, as lib/sampler.sh picks them.
if [ "$(sed -n 's/^MODE=//p' "$STATE/server.env" | tail -n 1)" = systemd ]; then
	TARGET="-u $UNIT_NAME -U $(id -u $TEST_USER)"
else
	TARGET="-p $(cat "$PID_FILE" 2>/dev/null)"
fi
export TARGET

test_expect 'once prints every key with numbers' '
	# shellcheck disable=SC2086 # two options
	"$S" $TARGET once >"$TEST_TMP/once" &&
	for k in mono_ns cpu_user_ms cpu_system_ms cpu_total_ms session_cpu_ms pss_kb rss_kb processes; do
		grep -Eq "^$k=[0-9.]+\$" "$TEST_TMP/once" || { echo "missing $k"; return 1; }
	done &&
	grep -Eq "^cpu_source=(cgroup|proc)\$" "$TEST_TMP/once" &&
	[ "$(sed -n "s/^processes=//p" "$TEST_TMP/once")" -ge 1 ]
'

test_expect '-P lists the listener with its memory and its role' '
	# shellcheck disable=SC2086
	"$S" -P $TARGET once >"$TEST_TMP/rows" &&
	head -n 1 "$TEST_TMP/rows" | grep -qx "pid	comm	pss_kb	rss_kb	role" &&
	awk -F"\t" "NR > 1 && \$2 ~ /^sshd/ && \$3 > 0 && \$4 >= \$3 { found = 1 } END { exit !found }" "$TEST_TMP/rows" &&
	listener=$(sed -n "s/^listener_pid=//p" "$TEST_TMP/once") && [ "${listener:-0}" -gt 0 ] &&
	awk -F"\t" -v l="$listener" "NR > 1 && \$1 == l && \$5 == \"listener\" { n++ } NR > 1 && \$5 == \"listener\" { all++ } END { exit !(n == 1 && all == 1) }" "$TEST_TMP/rows"
'

test_expect 'once splits the memory: listener + manager + other = the total' '
	for k in listener manager other; do
		for f in pss_kb rss_kb processes; do
			grep -Eq "^${k}_$f=[0-9]+\$" "$TEST_TMP/once" || { echo "missing ${k}_$f"; return 1; }
		done
	done &&
	awk -F= "{ v[\$1] = \$2 } END {
		for (i = split(\"pss_kb rss_kb processes\", f, \" \"); i > 0; i--)
			if (v[\"listener_\" f[i]] + v[\"manager_\" f[i]] + v[\"other_\" f[i]] != v[f[i]]) exit 1
		exit !(v[\"listener_processes\"] == 1 && v[\"listener_pss_kb\"] > 0)
	}" "$TEST_TMP/once"
'

# The server cannot have used more CPU than every core for the whole time
# between the two samples: a bound from the machine, not from its speed.
test_expect 'CPU grows with logins, by no more than the cores could give' '
	# shellcheck disable=SC2086
	"$S" $TARGET once >"$TEST_TMP/a" &&
	for i in 1 2 3; do ssh -F "$CFG" $HOST_ALIAS true </dev/null || return 1; done &&
	"$S" $TARGET once >"$TEST_TMP/b" &&
	ma=$(sed -n "s/^mono_ns=//p" "$TEST_TMP/a") && mb=$(sed -n "s/^mono_ns=//p" "$TEST_TMP/b") &&
	a=$(sed -n "s/^cpu_total_ms=//p" "$TEST_TMP/a") && b=$(sed -n "s/^cpu_total_ms=//p" "$TEST_TMP/b") &&
	sa=$(sed -n "s/^session_cpu_ms=//p" "$TEST_TMP/a") && sb=$(sed -n "s/^session_cpu_ms=//p" "$TEST_TMP/b") &&
	echo "unit $a -> $b, session $sa -> $sb" &&
	awk -v a="$a" -v b="$b" -v sa="$sa" -v sb="$sb" -v wall="$(( (mb - ma) / 1000000 ))" -v cores="$(nproc)" \
		"BEGIN { d = b - a + sb - sa; exit !(d > 0 && d <= wall * cores + 10) }"
'

test_expect 'run writes a CSV row per interval until SIGTERM' '
	# shellcheck disable=SC2086
	"$S" $TARGET -i 50 -o "$TEST_TMP/s.csv" run >"$TEST_TMP/cost" &
	pid=$! &&
	for _ in $(seq 1 1200); do [ "$(wc -l <"$TEST_TMP/s.csv" 2>/dev/null || echo 0)" -ge 5 ] && break; sleep 0.05; done &&
	kill -TERM "$pid" && wait "$pid" &&
	head -n 1 "$TEST_TMP/s.csv" | grep -q "^mono_ns,cpu_user_ms,cpu_system_ms,cpu_total_ms," &&
	[ "$(wc -l <"$TEST_TMP/s.csv")" -ge 5 ] &&
	grep -Eq "^self_cpu_us_per_sample=[0-9.]+\$" "$TEST_TMP/cost"
'

# 1 s is not a multiple of 300 ms: the last sample must fall on the end of
# the duration (1 s after the first), not at 900 ms.
test_expect 'run -d: the last sample falls on the end of the duration' '
	# shellcheck disable=SC2086
	"$S" $TARGET -i 300 -d 1 -o "$TEST_TMP/d.csv" run >/dev/null &&
	awk -F, "NR == 2 { first = \$1 } NR > 1 { last = \$1; n++ } END { print n, (last - first) / 1e6; exit !(n >= 2 && last - first >= 1e9) }" "$TEST_TMP/d.csv"
'

test_expect 'cleanup leaves the host as it was; the sampler then says not running' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	host_unchanged &&
	expect_status 2 "$S" -p 0 once &&
	pid=$(sh -c "echo \$\$") && expect_status 1 "$S" -p "$pid" once
'

test_done
