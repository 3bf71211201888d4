#!/usr/bin/env bash
# The test harness itself (tests/lib/harness.sh): each check passes when
# it should, and when it fails the test fails and its output says what the
# check saw. The cleanups run however a test or a file ends. Each case is a
# small test file, run as its own bash, whose output is compared.
. "$(dirname "$0")/lib/harness.sh"

# run_case NAME BODY: a test file with one test (BODY), run; its output in
# NAME.out, its exit status in NAME.rc.
run_case () {
	local rc=0
	cat >"$1.sh" <<-EOF
	. "$TEST_DIR/lib/harness.sh"
	test_expect '$1' '
	$2
	'
	test_done
	EOF
	bash "$1.sh" >"$1.out" 2>&1 || rc=$?
	echo "$rc" >"$1.rc"
	cat "$1.out"
}

# fails NAME BODY: the case's one test fails, and the file exits 1.
fails () {
	run_case "$@" &&
	test_grep "^not ok 1 - $1: $1 (exit [0-9]*)\$" "$1.out" &&
	test_grep -x "# passed=0 failed=1 skipped=0" "$1.out" &&
	test_eq "$(cat "$1.rc")" 1
}

# passes NAME BODY: the case's one test passes, and the file exits 0.
passes () {
	run_case "$@" &&
	test_grep -x "ok 1 - $1: $1" "$1.out" &&
	test_eq "$(cat "$1.rc")" 0
}

test_expect 'test_grep passes on a match; test_grep ! on none' '
	printf "one\ntwo\n" >f &&
	test_grep -x two f && test_grep ! -x three f &&
	passes grep-ok "printf \"one\\ntwo\\n\" >f && test_grep ^t f && test_grep ! ^x f"
'

test_expect 'test_grep without a match fails, with the pattern and the file' '
	fails grep-miss "printf \"alpha\\nbeta\\n\" >f && test_grep -E \"^gam+a\$\" f" &&
	test_grep -F "#    test_grep: no line matches: grep '"'"'-E'"'"' '"'"'^gam+a\$'"'"' '"'"'f'"'"'" grep-miss.out &&
	test_grep -x "#      | alpha" grep-miss.out && test_grep -x "#      | beta" grep-miss.out
'

test_expect 'test_grep ! with a match fails, with the lines that matched' '
	fails grep-found "printf \"alpha\\nbeta\\n\" >f && test_grep ! beta f" &&
	test_grep "test_grep: lines match, and none should: grep .beta. .f." grep-found.out &&
	test_grep -x "#      | 2:beta" grep-found.out && test_grep ! "| alpha" grep-found.out
'

test_expect 'test_grep on a missing file or a bad pattern fails and says so' '
	fails grep-nofile "test_grep x nothing-here" &&
	test_grep "test_grep: no file nothing-here" grep-nofile.out &&
	fails grep-bad "echo x >f && test_grep ! -E \"(\" f" &&
	test_grep "test_grep: grep failed (exit 2)" grep-bad.out
'

test_expect 'test_cmp shows the difference: - expected, + actual' '
	fails cmp "printf \"a\\nb\\n\" >expect && printf \"a\\nc\\n\" >actual && test_cmp expect actual" &&
	test_grep -x "#    --- expected expect" cmp.out && test_grep -x "#    +++ actual actual" cmp.out &&
	test_grep -x "#    -b" cmp.out && test_grep -x "#    +c" cmp.out &&
	fails cmp-missing "echo a >expect && test_cmp expect actual" &&
	test_grep "test_cmp: no file actual" cmp-missing.out &&
	passes cmp-same "echo a >expect && echo a >actual && test_cmp expect actual"
'

test_expect 'test_eq, test_kv and verbose print what they got' '
	fails eq "test_eq \"\$(echo 5)\" 6" &&
	test_grep -x "#    test_eq: got .5., expected .6." eq.out &&
	fails kv "printf \"refused=2\\nrefused=5\\nok=1\\n\" >c.env && test_kv c.env ok 1 && test_kv c.env refused 6" &&
	test_grep -x "#    test_kv: c.env: refused is .5., expected .6." kv.out &&
	test_grep -x "#      | ok=1" kv.out &&
	fails kv-none "echo ok=1 >c.env && test_kv c.env refused 6" &&
	test_grep "test_kv: c.env has no line refused=" kv-none.out &&
	passes kv-ok "printf \"a=1\\na=2\\n\" >c.env && test_kv c.env a 2 && test_eq x x" &&
	fails verbose "verbose test -x /nonexistent" &&
	test_grep -x "#    verbose: command failed (exit 1): .test. .-x. ./nonexistent." verbose.out &&
	passes verbose-ok "verbose test -d ."
'

test_expect 'test_verdict_exit takes 0, 1 and 3, and shows any other status with the end of the output' '
	passes verdict-ok "test_verdict_exit 0 && test_verdict_exit 1 x.out && test_verdict_exit 3" &&
	seq 1 30 >run.out &&
	fails verdict-2 "test_verdict_exit 2 $PWD/run.out" &&
	test_grep "#    test_verdict_exit: test-ssh.sh exited 2, not 0, 1 or 3 (a verdict); the end of .*run.out:" verdict-2.out &&
	test_grep -x "#      | 30" verdict-2.out && test_grep -x "#      | 11" verdict-2.out && test_grep ! -x "#      | 10" verdict-2.out &&
	fails verdict-none "test_verdict_exit \"\" $PWD/nothing.out" &&
	test_grep "exited (no status)" verdict-none.out && test_grep "(no file .*nothing.out)" verdict-none.out
'

test_expect 'auth_logins: the setting, or the last stage taken for the staged method' '
	mkdir -p run/data && printf "staged_method=password\nstages=1\nstages=2\n" >run/data/auth.env &&
	test_eq "$(auth_logins run password 3)" "$(. "$KIT_DIR/lib/measure.sh" && stage_plan 3 95 | cut -d " " -f 2)" &&
	test_eq "$(auth_logins run ed25519 3)" 3 &&
	echo stages=1 >>run/data/auth.env && test_eq "$(auth_logins run password 3)" 3 &&
	test_eq "$(auth_logins nothing-here rsa 5)" 5
'

test_expect 'q_to_tab: a here-doc fixture with Q for tab' '
	q_to_tab >got <<-EOF &&
	aQb
	QcQ
	EOF
	printf "a\tb\n\tc\t\n" >want && test_cmp want got
'

test_expect 'test_when_finished runs after the test, newest first, when it passes and when it fails' '
	passes fin-ok "test_when_finished \"echo first >>$PWD/fin-ok.log\" &&
		test_when_finished \"echo second >>$PWD/fin-ok.log\" && echo body >>$PWD/fin-ok.log" &&
	printf "body\nsecond\nfirst\n" >want && test_cmp want fin-ok.log &&
	fails fin-fail "v=kept && test_when_finished \"echo cleaned \\\$v >$PWD/fin-fail.log\" && false && echo not-reached" &&
	test_eq "$(cat fin-fail.log)" "cleaned kept" &&
	fails fin-loop "for i in 1 2 3; do test \$i -lt 2 || return 1; done; echo after-the-loop" &&
	test_grep ! after-the-loop fin-loop.out &&
	fails fin-exit "test_when_finished \"echo ran >$PWD/fin-exit.log\" && exit 3" &&
	test_eq "$(cat fin-exit.log)" ran
'

test_expect 'test_when_finished: a failing cleanup fails the test; outside a test body it is a bug' '
	fails fin-bad "test_when_finished false && true" &&
	test_grep "test_when_finished: the cleanup failed: false" fin-bad.out &&
	fails fin-sub "echo x | while read -r l; do test_when_finished true || return 1; done" &&
	test_grep "only in a test body, not in a subshell of it" fin-sub.out
'

# host_unchanged and no_kit_processes (tests/lib/snapshot.sh), with the
# host's snapshot and the kit's processes played by files.
test_expect 'host_unchanged shows what changed; no_kit_processes what is left' '
	passes host-same ". \"$TEST_DIR/lib/snapshot.sh\" && host_snapshot () { cat $PWD/host; } &&
		echo \"user a\" >$PWD/host && host_snapshot_save && host_unchanged" &&
	fails host-changed ". \"$TEST_DIR/lib/snapshot.sh\" && host_snapshot () { cat $PWD/host; } &&
		echo \"user a\" >$PWD/host && host_snapshot_save && echo \"user b\" >>$PWD/host && host_unchanged" &&
	test_grep -x "#    +user b" host-changed.out &&
	fails host-nosave ". \"$TEST_DIR/lib/snapshot.sh\" && host_unchanged later" &&
	test_grep "host_unchanged: no snapshot later (host_snapshot_save first)" host-nosave.out &&
	fails kit-left ". \"$TEST_DIR/lib/snapshot.sh\" && kit_processes () { echo \$\$; } && no_kit_processes" &&
	test_grep "no_kit_processes: processes with the kit.s sshd config are left:" kit-left.out &&
	test_grep -E "^#      \| +[0-9]+ .*bash" kit-left.out &&
	passes kit-none ". \"$TEST_DIR/lib/snapshot.sh\" && kit_processes () { :; } && no_kit_processes"
'

# The file's shell runs the test_atexit commands, and removes its TEST_TMP,
# at its last line and when a TERM ends it; a TERM to a test ends the test
# through its cleanups too.
test_expect 'test_atexit runs at the end of the file, newest first, then TEST_TMP goes' '
	cat >atexit.sh <<-EOF &&
	. "$TEST_DIR/lib/harness.sh"
	echo "\$TEST_TMP" >"$PWD/atexit.tmp"
	test_atexit "echo first >>$PWD/atexit.log"
	test_expect "adds one" "test_atexit \"echo second >>$PWD/atexit.log\""
	test_done
	EOF
	bash atexit.sh &&
	printf "second\nfirst\n" >want && test_cmp want atexit.log &&
	test ! -e "$(cat atexit.tmp)"
'

test_expect 'a TERM during a test: its test_when_finished and the file'"'"'s test_atexit run' '
	cat >term.sh <<-EOF
	. "$TEST_DIR/lib/harness.sh"
	test_atexit "echo atexit >>$PWD/term.log"
	test_expect "waits" "sleep 120 & sp=\\\$! && test_when_finished \"kill \\\$sp\" &&
		test_when_finished \"echo finished >>$PWD/term.log\" && echo \\\$BASHPID >$PWD/term.pid && wait \\\$sp"
	test_done
	EOF
	bash term.sh >term.out 2>&1 &
	pid=$! &&
	waited=0 && until [ -s term.pid ] || [ "$waited" -ge 600 ]; do sleep 0.1; waited=$((waited + 1)); done &&
	kill -TERM "$(cat term.pid)" "$pid" &&
	rc=0 && { wait "$pid" || rc=$?; } &&
	cat term.out && test_eq "$rc" 143 &&
	printf "finished\natexit\n" >want && test_cmp want term.log
'


# docs/testing.md: cleanup is the harness's (test_atexit); a test file's own
# trap would replace the harness's EXIT trap, and its test_atexit commands
# and the removal of TEST_TMP would never run.
# test_claim_ (host_kit_test): a second run of the tests does not take an
# instance that a live test file holds; a claim whose pid is gone, or now
# another program's, is stale and taken over; a test file that the holder
# runs leaves the claim its caller's; the claim goes when its file ends.
# As root only (the claim is in /run).
test_expect 'an instance held by a live test file is not taken; a stale claim is' '
	if [ "$(id -u)" -ne 0 ]; then echo "# not root: nothing to check"; exit 0; fi
	d=/run/lock; [ -d "$d" ] || d=/run
	claim="$d/sshperf-t01claim.tests"
	sleep 60 &
	holder=$!
	test_when_finished "rm -f $claim; kill $holder 2>/dev/null; wait $holder 2>/dev/null; true"
	printf "%s sleep 60\n" "$holder" >"$claim" &&
	cat >claim.sh <<-EOF &&
	. "$TEST_DIR/lib/harness.sh"
	TEST_INSTANCE=t01claim
	test_claim_ || exit 1
	cat "$claim"
	EOF
	{ bash claim.sh >held.out 2>&1; echo "rc=$?" >>held.out; } &&
	test_grep "^not ok - the test instance t01claim is in use by another run of the tests on this machine (pid $holder: sleep 60); run one at a time" held.out &&
	test_grep -x "rc=1" held.out &&
	test_grep -x "$holder sleep 60" "$claim" &&
	printf "%s sleep 61\n" "$holder" >"$claim" &&
	cat >inner.sh <<-EOF &&
	. "$TEST_DIR/lib/harness.sh"
	TEST_INSTANCE=t01claim
	test_claim_ || exit 1
	EOF
	echo "bash inner.sh; cat \"$claim\"" >>claim.sh &&
	bash claim.sh >stale.out 2>&1 &&
	test_grep "^[0-9]* bash claim.sh\$" stale.out &&
	test_eq "$(sed -n 1p stale.out)" "$(sed -n 2p stale.out)" &&
	{ [ ! -e "$claim" ] || { echo "the claim is left: $(cat "$claim")"; false; }; }
'

# traps_in FILE...: "FILE:LINE:text" of each command that sets a trap: at
# the start of a line (indented or not: every test body is) or after ; & |
# ( { or a keyword, never in a comment.
traps_in () {
	grep -nHE "(^[[:space:]]*|[;&|({][[:space:]]*|(then|do|else)[[:space:]]+)trap[[:space:]]" "$@" |
		grep -vE "^[^:]*:[0-9]+:[[:space:]]*#" || :
}

test_expect 'the trap scan finds a planted trap, indented or after ; or then, and not a comment' '
	# TRAP for trap, so that this file does not plant them in itself
	q_to_tab <<-\EOF | sed "s/TRAP/trap/" >planted.sh &&
	TRAP "rm -f x" EXIT
	QTRAP cleanup EXIT
	test_expect "x" "
	Q	TRAP \"echo\" TERM
	"
	true; TRAP - INT
	if true; then TRAP : HUP; fi
	Q# TRAP in a comment
	echo "no TRAP here"
	EOF
	traps_in planted.sh | cut -d: -f1,2 >got &&
	printf "%s\n" planted.sh:1 planted.sh:2 planted.sh:4 planted.sh:6 planted.sh:7 >want &&
	test_cmp want got
'

test_expect 'no test file sets a trap of its own (test_atexit is the one cleanup)' '
	traps_in "$TEST_DIR"/t[0-9]*.sh "$TEST_DIR"/check-*.sh \
		$(grep -l "lib/harness.sh" "$TEST_DIR"/openssh/*.sh) >traps &&
	test_cmp /dev/null traps
'

# bare_greps_in FILE...: "FILE: text" of each line where a grep -q checks
# something and says nothing when it fails (docs/style.md rule 13): not
# in an if, elif, while, until or waits_for (which says what it waited
# for), not followed by || (a message, or another way to pass), not a
# filter whose && prints; never a comment, nor a fixture line (Q...).
bare_greps_in () {
	awk '
	/^[[:space:]]*(#|Q)/ { next }
	$0 !~ /(^|[^_[:alnum:]-])grep -[q]/ { next }
	/(^|[[:space:]])(if|elif|while|until|waits_for)[[:space:]]/ { next }
	{
		rest = $0
		sub(/.*grep -[q]/, "", rest)
		if (rest ~ /[|][|]/ || rest ~ /&&[[:space:]]*(echo|printf)[[:space:]]/) next
		f = FILENAME
		sub(/.*[/]/, "", f)
		print f ": " $0
	}' "$@"
}

test_expect 'the bare grep scan finds a planted quiet grep that fails silently, and no other' '
	# GREPS for the grep, so that this file does not plant them in itself
	q=q &&
	q_to_tab <<-\EOF | sed "s/GREPS/grep -$q/" >planted.sh &&
	GREPS "one" f &&
	Q! GREPSx "two" f
	Qcmd | GREPSF "three"
	Q{ [ -z "$x" ] || GREPS "four" f; } &&
	if GREPS x f; then :; fi
	QGREPS x f || { echo "x is missing"; return 1; }
	Qwaits_for 60 GREPS x f &&
	Qps | GREPS x && echo "$p"
	Q# GREPS in a comment
	EOF
	q_to_tab <<-\EOF | sed "s/GREPS/grep -$q/" >want &&
	planted.sh: GREPS "one" f &&
	planted.sh: Q! GREPSx "two" f
	planted.sh: Qcmd | GREPSF "three"
	planted.sh: Q{ [ -z "$x" ] || GREPS "four" f; } &&
	EOF
	bare_greps_in planted.sh >got &&
	test_cmp want got
'

# Lines where a quiet grep is no check: a predicate that a wait polls
# (the grep spelled through $quiet, so that this line is not one).
quiet=-q
printf '%s\t%s\n' "t62-wire.sh: " \
	"ip netns exec \"\$WIRE_NS\" iptables -t mangle -S PREROUTING 2>/dev/null | grep $quiet NFQUEUE" >"$TEST_TMP/bare-allowed"

# How many quiet greps in the test files may still check something
# silently: none (issue 43). It only goes down.
# shellcheck disable=SC2034 # read in the test body below (eval)
BARE_GREPS_LEFT=0

test_expect 'every quiet grep that checks something in a test file says what it saw (test_grep)' '
	{ bare_greps_in "$TEST_DIR"/t[0-9]*.sh "$TEST_DIR"/check-*.sh \
		$(grep -l "lib/harness.sh" "$TEST_DIR"/openssh/*.sh) | grep -vxFf "$TEST_TMP/bare-allowed" || :; } >bare &&
	if [ "$BARE_GREPS_LEFT" -eq 0 ]; then
		test_cmp /dev/null bare
	else
		cat bare &&
		{ [ "$(wc -l <bare)" -le "$BARE_GREPS_LEFT" ] ||
			{ echo "$(wc -l <bare) quiet greps above check something and say nothing when it fails; at most $BARE_GREPS_LEFT may: make the new ones test_grep"; false; }; }
	fi
'

test_done
