# shellcheck shell=bash
# Many sessions held open while the test does something else (concurrent,
# memory, reload): build/sshperf-hold in the background, driven through a
# FIFO on its stdin ("check", "close"), its key=value output in a file.
# Also the memory of the test server and of one of its sessions, from the
# sampler. Needs lib/common.sh, lib/server.sh, lib/measure.sh and a test
# run ($RAW_DIR, settings, $SSH, $CLIENT_CONFIG).

# Loaded once: test-ssh.sh may have loaded it already.
# shellcheck source=lib/sampler.sh
declare -F sample_server >/dev/null || . "$KIT_DIR/lib/sampler.sh"

HOLD_PID=""
HOLD_CTL=""
HOLD_DIR=""
HOLD_OUT=""

# hold_start NAME SESSIONS PARALLEL: starts opening SESSIONS sessions, each
# `ssh sshperf-test cat`, at most PARALLEL logging in at a time; none more
# once NO_ANSWER_STOP logins in a row got no answer (hold_get not_started).
# Files:
# raw/NAME-hold.txt (the holder's output), raw/NAME-sessions.tsv (one row
# per session), raw/NAME-ssh-errors.txt (each failed session's ssh
# messages), raw/NAME-hold-errors.txt (the holder's own).
hold_start () {
	local name=$1 sessions=$2 parallel=$3
	HOLD_OUT="$RAW_DIR/$name-hold.txt"
	HOLD_DIR=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-hold.XXXXXX") || return 1
	mkfifo -m 0600 "$HOLD_DIR/ctl" || return 1
	: >"$HOLD_OUT"
	"$HELPER_DIR/sshperf-hold" -i -n "$sessions" -P "$parallel" \
		-t "$((SETTING[LOGIN_TIMEOUT] * 1000))" -g "$NO_ANSWER_STOP" \
		-o "$RAW_DIR/$name-sessions.tsv" -e "$RAW_DIR/$name-ssh-errors.txt" \
		-- "$SSH" -F "$CLIENT_CONFIG" "$HOST_ALIAS" cat \
		<"$HOLD_DIR/ctl" >"$HOLD_OUT" 2>"$RAW_DIR/$name-hold-errors.txt" &
	HOLD_PID=$!
	# Opening the writer lets the holder's open of the FIFO return.
	exec {HOLD_CTL}>"$HOLD_DIR/ctl"
}

# hold_wait STATE SECONDS: waits until the holder printed state=STATE
# (open, checked, closed). False when it ended or the time ran out first.
hold_wait () {
	local want=$1 end
	end=$(( $(date +%s) + $2 ))
	while ! grep -qx "state=$want" "$HOLD_OUT"; do
		if ! kill -0 "$HOLD_PID" 2>/dev/null; then
			grep -qx "state=$want" "$HOLD_OUT"
			return
		fi
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.05
	done
}

# The longest the opening may take: every round of PARALLEL logins can
# use up LOGIN_TIMEOUT, plus a margin.
hold_open_seconds () {
	local rounds=$(( ($1 + $2 - 1) / $2 ))
	printf '%s\n' $(( rounds * SETTING[LOGIN_TIMEOUT] + 30 ))
}

# hold_get KEY: the holder's last value of KEY.
hold_get () {
	kv_get "$HOLD_OUT" "$1"
}

# "; ..." for a reason when the holder stopped opening sessions because
# the logins got no answer; nothing otherwise.
hold_stopped_note () {
	local n
	[ -s "$HOLD_OUT" ] || return 0
	n=$(hold_get not_started)
	[ "${n:-0}" -eq 0 ] ||
		printf '; the holder stopped after %s logins in a row got no answer within %ss, %s sessions were not started' \
			"$NO_ANSWER_STOP" "${SETTING[LOGIN_TIMEOUT]}" "$n"
}

# hold_check: every open session must send its own line back.
hold_check () {
	printf 'check\n' >&"$HOLD_CTL" || return 1
	hold_wait checked $(( SETTING[LOGIN_TIMEOUT] + 30 ))
}

# hold_end: closes every session and waits for the holder to end; the
# holder itself kills what does not end. Returns the holder's status.
hold_end () {
	local rc=0
	[ -n "$HOLD_PID" ] || return 0
	if [ -n "$HOLD_CTL" ]; then
		{ printf 'close\n' >&"$HOLD_CTL"; } 2>/dev/null || true
		exec {HOLD_CTL}>&-
		HOLD_CTL=""
	fi
	# The holder's own deadlines: 10 s for EOF, 2 s after SIGTERM.
	if ! hold_wait closed 30; then
		warn "the session holder (pid $HOLD_PID) did not finish; ending it"
		end_pids 5 "$HOLD_PID"
	fi
	wait "$HOLD_PID" || rc=$?
	HOLD_PID=""
	rm -rf "$HOLD_DIR"
	return "$rc"
}

# hold_clients_left TSV: the session clients (pids in the holder's TSV)
# still running $SSH; there must be none after hold_end.
hold_clients_left () {
	local pid
	tsv_select "$1" pid | awk '$1 > 0' | while read -r pid; do
		[ "$(readlink "/proc/$pid/exe" 2>/dev/null)" != "$SSH" ] || printf '%s\n' "$pid"
	done
	return 0
}

# server_memory PREFIX: PSS and RSS (kB) and the number of processes of the
# test server and everything its sessions run, as PREFIXpss_kb=... lines;
# the same split by whose they are: PREFIXlistener_*, PREFIXmanager_* (the
# test user's systemd --user manager, user@UID.service) and PREFIXother_*.
server_memory () {
	local out
	# shellcheck disable=SC2119 # no -P: the summed key=value sample
	out=$(sample_server) || return 1
	printf '%s\n' "$out" |
		sed -n "s/^\(\(listener_\|manager_\|other_\)\?\(pss_kb\|rss_kb\|processes\)\)=/$1\1=/p"
}

# server_memory_rows: one TSV row per process of the test server and its
# sessions, with its role (listener, manager, other).
server_memory_rows () {
	sample_server -P
}

# The per-connection processes of the listener (one per session when
# nothing else is connecting).
session_roots () {
	local pid
	pid=$(server_pid)
	[ -n "$pid" ] || return 0
	cat "/proc/$pid/task/"*/children 2>/dev/null | tr ' ' '\n' | sed '/^$/d'
}

# session_memory PREFIX PID: PSS and RSS of one session's server-side
# processes (PID, one of session_roots, and below it: its sshd processes
# and its cat).
session_memory () {
	local out
	out=$(helper sampler -p "$2" once) || return 1
	printf '%s\n' "$out" | sed -n "s/^\(pss_kb\|rss_kb\|processes\)=/$1\1=/p"
}

# session_memory_rows PID: one TSV row per process of that session.
session_memory_rows () {
	helper sampler -P -p "$1" once
}
