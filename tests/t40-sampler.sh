#!/usr/bin/env bash
# sshperf-sampler against the real test server: a one-shot sample, the
# per-process rows, CPU that grows with logins, and the process lists.
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
	TARGET="-u $UNIT_NAME -U $(id -u "$TEST_USER")"
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
	test_grep -E "^cpu_source=(cgroup|proc)\$" "$TEST_TMP/once" &&
	[ "$(sed -n "s/^processes=//p" "$TEST_TMP/once")" -ge 1 ]
'

test_expect '-P lists the listener with its memory and its role' '
	# shellcheck disable=SC2086
	"$S" -P $TARGET once >"$TEST_TMP/rows" &&
	head -n 1 "$TEST_TMP/rows" >"$TEST_TMP/seen" && test_grep -x "pid	comm	pss_kb	rss_kb	role" "$TEST_TMP/seen" &&
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

# The process lists, on the real listener: the one reader of /proc for the
# shell (descendants, the tests' tree, test-ssh.sh's watch of the server).
test_expect 'tree lists the listener first, then what runs below it' '
	listener=$(sed -n "s/^listener_pid=//p" "$TEST_TMP/once") &&
	{ ssh -F "$CFG" $HOST_ALIAS "sleep 5" </dev/null & } &&
	client=$! &&
	for _ in $(seq 1 200); do
		"$S" tree "$listener" >"$TEST_TMP/tree" && [ "$(wc -l <"$TEST_TMP/tree")" -ge 3 ] && break
		sleep 0.05
	done &&
	cat "$TEST_TMP/tree" &&
	head -n 1 "$TEST_TMP/tree" >"$TEST_TMP/seen" && test_grep -x "pid	ppid	pgid	state	start	comm" "$TEST_TMP/seen" &&
	awk -F"\t" -v l="$listener" "NR == 2 && \$1 == l && \$6 ~ /^sshd/ { ok = 1 } END { exit !ok }" "$TEST_TMP/tree" &&
	awk -F"\t" "NR > 2 { below[\$1] = 1; parent[\$1] = \$2 } END { for (p in parent) if (!(parent[p] in below) && parent[p] != l) exit 1 }" l="$listener" "$TEST_TMP/tree" &&
	sed -n 3p "$TEST_TMP/tree" >"$TEST_TMP/seen" && test_grep "	sshd" "$TEST_TMP/seen" &&
	wait "$client"
'

test_expect 'ps: the listener runs; a pid that is gone does not (exit 1)' '
	listener=$(sed -n "s/^listener_pid=//p" "$TEST_TMP/once") &&
	"$S" ps "$listener" >"$TEST_TMP/ps" &&
	[ "$(wc -l <"$TEST_TMP/ps")" -eq 2 ] &&
	gone=$(sh -c "echo \$\$") &&
	expect_status 1 "$S" ps "$gone" &&
	expect_status 2 "$S" tree nonsense
'

test_expect 'cleanup leaves the host as it was; the sampler then says not running' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	host_unchanged &&
	expect_status 2 "$S" -p 0 once &&
	pid=$(sh -c "echo \$\$") && expect_status 1 "$S" -p "$pid" once
'

test_done
