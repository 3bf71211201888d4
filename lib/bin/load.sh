#!/usr/bin/env bash
# load.sh --target HOST[:PORT] --key FILE [--user NAME] [--start-at EPOCH]
#         [--burst-clients N] [-q] TEST...
# The load mode (issue 47, docs/load-hosts.md): on a load host, the
# client side of the kit's tests against the test server of another
# machine, the target, with the test user's key the target made. Called
# by `test-ssh.sh --load`. It measures the target's clock against this
# host's, waits for the common start, runs the tests' drivers
# (lib/load/NAME.sh) one after another and writes a run folder of its
# own: raw/ (the drivers' tables), data/load.env (docs/data.md). It
# never starts, configures or reads a test server of this host, takes no
# lock of the kit's and needs no root: it only runs ssh clients.
set -eu
PROG=${SSHPERF_PROG:-test-ssh.sh --load}
unset SSHPERF_PROG
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
# shellcheck source=lib/common.sh
. "$KIT_DIR/lib/common.sh"
# shellcheck source=lib/measure.sh
. "$KIT_DIR/lib/measure.sh"
# shellcheck source=lib/rundir.sh
. "$KIT_DIR/lib/rundir.sh"
# shellcheck source=lib/load-client.sh
. "$KIT_DIR/lib/load-client.sh"

# The tests a load host can drive, and those of them this kit has
# drivers for (lib/load/NAME.sh).
LOAD_TESTS="login rate burst concurrent"
# A start this many seconds past is still taken (the play that starts the
# load hosts takes a moment to reach each); an earlier one is refused.
LOAD_START_LATE_S=5
# A start further ahead than this is refused: a typing error, not a plan.
LOAD_START_AHEAD_S=3600
# The most clients of a burst: sshperf-burst's own cap.
LOAD_BURST_MAX=2000

usage () {
	cat <<EOF
usage: $PROG --target HOST[:PORT] --key FILE [--user NAME]
           [--start-at EPOCH_SECONDS] [--burst-clients N] [-q] TEST ...

Runs the client side of the tests on this machine, a load host, against
the test server of the target HOST (port PORT, default TEST_PORT), as
the test user NAME (default TEST_USER) with the private key FILE that
the target's start-ssh.sh made (its state folder's client/id_*). The
target must let this host in (LISTEN_ADDRESS, LOAD_HOSTS:
docs/load-hosts.md). Writes RESULTS_DIR/<date-time>/ with raw/ and
data/load.env and prints its path last.

Tests: $(load_drivers)

  --start-at EPOCH_SECONDS
       begin the first test when this host's clock reads that second
       (date +%s), so that several load hosts start together; at most
       $LOAD_START_LATE_S s past and $LOAD_START_AHEAD_S s ahead. Without it, at once. When
       burst is the first test, its release is that moment by the
       target's clock (this host's corrected by the measured offset).
  --burst-clients N
       the clients burst releases at once from this host, 1 to $LOAD_BURST_MAX
       (default: the last step of BURST_STEPS).
  -q   no progress lines; only the run folder's path at the end.

The target's clock is read through one ssh session before the tests: its
offset from this host's clock, with its uncertainty, is in data/load.env.

Exit status: 0 every test ran and every login succeeded, 1 a login
failed or a test could not run (data/load.env says which), 2 bad input
(nothing was run and no folder made), 130 interrupted.
EOF
}

# load_source_address HOST: the address this host's connections to HOST
# leave from, as the kernel routes them (ip route get); "-" when HOST does
# not resolve or no route names one. sshd's log on the target names this
# host's logins by it (lib/bin/load-merge.sh).
load_source_address () {
	local a
	a=$(getent ahosts "$1" 2>/dev/null | awk 'NR == 1 { print $1 }')
	[ -n "$a" ] && ip -o route get "$a" 2>/dev/null | sed -n 's/.* src \([^ ]*\).*/\1/p' | head -n 1 | grep . || echo -
}

# load_drivers: the tests with a driver here, in LOAD_TESTS' order.
load_drivers () {
	local t out=""
	for t in $LOAD_TESTS; do
		[ ! -f "$KIT_DIR/lib/load/$t.sh" ] || out="$out${out:+ }$t"
	done
	printf '%s\n' "$out"
}

# load_set KEY VALUE: one key of data/load.env (the last value wins).
load_set () {
	kv_set "$LOAD_ENV" "$1" "$2"
}

# load_test NAME: runs the driver of test NAME and records its status:
# ok (every login succeeded), FAIL (some did not, or none ran), ERROR (the
# driver did not run), with the wall clock at its start and end.
load_test () {
	local name=$1 ok failed left
	# shellcheck source=/dev/null
	. "$KIT_DIR/lib/load/$name.sh"
	progress "$name: $("about_load_$name")"
	load_set "${name}_start_wall_ns" "$(date +%s%N)"
	if ! "load_$name" "$CLIENT_CONFIG_LOAD"; then
		load_set "${name}_end_wall_ns" "$(date +%s%N)"
		load_set "${name}_status" ERROR
		load_set "${name}_reason" "its driver did not run: $(cat "$RAW_DIR/$name"-*errors.txt 2>/dev/null | tr -d '\r' | grep . | tail -n 1)"
		progress "$name: -> ERROR"
		return 0
	fi
	load_set "${name}_end_wall_ns" "$(date +%s%N)"
	ok=$(kv_get "$LOAD_ENV" "${name}_ok")
	failed=$(kv_get "$LOAD_ENV" "${name}_failed")
	left=$(kv_get "$LOAD_ENV" "${name}_not_run")
	if [ "${failed:-0}" -eq 0 ] && [ "${ok:-0}" -gt 0 ] && [ "${left:-0}" -eq 0 ]; then
		load_set "${name}_status" ok
	else
		load_set "${name}_status" FAIL
		load_set "${name}_reason" "${failed:-0} logins failed, ${ok:-0} succeeded${left:+, $left not run} (raw/$name-*)"
	fi
	progress "$name: ${ok:-0} logins ok, ${failed:-0} failed -> $(kv_get "$LOAD_ENV" "${name}_status")"
}

# ---- Input: refused before anything happens ---------------------------------

QUIET=""
TARGET="" KEY="" USER_NAME="" START_AT="" BURST_CLIENTS=""
while [ "$#" -gt 0 ]; do
	case $1 in
	--target | --key | --user | --start-at | --burst-clients)
		{ [ "$#" -ge 2 ] && [ -n "$2" ]; } || die "$1 needs a value; see $PROG --help"
		case $1 in
		--target) TARGET=$2 ;;
		--key) KEY=$2 ;;
		--user) USER_NAME=$2 ;;
		--start-at) START_AT=$2 ;;
		--burst-clients) BURST_CLIENTS=$2 ;;
		esac
		shift ;;
	-q) QUIET=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1; see $PROG --help" ;;
	*) break ;;
	esac
	shift
done

[ -n "$TARGET" ] || die "no target: give the target's test server as --target HOST[:PORT]"
[ -n "$KEY" ] || die "no key: give the test user's private key from the target as --key FILE"
[ "$#" -gt 0 ] || die "no test named; give one or more of: $(load_drivers)"
for t in "$@"; do
	case " $LOAD_TESTS " in
	*" $t "*) [ -f "$KIT_DIR/lib/load/$t.sh" ] ||
		die "the test '$t' has no load mode yet; this kit drives: $(load_drivers)" ;;
	*) die "the test '$t' cannot be driven from a load host; give one or more of: $(load_drivers)" ;;
	esac
done
if [ -n "$BURST_CLIENTS" ]; then
	{ [[ $BURST_CLIENTS =~ ^[1-9][0-9]{0,5}$ ]] && [ "$BURST_CLIENTS" -le "$LOAD_BURST_MAX" ]; } ||
		die "--burst-clients $BURST_CLIENTS is not a number of clients from 1 to $LOAD_BURST_MAX"
fi
ensure_helpers
load_settings
[ -n "$USER_NAME" ] || USER_NAME=${SETTING[TEST_USER]}
# The burst's clients: as given, or the burst test's last step.
LOAD_BURST_CLIENTS=${BURST_CLIENTS:-${SETTING[BURST_STEPS]##* }}
[ "$LOAD_BURST_CLIENTS" -le "$LOAD_BURST_MAX" ] ||
	die "BURST_STEPS' last step, $LOAD_BURST_CLIENTS clients, is more than a burst can release ($LOAD_BURST_MAX); give --burst-clients N"
[[ $USER_NAME =~ ^[a-z_][a-z0-9_.-]*$ ]] || die "--user $USER_NAME is not a user name"
load_parse_target "$TARGET" "${SETTING[TEST_PORT]}" || die "--target $TARGET: $LOAD_TARGET_PROBLEM; give HOST, HOST:PORT or [IPV6]:PORT"
# The client: the system's, or the build of OPENSSH_PREFIX (its bin/).
SSH=${SETTING[OPENSSH_PREFIX]:+${SETTING[OPENSSH_PREFIX]%/}/bin/ssh}
SSH_KEYGEN=${SETTING[OPENSSH_PREFIX]:+${SETTING[OPENSSH_PREFIX]%/}/bin/ssh-keygen}
SSH=${SSH:-$(program ssh)} SSH_KEYGEN=${SSH_KEYGEN:-$(program ssh-keygen)}
# The build's prefix, as find_tools sets it: the client configuration's
# system part comes from there (client_include).
OPENSSH_BUILD_PREFIX=${SETTING[OPENSSH_PREFIX]}
{ [ -x "$SSH" ] && [ -x "$SSH_KEYGEN" ]; } ||
	die "ssh or ssh-keygen not found${SETTING[OPENSSH_PREFIX]:+ in OPENSSH_PREFIX=${SETTING[OPENSSH_PREFIX]}}; install them: dnf install openssh-clients (Debian: apt-get install openssh-client)"
case $KEY in *'"'* | *$'\n'*) die "--key $KEY: a file name with a quote or a newline cannot go into ssh's configuration; copy the key to a plain name" ;; esac
# Absolute: the client configuration names it wherever ssh runs from.
if abs=$(readlink -f -- "$KEY" 2>/dev/null); then KEY=$abs; fi
problem=$(load_key_problem "$KEY")
[ -z "$problem" ] || die "--key $KEY: $problem; give the private key the target made (its state folder's client/id_*), without a passphrase and readable by this user only"
if [ -n "$START_AT" ]; then
	[[ $START_AT =~ ^[1-9][0-9]{0,11}$ ]] || die "--start-at $START_AT is not a time in whole seconds since the epoch (date +%s)"
	now=$(date +%s)
	[ "$START_AT" -ge $((now - LOAD_START_LATE_S)) ] ||
		die "--start-at $START_AT is $((now - START_AT)) s in the past (at most $LOAD_START_LATE_S s is taken); give a time ahead, e.g. --start-at \$((\$(date +%s) + 60))"
	[ "$START_AT" -le $((now + LOAD_START_AHEAD_S)) ] ||
		die "--start-at $START_AT is $((START_AT - now)) s ahead, more than $LOAD_START_AHEAD_S s; give a time within the hour"
fi

# ---- The run ----------------------------------------------------------------

at_exit_owner
RUN_TMP=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-load.XXXXXX") ||
	die "cannot create a temporary folder in ${TMPDIR:-/tmp}; free space there or set TMPDIR to a writable folder"
at_exit rm -rf -- "$RUN_TMP"
export TMPDIR="$RUN_TMP"
RUN_DIR=$(make_run_dir)
RAW_DIR="$RUN_DIR/raw"
DATA_DIR="$RUN_DIR/data"
LOAD_ENV="$DATA_DIR/load.env"
export RUN_DIR RAW_DIR DATA_DIR
CLIENT_CONFIG_LOAD="$RAW_DIR/load-ssh_config"
KNOWN_HOSTS_LOAD="$RAW_DIR/load-known_hosts"
: >"$KNOWN_HOSTS_LOAD"
load_client_config "$CLIENT_CONFIG_LOAD" "$KNOWN_HOSTS_LOAD" "$KEY" "$USER_NAME"

load_set mode load
load_set started "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
load_set load_host "$(uname -n)"
load_set target "$LOAD_HOST:$LOAD_PORT"
load_set target_host "$LOAD_HOST"
load_set target_port "$LOAD_PORT"
load_set source_address "$(load_source_address "$LOAD_HOST")"
load_set user "$USER_NAME"
load_set key "$KEY"
load_set key_fingerprint "$("$SSH_KEYGEN" -l -f "$KEY" 2>/dev/null | cut -d' ' -f2)"
load_set tests "$*"
load_set start_at "${START_AT:--}"
load_set openssh_client "$(openssh_build "$SSH")"
run_provenance "$LOAD_ENV"

# An interrupt ends the run with what it has: the test that ran is marked.
current=""
# shellcheck disable=SC2317 # run by the trap below
on_interrupt () {
	trap : INT TERM
	[ -z "$current" ] || { load_set "${current}_status" INTERRUPTED; load_set "${current}_reason" "interrupted by a signal"; }
	load_set status INTERRUPTED
	warn "interrupted; the run so far: $RUN_DIR"
	exit 130
}
trap on_interrupt INT TERM

# The clock offset, and the first contact: the target's host key is
# learned here and checked by every login after it.
progress "clock: the target's clock through one ssh session ($LOAD_CLOCK_SAMPLES exchanges)"
if load_clock_offset "$CLIENT_CONFIG_LOAD" "$RAW_DIR/load-clock.tsv" >"$RAW_DIR/load-clock.env"; then
	load_set clock_status ok
	sed 's/^/clock_/' "$RAW_DIR/load-clock.env" >>"$LOAD_ENV"
	load_set host_key "$("$SSH_KEYGEN" -l -f "$KNOWN_HOSTS_LOAD" 2>/dev/null | head -n 1 | cut -d' ' -f2,4)"
	progress "clock: the target is $(kv_get "$LOAD_ENV" clock_offset_ms) ms ahead of this host (+/- $(kv_get "$LOAD_ENV" clock_uncertainty_ms) ms)"
else
	load_set clock_status ERROR
	# ssh's own last word says why (refused, denied, no route); the
	# helper's line only when ssh said nothing. ssh ends its lines with
	# a carriage return.
	said=$(tr -d '\r' <"$RAW_DIR/load-clock-errors.txt" | grep -v '^sshperf-offset: ' | grep . | tail -n 1)
	[ -n "$said" ] || said=$(tr -d '\r' <"$RAW_DIR/load-clock-errors.txt" | grep . | tail -n 1)
	load_set clock_reason "the target did not answer: $said"
	load_set status ERROR
	load_set reason "the target's test server could not be reached as $USER_NAME with the key: $(kv_get "$LOAD_ENV" clock_reason)"
	for t in "$@"; do load_set "${t}_status" NOT_RUN; done
	load_set finished "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	warn "$(kv_get "$LOAD_ENV" reason); no test was run (raw/load-clock-errors.txt)"
	printf '%s\n' "$RUN_DIR"
	exit 1
fi

# The common start: this host's clock, the one the offset is measured to.
# A burst that comes first is released at it by the target's clock
# instead: its clients are started at once and wait at their barrier
# until this host's clock, corrected by the offset, reads the start
# (lib/load/burst.sh; issue 47: the hosts' releases must agree within a
# few ms, closer than their clocks may).
LOAD_RELEASE_AT_NS=""
if [ -n "$START_AT" ] && [ "$1" = burst ]; then
	offset_ns=$(awk -v o="$(kv_get "$LOAD_ENV" clock_offset_ms)" 'BEGIN { printf "%.0f", o * 1e6 }')
	LOAD_RELEASE_AT_NS=$((START_AT * 1000000000 - offset_ns))
	progress "the burst is released at the start, $START_AT ($(date -u -d "@$START_AT" +%H:%M:%SZ)) by the target's clock"
elif [ -n "$START_AT" ]; then
	progress "waiting for the start at $START_AT ($(date -u -d "@$START_AT" +%H:%M:%SZ))"
	# Its deadline: the start itself (checked above); sshperf-clock
	# gives up when the clock is set back meanwhile.
	if ! helper clock -u "$START_AT" -m "$((LOAD_START_AHEAD_S + 60))" >"$RAW_DIR/load-start.env" 2>"$RAW_DIR/load-start-errors.txt"; then
		load_set status ERROR
		load_set reason "the wait for the start failed: $(grep . "$RAW_DIR/load-start-errors.txt" | tail -n 1)"
		for t in "$@"; do load_set "${t}_status" NOT_RUN; done
		load_set finished "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		warn "$(kv_get "$LOAD_ENV" reason); no test was run"
		printf '%s\n' "$RUN_DIR"
		exit 1
	fi
	load_set start_late_ms "$(kv_get "$RAW_DIR/load-start.env" late_ms)"
fi

for t in "$@"; do
	current=$t
	load_test "$t"
done
current=""
# A burst released at the start: its lateness is the start's.
late=$(kv_get "$LOAD_ENV" burst_release_late_ms)
[ -z "$LOAD_RELEASE_AT_NS" ] || [ -z "$late" ] || load_set start_late_ms "$late"

status=ok
for t in "$@"; do
	[ "$(kv_get "$LOAD_ENV" "${t}_status")" = ok ] || status=FAIL
done
load_set status "$status"
load_set finished "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
progress "load run: $status"
printf '%s\n' "$RUN_DIR"
[ "$status" = ok ]
