#!/usr/bin/env bash
# shellcheck disable=SC2034 # names used only inside the eval'd test bodies
# The command sshd-perf-kit of a checkout, the man pages and the bash
# completion, without a test server and without changing the host:
# --version everywhere from the spec's Version, the command hands over to
# the scripts (same messages, same exit codes, settings as NAME=value),
# sshd-perf-kit.conf(5) holds exactly the settings of settings.conf and
# lib/settings.schema with their forms and defaults (and the generator
# stops on a difference), both pages render without warnings, and the
# completion completes commands, tests and settings.
. "$(dirname "$0")/lib/harness.sh"

CMD="$KIT_DIR/sshd-perf-kit"
VERSION=$(sed -n 's/^Version:[[:space:]]*//p' "$KIT_DIR/sshd-perf-kit.spec")
SCHEMA="$KIT_DIR/lib/settings.schema"
CONF5="$BUILD_DIR/man/sshd-perf-kit.conf.5"
MAN8="$BUILD_DIR/man/sshd-perf-kit.8"
make -s -C "$KIT_DIR" all >"$TEST_TMP/make.out" 2>&1 || { cat "$TEST_TMP/make.out"; exit 1; }

test_expect '--version: the command, both scripts and every helper, from the spec s Version' '
	[ -n "$VERSION" ] &&
	test_eq "$("$CMD" version)" "sshd-perf-kit $VERSION" &&
	test_eq "$("$CMD" --version)" "sshd-perf-kit $VERSION" &&
	test_eq "$("$KIT_DIR/start-ssh.sh" --version)" "start-ssh.sh (sshd-perf-kit) $VERSION" &&
	test_eq "$("$KIT_DIR/test-ssh.sh" --version)" "test-ssh.sh (sshd-perf-kit) $VERSION" &&
	n=0 &&
	for h in "$BUILD_DIR"/sshperf-*; do
		[ "$("$h" --version)" = "$(basename "$h") (sshd-perf-kit) $VERSION" ] || { echo "$h: $("$h" --version 2>&1)"; return 1; }
		n=$((n + 1))
	done &&
	[ "$n" -eq "$(ls "$KIT_DIR"/helpers/*.c | grep -vc "/common\.c$\|/stats\.c$\|/proc\.c$")" ]
'

test_expect 'help lists the tests of test-ssh.sh and the settings of the schema' '
	"$CMD" help >help.txt && test_grep "^usage: sshd-perf-kit COMMAND" help.txt &&
	[ "$("$CMD" help tests | tr "\n" " ")" = "$("$KIT_DIR/test-ssh.sh" --help | sed -n "s/^Tests: //p")" ] &&
	[ "$("$CMD" help settings)" = "$(sed -n "s/^\([A-Z][A-Z0-9_]*\)[[:space:]].*/\1/p" "$SCHEMA")" ] &&
	[ "$("$CMD" help settings | wc -l)" -gt 30 ]
'

test_expect 'bad input: one line, exit 2 (no command, unknown command, option, setting, extra argument)' '
	for args in "" "bogus" "--bogus" "start FOO=1" "stop LOGIN_SAMPLES=3" "status extra" "compare onlyone" "report" "report a b" "fleet" "help nosuch" "version x"; do
		rc=0
		# shellcheck disable=SC2086 # the words of one call
		"$CMD" $args >"out" 2>"err" || rc=$?
		[ "$rc" -eq 2 ] || { echo "sshd-perf-kit $args: exit $rc"; return 1; }
		if [ -n "$args" ]; then
			[ "$(wc -l <err)" -eq 1 ] && test_grep "^sshd-perf-kit: " err || { echo "sshd-perf-kit $args:"; cat err; return 1; }
		fi
	done
'

# The command passes settings, options and test names on: the script's own
# check answers, under the command's name, with the script's exit code.
if [ "$(id -u)" -eq 0 ]; then
	test_expect 'test: a setting given as NAME=value reaches test-ssh.sh; same exit code and message as the script' '
		rc=0; "$CMD" test login LOGIN_SAMPLES=0 >out 2>err || rc=$?
		[ "$rc" -eq 2 ] && test_grep "^sshd-perf-kit test: setting LOGIN_SAMPLES=\"0\" (from the environment) is not valid" err &&
		rc2=0; LOGIN_SAMPLES=0 "$KIT_DIR/test-ssh.sh" login >out2 2>err2 || rc2=$?
		[ "$rc2" -eq "$rc" ] && [ "$(sed "s/^test-ssh.sh: //" err2)" = "$(sed "s/^sshd-perf-kit test: //" err)" ] &&
		rc=0; "$CMD" test nosuch >out 2>err || rc=$?
		[ "$rc" -eq 2 ] && test_grep "^sshd-perf-kit test: unknown test .nosuch.; valid tests: startup login" err
	'
else
	test_skip 'test: a setting given as NAME=value reaches test-ssh.sh' 'needs root (test-ssh.sh checks root first)'
fi

test_expect 'compare A B: the same report and exit code as test-ssh.sh --compare' '
	cp -R "$TEST_DIR/data/runs" runs &&
	"$CMD" compare runs/2026-03-02_101500 runs/2026-03-03_091500 >out &&
	test_eq "$(cat out)" "runs/2026-03-03_091500/compare-2026-03-02_101500.md" &&
	mv "$(cat out)" first.md &&
	"$KIT_DIR/test-ssh.sh" --compare runs/2026-03-02_101500 runs/2026-03-03_091500 >out2 &&
	test_cmp first.md "$(cat out2)" &&
	test_grep "^<!DOCTYPE html>" runs/2026-03-03_091500/compare-2026-03-02_101500.html &&
	rc=0; "$CMD" compare runs/nosuch runs/2026-03-03_091500 2>err || rc=$?
	[ "$rc" -eq 2 ] && test_grep "^sshd-perf-kit compare: runs/nosuch is not a run folder" err
'

test_expect 'report RUN: both reports of a stored run again, as test-ssh.sh --report' '
	mkdir -p rep && cp -R "$TEST_DIR/data/runs/2026-03-02_101500" rep/run &&
	"$CMD" report rep/run >out &&
	test_eq "$(cat out)" "rep/run/report.md
rep/run/report.html" &&
	test_grep "^# OpenSSH server performance report" rep/run/report.md &&
	test_grep "^<!DOCTYPE html>" rep/run/report.html && test -s rep/run/results.json &&
	mv rep/run/report.html first.html &&
	"$KIT_DIR/test-ssh.sh" --report rep/run >out2 && test_cmp out out2 &&
	test_cmp first.html rep/run/report.html &&
	rc=0; "$CMD" report rep/nosuch 2>err || rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && test_grep "^sshd-perf-kit report: rep/nosuch is not a run folder" err
'

test_expect 'fleet DIR: the same fleet report and exit code as test-ssh.sh --fleet' '
	mkdir -p fl && cp -R "$TEST_DIR/data/runs/2026-03-02_101500" fl/a && cp -R "$TEST_DIR/data/runs/2026-03-03_091500" fl/b &&
	"$CMD" fleet fl --factor 2 >out &&
	test_eq "$(cat out)" "fl/fleet-report.md" &&
	grep -v "^| Written | " fl/fleet-report.md >first.md &&
	"$KIT_DIR/test-ssh.sh" --fleet fl --factor 2 >out2 &&
	test_eq "$(cat out2)" "fl/fleet-report.md" &&
	grep -v "^| Written | " fl/fleet-report.md >second.md &&
	test_cmp first.md second.md &&
	test_grep "^| Stands out | a figure worse than 2 x " first.md &&
	rc=0; "$CMD" fleet fl/nosuch 2>err || rc=$?
	[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && test_grep "^sshd-perf-kit fleet: fl/nosuch is not a folder" err
'

test_expect 'load: hands over to test-ssh.sh --load, named as it was called' '
	"$CMD" load --help >help.txt && test_grep "^usage: sshd-perf-kit load --target HOST" help.txt &&
	rc=0 && "$CMD" load login >out 2>err || rc=$? &&
	test_eq "$rc" 2 && test_eq "$(wc -l <err)" 1 &&
	test_grep -x "sshd-perf-kit load: no target: give the target.s test server as --target HOST\[:PORT\]" err &&
	rc=0 && "$KIT_DIR/test-ssh.sh" --load login >out 2>err2 || rc=$? &&
	test_eq "$rc" 2 && test_eq "$(sed "s/^test-ssh.sh --load: //" err2)" "$(sed "s/^sshd-perf-kit load: //" err)"
'

# ---- Man pages ------------------------------------------------------------

test_expect 'both man pages render without a warning (groff -ww)' '
	for p in "$MAN8" "$CONF5"; do
		groff -man -ww -z "$p" 2>err && test_grep ! . err || { echo "$p:"; cat err; return 1; }
	done &&
	test_grep "^\.TH SSHD\\\\-PERF\\\\-KIT 8 .*sshd\\\\-perf\\\\-kit $VERSION" "$MAN8" &&
	! grep -n "@[A-Z]*@" "$MAN8"
'

test_expect 'sshd-perf-kit(8) has the commands, host changes, exit codes, files and examples' '
	for s in NAME SYNOPSIS DESCRIPTION COMMANDS "WHAT IT CHANGES ON THE HOST" "EXIT STATUS" FILES EXAMPLES "SEE ALSO"; do
		test_grep -x "\.SH \"\?$s\"\?" "$MAN8" || { echo "no section $s"; return 1; }
	done &&
	sed "s/\\\\-/-/g" "$MAN8" >man8.txt &&
	for c in start status stop cleanup test report compare fleet load load-watch load-merge version help; do
		test_grep "^\.B.* $c\b\|^\.B $c$" man8.txt || { echo "command $c not described"; return 1; }
	done
'

# The page, read back: NAME, allowed form and default per setting, in the
# order of settings.conf - compared with what the settings helper itself
# says about settings.conf and the schema.
page_settings () {
	awk '/^\.SH SETTINGS/ { on = 1; next } /^\.SH / { on = 0 }
	on && /^\.B [A-Z]/ { name = $2 }
	on && /^Allowed: / { a = $0; sub(/^Allowed: /, "", a); sub(/\.$/, "", a) }
	on && /^Default: / { d = $0; sub(/^Default: /, "", d); sub(/\.$/, "", d); gsub(/\\f[BR]/, "", d); gsub(/"/, "", d)
		if (d == "empty") d = ""
		print name "\t" a "\t" d }' "$1" | sed 's/\\-/-/g; s/\\e/\\/g'
}
helper_settings () {
	"$BUILD_DIR/sshperf-settings" -s "$2" -l >forms &&
	env -i "$BUILD_DIR/sshperf-settings" -s "$2" -f "$1" | grep -v "^SETTINGS_FROM_ENV=" |
		sed "s/^\([A-Z0-9_]*\)='\(.*\)'$/\1\t\2/" >defaults &&
	awk -F"\t" 'NR == FNR { f[$1] = $2; next } { print $1 "\t" f[$1] "\t" $2 }' forms defaults
}
test_expect 'sshd-perf-kit.conf(5): every setting, in order, with the allowed form and default the checks use' '
	page_settings "$CONF5" >got &&
	helper_settings "$KIT_DIR/settings.conf" "$SCHEMA" >want.unordered &&
	grep -o "^[A-Z][A-Z0-9_]*=" "$KIT_DIR/settings.conf" | tr -d = >order &&
	awk -F"\t" "NR == FNR { o[\$1] = FNR; next } { print o[\$1] \"\t\" \$0 }" order want.unordered | sort -n | cut -f2- >want &&
	[ "$(wc -l <want)" -eq "$(grep -c "^[A-Z]" "$SCHEMA")" ] &&
	test_cmp want got &&
	[ "$(grep -c "^Target: test " "$CONF5")" -eq "$(grep -c "^TARGET_" "$SCHEMA")" ]
'

test_expect 'the generated page is up to date: generating it again gives the same file' '
	VERSION="$VERSION" SETTINGS_HELPER="$BUILD_DIR/sshperf-settings" METRICS_DIR="$KIT_DIR/lib/metrics" \
		"$KIT_DIR/man/mkconf5.sh" "$KIT_DIR/settings.conf" "$SCHEMA" >again.5 &&
	test_cmp again.5 "$CONF5"
'

gen () {
	VERSION="$VERSION" SETTINGS_HELPER="$BUILD_DIR/sshperf-settings" METRICS_DIR="$KIT_DIR/lib/metrics" \
		"$KIT_DIR/man/mkconf5.sh" "$1" "$2"
}
test_expect 'a difference between settings.conf and the schema stops the generator (one in one file only, no description)' '
	cp "$KIT_DIR/settings.conf" c && cp "$SCHEMA" s &&
	printf "NEW_KNOB                      int 1 9\n" >>s &&
	! gen c s >/dev/null 2>err && test_grep "NEW_KNOB" err &&
	cp "$SCHEMA" s && grep -v "^LOGIN_TIMEOUT=" "$KIT_DIR/settings.conf" >c &&
	! gen c s >/dev/null 2>err && test_grep "LOGIN_TIMEOUT" err &&
	cp "$KIT_DIR/settings.conf" c && printf "\nUNKNOWN_KNOB=1\n" >>c &&
	! gen c s >/dev/null 2>err && test_grep "UNKNOWN_KNOB" err &&
	awk "/^RATE_WORKERS=/ && prev ~ /^#/ { sub(/.*/, \"\", prev) } NR > 1 { print prev } { prev = \$0 } END { print prev }" "$KIT_DIR/settings.conf" >c &&
	! gen c s >/dev/null 2>err && test_grep "RATE_WORKERS has no description" err &&
	sed "s/^LOGIN_SAMPLES=.*/LOGIN_SAMPLES=0/" "$KIT_DIR/settings.conf" >c &&
	! gen c s >/dev/null 2>err && test_grep "LOGIN_SAMPLES" err &&
	sed "s/^LOGIN_SAMPLES=.*/LOGIN_SAMPLES=7/" "$KIT_DIR/settings.conf" >c &&
	gen c s >changed.5 && ! cmp -s changed.5 "$CONF5" &&
	page_settings changed.5 >changed.txt &&
	test_grep -x "LOGIN_SAMPLES	a whole number from 1 to 100000; never empty	7" changed.txt
'

# ---- Completion -----------------------------------------------------------

# complete_words WORDS...: what the completion offers for the last word.
complete_words () {
	bash -c '. "$1/completion/sshd-perf-kit" || exit 1
		shift
		COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
		_sshd_perf_kit
		printf "%s\n" "${COMPREPLY[@]}"' complete "$KIT_DIR" "$@"
}
test_expect 'bash completion: loads; commands, test names, settings as NAME=, help topics' '
	bash -ic ". \"$KIT_DIR/completion/sshd-perf-kit\" && complete -p sshd-perf-kit" 2>/dev/null >complete.txt &&
	test_grep -x "complete -F _sshd_perf_kit sshd-perf-kit" complete.txt &&
	test_eq "$(complete_words "$CMD" "" | tr "\n" " ")" "start status stop cleanup test report compare fleet load load-watch load-merge version help " &&
	test_eq "$(complete_words "$CMD" st | tr "\n" " ")" "start status stop " &&
	[ "$(complete_words "$CMD" test "" | tr "\n" " ")" = "$("$CMD" help tests | tr "\n" " ")" ] &&
	test_eq "$(complete_words "$CMD" test -q bu)" burst &&
	test_eq "$(complete_words "$CMD" start LOGIN_S)" LOGIN_SAMPLES= &&
	test_eq "$(complete_words "$CMD" test login TARGET_LOGIN)" TARGET_LOGIN_P95_MS= &&
	[ "$(complete_words "$CMD" start "" | wc -w)" -eq 0 ] &&
	test_eq "$(complete_words "$CMD" help "" | tr "\n" " ")" "tests settings " &&
	test_eq "$(complete_words "$CMD" fleet -- | tr "\n" " ")" "--baseline --factor --help " &&
	test_eq "$(complete_words "$CMD" load -- | tr "\n" " ")" "--target --key --user --start-at --burst-clients --help " &&
	test_eq "$(complete_words "$CMD" load --target x ra)" rate &&
	test_eq "$(complete_words "$CMD" load --target x co)" concurrent &&
	[ "$(complete_words "$CMD" fleet x --factor "" | wc -w)" -eq 0 ]
'

test_done
