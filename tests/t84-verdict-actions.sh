#!/usr/bin/env bash
# shellcheck disable=SC2034 # DATA_DIR, RAW_DIR are read by lib/measure.sh and lib/metrics/auth.sh
# Every FAIL and INCONCLUSIVE in a report says first what to do (its
# action: accept it and why, change which setting, rerun with which
# option), then what was seen (its reason, with the numbers): in the
# summary row and in the "Why" line of the test's details. The actions are recorded
# where the verdict is made (lib/measure.sh, lib/metrics/*.sh), so this
# renders the stored runs of tests/data/runs and tests/data/fullrun, and
# the case of issue 46: the password gap INCONCLUSIVE because sshd's
# padding put the password logins on two steps, made by the functions of
# lib/metrics/auth.sh on a stored run's keys.
# Needs no root and no test server.
. "$(dirname "$0")/lib/harness.sh"

# The verbs an action starts with: the kit's actions are sentences in
# the imperative.
ACTION_VERBS='Accept|Rerun|Raise|Lower|Use|Make|Find|Read|Look|Check|Fix|Plan|Pack|Log|Keep|Free|Stop|Change|Set|Run'
export ACTION_VERBS

RES="$TEST_TMP/results"
mkdir -p "$RES"
cp -R "$TEST_DIR/data/runs/." "$RES/"
cp -R "$TEST_DIR/data/fullrun/." "$RES/"

# last KEY FILE: the last value of KEY in a key=value file.
last () {
	sed -n "s/^$1=//p" "$2" | tail -n 1
}

# check_actions RUN: prints, for each FAIL or INCONCLUSIVE test of the
# rendered RUN, its summary cell and its section's "Why" line when one
# does not start with an action; false when any does not.
check_actions () {
	local run=$1 f name status cell why bad=0
	for f in "$run"/data/*.env; do
		name=${f##*/} name=${name%.env}
		case $name in environment | run | settings | verdict | probe-*) continue ;; esac
		status=$(last status "$f")
		case $status in FAIL | INCONCLUSIVE) ;; *) continue ;; esac
		cell=$(grep -F "(\`$name\`) |" "$run/report.md" | head -n 1 | sed -n "s/.* \*\*$status\*\*: \(.*\) |\$/\1/p")
		# The Why line is in the test's details (docs/metrics.md, "The
		# report's parts"); the section's body has what to change.
		why=$(awk -v id="<a id=\"details-$name\"></a>" '$0 == id { on = 1; next } on && /^<\/details>/ { exit } on' "$run/report.md" |
			sed -n "s/^\*\*Why $status:\*\* //p" | head -n 1)
		printf '%s\n' "$cell" | grep -qE "^($ACTION_VERBS) " ||
			{ printf '%s: the summary says %s without an action first: "%s"\n' "$name" "$status" "$cell"; bad=1; }
		printf '%s\n' "$why" | grep -qE "^($ACTION_VERBS) " ||
			{ printf '%s: its details say why %s without an action first: "%s"\n' "$name" "$status" "$why"; bad=1; }
	done
	return "$bad"
}

render () {
	"$KIT_DIR/lib/bin/render.sh" "$1" >/dev/null
}

test_expect 'the check finds a reason without an action' '
	cp -R "$RES/2026-03-03_091500" planted &&
	printf "action=\n" >>planted/data/login.env &&
	render planted &&
	! check_actions planted >found &&
	test_grep -F "login: the summary says FAIL without an action first: \"1 of 20 logins failed\"" found &&
	test_grep -F "login: its details say why FAIL without an action first" found
'

test_expect 'every FAIL and INCONCLUSIVE of the stored runs starts with an action' '
	n=0 &&
	for run in "$RES"/*/; do
		run=${run%/} &&
		render "$run" &&
		check_actions "$run" || return 1
		k=$(grep -c "^\*\*Why \(FAIL\|INCONCLUSIVE\):\*\*" "$run/report.md" || true) &&
		n=$((n + k)) || return 1
	done &&
	echo "$n reasons checked" &&
	test "$n" -ge 4
'

test_expect 'the reason follows the action, with its numbers' '
	test_grep -F "**Why FAIL:** Use keys for people and automation, or make password logins faster" "$RES/2026-12-02_131316/report.md" &&
	test_grep -F "(seen: password p95 482.895 ms is above the target of 300 ms; password is 113.8 ms slower than ed25519" "$RES/2026-12-02_131316/report.md" &&
	test_grep -F "| **FAIL**: Raise the limit that was reached" "$RES/2026-03-03_091500/report.md"
'

# The case of issue 46, through the functions measure_auth calls: the
# gap judged on the rest (28.4 ms, its interval 2.5-28.9 ms) with the
# password logins on two steps of sshd.s padding (the gap 2.5 ms with all
# on the lower one, 28.4 ms with all on the upper one), target 20 ms.
auth_case () (
	DATA_DIR=$1/data RAW_DIR=$1/raw
	# shellcheck source=lib/data.sh
	. "$KIT_DIR/lib/data.sh"
	# shellcheck source=lib/measure.sh
	. "$KIT_DIR/lib/measure.sh"
	# shellcheck source=lib/metrics/auth.sh
	. "$KIT_DIR/lib/metrics/auth.sh"
	declare -A SETTING=([TARGET_AUTH_GAP_MS]=20 [LOGIN_SAMPLES]=30
		[VERDICT_MARGIN_PCT]="$(last VERDICT_MARGIN_PCT "$KIT_DIR/settings.conf")")
	result_status auth PASS
	for kv in gap_slow=password gap_fast=ed25519 gap_password_fast=ed25519 gap_judged=rest gap_p50_ms=39.7 \
		gap_hash_ms=11.3 gap_rest_ms=28.4 gap_judged_lo_ms=2.5 gap_judged_hi_ms=28.9 password_n=72 \
		password_auth_server_levels=2 password_auth_server_p50=65.9 password_auth_server_low_p50=40.0 \
		password_auth_server_high_p50=65.9 password_auth_server_low_n=20 password_auth_server_high_n=52 \
		password_auth_server_step_ms=25.9; do
		result_set auth "${kv%%=*}" "${kv#*=}"
	done
	auth_gap_steps
	auth_gap_judge
)

test_expect 'the padding case: accept it as sshd.s padding, or rerun with more LOGIN_SAMPLES' '
	cp -R "$RES/2026-12-02_131316" padding &&
	auth_case padding &&
	test_kv padding/data/auth.env status INCONCLUSIVE &&
	action=$(last action padding/data/auth.env) &&
	case $action in
	"Accept it when the gap is on the target only through sshd"*) ;;
	*) echo "action: $action"; false ;;
	esac &&
	printf "%s\n" "$action" | grep -E "(2\.5 or 28\.4 ms of gap here).*rerun with LOGIN_SAMPLES=[0-9]+ " >/dev/null ||
		{ echo "action: $action"; false; } &&
	n=$(printf "%s\n" "$action" | sed -n "s/.*LOGIN_SAMPLES=\([0-9]*\).*/\1/p") &&
	test "$n" -gt 72 &&
	render padding &&
	check_actions padding &&
	test_grep -F "| **INCONCLUSIVE**: Accept it when the gap is on the target only through sshd" padding/report.md &&
	test_grep -F "(seen: the gap between the methods, judged on its interval and on both steps of sshd" padding/report.md &&
	test_grep -F "within the noise of the target (interval 2.5-28.9, target 20)" padding/report.md
'

test_done
