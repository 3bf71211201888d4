#!/usr/bin/env bash
# Settings come through one door (docs/architecture.md, docs/style.md rule 9):
# load_settings fills the array SETTING and creates no variable of a
# setting's name, and no part of the kit reads or sets a setting as a
# variable of its own name. An environment variable of that name stays
# the user's input. Needs no root and no test server.
. "$(dirname "$0")/lib/harness.sh"
SCHEMA="$KIT_DIR/lib/settings.schema"

# The settings' names, one per line.
names () {
	awk '!/^[[:space:]]*#/ && NF { print $1 }' "$SCHEMA"
}

# The kit's shell files.
kit_files () {
	printf '%s\n' "$KIT_DIR/start-ssh.sh" "$KIT_DIR/test-ssh.sh" "$KIT_DIR/sshd-perf-kit" \
		"$KIT_DIR/install-deps.sh" "$KIT_DIR"/lib/*.sh "$KIT_DIR"/lib/metrics/*.sh \
		"$KIT_DIR"/lib/probes/*.sh "$KIT_DIR"/lib/report/*.sh "$KIT_DIR"/lib/compare/*.sh "$KIT_DIR"/packaging/*.sh "$KIT_DIR"/man/*.sh
}

# bare_settings FILE...: FILE:LINE: TEXT of every code line that reads a
# setting as a variable ($NAME, ${NAME...}, or NAME inside (( )) instead
# of SETTING[NAME]) or sets one (NAME=... as a command or its prefix;
# local, export or declare NAME). Comment lines do not count, nor
# load_settings in lib/common.sh, the one place that passes a RESULTS_DIR
# from the environment on resolved.
bare_settings () {
	perl -e '
		open my $n, "<", shift or die; chomp(my @n = <$n>); my $alt = join "|", @n;
		for my $f (@ARGV) {
			open my $fh, "<", $f or die "$f: $!"; my @l = <$fh>;
			my $door = $f =~ m{(?:^|/)lib/common\.sh$};
			my ($in_load, $j) = (0, 0);
			for (my $i = 0; $i < @l; $i = $j + 1) {
				# Continued lines (backslash-newline) as one.
				my $s = $l[$i]; $j = $i;
				while ($s =~ s/\\\n\z/ / && $j + 1 < @l) { $s .= $l[++$j]; }
				$in_load = 1 if $door && $s =~ /^load_settings \(\) \{/;
				if ($in_load) { $in_load = 0 if $s =~ /^\}/; next; }
				next if $s =~ /^\s*#/;
				my $bad = $s =~ /\$\{?[#!]?(?:$alt)(?!\w)/;
				# Assignments: in the code, not in the text of quotes.
				(my $code = $s) =~ s/\x27[^\x27]*\x27//g;
				$code =~ s/"(?:[^"\\]|\\.)*"//g;
				$bad ||= $code =~ /(?:^|[;&|({]|\b(?:then|do|else|local|export|readonly|declare(?:\s+-\w+)*))\s*(?:$alt)\+?=/;
				$bad ||= $code =~ /\b(?:local|export|readonly|declare(?:\s+-\w+)*)\s+(?:[\w=]+\s+)*(?:$alt)\s*(?:$|;)/;
				while (!$bad && $s =~ /\(\(/g) {
					my ($start, $depth, $k) = (pos($s), 2, pos($s));
					while ($k < length($s) && $depth > 0) {
						my $c = substr($s, $k++, 1);
						$depth++ if $c eq "("; $depth-- if $c eq ")";
					}
					$bad = substr($s, $start, $k - $start) =~ /(?<![\w\$\{\[#])(?:$alt)(?![\w\]])/;
					pos($s) = $k;
				}
				print "$f:", $i + 1, ": $s" if $bad;
			}
		}' <(names) "$@"
}

test_expect 'no part of the kit reads or sets a setting as a variable of its own name' '
	kit_files >files && [ "$(wc -l <files)" -gt 40 ] &&
	bare_settings $(cat files) >bare &&
	test_cmp /dev/null bare
'

test_expect 'the check finds each kind of bare setting, and only those' '
	cat >k.sh <<-\EOF &&
		# $LOGIN_SAMPLES in a comment does not count
		x=${SETTING[LOGIN_SAMPLES]} y=$((SETTING[DURATION] + 1)) z="LOGIN_SAMPLES=5 ./test-ssh.sh" w="(RATE_CLIENT=ssh) && DURATION=3 ./test-ssh.sh"
		a=$LOGIN_SAMPLES
		b="${TEST_USER:-x}"
		c=$((DURATION * 2))
		TEST_PORT=1 helper connect
		local n=3 RATE_WORKERS
		f \
			&& LOGIN_TIMEOUT=5 g
	EOF
	bare_settings "$PWD/k.sh" | cut -d: -f2 | tr "\n" " " >found &&
	test_eq "$(cat found)" "3 4 5 6 7 8 "
'

test_expect 'every key read through the door is a setting of the schema' '
	kit_files >files &&
	grep -hv "^[[:space:]]*#" $(cat files) | grep -o "SETTING\[[A-Za-z0-9_]*\]" | sed "s/^SETTING\[//; s/\]\$//" | sort -u >keys &&
	[ -s keys ] && names | sort >known &&
	comm -23 keys known >unknown && test_cmp /dev/null unknown
'

# load VAR=value...: lib/common.sh sourced in a clean environment (only
# VAR=value... besides PATH), load_settings, then the commands on stdin.
load () {
	env -i PATH=/usr/bin:/bin KIT_DIR="$KIT_DIR" PROG=t03 "$@" \
		bash -c 'set -eu; . "$KIT_DIR/lib/common.sh"; load_settings; eval "$(cat)"'
}

# shellcheck disable=SC2034 # used in the test bodies
# Commands for load: every setting as NAME='value', a line for each
# variable of a setting's name that exists, the number of keys.
dump_settings=$(cat <<'END'
names=$(awk '!/^[[:space:]]*#/ && NF { print $1 }' "$KIT_DIR/lib/settings.schema")
for n in $names; do printf "%s='%s'\n" "$n" "${SETTING[$n]}"; done
for n in $names; do ! declare -p "$n" >/dev/null 2>&1 || echo "a variable $n exists"; done
echo "${#SETTING[@]} keys"
END
)
# What a few settings and the environment look like after load_settings.
# shellcheck disable=SC2034 # used in the test bodies
show_input='printf "%s|%s|%s|%s\n" "${SETTING[LOGIN_SAMPLES]}" "${SETTING[BURST_STEPS]}" "${SETTING[SSHD_OPTIONS]}" "$(printenv LOGIN_SAMPLES)"'
# shellcheck disable=SC2034 # used in the test bodies
show_results='printf "%s|%s\n" "${SETTING[RESULTS_DIR]}" "$(printenv RESULTS_DIR || echo unset)"'

if [ -x "$BUILD_DIR/sshperf-settings" ]; then
	test_expect 'load_settings fills SETTING with every setting and makes no variable of their names' '
		env -i "$BUILD_DIR/sshperf-settings" -s "$SCHEMA" -f "$KIT_DIR/settings.conf" |
			grep -v -e "^SETTINGS_FROM_ENV=" -e "^RESULTS_DIR=" >want &&
		echo "$(names | wc -l) keys" >>want &&
		printf "%s\n" "$dump_settings" | load >all &&
		grep -v "^RESULTS_DIR=" all >got && test_cmp want got
	'

	test_expect 'environment variables are input: they reach SETTING and are left as they were' '
		printf "%s\n" "$show_input" |
			load LOGIN_SAMPLES=5 "BURST_STEPS=5 10" "SSHD_OPTIONS=UseDNS yes;	MaxSessions 20" >got &&
		echo "5|5 10|UseDNS yes;QMaxSessions 20|5" | q_to_tab >want && test_cmp want got
	'

	test_expect 'a relative RESULTS_DIR is made absolute, also for the programs the kit runs' '
		printf "%s\n" "$show_results" | load RESULTS_DIR=some/where >got &&
		test_eq "$(cat got)" "$KIT_DIR/some/where|$KIT_DIR/some/where" &&
		printf "%s\n" "$show_results" | load >got &&
		test_eq "$(cat got)" "$KIT_DIR/results|unset"
	'

	test_expect 'a bad setting from the environment is one line and exit 2' '
		rc=0 && load LOGIN_SAMPLES=many </dev/null >out 2>err || rc=$? &&
		[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] &&
		test_grep "^t03: setting LOGIN_SAMPLES=\"many\" (from the environment)" err
	'
else
	test_skip 'load_settings fills SETTING from sshperf-settings' 'sshperf-settings is not built (make)'
fi

test_expect 'a setting read before load_settings fails, it does not read the environment' '
	rc=0 && env -i PATH=/usr/bin:/bin KIT_DIR="$KIT_DIR" PROG=t03 LOGIN_SAMPLES=5 \
		bash -c "set -eu; . \"\$KIT_DIR/lib/common.sh\"; echo \"\${SETTING[LOGIN_SAMPLES]}\"" >out 2>err || rc=$? &&
	[ "$rc" -ne 0 ] && [ ! -s out ] && test_grep "LOGIN_SAMPLES" err
'

test_done
