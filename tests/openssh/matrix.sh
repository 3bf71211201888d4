#!/usr/bin/env bash
# run.sh timeout: 2400
# make check-openssh: the kit against every upstream OpenSSH release in
# OPENSSH_SOURCES (default ../shared/vendor/openssh next to the clone; its
# README lists each tarball's sha256), and against Red Hat's 8.7p1 built
# from RHEL_OPENSSH_SOURCES (default ../shared/vendor/rhel9-openssh). Each
# tarball is verified, built once into the cache outside the clone
# (tests/openssh/build.sh, build-rhel9.sh), and measured in direct mode
# with OPENSSH_PREFIX pointing at the build, with the kit's configuration
# and (9.9p1, 10.5p1, RHEL's; RHEL's also with the FIPS policy) with the
# build's own (SERVER_CONFIG=host). Every run:
#   - the quick suite (the 13 tests at small settings; rate only in the
#     runs of RATE_RUNS): a verdict each, no ERROR, the report and
#     results.json name the build;
#   - burst: the refusals classified equal the refusals in sshd's own log
#     at every step, and every drop line of the log is one of the clients;
#   - no "Unsupported option" (or "Deprecated option") in sshd's log;
#   - the report's PAM stack and effective settings are the server's;
#   - life cycle: a second start changes nothing, status names the build,
#     test-ssh.sh refuses another OPENSSH_PREFIX, switching back to the
#     system's OpenSSH restarts the server, cleanup leaves the host as it
#     was (tests/lib/snapshot.sh);
#   - bad input: an incomplete prefix is one line, exit 2, host unchanged.
# Runs of two builds compare with a first line that says so. Without the
# sources every test is skipped, with the reason.
. "$(dirname "$0")/../lib/harness.sh"
# shellcheck source=tests/lib/snapshot.sh
. "$TEST_DIR/lib/snapshot.sh"
# shellcheck source=tests/lib/procs.sh
. "$TEST_DIR/lib/procs.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"
# shellcheck source=lib/pam.sh
. "$KIT_DIR/lib/pam.sh"

SOURCES=${OPENSSH_SOURCES:-$KIT_DIR/../shared/vendor/openssh}
host_kit_test 'OpenSSH version matrix' direct
export STATE=$STATE_DIR
ALL13="startup login auth rate burst concurrent session interactive transfer sftp cpu memory reload"

# The quick suite's settings: every test, small. The rate sweep is most of
# a run (50 of 80 s at 3 s a step): its steps last 1 s (longer where 20
# logins need it), so eight runs stay near 7 minutes with a warm cache.
export RESULTS_DIR="$TEST_TMP/results" STARTUP_ROUNDS=1 LOGIN_SAMPLES=3 \
	RATE_WORKERS=2 DURATION=2 RATE_STEP_SECONDS=1 BURST_STEPS="5 20" CONCURRENT_SESSIONS=6 \
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
# The harness removes TEST_TMP; its EXIT trap is the one cleanup.
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

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

# burst_equals_log RUN STEPS BASE: at every step of the table STEPS (the
# fleet's raw/burst-steps.tsv, or raw/burst-one-source-steps.tsv) whose
# clients are in BASE-N.tsv (raw/burst-step-N, raw/burst-one-step-N): the
# refusals classified are the refusals in sshd's log, each drop line
# names one of the clients, the drops split into MaxStartups and penalty
# as the reasons of the log's drop lines do (a drop without a line of its
# own counts as MaxStartups, so the log must not say that penalty lines
# were rate-limited), and no refused client had a session.
burst_equals_log () {
	local run=$1 tsv=$2 base=$3 n refused drops named unnamed penalty lines ms log clients c
	for n in $BURST_STEPS; do
		log=$base-$n-server.log
		refused=$(step_col "$tsv" "$n" refused)
		drops=$(step_col "$tsv" "$n" log_drops)
		named=$(step_col "$tsv" "$n" log_named)
		unnamed=$(step_col "$tsv" "$n" log_unnamed)
		penalty=$(step_col "$tsv" "$n" penalty)
		[ "$(step_col "$tsv" "$n" classified_by)" = server ] || { echo "$tsv, step $n: not classified from the server log"; return 1; }
		[ "$refused" = "$drops" ] || { echo "$tsv, step $n: $refused refused, the log $drops"; return 1; }
		[ "$drops" -eq $((named + unnamed)) ] || { echo "$tsv, step $n: $drops != $named + $unnamed"; return 1; }
		lines=$(grep -c "drop connection #.* on \[127.0.0.1\]:$TEST_PORT " "$log" || true)
		[ "$lines" -eq "$named" ] || { echo "$tsv, step $n: $lines drop lines in the log, $named matched to clients"; return 1; }
		ms=$(grep "drop connection #.* on \[127.0.0.1\]:$TEST_PORT " "$log" | grep -ci "maxstartups" || true)
		[ "$penalty" -eq $((lines - ms)) ] ||
			{ echo "$tsv, step $n: $penalty drops classified as penalty, the log gives $((lines - ms)) of its $lines drop lines another reason than MaxStartups"; return 1; }
		if [ "$unnamed" -gt 0 ] && grep -q "PerSourcePenalties logging rate-limited" "$log"; then
			echo "$tsv, step $n: $unnamed drops without a line, counted as MaxStartups, but sshd rate-limited its penalty lines"
			return 1
		fi
		# Every refused client: its address and port in a drop line, or in
		# no line at all.
		clients=$(awk -F'\t' 'NR == FNR { if ($2 == "refused") r[$1] = 1; next }
			FNR > 1 && ($1 in r) { print $9 "/" $8 }' "$base-$n-class.tsv" "$base-$n.tsv")
		for c in $clients; do
			if grep -q "Connection from ${c%/*} port ${c#*/} on " "$log"; then
				echo "$tsv, step $n: client ${c%/*} port ${c#*/} counted refused, but sshd started a session for it"
				return 1
			fi
		done
		[ "$(grep -c '^disagree=' "$base-$n-class.env")" = 1 ] || return 1
		printf '%s %s: %s refused (%s MaxStartups, %s penalty), %s without a line; ' "$(basename "$tsv" .tsv)" "$n" "$refused" "$((refused - penalty))" "$penalty" "$unnamed"
	done
}

# ip_int ADDR: an IPv4 address as a number.
ip_int () {
	awk -v a="$1" 'BEGIN { split(a, o, "."); printf "%d\n", ((o[1] * 256 + o[2]) * 256 + o[3]) * 256 + o[4] }'
}

# burst_sources RUN PER_SOURCE: which addresses burst's clients came
# from, as the data, the tables and the report say, and as the clients'
# own connections show. The fleet's steps (raw/burst-steps.tsv): each
# step's range FIRST-LAST holds one address per client, new ones at every
# step, and every client that connected came from its range, each from
# an address of its own. With PER_SOURCE=yes (a 9.8+ build, per-source
# limits) the same steps from one address (raw/burst-one-source-steps.tsv):
# every client from that address, the report's one-source table with the
# table's counts; with no, the report says why they were not run.
burst_sources () {
	local run=$1 per=$2 env=$1/data/burst.env many one oks="" n range lo hi prev=-1 addrs a ok refused penalty failed timeout
	many=$(kv_get "$env" sources_many)
	one=$(kv_get "$env" sources_one)
	[ -n "$many" ] || { echo "data/burst.env names no sources_many"; return 1; }
	if ! grep -qF "**Sources.** The steps above are a fleet" "$run/report.md" || ! grep -qF "($many;" "$run/report.md"; then
		echo "report.md does not name the fleet's sources ($many)"
		return 1
	fi
	for n in $BURST_STEPS; do
		range=$(step_col "$run/raw/burst-steps.tsv" "$n" sources)
		lo=$(ip_int "${range%-*}")
		hi=$(ip_int "${range#*-}")
		if [ "$((hi - lo + 1))" -ne "$n" ] || [ "$lo" -le "$prev" ]; then
			echo "step $n: sources $range are not $n new addresses"
			return 1
		fi
		[ "$prev" != -1 ] || case $many in "${range%-*} "*) ;; *) echo "sources_many \"$many\" does not start at the first step's ${range%-*}"; return 1 ;; esac
		prev=$hi
		addrs=$(tsv_select "$run/raw/burst-step-$n.tsv" local_addr | grep -v '^-$' || true)
		[ -n "$addrs" ] || { echo "step $n: no client connected"; return 1; }
		[ "$(sort <<<"$addrs" | uniq -d | wc -l)" -eq 0 ] || { echo "step $n: two clients from one address"; return 1; }
		for a in $addrs; do
			a=$(ip_int "$a")
			[ "$a" -ge "$lo" ] || { echo "step $n: a client outside $range"; return 1; }
			[ "$a" -le "$hi" ] || { echo "step $n: a client outside $range"; return 1; }
		done
	done
	if [ "$per" = no ]; then
		if [ "$one" != - ] || [ -e "$run/raw/burst-one-source-steps.tsv" ] ||
			! test_grep -F "The same steps from one address were not run: this sshd has no per-source limits" "$run/report.md"; then
			echo "a build without per-source limits: the one-source steps must not run, and the report must say why"
			return 1
		fi
		return 0
	fi
	if [ -z "$one" ] || [ "$one" = - ] || [ "$(kv_get "$env" one_source_not_run)" != - ]; then
		echo "a build with per-source limits: no one-source steps (sources_one=$one, not run: $(kv_get "$env" one_source_not_run))"
		return 1
	fi
	grep -qF "The same steps with every client from one address ($one)" "$run/report.md" ||
		{ echo "report.md does not name the one source $one"; return 1; }
	for n in $BURST_STEPS; do
		[ "$(step_col "$run/raw/burst-one-source-steps.tsv" "$n" sources)" = "$one" ] ||
			{ echo "one-source step $n: sources column is not $one"; return 1; }
		addrs=$(tsv_select "$run/raw/burst-one-step-$n.tsv" local_addr | grep -v '^-$' | sort -u)
		[ "$addrs" = "$one" ] || { echo "one-source step $n: clients from $(paste -sd' ' <<<"$addrs"), not $one alone"; return 1; }
		read -r ok refused penalty failed timeout < <(tsv_select "$run/raw/burst-one-source-steps.tsv" clients ok refused penalty failed timeout |
			awk -F'\t' -v n="$n" '$1 == n { print $2, $3, $4, $5, $6 }')
		grep -qE "^\| $n \| $ok \| $((refused - penalty)) \| $penalty \| $((failed + timeout)) \| " "$run/report.md" ||
			{ echo "report.md has no one-source row \"| $n | $ok | $((refused - penalty)) | $penalty | $((failed + timeout)) |\""; return 1; }
		oks="$oks $ok/$n"
	done
	[ "$(kv_get "$env" one_source_steps)" = "${oks# }" ] ||
		{ echo "one_source_steps \"$(kv_get "$env" one_source_steps)\", the table \"${oks# }\""; return 1; }
}

# thirteen RUN [TESTS]: every one of the 13 tests (or of TESTS) has a
# verdict, none ERROR: PASS, FAIL, or INCONCLUSIVE with the reason the kit
# owes for it (a loaded machine makes rate or burst undecidable;
# docs/metrics.md).
thirteen () {
	local run=$1 tests=${2:-$ALL13} t s r bad=""
	for t in $tests; do
		s=$(sed -n 's/^status=//p' "$run/data/$t.env" 2>/dev/null | tail -n 1)
		r=$(sed -n 's/^reason=//p' "$run/data/$t.env" 2>/dev/null | tail -n 1)
		case $s in
		PASS | FAIL) ;;
		INCONCLUSIVE) [ -n "$r" ] || bad="$bad $t=INCONCLUSIVE(without a reason)" ;;
		*) bad="$bad $t=${s:-none}($r)" ;;
		esac
	done
	[ -z "$bad" ] || { echo "not a verdict:$bad"; return 1; }
	[ "$(grep -cE '^\| [0-9]+ \| \[.*\*\*(PASS|FAIL|INCONCLUSIVE)\*\*' "$run/report.md")" -eq "$(wc -w <<<"$tests")" ]
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

# server_facts RUN SSHD: what the report says about the server, against
# what is installed. The PAM stack row follows the test server's UsePAM
# (its own sshd -T, read without regard to case: 10.x prints "UsePAM"):
# with PAM, it is the stack that sshd's service file (/etc/pam.d/ and
# sshd's program name) resolves to, includes and substacks followed by
# lib/pam.sh's reader (t15 holds its fixtures), each of auth, account and
# session in order; every effective setting of environment.env and of
# the report's table is sshd -T's value.
server_facts () {
	local run=$1 sshd=$2 env=$1/data/environment.env t usepam row svc k v want auth account session
	t=$("$TEST_DIR/lib/sshd-T.sh" "$SSHD_CONFIG" "$(kv_get "$env" test_user)" "$(dirname "$(dirname "$sshd")")" 2>/dev/null)
	[ -n "$t" ] || { echo "sshd -T of the test server printed nothing"; return 1; }
	usepam=$(printf '%s\n' "$t" | awk 'tolower($1) == "usepam" { print tolower($2) }')
	row=$(sed -n 's/^| PAM stack | \(.*\) |$/\1/p' "$run/report.md")
	svc=$(basename "$sshd")
	if [ "$usepam" = yes ]; then
		auth=$(pam_modules "$svc" auth | paste -sd' ' -)
		account=$(pam_modules "$svc" account | paste -sd' ' -)
		session=$(pam_modules "$svc" session | paste -sd' ' -)
		if [ -z "$auth" ] || [ -z "$account" ]; then
			echo "/etc/pam.d/$svc resolves to no auth or no account module"
			return 1
		fi
		want="service $svc (/etc/pam.d/$svc): auth $auth; account $account; session $session"
		[ "$row" = "$want" ] ||
			{ echo "report: \"| PAM stack | $row |\", but the test server runs with UsePAM yes (sshd -T) and /etc/pam.d/$svc resolves to \"$want\""; return 1; }
	else
		[ "$row" = "none (UsePAM ${usepam:-no})" ] ||
			{ echo "report: \"| PAM stack | $row |\", but the test server runs with UsePAM ${usepam:-(not in sshd -T)}"; return 1; }
	fi
	grep -q '^sshd_usepam=' "$env" || { echo "environment.env has no sshd_usepam"; return 1; }
	while IFS= read -r line; do
		k=${line%%=*}
		k=${k#sshd_}
		v=${line#*=}
		want=$(printf '%s\n' "$t" | awk -v k="$k" 'tolower($1) == k { $1 = ""; sub(/^ /, ""); print; exit }')
		[ "$v" = "$want" ] || { echo "report: $k is \"$v\", sshd -T of the test server says \"$want\""; return 1; }
		grep -qF "| \`$k\` | \`$v\` |" "$run/report.md" || { echo "report.md has no row \"| \`$k\` | \`$v\` |\""; return 1; }
	done < <(grep '^sshd_' "$env")
}

# (bname, not name: test_expect has a local variable of that name.)
# measure NAME PREFIX VER CONFIG [TESTS]: the quick suite (or only TESTS)
# against the build below PREFIX with SERVER_CONFIG=CONFIG, on a fresh
# test server, and what every run must show: a verdict for each test, the
# build named, burst = sshd's log, no option sshd does not take, the
# report's server facts. The run folder goes to $TEST_TMP/run-NAME.
# The runs with the rate test; the others run the other 12. The sweep's
# driver is the kit's own libssh client (RATE_CLIENT=libssh), not the
# build's ssh, so on the server it is the login path the login test
# takes too; a sweep to the knee fills both CPUs for about 40 s of a
# run's 100 (CI, 2026-12), in a matrix that runs beside the other tests.
# The newest upstream release and Red Hat's build keep it.
RATE_RUNS=${OPENSSH_RATE_RUNS:-10.5p1 rhel9}

# quick_tests NAME: the tests of run NAME without a list of its own.
quick_tests () {
	case " $RATE_RUNS " in
	*" $1 "*) echo "$ALL13" ;;
	*) echo "${ALL13/ rate / }" ;;
	esac
}

measure () {
	local t0=$SECONDS
	export bname=$1 mprefix=$2 mver=$3 mconfig=$4 mtests=${5:-$(quick_tests "$1")}
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1 || true
	test_expect "$bname: start (SERVER_CONFIG=$mconfig); sshd -t takes the config; status names the build" '
		SERVER_CONFIG=$mconfig OPENSSH_PREFIX="$mprefix" "$KIT_DIR/start-ssh.sh" -q >/dev/null &&
		"$KIT_DIR/start-ssh.sh" status >st && test_grep -x "openssh_build=OpenSSH_$mver" st &&
		test_grep -x "openssh_prefix=$mprefix" st &&
		sftp=$mprefix/libexec/sftp-server && { [ -x "$sftp" ] || sftp=$mprefix/libexec/openssh/sftp-server; } &&
		if [ "$mconfig" = kit ]; then
			test_grep "^# OpenSSH build: OpenSSH_$mver $mprefix" "$SSHD_CONFIG" &&
			test_grep -x "Subsystem sftp $sftp" "$SSHD_CONFIG"
		else
			own=$mprefix/etc/ssh/sshd_config && { [ -f "$own" ] || own=$mprefix/etc/sshd_config; } &&
			test_grep -x "# ---- from $own" "$SSHD_CONFIG"
		fi &&
		[ "$(readlink "/proc/$(sed -n "s/^pid=//p" st)/exe")" = "$(readlink -f "$mprefix/sbin/sshd")" ]
	'
	test_expect "$bname: $( [ "$mtests" = "$ALL13" ] && echo "the quick suite: 13 verdicts" || echo "$mtests: a verdict each"), none ERROR; report and results.json name the build" '
		rc=0 && SERVER_CONFIG=$mconfig "$KIT_DIR/test-ssh.sh" -q $mtests >"$TEST_TMP/run-$bname.out" 2>&1 || rc=$? &&
		{ [ "$rc" -le 1 ] || [ "$rc" -eq 3 ] || { echo "exit $rc"; tail -n 20 "$TEST_TMP/run-$bname.out"; false; }; } &&
		run=$(dirname "$(tail -n 1 "$TEST_TMP/run-$bname.out")") && echo "$run" >"$TEST_TMP/run-$bname" &&
		thirteen "$run" "$mtests" &&
		test_grep "^| OpenSSH build | OpenSSH_$mver, installed below \`$mprefix\`.*; no package: \`ssh -V\` says \"OpenSSH_$mver" "$run/report.md" &&
		python3 -c "import json, sys
e = json.load(open(sys.argv[1]))[\"environment\"]
assert e[\"openssh_build\"] == \"OpenSSH_\" + sys.argv[2], e[\"openssh_build\"]
assert e[\"openssh_prefix\"] == sys.argv[3], e[\"openssh_prefix\"]" "$run/results.json" "$mver" "$mprefix" &&
		echo "# $bname: the quick suite took $(cat "$run/data/"*.env | awk -F= "\$1 == \"seconds\" { s += \$2 } END { print s }") s of tests ($(for t in $mtests; do printf "%s %s, " "$t" "$(sed -n "s/^seconds=//p" "$run/data/$t.env" | tail -n 1)"; done | sed "s/, $//"))" >>"$TEST_TMP/timings"
	'
	run=$(cat "$TEST_TMP/run-$bname" 2>/dev/null)
	export run
	case " $mtests " in
	*" burst "*)
		# Per-source limits (PerSourcePenalties, 9.8 and later): the
		# test server's own sshd -T says whether this build has them.
		per=no
		[ -z "$("$TEST_DIR/lib/sshd-T.sh" "$SSHD_CONFIG" "$TEST_USER" "$mprefix" 2>/dev/null |
			awk "tolower(\$1) == \"persourcepenalties\"")" ] || per=yes
		export per
		test_expect "$bname: burst refusals classified = refusals in sshd's log, MaxStartups and penalty as its lines say, at every step$([ "$per" = yes ] && echo ", from many sources and from one")" '
			[ -n "$run" ] && burst_equals_log "$run" "$run/raw/burst-steps.tsv" "$run/raw/burst-step" >many &&
			if [ "$per" = yes ]; then
				burst_equals_log "$run" "$run/raw/burst-one-source-steps.tsv" "$run/raw/burst-one-step" >one
			else
				: >one
			fi &&
			echo "# $bname: burst $(cat many one)" >>"$TEST_TMP/timings"
		'
		test_expect "$bname: burst names its sources in data and report, and the clients came from them$([ "$per" = yes ] && echo "; one-source and many-source steps" || echo "; no one-source steps (no per-source limits), the report says why")" '
			[ -n "$run" ] && burst_sources "$run" "$per"
		' ;;
	esac
	test_expect "$bname: sshd's log has no Unsupported or Deprecated option line" '
		[ -s "$STATE/sshd.log" ] &&
		! grep -E "(Unsupported|Deprecated) option|Bad configuration option" "$STATE/sshd.log"
	'
	# The test clients come from addresses of their own (lib/sources.sh),
	# so per-source limits stay as configured: the kit writes no line of
	# its own for them, and a 9.8+ build runs them (8.7, 9.2 have none).
	test_expect "$bname: PerSourcePenalties as configured, not switched off by the kit" '
		test_grep ! -i "^PerSourcePenalties" "$SSHD_CONFIG" &&
		p=$("$TEST_DIR/lib/sshd-T.sh" "$SSHD_CONFIG" "$TEST_USER" "$mprefix" |
			awk "tolower(\$1) == \"persourcepenalties\" { \$1 = \"\"; sub(/^ /, \"\"); print }") &&
		echo "# $bname: persourcepenalties ${p:-(not known to this build)}" &&
		[ "$p" != no ]
	'
	test_expect "$bname: the report's PAM stack and effective settings are the test server's" '
		[ -n "$run" ] && server_facts "$run" "$mprefix/sbin/sshd"
	'
	echo "# $bname: $((SECONDS - t0)) s in all" >>"$TEST_TMP/timings"
}

# life_cycle NAME PREFIX CONFIG: a second start changes nothing, test-ssh.sh
# refuses another OPENSSH_PREFIX, the system's OpenSSH restarts the
# server, cleanup leaves the host as before. The server runs from PREFIX
# with SERVER_CONFIG=CONFIG.
life_cycle () {
	export bname=$1 mprefix=$2 mconfig=$3
	test_expect "$bname: a second start changes nothing; test-ssh.sh refuses another OPENSSH_PREFIX" '
		pid=$("$KIT_DIR/start-ssh.sh" status | sed -n "s/^pid=//p") &&
		SERVER_CONFIG=$mconfig OPENSSH_PREFIX="$mprefix" "$KIT_DIR/start-ssh.sh" -q >/dev/null &&
		[ "$("$KIT_DIR/start-ssh.sh" status | sed -n "s/^pid=//p")" = "$pid" ] &&
		mkdir -p "$TEST_TMP/other/sbin" &&
		expect_status 2 env OPENSSH_PREFIX="$TEST_TMP/other" "$KIT_DIR/test-ssh.sh" login &&
		[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] && test_grep "switch it first" "$TEST_TMP/out"
	'
	test_expect "$bname: back to the system OpenSSH restarts the server with it; cleanup leaves the host as before" '
		pid=$("$KIT_DIR/start-ssh.sh" status | sed -n "s/^pid=//p") &&
		OPENSSH_PREFIX= "$KIT_DIR/start-ssh.sh" -q >/dev/null &&
		"$KIT_DIR/start-ssh.sh" status >st && test_grep -x "openssh_prefix=" st &&
		test_grep ! -x "pid=$pid" st &&
		"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
		host_snapshot >"$TEST_TMP/after" && test_cmp "$TEST_TMP/before" "$TEST_TMP/after" &&
		{ waits_for 5 eval "kit_processes >\"\$TEST_TMP/left\"; [ ! -s \"\$TEST_TMP/left\" ]" || true; } &&
		test_cmp /dev/null "$TEST_TMP/left"
	'
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1 || true
}

# The SERVER_CONFIG=host layout test (the build's own sshd_config, its
# Includes read in place) runs on these upstream releases; on 8.7p1 the
# RHEL build runs it with RHEL's layout. Upstream's sshd_config holds two
# lines, so HOST_TESTS are enough to see the layout, the server facts and
# a login and sftp through it; the 13 tests of the same build run with the
# kit's configuration (the matrix stays near 7 minutes with a warm cache).
HOST_LAYOUT=${OPENSSH_HOST_LAYOUT:-9.9p1 10.5p1}
HOST_TESTS="login sftp"

# OPENSSH_MATRIX_VERSIONS: the upstream releases to measure (all that the
# README lists when unset), for a shorter run: 8.7p1 alone is the one
# Red Hat's build patches and is told from. Red Hat's build is measured
# in any case.
runs=""
while read -r sum file; do
	ver=${file#openssh-}
	ver=${ver%.tar.gz}
	prefix=""
	if [ -n "${OPENSSH_MATRIX_VERSIONS:-}" ] && ! case " $OPENSSH_MATRIX_VERSIONS " in *" $ver "*) true ;; *) false ;; esac; then
		test_skip "$ver: build, quick suite, life cycle, bad input" "not in OPENSSH_MATRIX_VERSIONS ($OPENSSH_MATRIX_VERSIONS); make check-openssh without it measures every release"
		continue
	fi
	if [ ! -f "$SOURCES/$file" ]; then
		test_skip "$ver: build, quick suite, life cycle, bad input" "$SOURCES/$file is missing"
		continue
	fi
	test_expect "$ver: sha256 as in the README, built (or found in the cache)" '
		t0=$SECONDS &&
		"$TEST_DIR/openssh/build.sh" "$SOURCES/$file" "$sum" >"$TEST_TMP/prefix-$ver" &&
		p=$(cat "$TEST_TMP/prefix-$ver") && [ -x "$p/sbin/sshd" ] &&
		"$p/bin/ssh" -V >ssh-V 2>&1 && test_grep "^OpenSSH_$ver" ssh-V &&
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
		[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] && test_grep "missing bin/sftp" "$TEST_TMP/out" &&
		if [ -x "$prefix/libexec/sshd-session" ]; then
			fake_prefix "$prefix" "$TEST_TMP/fake2-$ver" libexec/sshd-session &&
			expect_status 2 env OPENSSH_PREFIX="$TEST_TMP/fake2-$ver" "$KIT_DIR/start-ssh.sh" &&
			[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] && test_grep "libexec/sshd-session" "$TEST_TMP/out"
		fi &&
		expect_status 2 env OPENSSH_PREFIX=relative/path "$KIT_DIR/start-ssh.sh" &&
		[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] && test_grep "OPENSSH_PREFIX" "$TEST_TMP/out" &&
		host_snapshot >"$TEST_TMP/after" && test_cmp "$TEST_TMP/before" "$TEST_TMP/after"
	'

	if case " $HOST_LAYOUT " in *" $ver "*) true ;; *) false ;; esac; then
		# Upstream's sshd_config leaves UsePAM at its default, no; sshd
		# without PAM refuses an account whose password is locked, as the
		# kit keeps its own user's between the password tests. The
		# administrator's way to change that is SSHD_OPTIONS.
		SSHD_OPTIONS="UsePAM yes" measure "$ver host" "$prefix" "$ver" host "$HOST_TESTS"
	fi
	measure "$ver" "$prefix" "$ver" kit
	[ -z "$run" ] || runs="$runs $run"
	life_cycle "$ver" "$prefix" kit
done <"$TEST_TMP/tarballs"

# Red Hat's 8.7p1 (RHEL 9's openssh package): its patches on upstream's
# tarball, RHEL's layout (libexec/openssh) and files, in three runs: the
# kit's configuration, RHEL's own (SERVER_CONFIG=host: its sshd_config,
# sshd_config.d/50-redhat.conf and the crypto policy it includes), and the
# same with the FIPS policy back-end in place of DEFAULT.
RHEL_SOURCES=${RHEL_OPENSSH_SOURCES:-$KIT_DIR/../shared/vendor/rhel9-openssh}
rhel_tarball=$(awk '$2 == "openssh-8.7p1.tar.gz" { print $1 }' "$TEST_TMP/tarballs")
if [ ! -f "$RHEL_SOURCES/SPECS/openssh.spec" ]; then
	test_skip 'RHEL 9 8.7p1: build, quick suite (kit, host, FIPS), life cycle' "no RHEL openssh package sources: $RHEL_SOURCES/SPECS/openssh.spec is missing (set RHEL_OPENSSH_SOURCES to the folder with SPECS/, SOURCES/ and config/)"
elif [ -z "$rhel_tarball" ] || [ ! -f "$SOURCES/openssh-8.7p1.tar.gz" ]; then
	test_skip 'RHEL 9 8.7p1: build, quick suite (kit, host, FIPS), life cycle' "the upstream tarball it patches, $SOURCES/openssh-8.7p1.tar.gz, is missing or not in $SOURCES/README.md"
else
	export RHEL_SOURCES rhel_tarball
	test_expect 'rhel9: every patch of the spec applied, sha256 checked, built (or found in the cache)' '
		t0=$SECONDS &&
		"$TEST_DIR/openssh/build-rhel9.sh" "$RHEL_SOURCES" "$SOURCES/openssh-8.7p1.tar.gz" "$rhel_tarball" >"$TEST_TMP/prefix-rhel9" &&
		p=$(head -n 1 "$TEST_TMP/prefix-rhel9") && [ -x "$p/sbin/sshd" ] && [ -x "$p/libexec/openssh/sftp-server" ] &&
		"$p/bin/ssh" -V >ssh-V 2>&1 && test_grep "^OpenSSH_8.7p1" ssh-V &&
		echo "# rhel9: build-rhel9.sh took $((SECONDS - t0)) s" >>"$TEST_TMP/timings"
	'
	prefix=$(head -n 1 "$TEST_TMP/prefix-rhel9" 2>/dev/null)
	fips=$(sed -n 2p "$TEST_TMP/prefix-rhel9" 2>/dev/null)
	export prefix fips
	if [ -z "$prefix" ] || [ ! -x "$prefix/sbin/sshd" ]; then
		test_skip 'rhel9: quick suite (kit, host, FIPS), life cycle' 'the build failed'
	else
		test_expect 'rhel9: RHEL s files below the prefix: sshd_config with its drop-in and policy, ssh_config, PAM with Debian s common-*' '
			test_grep -x "Include $prefix/etc/ssh/sshd_config.d/\*.conf" "$prefix/etc/ssh/sshd_config" &&
			test_grep -x "Include $prefix/etc/crypto-policies/back-ends/opensshserver.config" "$prefix/etc/ssh/sshd_config.d/50-redhat.conf" &&
			[ "$(readlink "$prefix/etc/crypto-policies/back-ends/opensshserver.config")" = "$prefix/share/crypto-policies/DEFAULT/opensshserver.txt" ] &&
			[ "$(readlink "$fips/etc/crypto-policies/back-ends/opensshserver.config")" = "$prefix/share/crypto-policies/FIPS/opensshserver.txt" ] &&
			test_grep "^Include $prefix/etc/ssh/ssh_config.d/\*.conf" "$prefix/etc/ssh/ssh_config" &&
			test_grep "Include $prefix/etc/crypto-policies/back-ends/openssh.config" "$prefix/etc/ssh/ssh_config.d/50-redhat.conf" &&
			! grep -E "^[^#].*(password-auth|postlogin)" "$prefix/etc/pam.d/sshd" &&
			test_grep -E "^auth[[:space:]]+substack[[:space:]]+common-auth$" "$prefix/etc/pam.d/sshd" &&
			for f in $(sed -n "s/^[a-z]*[[:space:]]*\(include\|substack\)[[:space:]]*//p" "$prefix/etc/pam.d/sshd"); do
				[ -f "/etc/pam.d/$f" ] || { echo "/etc/pam.d/$f does not exist"; exit 1; }
			done
		'
		test_expect 'rhel9: bad input: the RHEL layout without bin/sftp, or without any sftp-server, is one line, exit 2' '
			mkdir -p "$TEST_TMP/fake-rhel/sbin" "$TEST_TMP/fake-rhel/bin" "$TEST_TMP/fake-rhel/libexec/openssh" &&
			ln -s "$prefix/sbin/sshd" "$TEST_TMP/fake-rhel/sbin/sshd" && ln -s "$prefix/bin/ssh" "$TEST_TMP/fake-rhel/bin/ssh" &&
			ln -s "$prefix/bin/ssh-keygen" "$TEST_TMP/fake-rhel/bin/ssh-keygen" &&
			expect_status 2 env OPENSSH_PREFIX="$TEST_TMP/fake-rhel" "$KIT_DIR/start-ssh.sh" &&
			[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] && test_grep "missing bin/sftp libexec/sftp-server (or libexec/openssh/sftp-server)" "$TEST_TMP/out" &&
			ln -s "$prefix/libexec/openssh/sftp-server" "$TEST_TMP/fake-rhel/libexec/openssh/sftp-server" &&
			expect_status 2 env OPENSSH_PREFIX="$TEST_TMP/fake-rhel" "$KIT_DIR/start-ssh.sh" &&
			[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] && test_grep "missing bin/sftp (" "$TEST_TMP/out" &&
			host_snapshot >"$TEST_TMP/after" && test_cmp "$TEST_TMP/before" "$TEST_TMP/after"
		'
		# Red Hat's audit patch ends a login whose audit record the
		# kernel refuses for another reason than no audit support: as
		# root without CAP_AUDIT_WRITE (EPERM), as in a container that
		# drops the capability. It does so in that connection's own sshd
		# process; the listener stays up. The kit's start then fails with
		# sshd's line and the fix, and leaves the host as it was.
		test_expect 'rhel9: without CAP_AUDIT_WRITE every login ends at the audit patch; start says so and how to fix it, exit 1, host unchanged' '
			host_snapshot >"$TEST_TMP/before-audit" &&
			expect_status 1 capsh --drop=cap_audit_write -- -c "OPENSSH_PREFIX=$prefix \"$KIT_DIR/start-ssh.sh\"" &&
			grep -E "a login as $TEST_USER failed: .*sshd logged: .*(linux_audit_write_entry failed|cannot write into audit)" "$TEST_TMP/out" &&
			test_grep "give it CAP_AUDIT_WRITE" "$TEST_TMP/out" &&
			"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
			host_snapshot >"$TEST_TMP/after-audit" && test_cmp "$TEST_TMP/before-audit" "$TEST_TMP/after-audit"
		'
		measure "rhel9" "$prefix" 8.7p1 kit
		[ -z "$run" ] || runs="$runs $run"
		# Both builds call themselves OpenSSH_8.7p1 and no package owns
		# either: the RHEL build's openssh-release (its spec's
		# Version-Release, which the sources' README names too) tells
		# them apart in the report and results.json.
		if [ ! -s "$TEST_TMP/run-8.7p1" ]; then
			test_skip "rhel9: the report and --compare tell it from upstream 8.7p1" "upstream 8.7p1 was not measured${OPENSSH_MATRIX_VERSIONS:+ (OPENSSH_MATRIX_VERSIONS=$OPENSSH_MATRIX_VERSIONS)}"
		else
			test_expect "rhel9: the report's OpenSSH build row names Red Hat's release and differs from upstream 8.7p1's" '
				want=$(sed -n "s/.*import openssh-\([^\"]*\)\".*/\1/p" "$RHEL_SOURCES/README.md" | head -n 1) && [ -n "$want" ] &&
				[ -n "$run" ] && up=$(cat "$TEST_TMP/run-8.7p1") && [ -n "$up" ] &&
				grep "^| OpenSSH build |" "$run/report.md" | sed "s|$prefix|PREFIX|g" >rhel.row &&
				grep "^| OpenSSH build |" "$up/report.md" | sed "s|$(cat "$TEST_TMP/prefix-8.7p1")|PREFIX|g" >up.row &&
				test_grep -F "; its \`openssh-release\` says \"openssh $want (Red Hat'"'"'s sources)\"" rhel.row &&
				test_grep ! -F "openssh-release" up.row &&
				! cmp -s rhel.row up.row &&
				python3 -c "import json, sys
e = json.load(open(sys.argv[1]))[\"environment\"]
assert e[\"openssh_origin\"] == \"openssh \" + sys.argv[2] + \" (Red Hat\x27s sources)\", e.get(\"openssh_origin\")
assert \"openssh_origin\" not in json.load(open(sys.argv[3]))[\"environment\"]" "$run/results.json" "$want" "$up/results.json"
			'
			# The same ssh -V on both sides: --compare still names two builds,
			# by what the RHEL build says of itself.
			test_expect "rhel9: --compare of upstream 8.7p1 and the RHEL build says they are two builds and names Red Hat's release" '
				[ -n "$run" ] && up=$(cat "$TEST_TMP/run-8.7p1") && [ -n "$up" ] &&
				out=$("$KIT_DIR/test-ssh.sh" --compare "$up" "$run") &&
				head -n 1 "$out" >head.line &&
				test_grep -F "different OpenSSH builds: OpenSSH_8.7p1" head.line &&
				test_grep -F "(Red Hat'"'"'s sources)) (B)" head.line
			'
		fi
		measure "rhel9 host" "$prefix" 8.7p1 host
		test_expect "rhel9 host: RHEL's drop-in and the crypto policy it includes are read in place; the report names the build's sshd_config" '
			test_grep -x "# ---- from $prefix/etc/ssh/sshd_config.d/50-redhat.conf" "$SSHD_CONFIG" &&
			test_grep -x "# ---- from $prefix/etc/crypto-policies/back-ends/opensshserver.config" "$SSHD_CONFIG" &&
			[ -n "$run" ] && test_grep -F "$prefix/etc/ssh/sshd_config (found through the build of OPENSSH_PREFIX" "$run/report.md" &&
			test_grep -x "sshd_gssapiauthentication=yes" "$run/data/environment.env" &&
			test_grep -x "realsshd_usepam=yes" "$run/data/environment.env"
		'
		# A RHEL host with the FIPS policy is in FIPS mode, which refuses
		# Ed25519 keys: the kit's FIPS_FLAG_FILE takes that path here,
		# where the kernel cannot be put in FIPS mode.
		echo 1 >"$TEST_TMP/fips_enabled"
		export FIPS_FLAG_FILE="$TEST_TMP/fips_enabled"
		measure "rhel9 FIPS" "$fips" 8.7p1 host
		test_expect "rhel9 FIPS: the test server and the report have the FIPS policy's ciphers and key exchanges" '
			[ -n "$run" ] &&
			want=$(sed -n "s/^Ciphers //p" "$prefix/share/crypto-policies/FIPS/opensshserver.txt") && [ -n "$want" ] &&
			test_grep -x "sshd_ciphers=$want" "$run/data/environment.env" &&
			want=$(sed -n "s/^KexAlgorithms //p" "$prefix/share/crypto-policies/FIPS/opensshserver.txt") && [ -n "$want" ] &&
			test_grep -x "sshd_kexalgorithms=$want" "$run/data/environment.env" &&
			test_grep ! "chacha20" "$run/data/environment.env"
		'
		life_cycle "rhel9 FIPS" "$fips" host
		unset FIPS_FLAG_FILE
	fi
fi

# shellcheck disable=SC2086 # a list of run folders
set -- $runs
if [ "$#" -ge 2 ]; then
	export A=$1 B=$2
	test_expect 'test-ssh.sh --compare of runs of two builds says so in its first line' '
		out=$("$KIT_DIR/test-ssh.sh" --compare "$A" "$B") &&
		head -n 1 "$out" >first && test_grep "^# Comparison of two sshd-perf-kit runs of different OpenSSH builds: OpenSSH_.* (A) and OpenSSH_.* (B)$" first
	'
else
	test_skip 'test-ssh.sh --compare of runs of two builds says so in its first line' 'fewer than two builds were measured'
fi

cat "$TEST_TMP/timings" 2>/dev/null
test_done
