#!/usr/bin/env bash
# The load mode (issue 47, docs/load-hosts.md): `test-ssh.sh --load` on a
# load host drives the client side of login and rate against the test
# server of a target. The load host is played by a network namespace of
# this test with a veth to the host (198.19.0.0/16, the other half of the
# benchmark block t36, t62 and t63 take theirs from); the target is this
# host's test server, started with LISTEN_ADDRESS and LOAD_HOSTS naming
# the two ends. The key is the one the server's start made, copied, as
# the play will copy it. Checked: bad input exits 2 with one line and the
# host unchanged; a run from the namespace logs in from the load host's
# address alone (sshd's log), writes the tables with the rows asked for,
# all ok, and data/load.env with the clock offset (0 within its
# uncertainty: both ends read one clock), the common start and only keys
# docs/data.md declares; a key the target does not know ends the run
# before any test; the local test server is left as it was.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/procs.sh"

host_kit_test 'load mode'
LOAD_HOST_WHAT='load mode'
. "$TEST_DIR/lib/loadhost.sh"

# This instance's own /24 in 198.19.0.0/16, and its own namespace and
# veth names (spm: load mode; netsnap.sh leaves other instances' out).
N=$(instance_port_offset "$TEST_INSTANCE")
P=198.19.$((N % 200 + 20))
NS=sshperf-loadmode-$TEST_INSTANCE
DEV=spm${N}h
PEER=spm${N}c
SERVER_ADDR=$P.1
LOAD_ADDR=$P.2
# shellcheck disable=SC2034 # read in the test bodies (test_expect evaluates them)
LOAD_SAMPLES=8
RESULTS="$TEST_TMP/load-results"
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

# The load host: the namespace's end of the veth has LOAD_ADDR.
load_host_make "$NS" "$DEV" "$PEER" "$SERVER_ADDR" "$LOAD_ADDR"

host_snapshot_save

# A key of the test's own, which the target has never seen.
ssh-keygen -q -t ed25519 -N '' -C t37-stranger -f "$TEST_TMP/stranger-key" ||
	{ echo "Bail out! ssh-keygen"; exit 1; }

# load [ENV=value...] -- ARGS...: test-ssh.sh --load ARGS in the load
# host's namespace, with a deadline; its stdout in load.out, its stderr
# in load.err; returns its exit status.
load () {
	local -a envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	timeout --kill-after=10 300 ip netns exec "$NS" env RESULTS_DIR="$RESULTS" "${envs[@]}" \
		"$KIT_DIR/test-ssh.sh" --load "$@" >"$TEST_TMP/load.out" 2>"$TEST_TMP/load.err"
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
test_expect 'bad input: a test a load host cannot drive, or not yet' '
	refused "the test '"'"'auth'"'"' cannot be driven from a load host" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" login auth &&
	refused "the test '"'"'burst'"'"' has no load mode yet" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" burst &&
	refused "no test named" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key"
'
test_expect 'bad input: a start in the past or too far ahead, a bad target' '
	refused "s in the past (at most 5 s is taken)" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" --start-at "$(( $(date +%s) - 60 ))" login &&
	refused "s ahead, more than 3600 s" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" --start-at "$(( $(date +%s) + 7200 ))" login &&
	refused "is not a time in whole seconds" --target "$SERVER_ADDR" --key "$TEST_TMP/stranger-key" --start-at soon login &&
	refused "the port \"0\" is not a port number" --target "$SERVER_ADDR:0" --key "$TEST_TMP/stranger-key" login &&
	refused "is neither a host name nor an IP address" --target "-oProxyCommand=x" --key "$TEST_TMP/stranger-key" login
'

export LISTEN_ADDRESS="$SERVER_ADDR" LOAD_HOSTS="$LOAD_ADDR"

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
	test_grep -F "also on $SERVER_ADDR:$TEST_PORT, for $TEST_USER from the load hosts $LOAD_ADDR only" "$TEST_TMP/start.out" &&
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
	test_kv "$run/data/load.env" user "$TEST_USER"
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
	test_grep "^host_key=SHA256:" "$ENV"
'
test_expect 'the start: no test began before the second asked for' '
	start=$(sed -n "s/^start_at=//p" "$ENV") && began=$(sed -n "s/^login_start_wall_ns=//p" "$ENV") &&
	test_grep "^start_late_ms=[0-9]" "$ENV" &&
	awk -v s="$start" -v b="$began" "BEGIN { exit !(b / 1e9 >= s) }" ||
	{ echo "login began at $began ns, before $start s"; false; }
'
test_expect 'data/load.env holds only keys docs/data.md declares' '
	awk "/^### data\\/load.env\$/ { on = 1 } on && /^\`\`\`keys\$/ { getline; print; exit }" "$KIT_DIR/docs/data.md" | tr " " "\n" | sort >declared.txt &&
	[ -s declared.txt ] &&
	cut -d= -f1 "$ENV" | sort -u >set.txt &&
	comm -23 set.txt declared.txt >undeclared.txt &&
	test_eq "$(cat undeclared.txt)" ""
'

test_expect 'cleanup leaves the host as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup &&
	host_unchanged && no_kit_processes && [ ! -d "$STATE_DIR" ]
'
test_expect 'the test removes its namespace: the host'"'"'s network as before the test' '
	load_host_gone "$NS" "$DEV"
'

test_done
