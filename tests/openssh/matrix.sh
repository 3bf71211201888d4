#!/usr/bin/env bash
# make check-openssh: the kit against every upstream OpenSSH release in
# OPENSSH_SOURCES (default ../shared/vendor/openssh next to the clone; its
# README lists each tarball's sha256). Each tarball is verified, built once
# into the cache outside the clone (tests/openssh/build.sh), and measured
# in direct mode with OPENSSH_PREFIX pointing at the build:
#   - the quick suite (all 13 tests at small settings): 13 verdicts, no
#     ERROR, the report and results.json name the build;
#   - burst: the refusals classified equal the refusals in sshd's own log
#     at every step, and every drop line of the log is one of the clients;
#   - no "Unsupported option" (or "Deprecated option") in sshd's log;
#   - life cycle: a second start changes nothing, status names the build,
#     test-ssh.sh refuses another OPENSSH_PREFIX, switching back to the
#     system's OpenSSH restarts the server, cleanup leaves the host as it
#     was (tests/lib/snapshot.sh);
#   - bad input: an incomplete prefix is one line, exit 2, host unchanged.
# Runs of two builds compare with a first line that says so. Without the
# sources every test is skipped, with the reason.
. "$(dirname "$0")/../lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/procs.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

SOURCES=${OPENSSH_SOURCES:-$KIT_DIR/../shared/vendor/openssh}
export STATE=/var/lib/sshd-perf-kit/state
ALL13="startup login auth rate burst concurrent session interactive transfer sftp cpu memory reload"

# The quick suite's settings: every test, small.
export RESULTS_DIR="$TEST_TMP/results" STARTUP_ROUNDS=1 LOGIN_SAMPLES=3 \
	RATE_WORKERS=2 DURATION=2 BURST_STEPS="5 20" CONCURRENT_SESSIONS=6 \
	CONCURRENT_LOGIN_PARALLEL=3 SESSION_COMMANDS=10 ECHO_COUNT=20 ECHO_RATE=100 \
	TRANSFER_MB=4 CEILING_SECONDS=0.1 SFTP_FILE_MB=2 SFTP_SMALL_FILES=10 \
	RELOAD_SESSIONS=2
mkdir -p "$RESULTS_DIR"

if [ ! -f "$SOURCES/README.md" ]; then
	test_skip 'OpenSSH version matrix' "no OpenSSH sources: $SOURCES/README.md is missing (set OPENSSH_SOURCES to the folder with the tarballs and their README)"
	cat "$TEST_TMP/timings" 2>/dev/null
test_done
	exit 0
fi
host_kit_test 'OpenSSH version matrix' direct
trap '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT

# "SHA256 FILE" per tarball the README lists.
grep -Eo '^ *[0-9a-f]{64} +openssh-[^ ]+\.tar\.gz' "$SOURCES/README.md" | awk '{ print $1, $2 }' >"$TEST_TMP/tarballs"
if [ ! -s "$TEST_TMP/tarballs" ]; then
	test_skip 'OpenSSH version matrix' "$SOURCES/README.md lists no sha256 of an openssh-*.tar.gz"
	cat "$TEST_TMP/timings" 2>/dev/null
test_done
	exit 0
fi

host_snapshot >"$TEST_TMP/before"

# step_col TSV STEP COLUMN: a column of raw/burst-steps.tsv.
step_col () {
	tsv_select "$1" clients "$3" | awk -F'\t' -v n="$2" '$1 == n { print $2 }'
}

# burst_equals_log RUN: at every step, the refusals classified are the
# refusals in sshd's log, and each drop line names one of the clients.
burst_equals_log () {
	local run=$1 tsv=$1/raw/burst-steps.tsv n refused drops named unnamed lines ports p
	for n in $BURST_STEPS; do
		refused=$(step_col "$tsv" "$n" refused)
		drops=$(step_col "$tsv" "$n" log_drops)
		named=$(step_col "$tsv" "$n" log_named)
		unnamed=$(step_col "$tsv" "$n" log_unnamed)
		[ "$(step_col "$tsv" "$n" classified_by)" = server ] || { echo "step $n: not classified from the server log"; return 1; }
		[ "$refused" = "$drops" ] || { echo "step $n: $refused refused, the log $drops"; return 1; }
		[ "$drops" -eq $((named + unnamed)) ] || { echo "step $n: $drops != $named + $unnamed"; return 1; }
		lines=$(grep -c "drop connection #.* on \[127.0.0.1\]:${TEST_PORT:-11022} " "$run/raw/burst-step-$n-server.log" || true)
		[ "$lines" -eq "$named" ] || { echo "step $n: $lines drop lines in the log, $named matched to clients"; return 1; }
		# Every refused client: its port in a drop line, or in no line at all.
		ports=$(awk -F'\t' 'NR == FNR { if ($2 == "refused") r[$1] = 1; next }
			FNR > 1 && ($1 in r) { print $8 }' "$run/raw/burst-step-$n-class.tsv" "$run/raw/burst-step-$n.tsv")
		for p in $ports; do
			if grep -q "Connection from 127.0.0.1 port $p on " "$run/raw/burst-step-$n-server.log"; then
				echo "step $n: client port $p counted refused, but sshd started a session for it"
				return 1
			fi
		done
		[ "$(grep -c '^disagree=' "$run/raw/burst-step-$n-class.env")" = 1 ] || return 1
	done
}

# thirteen RUN: every one of the 13 tests has a verdict, none ERROR:
# PASS, FAIL, or INCONCLUSIVE with the reason the kit owes for it (a
# loaded machine makes rate or burst undecidable; docs/metrics.md).
thirteen () {
	local run=$1 t s r bad=""
	for t in $ALL13; do
		s=$(sed -n 's/^status=//p' "$run/data/$t.env" 2>/dev/null | tail -n 1)
		r=$(sed -n 's/^reason=//p' "$run/data/$t.env" 2>/dev/null | tail -n 1)
		case $s in
		PASS | FAIL) ;;
		INCONCLUSIVE) [ -n "$r" ] || bad="$bad $t=INCONCLUSIVE(without a reason)" ;;
		*) bad="$bad $t=${s:-none}($r)" ;;
		esac
	done
	[ -z "$bad" ] || { echo "not a verdict:$bad"; return 1; }
	[ "$(grep -cE '^\| [0-9]+ \| \[.*\*\*(PASS|FAIL)\*\*' "$run/report.md")" -eq 13 ]
}

# fake_prefix FROM TO WITHOUT: a prefix of symlinks to FROM's programs,
# without the file WITHOUT.
fake_prefix () {
	local f
	mkdir -p "$2/sbin" "$2/bin" "$2/libexec"
	for f in sbin/sshd bin/ssh bin/sftp bin/ssh-keygen libexec/sftp-server libexec/sshd-session libexec/sshd-auth; do
		[ -e "$1/$f" ] && [ "$f" != "$3" ] && ln -s "$1/$f" "$2/$f"
	done
	return 0
}

runs=""
while read -r sum file; do
	ver=${file#openssh-}
	ver=${ver%.tar.gz}
	prefix=""
	if [ ! -f "$SOURCES/$file" ]; then
		test_skip "$ver: build, quick suite, life cycle, bad input" "$SOURCES/$file is missing"
		continue
	fi
	test_expect "$ver: sha256 as in the README, built (or found in the cache)" '
		t0=$SECONDS &&
		"$TEST_DIR/openssh/build.sh" "$SOURCES/$file" "$sum" >"$TEST_TMP/prefix-$ver" &&
		p=$(cat "$TEST_TMP/prefix-$ver") && [ -x "$p/sbin/sshd" ] &&
		"$p/bin/ssh" -V 2>&1 | grep -q "^OpenSSH_$ver" &&
		echo "# $ver: build.sh took $((SECONDS - t0)) s" >>"$TEST_TMP/timings"
	'
	prefix=$(cat "$TEST_TMP/prefix-$ver" 2>/dev/null)
	if [ -z "$prefix" ] || [ ! -x "$prefix/sbin/sshd" ]; then
		test_skip "$ver: quick suite, life cycle, bad input" "the build failed"
		continue
	fi
	export prefix ver sum file

	test_expect "$ver: bad input: an incomplete prefix is one line, exit 2, host unchanged" '
		fake_prefix "$prefix" "$TEST_TMP/fake-$ver" bin/sftp &&
		expect_status 2 env OPENSSH_PREFIX="$TEST_TMP/fake-$ver" "$KIT_DIR/start-ssh.sh" &&
		[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] && grep -q "missing bin/sftp" "$TEST_TMP/out" &&
		if [ -x "$prefix/libexec/sshd-session" ]; then
			fake_prefix "$prefix" "$TEST_TMP/fake2-$ver" libexec/sshd-session &&
			expect_status 2 env OPENSSH_PREFIX="$TEST_TMP/fake2-$ver" "$KIT_DIR/start-ssh.sh" &&
			[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] && grep -q "libexec/sshd-session" "$TEST_TMP/out"
		fi &&
		expect_status 2 env OPENSSH_PREFIX=relative/path "$KIT_DIR/start-ssh.sh" &&
		[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] && grep -q "OPENSSH_PREFIX" "$TEST_TMP/out" &&
		host_snapshot >"$TEST_TMP/after" && test_cmp "$TEST_TMP/before" "$TEST_TMP/after"
	'

	test_expect "$ver: start with OPENSSH_PREFIX; sshd -t takes the config; status names the build" '
		OPENSSH_PREFIX="$prefix" "$KIT_DIR/start-ssh.sh" -q >/dev/null &&
		"$KIT_DIR/start-ssh.sh" status >st && grep -qx "openssh_build=OpenSSH_$ver" st &&
		grep -qx "openssh_prefix=$prefix" st &&
		grep -q "^# OpenSSH build: OpenSSH_$ver $prefix" /etc/ssh/sshd_config_perf_test &&
		grep -qx "Subsystem sftp $prefix/libexec/sftp-server" /etc/ssh/sshd_config_perf_test &&
		[ "$(readlink "/proc/$(sed -n "s/^pid=//p" st)/exe")" = "$prefix/sbin/sshd" ]
	'

	test_expect "$ver: a second start changes nothing; test-ssh.sh refuses another OPENSSH_PREFIX" '
		pid=$("$KIT_DIR/start-ssh.sh" status | sed -n "s/^pid=//p") &&
		OPENSSH_PREFIX="$prefix" "$KIT_DIR/start-ssh.sh" -q >/dev/null &&
		[ "$("$KIT_DIR/start-ssh.sh" status | sed -n "s/^pid=//p")" = "$pid" ] &&
		mkdir -p "$TEST_TMP/other/sbin" &&
		expect_status 2 env OPENSSH_PREFIX="$TEST_TMP/other" "$KIT_DIR/test-ssh.sh" login &&
		[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] && grep -q "switch it first" "$TEST_TMP/out"
	'

	test_expect "$ver: the quick suite: 13 verdicts, none ERROR; report and results.json name the build" '
		rc=0 && "$KIT_DIR/test-ssh.sh" -q >"$TEST_TMP/run-$ver.out" 2>&1 || rc=$? &&
		{ [ "$rc" -le 1 ] || [ "$rc" -eq 3 ] || { echo "exit $rc"; tail -n 20 "$TEST_TMP/run-$ver.out"; false; }; } &&
		run=$(dirname "$(tail -n 1 "$TEST_TMP/run-$ver.out")") && echo "$run" >"$TEST_TMP/run-$ver" &&
		thirteen "$run" &&
		grep -q "^| OpenSSH build | OpenSSH_$ver, installed below \`$prefix\`" "$run/report.md" &&
		python3 -c "import json, sys
e = json.load(open(sys.argv[1]))[\"environment\"]
assert e[\"openssh_build\"] == \"OpenSSH_\" + sys.argv[2], e[\"openssh_build\"]
assert e[\"openssh_prefix\"] == sys.argv[3], e[\"openssh_prefix\"]" "$run/results.json" "$ver" "$prefix" &&
		echo "# $ver: the quick suite took $(cat "$run/data/"*.env | awk -F= "\$1 == \"seconds\" { s += \$2 } END { print s }") s of tests" >>"$TEST_TMP/timings"
	'
	run=$(cat "$TEST_TMP/run-$ver" 2>/dev/null)
	[ -z "$run" ] || runs="$runs $run"

	test_expect "$ver: burst refusals classified = refusals in sshd's log, at every step" '
		[ -n "$run" ] && burst_equals_log "$run"
	'

	test_expect "$ver: sshd's log has no Unsupported or Deprecated option line" '
		[ -s "$STATE/sshd.log" ] &&
		! grep -E "(Unsupported|Deprecated) option|Bad configuration option" "$STATE/sshd.log"
	'

	test_expect "$ver: back to the system OpenSSH restarts the server with it; cleanup leaves the host as before" '
		pid=$("$KIT_DIR/start-ssh.sh" status | sed -n "s/^pid=//p") &&
		OPENSSH_PREFIX= "$KIT_DIR/start-ssh.sh" -q >/dev/null &&
		"$KIT_DIR/start-ssh.sh" status >st && grep -qx "openssh_prefix=" st &&
		! grep -qx "pid=$pid" st &&
		"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
		host_snapshot >"$TEST_TMP/after" && test_cmp "$TEST_TMP/before" "$TEST_TMP/after" &&
		{ waits_for 5 eval "kit_processes >\"\$TEST_TMP/left\"; [ ! -s \"\$TEST_TMP/left\" ]" || true; } &&
		test_cmp /dev/null "$TEST_TMP/left"
	'
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1 || true
done <"$TEST_TMP/tarballs"

# shellcheck disable=SC2086 # a list of run folders
set -- $runs
if [ "$#" -ge 2 ]; then
	export A=$1 B=$2
	test_expect 'test-ssh.sh --compare of runs of two builds says so in its first line' '
		out=$("$KIT_DIR/test-ssh.sh" --compare "$A" "$B") &&
		head -n 1 "$out" | grep -q "^# Comparison of two sshd-perf-kit runs of different OpenSSH builds: OpenSSH_.* (A) and OpenSSH_.* (B)$"
	'
else
	test_skip 'test-ssh.sh --compare of runs of two builds says so in its first line' 'fewer than two builds were measured'
fi

cat "$TEST_TMP/timings" 2>/dev/null
test_done
