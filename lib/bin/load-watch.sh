#!/usr/bin/env bash
# load-watch.sh --seconds N [--start-at EPOCH] [-q]
# The target's side of a load run (issue 47, docs/load-hosts.md): while
# load hosts load the test server of this machine, it measures the
# server as the kit's tests do, over the load's window, and nothing
# else: sshd's CPU and PSS through the sampler (lib/sampler.sh, as the
# cpu and memory tests take them), the sessions open (established
# connections to the test port), the listener's "N of A-B startups"
# (sshperf-startups, as the rate and burst tests read it) and sshd's log
# of the window (logins and drops per source address). Called by
# `test-ssh.sh --load-watch`. Writes a run folder of its own: raw/watch-*
# and data/watch.env (docs/data.md); lib/bin/load-merge.sh puts it
# together with the load hosts' run folders.
set -eu
PROG=${SSHPERF_PROG:-test-ssh.sh --load-watch}
unset SSHPERF_PROG
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
# shellcheck source=lib/common.sh
. "$KIT_DIR/lib/common.sh"
# shellcheck source=lib/server.sh
. "$KIT_DIR/lib/server.sh"
# shellcheck source=lib/measure.sh
. "$KIT_DIR/lib/measure.sh"
# shellcheck source=lib/sampler.sh
. "$KIT_DIR/lib/sampler.sh"
# shellcheck source=lib/rundir.sh
. "$KIT_DIR/lib/rundir.sh"

# The longest window a watch takes, and the furthest start ahead: those
# of the load mode (lib/bin/load.sh), whose runs it watches.
WATCH_MAX_S=3600
WATCH_START_AHEAD_S=3600
# The server is sampled this often (ms), each sample at its due time from
# the first; the listener's title every WATCH_STARTUPS_MS.
WATCH_SAMPLE_MS=1000
WATCH_STARTUPS_MS=100
# After the window, the sessions still open get this long to end, so
# that their CPU is in the last sample (lib/sampler.sh server_wait_settled).
WATCH_SETTLE_S=10
# A sample that fails while the listener runs is left out (see the
# loop); this many in a row end the watch.
WATCH_MISSED_MAX=10
# The columns of raw/watch-samples.tsv and raw/watch-sources.tsv (docs/data.md).
# The last, server_cpu_ms, is added when the watch ends (watch_server_cpu).
WATCH_SAMPLES_COLUMNS="sample wall_ns mono_ns sshd_cpu_ms session_cpu_ms pss_kb sessions machine_busy_ms machine_total_ms server_cpu_ms"
WATCH_SOURCES_COLUMNS="address accepted drops_maxstartups drops_other"

usage () {
	cat <<EOF
usage: $PROG --seconds N [--start-at EPOCH_SECONDS] [-q]

On the target, while load hosts run \`test-ssh.sh --load\` against its
test server: samples the server from now until N seconds after the
start (EPOCH_SECONDS by this host's clock, the --start-at given to the
load hosts; default now), then until its sessions have ended (at most
$WATCH_SETTLE_S s more). Writes RESULTS_DIR/<date-time>/ with raw/watch-*
and data/watch.env and prints its path last; copy each load host's run
folder into its hosts/NAME/ and run test-ssh.sh --load-merge on it.
Needs root and the running test server.

  --seconds N    the load's window after the start, 1 to $WATCH_MAX_S s; a TERM or
                 INT ends it sooner (when every load host has ended), and
                 the watch still writes its figures
  --start-at EPOCH_SECONDS
                 the start, at most $WATCH_START_AHEAD_S s ahead (date +%s)
  -q             no progress lines

Exit status: 0 measured, 1 the server could not be sampled or ended,
2 bad input or no test server, 130 interrupted after the window.
EOF
}

# watch_set KEY VALUE: one key of data/watch.env.
watch_set () {
	kv_set "$WATCH_ENV" "$1" "$2"
}

# watch_sample K: one row of raw/watch-samples.tsv: the wall clock, the
# sampler's sample of the server (lib/sampler.sh) and the established
# connections to the test port. False when the server could not be
# sampled.
# A row is written whole or not at all: the signal that ends the window
# may end the sampling copy mid-sample, and a row with a gap would count.
watch_sample () {
	local f="$RUN_TMP/sample.env" wall sessions row v
	wall=$(date +%s%N)
	sample_server >"$f" 2>>"$RAW_DIR/watch-errors.txt" || return 1
	sessions=$(ss -tnH state established "( sport = :${SETTING[TEST_PORT]} )" 2>/dev/null | wc -l)
	row="$1"$'\t'"$wall"
	for v in "$(kv_get "$f" mono_ns)" "$(kv_get "$f" cpu_total_ms)" "$(kv_get "$f" session_cpu_ms)" "$(kv_get "$f" pss_kb)" \
		"$sessions" "$(kv_get "$f" machine_busy_ms)" "$(kv_get "$f" machine_total_ms)"; do
		[ -n "$v" ] || return 1
		row="$row"$'\t'"$v"
	done
	[[ $wall =~ ^[0-9]+$ ]] || return 1
	printf '%s\n' "$row" >>"$SAMPLES"
}

# watch_sources LOG: raw/watch-sources.tsv from sshd's log of the window:
# per client address, the logins sshd accepted ("Accepted ... for USER
# from ADDR port P") and the connections its listener dropped ("drop
# connection #N from [ADDR]:P on [...]:PORT REASON"), by MaxStartups or
# for another reason (penalties), as burst_classify (lib/burstclass.sh)
# tells them apart. OpenSSH 10's rate-limited drops name no address:
# their count is data/watch.env's drops_ratelimited.
watch_sources () {
	tsv_header "$WATCH_SOURCES_COLUMNS" >"$RAW_DIR/watch-sources.tsv"
	awk -v user="${SETTING[TEST_USER]}" -v tport="${SETTING[TEST_PORT]}" -v env="$RUN_TMP/sources.env" '
	{
		if ((i = index($0, "Accepted ")) > 0 && index($0, " for " user " from ") > 0) {
			s = substr($0, index($0, " for " user " from ") + length(user) + 11)
			a = substr(s, 1, index(s, " ") - 1); seen[a] = 1; acc[a]++; all++
		} else if ((i = index($0, "drop connection #")) > 0) {
			s = substr($0, i); j = index(s, " from [")
			if (j == 0) next
			s = substr(s, j + 7); a = substr(s, 1, index(s, "]") - 1)
			k = index(s, " on [")
			if (k == 0 || index(substr(s, k), "]:" tport) == 0) next
			seen[a] = 1
			if (tolower(substr(s, k)) ~ /maxstartups/) { ms[a]++; allms++ } else { other[a]++; allother++ }
		} else if ((i = index($0, "logging rate-limited: additional ")) > 0)
			rl += substr($0, i + 33) + 0
	}
	END {
		for (a in seen) printf "%s\t%d\t%d\t%d\n", a, acc[a], ms[a], other[a]
		printf "logins_accepted=%d\ndrops_maxstartups=%d\ndrops_other=%d\ndrops_ratelimited=%d\n", all, allms, allother, rl >env
	}' "$1" | sort >>"$RAW_DIR/watch-sources.tsv"
	cat "$RUN_TMP/sources.env" >>"$WATCH_ENV"
}

# watch_server_cpu: raw/watch-samples.tsv gets the column server_cpu_ms,
# sshd's CPU since the first sample, each counter summed over its rises
# (samples_server_cpu: the test user's slice and its counter go between
# sessions).
watch_server_cpu () {
	samples_server_cpu "$SAMPLES" >"$SAMPLES.tmp" && mv -f "$SAMPLES.tmp" "$SAMPLES"
}

# watch_figures: the window's figures from the first and last rows of
# raw/watch-samples.tsv: sshd's CPU (unit and sessions, as the cpu test
# counts it: server_cpu_ms) and its share of the machine's CPUs; the PSS
# at rest (the first sample) and at the most sessions, and per session
# between them, as the memory test takes it.
watch_figures () {
	tsv_select "$SAMPLES" wall_ns server_cpu_ms pss_kb sessions machine_busy_ms machine_total_ms |
		awk -F'\t' -v cores="$(nproc)" '
		{
			n++; cpu = $2
			if (n == 1) { w0 = $1; c0 = cpu; p0 = $3; b0 = $5; t0 = $6; peak = -1 }
			w1 = $1; c1 = cpu; b1 = $5; t1 = $6
			if ($4 + 0 > peak) { peak = $4 + 0; ppss = $3 }
		}
		END {
			if (n < 2) exit
			secs = (w1 - w0) / 1e9
			printf "samples=%d\nwindow_start_wall_ns=%s\nwindow_end_wall_ns=%s\nwindow_s=%.3f\ncores=%d\n", n, w0, w1, secs, cores
			printf "sshd_cpu_ms=%.1f\n", c1 - c0
			if (secs > 0) printf "sshd_cpu_pct=%.1f\n", 100 * (c1 - c0) / (secs * 1000 * cores)
			if (t1 > t0) printf "machine_busy_pct=%.1f\n", 100 * (b1 - b0) / (t1 - t0)
			printf "rest_pss_kb=%s\npeak_sessions=%d\npeak_pss_kb=%s\n", p0, peak, ppss
			if (peak > 0 && p0 != "-" && ppss != "-") printf "per_session_kb=%.0f\n", (ppss - p0) / peak
		}' >>"$WATCH_ENV"
}

# ---- Input: refused before anything happens ---------------------------------

QUIET=""
SECONDS_ASKED="" START_AT=""
while [ "$#" -gt 0 ]; do
	case $1 in
	--seconds | --start-at)
		{ [ "$#" -ge 2 ] && [ -n "$2" ]; } || die "$1 needs a value; see $PROG --help"
		case $1 in
		--seconds) SECONDS_ASKED=$2 ;;
		--start-at) START_AT=$2 ;;
		esac
		shift ;;
	-q) QUIET=1 ;;
	-h | --help) usage; exit 0 ;;
	*) die "unknown argument $1; see $PROG --help" ;;
	esac
	shift
done
[ -n "$SECONDS_ASKED" ] || die "no window: give the load's seconds after the start as --seconds N"
{ [[ $SECONDS_ASKED =~ ^[1-9][0-9]{0,5}$ ]] && [ "$SECONDS_ASKED" -le "$WATCH_MAX_S" ]; } ||
	die "--seconds $SECONDS_ASKED is not a number of seconds from 1 to $WATCH_MAX_S"
now=$(date +%s)
if [ -n "$START_AT" ]; then
	[[ $START_AT =~ ^[1-9][0-9]{0,11}$ ]] || die "--start-at $START_AT is not a time in whole seconds since the epoch (date +%s)"
	[ "$START_AT" -le $((now + WATCH_START_AHEAD_S)) ] ||
		die "--start-at $START_AT is $((START_AT - now)) s ahead, more than $WATCH_START_AHEAD_S s; give a time within the hour"
	[ $((START_AT + SECONDS_ASKED)) -gt "$now" ] ||
		die "--start-at $START_AT with --seconds $SECONDS_ASKED ended $((now - START_AT - SECONDS_ASKED)) s ago; give the start the load hosts were given"
fi
need_root
ensure_helpers
load_settings
find_server_tools
if [ ! -d "$STATE_DIR" ] || [ -z "$(server_pid)" ]; then
	die "the test server is not running; run ./start-ssh.sh first"
fi
[ -n "$(server_get LISTEN_ADDRESS)" ] ||
	warn "the test server listens on 127.0.0.1 only (no LISTEN_ADDRESS): no load host can reach it"

# ---- The watch --------------------------------------------------------------

at_exit_owner
take_lock
RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/$RUN_TMP_NAME.XXXXXX") ||
	die "cannot create a temporary folder in ${TMPDIR:-/tmp}; free space there or set TMPDIR to a writable folder"
at_exit rm -rf -- "$RUN_TMP"
RUN_DIR=$(make_run_dir)
RAW_DIR="$RUN_DIR/raw"
DATA_DIR="$RUN_DIR/data"
export RUN_DIR RAW_DIR DATA_DIR
WATCH_ENV="$DATA_DIR/watch.env"
SAMPLES="$RAW_DIR/watch-samples.tsv"
tsv_header "${WATCH_SAMPLES_COLUMNS% server_cpu_ms}" >"$SAMPLES"
: >"$RAW_DIR/watch-errors.txt"
END_AT=$(( ${START_AT:-$now} + SECONDS_ASKED ))

watch_set mode watch
watch_set started "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
watch_set target_host "$(uname -n)"
watch_set listen_address "$(server_get LISTEN_ADDRESS)"
watch_set load_sources "$(server_get LOAD_SOURCES)"
watch_set port "${SETTING[TEST_PORT]}"
watch_set user "${SETTING[TEST_USER]}"
watch_set start_at "${START_AT:--}"
watch_set seconds "$SECONDS_ASKED"
watch_set end_at "$END_AT"
watch_set server_mode "$(server_get MODE)"
watch_set openssh_server "$(server_get BUILD)"
watch_set max_startups "$(server_effective maxstartups | head -n 1)"
run_provenance "$WATCH_ENV"

STARTUPS_PID=""
# shellcheck disable=SC2317 # run at the exit and by the trap below
watch_stop_startups () {
	[ -n "$STARTUPS_PID" ] || return 0
	kill -TERM "$STARTUPS_PID" 2>/dev/null || true
	wait "$STARTUPS_PID" 2>/dev/null || true
	STARTUPS_PID=""
}
# shellcheck disable=SC2317 # run by the trap below
on_interrupt () {
	trap : INT TERM
	watch_stop_startups
	watch_set status INTERRUPTED
	watch_set reason "interrupted by a signal"
	warn "interrupted; the watch so far: $RUN_DIR"
	exit 130
}
trap on_interrupt INT TERM

mark=$(server_log_mark)
listener=$(server_pid)
watch_set startups_t0_wall_ns "$(date +%s%N)"
# The program itself in the background (not through the helper
# function, whose copy of this shell TERM would end instead), without
# the lock's descriptor.
"$HELPER_DIR/sshperf-startups" -p "$listener" -i "$WATCH_STARTUPS_MS" -t "$((END_AT - now + WATCH_SETTLE_S + 60))" \
	-o "$RAW_DIR/watch-startups.tsv" >"$RAW_DIR/watch-startups.env" 2>"$RAW_DIR/watch-startups-errors.txt" </dev/null 9>&- &
STARTUPS_PID=$!
at_exit watch_stop_startups
progress "watching the test server (pid $listener) until $(date -u -d "@$END_AT" +%H:%M:%SZ), a sample every $WATCH_SAMPLE_MS ms"

# The samples are taken by a copy of this shell in the background, and
# this one only waits for it: a TERM or INT while it samples ends the
# window there (the play, or a test, ends it when every load host has
# ended): the copy is ended, the sessions settle, a last sample is taken
# and the log read, as at the window's end. The trap runs here, in
# `wait`, never in the copy: bash 5.2 fails ("unexpected EOF while
# looking for matching `)'", exit 2) when a trap runs while it parses a
# command substitution, as the copy does all the time. A row is
# written whole (watch_sample), so a copy ended mid-sample leaves none.
status=ok reason=""
ENDED=window
: >"$RUN_TMP/loop-reason"
# The window's end is END_AT by the wall clock, compared once, at the first sample, and then
# kept on CLOCK_MONOTONIC (the samples' mono_ns): a clock set back or
# forward during the watch neither stretches nor cuts it.
(
	k=1 t0=$EPOCHREALTIME
	t0_us=${t0/./}
	mono_end="" missed=0
	while :; do
		# A sample can fail while the server runs: the sampler asks
		# systemd over D-Bus, and a systemd busy with hundreds of the
		# load's session scopes has timed it out (500 sessions on half
		# a CPU). Such a sample is left out and counted (the counters
		# are cumulative: the next row covers its time); a server that
		# is gone, or WATCH_MISSED_MAX failures in a row, end the watch.
		if ! watch_sample "$k"; then
			missed=$((missed + 1))
			echo "$k" >>"$RUN_TMP/missed"
			if ! is_kit_sshd "$listener"; then
				printf 'the test server (pid %s) ended during the watch: %s\n' "$listener" "$(tail -n 1 "$RAW_DIR/watch-errors.txt")" >"$RUN_TMP/loop-reason"
				exit 1
			fi
			if [ "$missed" -ge "$WATCH_MISSED_MAX" ]; then
				printf 'the test server could not be sampled %d times in a row: %s\n' "$missed" "$(tail -n 1 "$RAW_DIR/watch-errors.txt")" >"$RUN_TMP/loop-reason"
				exit 1
			fi
			# (no sample's clock: the wall clock decides the end)
			[ "$(date +%s)" -lt "$END_AT" ] || exit 0
		else
			missed=0
			mono=$(kv_get "$RUN_TMP/sample.env" mono_ns)
			# The anchor: the row's own wall clock, read just before
			# the sampler read mono (a wall clock read now would be
			# later by the sample's length, and the end with it).
			[ -n "$mono_end" ] || mono_end=$(( mono + END_AT * 1000000000 - $(tsv_select "$SAMPLES" wall_ns | tail -n 1) ))
			[ "$mono" -lt "$mono_end" ] || exit 0
		fi
		# Each sample at its due time from the first: a slow one
		# must not shift the rest.
		now_us=${EPOCHREALTIME/./}
		due_us=$(( t0_us + k * WATCH_SAMPLE_MS * 1000 - now_us ))
		[ "$due_us" -gt 0 ] || due_us=0
		printf -v pause '%d.%06d' "$((due_us / 1000000))" "$((due_us % 1000000))"
		sleep "$pause"
		k=$((k + 1))
	done
) 9>&- &
LOOP_PID=$!
trap 'ENDED=signal; kill -TERM "$LOOP_PID" 2>/dev/null || :' INT TERM
rc=0
wait "$LOOP_PID" || rc=$?
# A wait that the signal cut short: the copy's own end.
while kill -0 "$LOOP_PID" 2>/dev/null; do wait "$LOOP_PID" || :; done
trap on_interrupt INT TERM
if [ "$ENDED" = window ] && [ "$rc" -ne 0 ]; then
	status=ERROR reason=$(cat "$RUN_TMP/loop-reason")
	[ -n "$reason" ] || reason="the sampling ended with status $rc"
fi
k=$(wc -l <"$SAMPLES")
watch_set ended "$ENDED"
if [ "$status" = ok ]; then
	# The sessions still open end first, so that their CPU is counted.
	server_wait_settled "$WATCH_SETTLE_S" 1 ||
		warn "sshd processes of the load still ran ${WATCH_SETTLE_S} s after the window; their CPU after that is not counted"
	k=$((k + 1))
	for try in 1 2 3; do
		watch_sample "$k" && break
		echo "$k" >>"$RUN_TMP/missed"
		if [ "$try" -lt 3 ]; then
			sleep 1
		else
			status=ERROR reason="the test server could not be sampled after the window"
		fi
	done
fi
missed=$(sort -u "$RUN_TMP/missed" 2>/dev/null | grep -c . || :)
watch_set samples_missed "$missed"
[ "$missed" -eq 0 ] ||
	warn "$missed sample(s) of the server failed and were left out (raw/watch-errors.txt); the figures rest on the others"
watch_stop_startups
at_exit_drop
# The listener that was watched, by its pid: a second query of the unit
# (sd-bus) can time out while systemd is busy with hundreds of the
# load's session scopes, which is no end of the server.
is_kit_sshd "$listener" || { status=ERROR reason="the test server (pid $listener) ended during the watch"; }
watch_set end_wall_ns "$(date +%s%N)"
sed 's/^\(startups_\)\{0,1\}/startups_/' "$RAW_DIR/watch-startups.env" >>"$WATCH_ENV"
if [ "$mark" = none ] || ! server_log_since "$mark" >"$RAW_DIR/watch-server.log"; then
	: >"$RAW_DIR/watch-server.log"
	warn "sshd's log of the window could not be read: no logins or drops counted"
fi
watch_sources "$RAW_DIR/watch-server.log"
watch_server_cpu
watch_figures
watch_set status "$status"
[ -z "$reason" ] || watch_set reason "$reason"
watch_set finished "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
progress "watch: sshd $(kv_get "$WATCH_ENV" sshd_cpu_ms) ms CPU ($(kv_get "$WATCH_ENV" sshd_cpu_pct) % of $(kv_get "$WATCH_ENV" cores) CPUs), $(kv_get "$WATCH_ENV" logins_accepted) logins, $(kv_get "$WATCH_ENV" drops_maxstartups) MaxStartups drops -> $status"
printf '%s\n' "$RUN_DIR"
[ "$status" = ok ]
