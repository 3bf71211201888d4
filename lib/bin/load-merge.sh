#!/usr/bin/env bash
# load-merge.sh WATCH_RUN
# The load run's merge on the target (issue 47, docs/load-hosts.md): the
# target's watch (lib/bin/load-watch.sh, WATCH_RUN/data/watch.env) and
# each load host's run folder (lib/bin/load.sh), copied into
# WATCH_RUN/hosts/NAME/, put together: per load host its logins by its
# own count and by sshd's log, its clock offset, its burst release by the
# target's clock and its burst classified from sshd's log
# (burst_classify); over all hosts the logins/s of their closed loops in
# their common window, the login times of every host's samples (one
# sshperf-summary over the merged table), sshd's CPU per login and its
# share of the target's CPUs, measured. A load host the play could not
# run (unreachable, or its connection lost mid-run) has no run folder but
# hosts/NAME/failed.env (reason=, task=, address=): it gets a NOT_RUN row
# and is left out of every merged figure, and the report is partial.
# Called by `test-ssh.sh --load-merge`. Writes WATCH_RUN/data/load-merge.env,
# WATCH_RUN/raw/load-merge-*.tsv (docs/data.md) and the report
# WATCH_RUN/load-report.md (lib/report/load.sh) with its HTML twin, and
# prints the report's path. Needs no root and no test server.
set -eu
PROG=${SSHPERF_PROG:-test-ssh.sh --load-merge}
unset SSHPERF_PROG
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
# shellcheck source=lib/common.sh
. "$KIT_DIR/lib/common.sh"
# shellcheck source=lib/measure.sh
. "$KIT_DIR/lib/measure.sh"
# shellcheck source=lib/burstclass.sh
. "$KIT_DIR/lib/burstclass.sh"
# shellcheck source=lib/report/units.sh
. "$KIT_DIR/lib/report/units.sh"
# shellcheck source=lib/report/load.sh
. "$KIT_DIR/lib/report/load.sh"

# Two hosts' burst releases by the target's clock further apart than
# this (ms) did not meet at the target as one burst: the burst test's
# goal for a release spread (lib/metrics/burst.sh, BURST_SPREAD_GOAL_MS).
LOAD_RELEASES_GOAL_MS=5
# The columns of raw/load-merge-hosts.tsv, raw/load-merge-rate-logins.tsv
# and raw/load-merge-login-samples.tsv (docs/data.md).
MERGE_HOSTS_COLUMNS="host address status tests clock_offset_ms clock_uncertainty_ms logins_ok logins_accepted rate_logins_per_s rate_login_p50 rate_login_p95 burst_clients burst_ok burst_refused burst_penalty burst_release_target_wall_ns burst_release_apart_ms burst_release_spread_ms concurrent_alive start_target_wall_ns end_target_wall_ns"
MERGE_RATE_COLUMNS="host end_target_wall_ns login_ms status"
MERGE_LOGIN_COLUMNS="host total_ms status"

usage () {
	cat <<EOF
usage: $PROG WATCH_RUN

Puts a load run together on the target: WATCH_RUN is the run folder that
test-ssh.sh --load-watch wrote while the load hosts ran, with each load
host's run folder (test-ssh.sh --load) copied into WATCH_RUN/hosts/NAME/
(NAME: the load host's name or address). Writes WATCH_RUN/load-report.md
and its HTML twin, data/load-merge.env and raw/load-merge-*.tsv, and
prints the report's path. Needs no root and no test server.

Exit status: 0 every load host's run and the watch were ok, 1 the report
is partial (a host or the watch was not ok, or a host did not run and
holds only failed.env: the report says which), 2 bad input (nothing
written).
EOF
}

# merge_set KEY VALUE: one key of data/load-merge.env.
merge_set () {
	kv_set "$MERGE_ENV" "$1" "$2"
}

# host_get NAME KEY: a key of load host NAME's data/load.env.
host_get () {
	kv_get "$WATCH_RUN/hosts/$1/data/load.env" "$2"
}

# failed_get NAME KEY: a key of failed.env, the play's word on load host
# NAME that did not run, on one line.
failed_get () {
	local v
	v=$(kv_get "$WATCH_RUN/hosts/$1/failed.env" "$2")
	v=${v//$'\t'/ }
	printf '%s\n' "${v//$'\r'/}"
}

# host_target_ns NAME WALL_NS: a wall clock time of load host NAME on the
# target's clock (plus its clock offset); "-" when there is none.
host_target_ns () {
	case $2 in '' | - | *[!0-9]*) printf -- '-\n'; return 0 ;; esac
	awk -v w="$2" -v o="$(host_get "$1" clock_offset_ms)" 'BEGIN { printf "%.0f\n", w + (o == "" || o == "-" ? 0 : o) * 1e6 }'
}

# host_address NAME: the address load host NAME's connections came from,
# as the target saw them: its burst clients' own (raw/burst-load.tsv
# local_addr), else the one its load mode routed from (source_address of
# its data/load.env), else NAME when it is an address; "-" when none tells.
host_address () {
	local a="" tsv="$WATCH_RUN/hosts/$1/raw/burst-load.tsv"
	[ ! -s "$tsv" ] || a=$(tsv_select "$tsv" local_addr 2>/dev/null | grep -v '^-$' | head -n 1) || a=""
	if [ -z "$a" ] && [ -f "$WATCH_RUN/hosts/$1/data/load.env" ]; then
		a=$(host_get "$1" source_address)
		[ "$a" != - ] || a=""
	fi
	if [ -z "$a" ] && { [[ $1 =~ ^[0-9]+(\.[0-9]+){3}$ ]] || [[ $1 =~ ^[0-9a-fA-F:]+:[0-9a-fA-F:]*$ ]]; }; then a=$1; fi
	printf '%s\n' "${a:--}"
}

# ---- Input: refused before anything is written ---------------------------------

case ${1:-} in -h | --help) usage; exit 0 ;; esac
[ "$#" -eq 1 ] || die "--load-merge takes one folder, the watch's run folder: $PROG WATCH_RUN"
WATCH_RUN=${1%/}
[ "$(kv_get "$WATCH_RUN/data/watch.env" mode 2>/dev/null)" = watch ] ||
	die "$WATCH_RUN is not a watch's run folder (no data/watch.env of test-ssh.sh --load-watch)"
# ALL_HOSTS: every folder of hosts/, in order; HOSTS those that ran (a
# run folder of the load mode), FAILED those the play could not run
# (failed.env only).
ALL_HOSTS=() HOSTS=() FAILED=()
for d in "$WATCH_RUN"/hosts/*/; do
	[ -d "$d" ] || continue
	name=$(basename "$d")
	[[ $name =~ ^[A-Za-z0-9][A-Za-z0-9._:-]*$ ]] ||
		die "$WATCH_RUN/hosts/$name: a load host's folder is named by its host name or address"
	ALL_HOSTS+=("$name")
	if [ "$(kv_get "$d/data/load.env" mode 2>/dev/null)" = load ]; then
		HOSTS+=("$name")
	elif [ -f "$d/failed.env" ]; then
		FAILED+=("$name")
	else
		die "$WATCH_RUN/hosts/$name is not a load host's run folder (no data/load.env of test-ssh.sh --load, nor the play's failed.env); copy the folder its run printed"
	fi
done
[ "${#ALL_HOSTS[@]}" -gt 0 ] ||
	die "$WATCH_RUN/hosts/ holds no load host's run folder; copy each load host's run folder into $WATCH_RUN/hosts/NAME/"
{ [ -w "$WATCH_RUN" ] && [ -w "$WATCH_RUN/data" ] && [ -d "$WATCH_RUN/raw" ] && [ -w "$WATCH_RUN/raw" ]; } ||
	die "$WATCH_RUN is not writable; copy it and merge the copy: cp -R $WATCH_RUN /tmp/ && $PROG /tmp/$(basename "$WATCH_RUN")"
ensure_helpers

# ---- The merge ------------------------------------------------------------------

WATCH_ENV="$WATCH_RUN/data/watch.env"
MERGE_ENV="$WATCH_RUN/data/load-merge.env"
RAW="$WATCH_RUN/raw"
LOG="$RAW/watch-server.log"
HOSTS_TSV="$RAW/load-merge-hosts.tsv"
RATE_TSV="$RAW/load-merge-rate-logins.tsv"
LOGIN_TSV="$RAW/load-merge-login-samples.tsv"
: >"$MERGE_ENV"
tsv_header "$MERGE_RATE_COLUMNS" >"$RATE_TSV"
tsv_header "$MERGE_LOGIN_COLUMNS" >"$LOGIN_TSV"
port=$(kv_get "$WATCH_ENV" port)
status=ok reasons=""
[ "$(kv_get "$WATCH_ENV" status)" = ok ] || { status=partial reasons="the watch: $(kv_get "$WATCH_ENV" status) $(kv_get "$WATCH_ENV" reason)"; }

declare -A ROW=()
rows="" release_min=""
for h in "${ALL_HOSTS[@]}"; do
	dir="$WATCH_RUN/hosts/$h"
	ROW=([host]=$h)
	if [ ! -f "$dir/data/load.env" ]; then
		# It did not run: its address, NOT_RUN and no figure. Its
		# reason stays in its failed.env, which the report quotes.
		ROW[address]=$(failed_get "$h" address)
		[ -n "${ROW[address]}" ] || ROW[address]=$(host_address "$h")
		ROW[status]=NOT_RUN
		status=partial reasons="$reasons${reasons:+; }$h: NOT_RUN"
		row=""
		for c in $MERGE_HOSTS_COLUMNS; do row="$row${row:+$'\t'}${ROW[$c]:--}"; done
		rows="$rows$row"$'\n'
		continue
	fi
	ROW[address]=$(host_address "$h")
	ROW[status]=$(host_get "$h" status)
	ROW[tests]=$(host_get "$h" tests)
	[ "${ROW[status]}" = ok ] || { status=partial reasons="$reasons${reasons:+; }$h: ${ROW[status]:-no status} $(host_get "$h" reason)"; }
	for k in clock_offset_ms clock_uncertainty_ms rate_logins_per_s rate_login_p50 rate_login_p95 burst_clients burst_release_spread_ms concurrent_alive; do
		ROW[$k]=$(host_get "$h" "$k")
	done
	# Its logins by its own count: the clock's session, and each test's.
	n=0
	[ "$(host_get "$h" clock_status)" != ok ] || n=1
	for k in login_ok rate_ok burst_ok concurrent_opened; do
		v=$(host_get "$h" "$k")
		[[ $v =~ ^[0-9]+$ ]] || v=0
		n=$((n + v))
	done
	ROW[logins_ok]=$n
	# By sshd's log of the window, from its address.
	ROW[logins_accepted]=$(tsv_select "$RAW/watch-sources.tsv" address accepted 2>/dev/null |
		while IFS=$'\t' read -r a n; do [ "$a" != "${ROW[address]}" ] || printf '%s\n' "$n"; done)
	# Its burst, each client classified from sshd's log as the burst test
	# does.
	if [ -s "$dir/raw/burst-load.tsv" ]; then
		burst_classify "$dir/raw/burst-load.tsv" "$LOG" "$port" "$RAW/load-merge-$h-burst-class"
		ROW[burst_ok]=$(kv_get "$RAW/load-merge-$h-burst-class.env" ok)
		ROW[burst_refused]=$(kv_get "$RAW/load-merge-$h-burst-class.env" refused)
		ROW[burst_penalty]=$(kv_get "$RAW/load-merge-$h-burst-class.env" penalty)
	fi
	ROW[burst_release_target_wall_ns]=$(host_get "$h" burst_release_target_wall_ns)
	# The earliest release, in ns (bash's 64-bit integers hold them).
	case ${ROW[burst_release_target_wall_ns]} in
	'' | - | *[!0-9]*) ;;
	*) [ -n "$release_min" ] && [ "${ROW[burst_release_target_wall_ns]}" -ge "$release_min" ] ||
		release_min=${ROW[burst_release_target_wall_ns]} ;;
	esac
	# Its first test's start and its last test's end, by the target's clock.
	first="" last=""
	for t in ${ROW[tests]}; do
		v=$(host_get "$h" "${t}_start_wall_ns")
		[ -n "$v" ] && { [ -z "$first" ] || [ "$v" -lt "$first" ]; } && first=$v
		v=$(host_get "$h" "${t}_end_wall_ns")
		[ -n "$v" ] && { [ -z "$last" ] || [ "$v" -gt "$last" ]; } && last=$v
	done
	ROW[start_target_wall_ns]=$(host_target_ns "$h" "$first")
	ROW[end_target_wall_ns]=$(host_target_ns "$h" "$last")
	# Every login of its closed loop and of its login test, into the
	# merged tables (the rate logins' ends by the target's clock).
	if [ -s "$dir/raw/rate-logins.tsv" ]; then
		tsv_select "$dir/raw/rate-logins.tsv" end_ms login_ms status |
			awk -F'\t' -v h="$h" -v s="$(host_target_ns "$h" "$(host_get "$h" rate_start_wall_ns)")" \
				'{ printf "%s\t%s\t%s\t%s\n", h, (s == "-" ? "-" : sprintf("%.0f", s + $1 * 1e6)), $2, $3 }' >>"$RATE_TSV"
	fi
	[ ! -s "$dir/raw/login-samples.tsv" ] ||
		tsv_select "$dir/raw/login-samples.tsv" total_ms status | sed "s/^/$h\t/" >>"$LOGIN_TSV"
	row=""
	for c in $MERGE_HOSTS_COLUMNS; do row="$row${row:+$'\t'}${ROW[$c]:--}"; done
	rows="$rows$row"$'\n'
done

# The burst releases side by side: each one's distance from the earliest.
{
	tsv_header "$MERGE_HOSTS_COLUMNS"
	printf '%s' "$rows" | awk -F'\t' -v OFS='\t' -v cols="$MERGE_HOSTS_COLUMNS" -v min="$release_min" '
		BEGIN { n = split(cols, c, " "); for (i = 1; i <= n; i++) if (c[i] == "burst_release_target_wall_ns") r = i; else if (c[i] == "burst_release_apart_ms") d = i }
		{ if ($r != "-" && min != "") $d = sprintf("%.3f", ($r - min) / 1e6); print }'
} >"$HOSTS_TSV"

merge_set status "$status"
[ -z "$reasons" ] || merge_set reason "$reasons"
merge_set hosts "${ALL_HOSTS[*]}"
merge_set hosts_n "${#ALL_HOSTS[@]}"
merge_set hosts_failed "${FAILED[*]}"
merge_set hosts_failed_n "${#FAILED[@]}"
for k in cores window_start_wall_ns window_end_wall_ns window_s sshd_cpu_ms sshd_cpu_pct machine_busy_pct logins_accepted \
	drops_maxstartups drops_other drops_ratelimited rest_pss_kb peak_sessions peak_pss_kb per_session_kb max_startups \
	startups_max startups_mean startups_p50; do
	v=$(kv_get "$WATCH_ENV" "$k")
	merge_set "$k" "${v:--}"
done

# The figures over all hosts that ran (not the NOT_RUN rows), from the
# hosts' table, the merged logins and the watch's samples; "-" when none
# ran.
tsv_select "$HOSTS_TSV" status logins_ok logins_accepted start_target_wall_ns end_target_wall_ns burst_release_apart_ms burst_ok burst_refused concurrent_alive |
	awk -F'\t' -v ws="$(kv_get "$WATCH_ENV" window_start_wall_ns)" -v we="$(kv_get "$WATCH_ENV" window_end_wall_ns)" \
		-v goal="$LOAD_RELEASES_GOAL_MS" '
	function n0(x) { return x ~ /^[0-9]+$/ ? x : 0 }
	$1 == "NOT_RUN" { next }
	{
		ran++
		ok += n0($2); acc += n0($3); if ($2 != $3) disagree++
		if ($4 != "-" && (s == "" || $4 + 0 < s)) s = $4 + 0
		if ($5 != "-" && (e == "" || $5 + 0 > e)) e = $5 + 0
		if ($6 != "-") { bh++; if ($6 + 0 > apart) apart = $6 + 0 }
		bok += n0($7); bref += n0($8); alive += n0($9)
	}
	END {
		if (ran > 0) printf "logins_ok=%d\nlogins_hosts_accepted=%d\nlogins_agree=%s\n", ok, acc, disagree ? "no" : "yes"
		else printf "logins_ok=-\nlogins_hosts_accepted=-\nlogins_agree=-\n"
		printf "load_start_target_wall_ns=%s\nload_end_target_wall_ns=%s\n", s == "" ? "-" : sprintf("%.0f", s), e == "" ? "-" : sprintf("%.0f", e)
		printf "window_covers=%s\n", ran == 0 ? "-" : (s != "" && e != "" && ws != "" && ws + 0 <= s && we + 0 >= e) ? "yes" : "no"
		if (ran > 0) printf "burst_hosts=%d\nburst_ok=%d\nburst_refused=%d\nconcurrent_alive=%d\n", bh, bok, bref, alive
		else printf "burst_hosts=0\nburst_ok=-\nburst_refused=-\nconcurrent_alive=-\n"
		printf "burst_releases_goal_ms=%s\n", goal
		if (bh > 0) printf "burst_releases_apart_ms=%.3f\nburst_releases_wide=%s\n", apart, (bh > 1 && apart > goal) ? "yes" : "no"
		else printf "burst_releases_apart_ms=-\nburst_releases_wide=-\n"
	}' >>"$MERGE_ENV"

# sshd's CPU per login, measured: its CPU over the window over the logins
# its log accepted in it.
awk -v c="$(kv_get "$MERGE_ENV" sshd_cpu_ms)" -v n="$(kv_get "$MERGE_ENV" logins_accepted)" \
	'BEGIN { if (n + 0 > 0 && c != "-") printf "sshd_cpu_ms_per_login=%.2f\n", c / n; else print "sshd_cpu_ms_per_login=-" }' >>"$MERGE_ENV"
# The rest of the machine's CPU per login: what its CPUs did besides sshd
# over the same window (busy less sshd's share), over the same logins.
# systemd, logind and journald work for each session; any other work on
# the machine counts too. Below 0 (the two counters' sampling) is 0.
awk -v b="$(kv_get "$MERGE_ENV" machine_busy_pct)" -v s="$(kv_get "$MERGE_ENV" sshd_cpu_pct)" -v w="$(kv_get "$MERGE_ENV" window_s)" \
	-v c="$(kv_get "$MERGE_ENV" cores)" -v n="$(kv_get "$MERGE_ENV" logins_accepted)" '
	BEGIN {
		if (n + 0 > 0 && b != "-" && s != "-" && w != "-" && c != "-") {
			o = (b - s) / 100 * w * 1000 * c / n
			printf "other_cpu_ms_per_login=%.2f\n", (o > 0 ? o : 0)
		} else print "other_cpu_ms_per_login=-"
	}' >>"$MERGE_ENV"

# The hosts' closed loops in their common window (the latest first login
# start to the earliest last end, by the target's clock): the logins that
# ended in it per second, summed over the hosts, and sshd's share of the
# target's CPUs between the watch's samples around it.
rate_hosts=$(tsv_select "$RATE_TSV" host | sort -u | grep -c . || true)
merge_set rate_hosts "$rate_hosts"
if [ "$rate_hosts" -gt 0 ]; then
	ws="" we=""
	for h in "${HOSTS[@]}"; do
		s=$(host_get "$h" rate_start_wall_ns) e=$(host_get "$h" rate_end_wall_ns)
		[ -n "$s" ] && [ -n "$e" ] || continue
		s=$(host_target_ns "$h" "$s") e=$(host_target_ns "$h" "$e")
		[ -n "$ws" ] && [ "$ws" -ge "$s" ] || ws=$s
		[ -n "$we" ] && [ "$we" -le "$e" ] || we=$e
	done
	merge_set rate_window_start_wall_ns "$ws"
	merge_set rate_window_end_wall_ns "$we"
	merge_set rate_overlap_s "$(awk -v s="$ws" -v e="$we" 'BEGIN { printf "%.3f", (e > s ? (e - s) / 1e9 : 0) }')"
	tsv_select "$RATE_TSV" end_target_wall_ns status |
		awk -F'\t' -v s="$ws" -v e="$we" '$2 == "ok" && $1 != "-" && $1 + 0 >= s && $1 + 0 <= e { n++ }
			END { printf "rate_window_logins=%d\n", n; if (e > s) printf "rate_logins_per_s=%.1f\n", n / ((e - s) / 1e9); else print "rate_logins_per_s=-" }' >>"$MERGE_ENV"
	# sshd's CPU so far: server_cpu_ms, the unit and the test user's slice
	# summed over their rises by the watch (the slice's counter goes with
	# its last session).
	tsv_select "$RAW/watch-samples.tsv" wall_ns server_cpu_ms |
		awk -F'\t' -v s="$ws" -v e="$we" -v cores="$(kv_get "$WATCH_ENV" cores)" '
		# From the last sample at or before the start to the first at
		# or after the end: every login of the loops is inside.
		$1 + 0 <= s { w0 = $1; c0 = $2; n = 1; next }
		w0 != "" && w1 == "" { n++; if ($1 + 0 >= e) { w1 = $1; c1 = $2 } }
		END {
			if (w0 != "" && w1 != "" && cores > 0)
				printf "rate_sshd_cpu_pct=%.1f\nrate_sshd_cpu_s=%.3f\nrate_sshd_cpu_samples=%d\n", 100 * (c1 - c0) / ((w1 - w0) / 1e6 * cores), (w1 - w0) / 1e9, n
			else printf "rate_sshd_cpu_pct=-\nrate_sshd_cpu_s=-\nrate_sshd_cpu_samples=0\n"
		}' >>"$MERGE_ENV"
	helper summary -c login_ms -w status=ok -p rate_login_ "$RATE_TSV" >>"$MERGE_ENV"
fi
[ "$(wc -l <"$LOGIN_TSV")" -le 1 ] || helper summary -c total_ms -w status=ok -p login_total_ "$LOGIN_TSV" >>"$MERGE_ENV"

REPORT="$WATCH_RUN/load-report.md"
report_load_merge "$WATCH_RUN" >"$REPORT.tmp"
mv -f "$REPORT.tmp" "$REPORT"
"$KIT_DIR/lib/bin/report-html.sh" "$REPORT" || warn "the HTML twin of $REPORT could not be written"
printf '%s\n' "$REPORT"
[ "$status" = ok ]
