#!/usr/bin/env bash
# test-ssh.sh: measure the sshd-perf-kit test server and write
# results/<date-time>/report.md with PASS / FAIL against settings.conf.
set -eu

PROG=${SSHPERF_PROG:-test-ssh.sh}
unset SSHPERF_PROG
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
# shellcheck source=lib/common.sh
. "$KIT_DIR/lib/common.sh"
# shellcheck source=lib/server.sh
. "$KIT_DIR/lib/server.sh"
# shellcheck source=lib/pam.sh
. "$KIT_DIR/lib/pam.sh"
# shellcheck source=lib/measure.sh
. "$KIT_DIR/lib/measure.sh"
# shellcheck source=lib/sampler.sh
. "$KIT_DIR/lib/sampler.sh"
# shellcheck source=lib/compare.sh
. "$KIT_DIR/lib/compare.sh"
# shellcheck source=lib/ciphers.sh
. "$KIT_DIR/lib/ciphers.sh"
# shellcheck source=lib/capture.sh
. "$KIT_DIR/lib/capture.sh"
# shellcheck source=lib/rounds.sh
. "$KIT_DIR/lib/rounds.sh"
# shellcheck source=lib/wire.sh
. "$KIT_DIR/lib/wire.sh"
# shellcheck source=lib/wire-load.sh
. "$KIT_DIR/lib/wire-load.sh"
# shellcheck source=lib/rundir.sh
. "$KIT_DIR/lib/rundir.sh"

# The tests this copy of the kit has: one lib/metrics/NAME.sh each.
available_tests () {
	local t
	for t in $METRICS; do
		if [ -f "$KIT_DIR/lib/metrics/$t.sh" ]; then printf '%s ' "$t"; fi
	done
}

usage () {
	cat <<EOF
usage: $PROG [-q] [TEST ...]
       $PROG --report RUN
       $PROG --compare RUN_A RUN_B
       $PROG --fleet DIR [--baseline RUN] [--factor F]
       $PROG --load --target HOST[:PORT] --key FILE [--start-at EPOCH] TEST ...
       $PROG --load-watch --seconds N [--start-at EPOCH]
       $PROG --load-merge WATCH_RUN

Runs the named tests (default: all) against the test server set up by
./start-ssh.sh, and writes RESULTS_DIR/<date-time>/report.md and its
HTML twin report.html (one file: charts and style inline).

Tests: $(available_tests)

  -q   no progress lines; only the report's path at the end.
  --report RUN
       write the report of a stored run again from its data: report.md,
       report.html, charts/ and results.json; prints the two reports'
       paths. Needs no root and no test server.
  the setting REPEAT (1 to 20, default 1)
       that many rounds of the tests, every test once a round; the report gives
       each figure's median of the rounds (rounds/K: each round's data).
  --compare RUN_A RUN_B
       compare two earlier runs (folders RESULTS_DIR/<date-time>): per
       metric A, B, the change in % and whether it is better or worse;
       writes RUN_B/compare-<RUN_A>.md and .html and prints the path
       of the .md. Needs no
       root and no test server. A normal run compares itself with the
       previous run on the same host in its summary.
  --fleet DIR [--baseline RUN] [--factor F]
       the fleet report of DIR (fleet/<date-time> of ansible/fleet.yml,
       one run folder per host): writes DIR/fleet-report.md and
       DIR/fleet.json and prints the report's path; hosts worse than F
       (1.5) times the fleet median stand out; with --baseline every
       host is compared with RUN. Needs no root. docs/fleet.md.
  --load --target HOST[:PORT] --key FILE [--user NAME] [--start-at EPOCH] TEST ...
       on a load host: the client side of each TEST (those --load
       --help lists) against the test server of another machine, with
       the test user's key it made; writes a run folder of its own
       (data/load.env) and prints its path. Never touches a test
       server of this host; needs no root. See $PROG --load --help
       and docs/load-hosts.md.
  --load-watch --seconds N [--start-at EPOCH]
       on the target, while load hosts load its test server: samples
       sshd's CPU, memory, sessions and listener from now until N s
       after the start, and reads sshd's log of that window; writes a
       run folder of its own (data/watch.env) and prints its path.
  --load-merge WATCH_RUN
       the load run's report: WATCH_RUN is the watch's run folder with
       each load host's run folder copied into WATCH_RUN/hosts/NAME/;
       writes WATCH_RUN/load-report.md and data/load-merge.env and
       prints the report's path. Needs no root.

Exit status (the report's verdict):
  0    PASS: every test that ran passed (or was skipped)
  1    FAIL: at least one test failed or could not run (ERROR)
  2    bad input or no test server (run ./start-ssh.sh first); no report
  3    INCONCLUSIVE: nothing failed, but a test could not be decided
       because this machine or the kit's own clients were the limit,
       not sshd; its reason in the report says what to do
  130  interrupted; a partial report was written
EOF
}

# run_probe NAME: runs the probe lib/probes/NAME.sh once per run, as a job
# like a test (run_measure); a later test that uses it reuses its outputs
# (data/probe-NAME.env, raw/probe-NAME-*). True when it measured: its
# status is ok. Otherwise the reason is in data/probe-NAME.env.
run_probe () {
	local name=$1 data="$DATA_DIR/probe-$1.env" rc=0 start
	if [ ! -f "$data" ]; then
		# shellcheck source=/dev/null
		. "$KIT_DIR/lib/probes/$name.sh"
		progress "probe $name: $("about_probe_$name")"
		start=$(date +%s.%N)
		run_measure "probe_$name" || rc=$?
		[ -n "$(kv_get "$data" status)" ] ||
			result_set "probe-$name" reason "it stopped with status $rc before it wrote a result"
		[ -z "$SERVER_LOST" ] || result_set "probe-$name" reason "the test server ended during it"
		if [ "$(kv_get "$data" status)" != ok ] || [ -n "$SERVER_LOST" ]; then
			result_set "probe-$name" status ERROR
		fi
		result_set "probe-$name" seconds "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
	fi
	[ "$(kv_get "$data" status)" = ok ]
}

# run_probes TEST: the probes TEST uses (lib/metrics.tab), each run once.
# False at the first one that failed: TEST is then an ERROR with its reason.
run_probes () {
	local name=$1 p
	for p in ${METRIC_USES[$name]//,/ }; do
		[ "$p" != - ] || continue
		if ! run_probe "$p"; then
			result_status "$name" ERROR "the shared measurement \`$p\` it uses failed: $(kv_get "$DATA_DIR/probe-$p.env" reason)" \
				"Read raw/probe-$p-* for why the shared measurement failed, fix it, and rerun ./test-ssh.sh $name"
			return 1
		fi
	done
}

# Runs one test; its data file says the result and the verdict.
run_test () {
	local name=$1 start rc=0 data summary
	data="$DATA_DIR/$name.env"
	# shellcheck source=/dev/null
	. "$KIT_DIR/lib/metrics/$name.sh"
	progress "$name: $("about_$name")"
	start=$(date +%s.%N)
	if run_probes "$name" && [ -z "$SERVER_LOST" ]; then
		run_measure "measure_$name" || rc=$?
	fi
	# The test user's password is valid only while a test that needs it
	# (lib/metrics.tab) logs in with it; the job locks it again itself,
	# this covers a job that was killed.
	! metric_needs "$name" password || password_lock ||
		warn "locking the password of ${SETTING[TEST_USER]} failed; run: $(password_lock_command)"
	if [ ! -s "$data" ]; then
		result_status "$name" ERROR "the test stopped with status $rc before it wrote a result" \
			"Rerun ./test-ssh.sh $name and read its messages on the console: the test ended before it recorded anything"
	fi
	if [ -n "$SERVER_LOST" ]; then
		result_status "$name" ERROR "the test server (sshd pid $SERVER_LOST) ended during this test; the tests after it were not run. See ./start-ssh.sh status and the server's log, then run ./start-ssh.sh to start it again" \
			"Find why the test server ended (./start-ssh.sh status, its log), start it again with ./start-ssh.sh, and rerun the tests"
	fi
	result_set "$name" seconds "$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')"
	summary=$(result_get "$name" summary)
	progress "$name: ${summary:-$(result_get "$name" reason)} -> $(result_get "$name" status)"
}

# run_measure FUNCTION: runs measure_NAME (or probe_NAME) as a job of its own (a process group,
# stdin /dev/null, without the lock's descriptor), so that this script
# reacts to INT or TERM at once instead of after the helper that runs:
# bash runs a trap only when its foreground command ends, and `wait` is a
# builtin that a trapped signal interrupts. Returns the job's status.
#
# While it runs, the listener WATCH_PID is watched every half second: when
# it ends (killed, crashed), the job is ended at once and SERVER_LOST says
# so, instead of letting every client wait for its own deadline.
MEASURE_PID=""
WATCH_PID=""
SERVER_LOST=""
run_measure () {
	local rc=0 tick done_pid
	set -m
	# The job owns its own cleanup list (lib/atexit.sh), empty at first:
	# what the metric registers with at_exit (closing its master
	# connection, removing its copies, locking the password, starting the
	# server again) runs when the job ends, also through INT or TERM. The
	# script's own list (the run's temporary folder, the lock) is never
	# run in the job.
	( exec 9>&-; at_exit_owner; at_exit_signals
	  "$1" || exit "$?"; exit 0 ) </dev/null &
	MEASURE_PID=$!
	set +m
	while :; do
		sleep 0.5 9>&- &
		tick=$!
		done_pid=""
		wait -n -p done_pid "$MEASURE_PID" "$tick" || rc=$?
		if [ "$done_pid" = "$MEASURE_PID" ]; then
			# SIGKILL: on a busy machine the tick may still be a copy
			# of this shell, not yet sleep. A TERM made bash run the
			# script's EXIT trap in that copy, which removed RUN_TMP
			# (the vanished run folder); at_exit_run now runs nothing
			# outside its owner, and a KILL runs no handler at all.
			kill -KILL "$tick" 2>/dev/null || true
			wait "$tick" 2>/dev/null || true
			break
		fi
		rc=0
		if [ -n "$WATCH_PID" ] && ! pid_running "$WATCH_PID"; then
			SERVER_LOST=$WATCH_PID
			stop_measure
			return 1
		fi
	done
	MEASURE_PID=""
	# The job may have ended from the server's end before a tick saw it
	# (a probe's sample of a server that is gone fails at once): what it
	# wrote then is about a lost server, and the reason says so.
	if [ -n "$WATCH_PID" ] && ! pid_running "$WATCH_PID"; then
		SERVER_LOST=$WATCH_PID
		return 1
	fi
	return "$rc"
}

# True while process $1 exists and is not a zombie. Builtins only, no
# child in the foreground: bash drops a SIGINT that reaches it alone while
# it waits for a foreground child that did not die of it (it takes the
# child to have handled it), so `kill -INT` to this script was lost
# whenever it came while the tick ran sshperf-sampler ps here (a trap on
# INT, a foreground sleep and INT to the shell alone: the trap never
# ran). Ctrl-C at a terminal reaches the child too.
pid_running () {
	local st
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
	st=${st##*) }
	[ "${st%% *}" != Z ]
}

# True while a process of process group $1 runs (zombies aside).
group_alive () {
	helper sampler group "$1" >/dev/null
}

# Ends the running measure job: TERM to its process group (the job's
# at_exit list runs: the startup test starts the server again, the session
# test closes its master connection, sftp removes its files), then KILL
# what is left at the deadline. A signal meanwhile is passed on to the job.
stop_measure () {
	local pgid=$MEASURE_PID deadline
	[ -n "$pgid" ] || return 0
	trap 'kill -TERM -- "-$MEASURE_PID" 2>/dev/null || true' INT TERM
	kill -TERM -- "-$pgid" 2>/dev/null || true
	deadline=$(( $(date +%s) + SETTING[SERVER_START_TIMEOUT] + 20 ))
	while group_alive "$pgid" && [ "$(date +%s)" -lt "$deadline" ]; do
		# In the foreground: a `wait` interrupted inside this TERM
		# handler by the next TERM would end the script.
		sleep 0.1
	done
	kill -KILL -- "-$pgid" 2>/dev/null || true
	wait "$pgid" 2>/dev/null || true
	MEASURE_PID=""
	trap : INT TERM
}

# ---- Every process of the run ends before the run does ---------------------
#
# Every program this run starts carries RUN_MARK in its environment
# (exported below, after the lock): /proc/PID/environ shows it for each
# program exec'd with it, the clients that a killed helper left to init
# included, and never for a forked copy of this shell. At the exit, after
# every other command of the exit list, the run records the marked
# processes (pid and start time), sends each TERM, waits for them, KILLs
# a recorded one still there at the deadline and waits again: when
# test-ssh.sh returns, no process of it is left (a helper's clients, a
# client that outlived its helper). The test server is not one: sshd is
# started with a clean environment (lib/server.sh).
RUN_MARK=""
RUN_END_SECONDS=10

# run_marked: "pid start" of each live process with this run's mark, its
# state and start time from the sampler (the kit's one reader of
# /proc/PID/stat); a zombie is already ended.
# shellcheck disable=SC2317 # run at the exit (end_run_processes)
run_marked () {
	local f pid state start
	local -a pids=()
	# grep and the sampler run without the mark: they are not of them.
	for f in $(env -u SSHPERF_RUN_MARK grep -lzx "SSHPERF_RUN_MARK=$RUN_MARK" /proc/[0-9]*/environ 2>/dev/null); do
		pid=${f#/proc/}
		pids+=("${pid%/environ}")
	done
	[ "${#pids[@]}" -gt 0 ] || return 0
	while IFS=$'\t' read -r pid state start; do
		[ "$state" = Z ] || printf '%s %s\n' "$pid" "$start"
	done < <(env -u SSHPERF_RUN_MARK "$HELPER_DIR/sshperf-sampler" ps "${pids[@]}" 2>/dev/null | tsv_select - pid state start)
}

# end_run_processes: the exit's last step (above).
# shellcheck disable=SC2317 # run at the exit (at_exit)
end_run_processes () {
	local -A rec=()
	local pid st deadline sig=TERM round left
	[ -n "$RUN_MARK" ] || return 0
	for round in 1 2; do
		deadline=$(( $(date +%s) + RUN_END_SECONDS / 2 ))
		while :; do
			left=0
			while read -r pid st; do
				[ -n "$pid" ] || continue
				left=$((left + 1))
				if [ -z "${rec[$pid]:-}" ]; then
					rec[$pid]=$st
					kill "-$sig" "$pid" 2>/dev/null || true
				fi
			done < <(run_marked)
			if [ "$left" -eq 0 ] || [ "$(date +%s)" -ge "$deadline" ]; then break; fi
			sleep 0.1
		done
		[ "$left" -gt 0 ] || return 0
		# The recorded ones left, by pid, the same process (start time).
		sig=KILL
		while read -r pid st; do
			[ "${rec[$pid]:-}" != "$st" ] || kill -KILL "$pid" 2>/dev/null || true
		done < <(run_marked)
		rec=()
	done
	left=$(run_marked)
	warn "$(printf '%s\n' "$left" | grep -c .) process(es) of this run still running $RUN_END_SECONDS s after its end, pids: $(printf '%s\n' "$left" | cut -d' ' -f1 | paste -sd' ' -)"
}

# --compare A B: the comparison report of two runs.
compare_runs () {
	local a=${1%/} b=${2%/} out d
	for d in "$a" "$b"; do
		[ -f "$d/data/run.env" ] ||
			die "$d is not a run folder of the kit (no data/run.env); give two folders RESULTS_DIR/<date-time>"
	done
	out="$b/compare-$(basename "$a").md"
	# The decisions as data beside the words (docs/data.md, compare-RUN.tsv).
	compare_report "$a" "$b" "${out%.md}.tsv.tmp" >"$out.tmp" 2>/dev/null ||
		{ rm -f "$out.tmp" "${out%.md}.tsv.tmp"; die "cannot write $out; is $b writable?"; }
	mv -f "${out%.md}.tsv.tmp" "${out%.md}.tsv"
	mv -f "$out.tmp" "$out"
	"$KIT_DIR/lib/bin/report-html.sh" "$out" || true
	printf '%s\n' "$out"
}

# --report RUN: the reports of a stored run written again from its data
# (after a change of the kit, or to get report.html for an older run).
render_again () {
	local run=${1%/}
	[ -f "$run/data/run.env" ] ||
		die "$run is not a run folder of the kit (no data/run.env); give a folder RESULTS_DIR/<date-time>"
	{ [ -w "$run" ] && [ -w "$run/data" ]; } ||
		die "$run is not writable; copy the run folder and render the copy: cp -R $run /tmp/ && $PROG --report /tmp/$(basename "$run")"
	"$KIT_DIR/lib/bin/render.sh" "$run" "$(previous_run "$run")" ||
		die "writing the report of $run failed"
	printf '%s\n' "$run/report.md" "$run/report.html"
}

# repeat_finish: after the rounds of a repeated run, the run's data/ and
# raw/ again, with each test's median of the rounds (lib/rounds.sh).
repeat_finish () {
	[ "${ROUNDS:-1}" -gt 1 ] || return 0
	DATA_DIR="$RUN_DIR/data"
	RAW_DIR="$RUN_DIR/raw"
	export DATA_DIR RAW_DIR
	# shellcheck disable=SC2086 # a list of test names
	repeat_combine $selected
}

QUIET=""
while [ "$#" -gt 0 ]; do
	case $1 in
	-q) QUIET=1 ;;
	--report)
		[ "$#" -eq 2 ] || die "--report takes one run folder: $PROG --report RUN"
		render_again "$2"
		exit 0
		;;
	--compare)
		[ "$#" -eq 3 ] || die "--compare takes two run folders: $PROG --compare RUN_A RUN_B"
		compare_runs "$2" "$3"
		exit 0
		;;
	--fleet)
		# Messages name the command as it was called: test-ssh.sh --fleet,
		# or sshd-perf-kit fleet (which hands over to here).
		shift
		case $PROG in *" fleet") ;; *) PROG="$PROG --fleet" ;; esac
		PROG=$PROG exec "$KIT_DIR/lib/bin/fleet.sh" "$@"
		;;
	--load)
		# The load mode is a program of its own: it shares the run
		# folder and the helpers, not the test server's checks. Its
		# messages name the command as it was called (sshd-perf-kit
		# load hands over to here).
		shift
		case $PROG in *" load") ;; *) PROG="$PROG --load" ;; esac
		SSHPERF_PROG=$PROG exec "$KIT_DIR/lib/bin/load.sh" "$@"
		;;
	--load-watch | --load-merge)
		# The target's side of a load run (docs/load-hosts.md):
		# programs of their own, as the load mode is.
		w=${1#--load-}
		shift
		case $PROG in *" load-$w") ;; *) PROG="$PROG --load-$w" ;; esac
		SSHPERF_PROG=$PROG exec "$KIT_DIR/lib/bin/load-$w.sh" "$@"
		;;
	-h | --help) usage; exit 0 ;;
	--version) print_version; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1; see $PROG --help" ;;
	*) break ;;
	esac
	shift
done

need_root "$@"
ensure_helpers
load_settings
find_server_tools

avail=" $(available_tests)"
for t in "$@"; do
	case $avail in
	*" $t "*) ;;
	*) die "unknown test '$t'; valid tests: $(available_tests)" ;;
	esac
done
selected=${*:-$(available_tests)}

if [ ! -d "$STATE_DIR" ] || [ -z "$(server_pid)" ]; then
	die "the test server is not running; run ./start-ssh.sh first"
fi
if [ "$(server_get PORT)" != "${SETTING[TEST_PORT]}" ] || [ "$(server_get USER)" != "${SETTING[TEST_USER]}" ]; then
	die "the test server runs with TEST_PORT=$(server_get PORT) TEST_USER=$(server_get USER), not the current settings; run ./start-ssh.sh to apply them"
fi
# A test whose settings can be wrong in a way only the test server shows
# (lib/metrics.tab: needs precheck) checks them here, before anything
# runs: precheck_NAME prints one line and fails when they cannot work.
needs_password=""
for t in $selected; do
	! metric_needs "$t" password || needs_password=yes
	metric_needs "$t" precheck || continue
	# shellcheck source=/dev/null
	. "$KIT_DIR/lib/metrics/$t.sh"
	problem=$("precheck_$t") || die "$problem"
done
# Distances (NETWORK_RTT_MS above 0) need the test hosts start made.
! wire_wanted || wire_precheck
at_exit_owner
# The last step of the exit: every process this run started has ended.
at_exit end_run_processes
take_lock
RUN_MARK="$$.$(date +%s%N)"
export SSHPERF_RUN_MARK="$RUN_MARK"

# Every temporary file of the run (FIFOs, local copies, barrier folders)
# lives in one private folder, removed at the end whatever happened: a
# test ended by a signal or a lost server leaves nothing in /tmp. One
# left by a run killed with SIGKILL (no trap runs then) is removed here:
# with this instance's lock held, no other run can own one of its name
# (another instance's runs have names of their own, lib/names.sh).
find "${TMPDIR:-/tmp}" -mindepth 1 -maxdepth 1 -type d -name "$RUN_TMP_NAME.*" -user 0 \
	-exec rm -rf {} + 2>/dev/null || true
RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/$RUN_TMP_NAME.XXXXXX") ||
	die "cannot create a temporary folder in ${TMPDIR:-/tmp}; free space there or set TMPDIR to a writable folder"
[ -z "$needs_password" ] || at_exit password_lock
# A distance's wire never outlives the run (also on a signal).
! wire_wanted || at_exit wire_clear_current
at_exit rm -rf -- "$RUN_TMP"
# Locked whatever an earlier run killed with SIGKILL left, when a test
# of the kit sets the password at all.
for t in $METRICS; do
	metric_needs "$t" password || continue
	password_lock || warn "locking the password of ${SETTING[TEST_USER]} failed; run: $(password_lock_command)"
	break
done
export TMPDIR="$RUN_TMP"

RUN_DIR=$(make_run_dir)
RAW_DIR="$RUN_DIR/raw"
DATA_DIR="$RUN_DIR/data"
export RUN_DIR RAW_DIR DATA_DIR

{
	printf 'started=%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	printf 'started_local=%s\n' "$(date '+%Y-%m-%d %H:%M:%S %Z')"
	printf 'tests=%s\n' "$selected"
	printf 'all_tests=%s\n' "$([ "$#" -eq 0 ] && echo yes || echo no)"
	printf 'kit_dir=%s\n' "$KIT_DIR"
} >"$DATA_DIR/run.env"
# Which kit made the run, and every setting used in it.
run_provenance "$DATA_DIR/run.env"

# An interrupted run still gets its report, with the test marked.
current=""
# shellcheck disable=SC2317 # run by the trap below
on_interrupt () {
	trap : INT TERM
	# Runs to the end whatever fails on the way (a helper it waits for may
	# itself die of the signal).
	set +e
	stop_measure
	wire_clear_current
	# The server runs afterwards: a test that stopped it had no time to
	# start it again.
	if [ -z "$(server_pid)" ]; then
		server_start >/dev/null || warn "the test server could not be started again; run ./start-ssh.sh"
	fi
	[ -z "$current" ] || { result_set "$current" status INTERRUPTED; result_set "$current" reason "interrupted by a signal"; }
	printf 'interrupted=yes\n' >>"$RUN_DIR/data/run.env"
	repeat_finish
	"$KIT_DIR/lib/bin/render.sh" "$RUN_DIR" "$(previous_run "$RUN_DIR" 2>/dev/null)" >/dev/null 2>&1 || true
	warn "interrupted; partial report: $RUN_DIR/report.md"
	exit 130
}
trap on_interrupt INT TERM

"$KIT_DIR/lib/bin/environment.sh" >"$DATA_DIR/environment.env" 2>"$RAW_DIR/environment-errors.txt" || true
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# Whether other work keeps the machine busy: its CPU time over one quiet
# second before the first test (the load average, kept for the record,
# still carries minutes of earlier work and says nothing about now).
cpu_before=$(machine_cpu_jiffies)
sleep 1
read -r cpu_busy_before cpu_steal_before <<<"$(machine_busy_between "$cpu_before" "$(machine_cpu_jiffies)")"
# Now, so that an interrupted run keeps it too.
printf 'cpu_busy_before_pct=%s\ncpu_steal_before_pct=%s\n' "$cpu_busy_before" "$cpu_steal_before" >>"$DATA_DIR/run.env"
# A test server that ended stops the run: the test it happened in is an
# ERROR that says so, the rest are marked as not run. With REPEAT=N the
# selected tests run N rounds, each test once a round (round 1 of every
# test, then round 2, ...), each round in rounds/K (lib/rounds.sh); the
# run's data/ then gets each test's median of the rounds.
ROUNDS=${SETTING[REPEAT]}
round=1
lost=""
while [ "$round" -le "$ROUNDS" ] && [ -z "$lost" ]; do
	if [ "$ROUNDS" -gt 1 ]; then
		dir=$(repeat_round_dir "$round") || die "cannot create $RUN_DIR/rounds/$round (file system full?)"
		DATA_DIR="$dir/data"
		RAW_DIR="$dir/raw"
		export DATA_DIR RAW_DIR
		progress "round $round of $ROUNDS"
	fi
	for t in $selected; do
		WATCH_PID=$(server_pid)
		if [ -z "$WATCH_PID" ]; then
			printf 'not_run_reason=%s\n' "the test server was not running any more when \`$t\` was due" >>"$RUN_DIR/data/run.env"
			warn "the test server is not running any more; $t and the tests after it were not run"
			lost=yes
			break
		fi
		# A test that stops and starts the server on purpose (lib/metrics.tab:
		# needs restarts-server) is not watched.
		! metric_needs "$t" restarts-server || WATCH_PID=""
		current=$t
		run_test "$t"
		if [ -n "$SERVER_LOST" ]; then
			printf 'not_run_reason=%s\n' "the test server ended during \`$t\`" >>"$RUN_DIR/data/run.env"
			warn "the test server (sshd pid $SERVER_LOST) ended during $t; the tests after it were not run"
			lost=yes
			break
		fi
	done
	round=$((round + 1))
done
repeat_finish
current=""
# The distances, after every test at 0 (lib/wire.sh).
if wire_wanted && [ -z "$lost" ]; then
	wire_run_distances
fi
{
	printf 'finished=%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	printf 'load_before=%s\n' "$load_before"
	printf 'load_after=%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$DATA_DIR/run.env"

"$KIT_DIR/lib/bin/render.sh" "$RUN_DIR" "$(previous_run "$RUN_DIR")" || die "writing the report failed"
verdict=$(kv_get "$DATA_DIR/verdict.env" verdict)
progress "verdict: $verdict"
printf '%s\n' "$RUN_DIR/report.md"
# The verdict as the exit status (usage above): 0 PASS, 1 FAIL, 3 INCONCLUSIVE.
case $verdict in
FAIL) rc=1 ;;
INCONCLUSIVE) rc=3 ;;
*) rc=0 ;;
esac
exit "$rc"
