#!/usr/bin/env bash
# The load mode (issue 47, docs/load-hosts.md): `test-ssh.sh --load` on a
# load host drives the client side of login, rate, burst and concurrent
# against the test server of a target. A load host is played by a network namespace
# of this test with a veth to the host (198.19.0.0/16, the other half of
# the benchmark block t36, t62 and t63 take theirs from), a second load
# host by a second one; the target is this host's test server, started
# with LISTEN_ADDRESS and LOAD_HOSTS naming the ends. The key is the one the server's start made, copied, as
# the play will copy it. Checked: bad input exits 2 with one line and the
# host unchanged; a run from the namespace logs in from the load host's
# address alone (sshd's log), writes the tables with the rows asked for,
# all ok, and data/load.env with the clock offset (0 within its
# uncertainty: both ends read one clock), the common start and only keys
# docs/data.md declares; a key the target does not know ends the run
# before any test; a burst from both load hosts at one start is
# released at that start, every client's outcome agrees with sshd's log
# (burst_classify, as the burst test classifies its steps) and each
# host's release spread is recorded; the concurrent sessions of both are
# held open on the target together (its connections and processes, as
# the test sees them); the local test server is left as it was.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/procs.sh"

host_kit_test 'load mode'
LOAD_HOST_WHAT='load mode'
. "$TEST_DIR/lib/loadhost.sh"

# The clients of each load host's burst, its concurrent sessions and
# how long they are held open (DURATION).
# shellcheck disable=SC2034 # read in the test bodies (test_expect evaluates them)
BURST_CLIENTS=20 SESSIONS=20 HOLD_S=4
# shellcheck disable=SC2034 # read in the test bodies (test_expect evaluates them)
LOAD_SAMPLES=8
RESULTS="$TEST_TMP/load-results"
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

# The two load hosts (spm: load mode): the namespaces' ends of the veths
# have LOAD_ADDR and LOAD_ADDR2.
load_hosts_two spm loadmode

host_snapshot_save

# A key of the test's own, which the target has never seen.
ssh-keygen -q -t ed25519 -N '' -C t37-stranger -f "$TEST_TMP/stranger-key" ||
	{ echo "Bail out! ssh-keygen"; exit 1; }

# load_on NS NAME RESULTS [ENV=value...] -- ARGS...: test-ssh.sh --load
# ARGS in the namespace NS, with a deadline, its run folder in RESULTS;
# its stdout in NAME.out, its stderr in NAME.err; returns its exit status.
load_on () {
	local ns=$1 name=$2 results=$3
	local -a envs=()
	shift 3
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	timeout --kill-after=10 300 ip netns exec "$ns" env RESULTS_DIR="$results" "${envs[@]}" \
		"$KIT_DIR/test-ssh.sh" --load "$@" >"$TEST_TMP/$name.out" 2>"$TEST_TMP/$name.err"
}

# load [ENV=value...] -- ARGS...: load_on the first load host, into
# load.out and load.err.
load () {
	load_on "$NS" load "$RESULTS" "$@"
}

# refused TEXT ARGS...: test-ssh.sh --load ARGS (on this host) exits 2
# with one line holding TEXT, writes no results folder and leaves the
# host unchanged.
refused () {
	local text=$1 rc=0
	shift
	RESULTS_DIR="$RESULTS" "$KIT_DIR/test-ssh.sh" --load "$@" >"$TEST_TMP/o" 2>"$TEST_TMP/e" || rc=$?
	[ "$rc" -eq 2 ] || { echo "exit $rc from: --load $*"; cat "$TEST_TMP/o" "$TEST_TMP/e"; return 1; }
	test_eq "$(wc -l <"$TEST_TMP/e")" 1 &&
	cat "$TEST_TMP/e" &&
	test_grep -F -- "$text" "$TEST_TMP/e" &&
	test_eq "$(ls -A "$RESULTS" 2>/dev/null)" "" &&
	host_unchanged
}

test_expect 'bad input exits 2 with one line, before anything: no target, no key' '
	refused "no target: give the target" --key "$TEST_TMP/stranger-key" login &&
	refused "no key: give the test user" --target "$SERVER_ADDR" login
'
test_expect 'bad input: a key that cannot be read, or is no key' '
	refused "--key $TEST_TMP/no-such-key: it is not a readable file" --target "$SERVER_ADDR" --key "$TEST_TMP/no-such-key" login &&
	refused "--key $TEST_TMP/stranger-key.pub: ssh cannot use it (ssh-keygen -y: " --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key.pub" login
'
test_expect 'bad input: a test a load host cannot drive' '
	refused "the test '"'"'auth'"'"' cannot be driven from a load host" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" login auth &&
	refused "no test named" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key"
'
test_expect 'bad input: a burst size that is not a number of clients from 1 to 2000' '
	refused "--burst-clients many is not a number of clients from 1 to 2000" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" --burst-clients many burst &&
	refused "--burst-clients 2001 is not a number" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" --burst-clients 2001 burst &&
	refused "--burst-clients 0 is not a number" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" --burst-clients 0 burst
'
test_expect 'bad input: a start in the past or too far ahead, a bad target' '
	refused "s in the past (at most 5 s is taken)" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" --start-at "$(( $(date +%s) - 60 ))" login &&
	refused "s ahead, more than 3600 s" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" --start-at "$(( $(date +%s) + 7200 ))" login &&
	refused "is not a time in whole seconds" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" --start-at soon login &&
	refused "the port \"0\" is not a port number" --target "$SERVER_ADDR:0" --key "$TEST_TMP/stranger-key" login &&
	refused "is neither a host name nor an IP address" --target "-oProxyCommand=x" --key "$TEST_TMP/stranger-key" login
'

# MaxStartups above the two bursts together: every client logs in, and
# each one's login is in sshd's log to count.
export LISTEN_ADDRESS="$SERVER_ADDR" LOAD_HOSTS="$LOAD_ADDR $LOAD_ADDR2" MAX_STARTUPS=100:30:200

# The test server's log (direct mode's file, or the unit's journal) from
# line $1 on.
server_log_from () {
	if [ -f "$STATE_DIR/sshd.log" ]; then tail -n "+$1" "$STATE_DIR/sshd.log"; else journalctl -u "$UNIT_NAME" --no-pager -q -o cat 2>/dev/null | tail -n "+$1"; fi
}
# log_lines: how many lines the log has now.
log_lines () {
	server_log_from 1 | wc -l
}
# The local test server as a load run must leave it: its listener and
# the files of its state folder (the log aside, which the logins write).
server_state () {
	ss -ltnpH "sport = :$TEST_PORT" | awk '{ print $4, $6 }' | sort
	find "$STATE_DIR" ! -name sshd.log -printf '%p %s %T@\n' | sort
}

test_expect 'the target: the test server starts with the load host let in' '
	"$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 || { cat "$TEST_TMP/start.out"; false; } &&
	test_grep -F "also on $SERVER_ADDR:$TEST_PORT, for $TEST_USER from the load hosts $LOAD_ADDR, $LOAD_ADDR2 only" "$TEST_TMP/start.out" &&
	for k in ed25519 ecdsa; do
		if [ -f "$CLIENT_DIR/id_$k" ]; then cp "$CLIENT_DIR/id_$k" "$TEST_TMP/key" && break; fi
	done &&
	chmod 0600 "$TEST_TMP/key" && ssh-keygen -y -f "$TEST_TMP/key" >/dev/null
'

test_expect 'a key the target does not know: exit 1, the target unreachable, no test run' '
	rc=0 && load -- --target "$SERVER_ADDR:$TEST_PORT" --key "$TEST_TMP/stranger-key" --user "$TEST_USER" login || rc=$? &&
	cat "$TEST_TMP/load.out" "$TEST_TMP/load.err" &&
	test_eq "$rc" 1 &&
	run=$(tail -n 1 "$TEST_TMP/load.out") && [ -d "$run" ] &&
	test_kv "$run/data/load.env" status ERROR &&
	test_kv "$run/data/load.env" clock_status ERROR &&
	test_kv "$run/data/load.env" login_status NOT_RUN &&
	test_grep "^reason=the target.s test server could not be reached as $TEST_USER with the key: the target did not answer: .*Permission denied" "$run/data/load.env" &&
	[ ! -e "$run/raw/login-samples.tsv" ]
'

test_expect 'login and rate from the load host, at a common start' '
	server_state >"$TEST_TMP/server.before" &&
	from=$(( $(log_lines) + 1 )) &&
	start=$(( $(date +%s) + 3 )) &&
	load LOGIN_SAMPLES="$LOAD_SAMPLES" RATE_WORKERS=2 DURATION=3 -- \
		--target "$SERVER_ADDR:$TEST_PORT" --key "$TEST_TMP/key" --user "$TEST_USER" --start-at "$start" login rate ||
		{ cat "$TEST_TMP/load.out" "$TEST_TMP/load.err"; false; } &&
	cat "$TEST_TMP/load.out" &&
	run=$(tail -n 1 "$TEST_TMP/load.out") && [ -d "$run" ] &&
	printf "%s\n" "$run" >"$TEST_TMP/run" &&
	server_log_from "$from" >"$TEST_TMP/log" &&
	server_state >"$TEST_TMP/server.after" &&
	test_cmp "$TEST_TMP/server.before" "$TEST_TMP/server.after" &&
	test_kv "$run/data/load.env" status ok &&
	test_kv "$run/data/load.env" start_at "$start" &&
	test_kv "$run/data/load.env" target "$SERVER_ADDR:$TEST_PORT" &&
	test_kv "$run/data/load.env" user "$TEST_USER" &&
	test_grep -x "Include /etc/ssh/ssh_config" "$run/raw/load-ssh_config"
'

RUN=$(cat "$TEST_TMP/run" 2>/dev/null || echo "$TEST_TMP/no-run")
ENV="$RUN/data/load.env"

test_expect 'login: the asked number of rows in the login test'"'"'s table, all ok' '
	test_kv "$ENV" login_status ok &&
	test_kv "$ENV" login_ok "$LOAD_SAMPLES" &&
	test_kv "$ENV" login_failed 0 &&
	test_kv "$ENV" login_total_n "$LOAD_SAMPLES" &&
	test_eq "$(head -n 1 "$RUN/raw/login-samples.tsv")" "$(printf "sample\tstatus\texit\tconnect_ms\tgreeting_ms\tkex_ms\tauth_ms\tsession_ms\ttotal_ms\tmethod\terror")" &&
	(. "$KIT_DIR/lib/data.sh" && tsv_select "$RUN/raw/login-samples.tsv" status) >status.txt &&
	test_eq "$(wc -l <status.txt)" "$LOAD_SAMPLES" &&
	test_grep ! -vx ok status.txt
'
test_expect 'rate: every login of the closed loop in its table, all ok' '
	test_kv "$ENV" rate_status ok &&
	test_kv "$ENV" rate_failed 0 &&
	test_kv "$ENV" rate_workers 2 &&
	(. "$KIT_DIR/lib/data.sh" && tsv_select "$RUN/raw/rate-logins.tsv" status) >status.txt &&
	test_eq "$(wc -l <status.txt)" "$(sed -n "s/^rate_logins=//p" "$ENV")" &&
	[ "$(wc -l <status.txt)" -gt 0 ] &&
	test_grep ! -vx ok status.txt
'
test_expect 'every login arrived from the load host'"'"'s address (sshd'"'"'s log)' '
	grep "Accepted publickey for $TEST_USER from " "$TEST_TMP/log" >accepted.txt || : &&
	test_grep ! -v "Accepted publickey for $TEST_USER from $LOAD_ADDR port " accepted.txt &&
	rate_logins=$(sed -n "s/^rate_logins=//p" "$ENV") &&
	test_eq "$(wc -l <accepted.txt)" "$((1 + LOAD_SAMPLES + rate_logins))"
'
test_expect 'the clock: its offset is 0 within its uncertainty (one clock), and recorded' '
	test_kv "$ENV" clock_status ok &&
	test_kv "$ENV" clock_samples 10 &&
	off=$(sed -n "s/^clock_offset_ms=//p" "$ENV") && unc=$(sed -n "s/^clock_uncertainty_ms=//p" "$ENV") &&
	echo "offset $off ms, uncertainty $unc ms" &&
	awk -v o="$off" -v u="$unc" "BEGIN { if (o < 0) o = -o; exit !(u > 0 && o <= u + 0.002) }" &&
	test_eq "$(tail -n +2 "$RUN/raw/load-clock.tsv" | wc -l)" 10 &&
	test_grep "^host_key=SHA256:" "$ENV" &&
	test_kv "$ENV" source_address "$LOAD_ADDR"
'
test_expect 'the start: no test began before the second asked for' '
	start=$(sed -n "s/^start_at=//p" "$ENV") && began=$(sed -n "s/^login_start_wall_ns=//p" "$ENV") &&
	test_grep "^start_late_ms=[0-9]" "$ENV" &&
	awk -v s="$start" -v b="$began" "BEGIN { exit !(b / 1e9 >= s) }" ||
	{ echo "login began at $began ns, before $start s"; false; }
'
# undeclared_keys ENV: the keys of the load.env ENV that docs/data.md
# does not declare.
undeclared_keys () {
	awk "/^### data\\/load.env\$/ { on = 1 } on && /^\`\`\`keys\$/ { getline; print; exit }" "$KIT_DIR/docs/data.md" | tr " " "\n" | sort >declared.txt &&
	{ [ -s declared.txt ] || { echo "docs/data.md declares no key of data/load.env"; return 1; }; } &&
	cut -d= -f1 "$1" | sort -u | comm -23 - declared.txt
}
test_expect 'data/load.env holds only keys docs/data.md declares' '
	test_eq "$(undeclared_keys "$ENV")" ""
'

# held_here ADDR...: "established cats" on the target now: the
# established connections to the test port from each ADDR, one count
# each, and the test user's cat processes (one per open session).
held_here () {
	local a
	for a in "$@"; do
		ss -tnH state established "( sport = :$TEST_PORT )" | awk -v a="$a" "\$4 ~ \"^\" a \":\" { n++ } END { printf \"%d \", n }"
	done
	pgrep -u "$TEST_USER" -x cat | wc -l
}
# watch_held FILE PID...: while any PID runs (at most 120 s), the most
# sessions the target held at once, as held_here counts them, into FILE.
watch_held () {
	local file=$1 deadline=$(( $(date +%s) + 120 )) now best=-1 sum
	shift
	: >"$file"
	while kill -0 "$@" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do
		now=$(held_here "$LOAD_ADDR" "$LOAD_ADDR2")
		sum=$(printf "%s\n" "$now" | awk "{ print \$1 + \$2 + \$3 }")
		[ "$sum" -le "$best" ] || { best=$sum; printf "%s\n" "$now" >"$file"; }
		sleep 0.2
	done
}

test_expect 'burst and concurrent from two load hosts at one start, the burst released then by the target'"'"'s clock' '
	from=$(( $(log_lines) + 1 )) &&
	start=$(( $(date +%s) + 8 )) &&
	printf "%s\n" "$start" >"$TEST_TMP/burst-start" &&
	pids="" &&
	for h in 1 2; do
		ns=$NS && [ "$h" = 1 ] || ns=$NS2
		{ load_on "$ns" "host$h" "$TEST_TMP/results-host$h" CONCURRENT_SESSIONS="$SESSIONS" DURATION="$HOLD_S" -- \
			--target "$SERVER_ADDR:$TEST_PORT" --key "$TEST_TMP/key" --user "$TEST_USER" --start-at "$start" \
			--burst-clients "$BURST_CLIENTS" burst concurrent; echo "$?" >"$TEST_TMP/host$h.rc"; } &
		pids="$pids $!"
	done &&
	watch_held "$TEST_TMP/held" $pids &&
	wait $pids &&
	server_log_from "$from" >"$TEST_TMP/burst.log" &&
	for h in 1 2; do
		cat "$TEST_TMP/host$h.out" "$TEST_TMP/host$h.err" &&
		test_eq "$(cat "$TEST_TMP/host$h.rc")" 0 &&
		run=$(tail -n 1 "$TEST_TMP/host$h.out") && [ -d "$run" ] &&
		printf "%s\n" "$run" >"$TEST_TMP/host$h.run" &&
		test_kv "$run/data/load.env" status ok &&
		test_kv "$run/data/load.env" burst_status ok &&
		test_kv "$run/data/load.env" concurrent_status ok || return 1
	done
'

# The two load hosts' run folders.
# shellcheck disable=SC2034 # read in the test bodies (test_expect evaluates them)
RUN1=$(cat "$TEST_TMP/host1.run" 2>/dev/null || echo "$TEST_TMP/no-run")
# shellcheck disable=SC2034 # read in the test bodies
RUN2=$(cat "$TEST_TMP/host2.run" 2>/dev/null || echo "$TEST_TMP/no-run")

test_expect 'burst: each host'"'"'s clients all in its table, classified from sshd'"'"'s log as the burst test does' '
	for run in "$RUN1" "$RUN2"; do
		test_kv "$run/data/load.env" burst_clients "$BURST_CLIENTS" &&
		test_kv "$run/data/load.env" burst_ready "$BURST_CLIENTS" &&
		test_eq "$(tail -n +2 "$run/raw/burst-load.tsv" | wc -l)" "$BURST_CLIENTS" &&
		(. "$KIT_DIR/lib/data.sh" && . "$KIT_DIR/lib/metrics/burst.sh" &&
			burst_classify "$run/raw/burst-load.tsv" "$TEST_TMP/burst.log" "$TEST_PORT" class) &&
		test_kv class.env log yes &&
		test_kv class.env pending 0 &&
		test_kv class.env ok "$(sed -n "s/^burst_ok=//p" "$run/data/load.env")" &&
		test_kv class.env refused "$(sed -n "s/^burst_refused=//p" "$run/data/load.env")" &&
		test_kv class.env disagree 0 || return 1
	done
'
test_expect 'burst: the logins sshd logged from each load host'"'"'s address are the ones its load.env counts' '
	for h in 1 2; do
		run=$RUN1 addr=$LOAD_ADDR && [ "$h" = 1 ] || run=$RUN2 addr=$LOAD_ADDR2
		(. "$KIT_DIR/lib/data.sh" && tsv_select "$run/raw/burst-load.tsv" local_port) >ports.txt &&
		awk -v a="$addr" "NR == FNR { p[\$1] = 1; next } /Accepted publickey for / && \$0 ~ \" from \" a \" port \" {
			for (i = 1; i < NF; i++) if (\$i == \"port\" && (\$(i + 1) in p)) n++ } END { print n + 0 }" ports.txt "$TEST_TMP/burst.log" >accepted.txt &&
		test_eq "$(cat accepted.txt)" "$(sed -n "s/^burst_ok=//p" "$run/data/load.env")" &&
		test_eq "$(cat accepted.txt)" "$BURST_CLIENTS" || return 1
	done
'
test_expect 'burst: each host'"'"'s release spread, clock offset and release by the target'"'"'s clock recorded' '
	start=$(cat "$TEST_TMP/burst-start") &&
	for run in "$RUN1" "$RUN2"; do
		env=$run/data/load.env &&
		spread=$(sed -n "s/^burst_release_spread_ms=//p" "$env") &&
		off=$(sed -n "s/^clock_offset_ms=//p" "$env") &&
		late=$(sed -n "s/^burst_release_late_ms=//p" "$env") &&
		echo "$(sed -n "s/^load_host=//p" "$env"): release spread $spread ms, clock offset $off ms, clients ready in $(sed -n "s/^burst_ready_ms=//p" "$env") ms, release $late ms after the start" &&
		awk -v s="$spread" "BEGIN { exit !(s ~ /^[0-9]+(\.[0-9]+)?\$/) }" &&
		test_grep -E "^burst_spread_wide=(yes|no)\$" "$env" &&
		test_kv "$env" burst_spread_goal_ms 5 &&
		wide=$(awk -v s="$spread" "BEGIN { print (s > 5) ? \"yes\" : \"no\" }") &&
		test_kv "$env" burst_spread_wide "$wide" &&
		offset_ns=$(awk -v o="$off" "BEGIN { printf \"%.0f\", o * 1e6 }") &&
		test_kv "$env" burst_release_at_wall_ns "$((start * 1000000000 - offset_ns))" &&
		released=$(sed -n "s/^burst_release_wall_ns=//p" "$env") &&
		[ "$released" -ge "$((start * 1000000000 - offset_ns))" ] &&
		test_kv "$env" burst_release_target_wall_ns "$((released + offset_ns))" &&
		test_kv "$env" start_late_ms "$late" || return 1
	done &&
	r1=$(sed -n "s/^burst_release_target_wall_ns=//p" "$RUN1/data/load.env") &&
	r2=$(sed -n "s/^burst_release_target_wall_ns=//p" "$RUN2/data/load.env") &&
	apart=$(( r1 > r2 ? r1 - r2 : r2 - r1 )) &&
	echo "the two hosts released $((apart / 1000)) us apart by the target'"'"'s clock" &&
	late1=$(sed -n "s/^burst_release_late_ms=//p" "$RUN1/data/load.env") &&
	late2=$(sed -n "s/^burst_release_late_ms=//p" "$RUN2/data/load.env") &&
	if awk -v a="$late1" -v b="$late2" "BEGIN { exit !(a < 50 && b < 50) }"; then
		[ "$apart" -lt 100000000 ] || { echo "both released on time, yet $apart ns apart"; false; }
	else
		echo "a host released late (its clients were not ready by the start): no common release to compare"
	fi
'
test_expect 'concurrent: the target held every session of both load hosts at once (its connections, its cat processes)' '
	echo "held at once (from $LOAD_ADDR, from $LOAD_ADDR2, cat processes): $(cat "$TEST_TMP/held")" &&
	test_eq "$(cat "$TEST_TMP/held")" "$SESSIONS $SESSIONS $((2 * SESSIONS))"
'
test_expect 'concurrent: each load host found every session alive, held as long as asked, and closed them all' '
	for run in "$RUN1" "$RUN2"; do
		env=$run/data/load.env &&
		test_kv "$env" concurrent_sessions "$SESSIONS" &&
		test_kv "$env" concurrent_opened "$SESSIONS" &&
		test_kv "$env" concurrent_alive "$SESSIONS" &&
		test_kv "$env" concurrent_dead 0 &&
		test_kv "$env" concurrent_held_s "$HOLD_S" &&
		test_kv "$env" concurrent_clients_left 0 &&
		test_kv "$env" concurrent_children_left 0 &&
		opened=$(sed -n "s/^concurrent_open_wall_ns=//p" "$env") &&
		checked=$(sed -n "s/^concurrent_check_wall_ns=//p" "$env") &&
		{ [ "$((checked - opened))" -ge "$((HOLD_S * 1000000000))" ] ||
			{ echo "$run: the sessions were held $((checked - opened)) ns, not $HOLD_S s"; false; }; } &&
		test_eq "$(tail -n +2 "$run/raw/concurrent-sessions.tsv" | wc -l)" "$SESSIONS" || return 1
	done &&
	test_eq "$(pgrep -u "$TEST_USER" -x cat | wc -l)" 0
'
test_expect 'every login of the two load hosts in sshd'"'"'s log: the clock'"'"'s, the burst'"'"'s and the sessions'"'"'' '
	for h in 1 2; do
		run=$RUN1 addr=$LOAD_ADDR && [ "$h" = 1 ] || run=$RUN2 addr=$LOAD_ADDR2
		test_eq "$(grep -c "Accepted publickey for $TEST_USER from $addr port " "$TEST_TMP/burst.log")" "$((1 + BURST_CLIENTS + SESSIONS))" || return 1
	done
'
test_expect 'burst and concurrent: the load hosts'"'"' load.env hold only keys docs/data.md declares' '
	for run in "$RUN1" "$RUN2"; do
		test_eq "$(undeclared_keys "$run/data/load.env")" "" || return 1
	done
'

test_expect 'cleanup leaves the host as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup &&
	host_unchanged && no_kit_processes && [ ! -d "$STATE_DIR" ]
'
test_expect 'the test removes its namespaces: the host'"'"'s network as before the test' '
	ip netns del "$NS2" && { ip link del "$DEV2" 2>/dev/null || :; } &&
	load_host_gone "$NS" "$DEV"
'

test_done
