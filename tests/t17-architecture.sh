#!/usr/bin/env bash
# The claims of docs/architecture.md that a scan of the source can check,
# each checked, and each scanner shown to catch a violation planted in a
# scratch file (as t02 does for positional reads): one runner of sshd -T,
# the sampler the one reader of /proc/PID/stat, the registry the one list
# of metrics. Needs no root and no test server.
. "$(dirname "$0")/lib/harness.sh"

# The kit's shell files: lib/, the programs at the top, and (for sshd -T)
# the tests, which ask the server through the kit's door too.
kit_files () {
	(cd "$KIT_DIR" && find lib -name "*.sh" | sort && printf '%s\n' sshd-perf-kit start-ssh.sh test-ssh.sh install-deps.sh)
}
test_files () {
	(cd "$KIT_DIR" && find tests -maxdepth 2 -name "*.sh" ! -path "tests/data/*" | sort)
}

# code_lines FILE...: "FILE:LINE:text" of each line that is not a comment.
code_lines () {
	grep -nH "" "$@" | grep -vE "^[^:]*:[0-9]+:[[:space:]]*#"
}

# sshd_T_runs FILE...: each line that runs sshd -T: an sshd word (sshd,
# a path or variable ending in it, any case: $SSHD, "$sshd",
# "$prefix/sbin/sshd") in a command's place (the line's start, after ; & |
# ! $( <( or a keyword) with -T among its options. Prose that names
# `sshd -T` in a message or a test's title is not a command.
sshd_T_runs () {
	local cmd sshd
	cmd='(:|.*[;&|!]|.*[$<]\(|.*[:[:space:]](then|do|if|while|until|exec|ct|env))[[:space:]]*'
	sshd='("\$\{?[A-Za-z_]*[Ss][Ss][Hh][Dd]\}?"|\$\{?[A-Za-z_]*[Ss][Ss][Hh][Dd]\}?|"?[^[:space:]"`'"'"']*[/}][Ss][Ss][Hh][Dd]"?|sshd)'
	code_lines "$@" | grep -E "^[^:]*:[0-9]+${cmd}${sshd}[[:space:]]+([^|;&]*[[:space:]])?-T([[:space:]]|\$)" || :
}

test_expect 'the sshd -T scan finds each spelling of a run, and no message that names it' '
	# -%T for -T, so that this file does not plant them in itself
	q_to_tab <<-\EOF | sed "s/-%T/-T/" >planted.sh &&
	"$SSHD" -%T -f "$1" -C "user=x,addr=127.0.0.2,host=localhost"
	Qsshd -%T -f $SSHD_CONFIG -C user=$TEST_USER,addr=127.0.0.1,host=localhost | grep -q x
	Qct sshd -%T -f /etc/ssh/sshd_config_perf_test >T
	t=$("$mprefix/sbin/sshd" -%T -f "$SSHD_CONFIG" 2>/dev/null)
	Qif "${OPENSSH_PREFIX:+$OPENSSH_PREFIX/sbin/}sshd" -%T -f $C 2>/dev/null | grep -qi x; then :; fi
	x && ${SSHD} -f "$c" -%T | head
	printf '"'"'sshd -%T -f %s failed\n'"'"' "$c"
	warn "sshd -%T fails on the test configuration"
	msg="(\`sshd -%T\` of its configuration)"
	"$SSHD" -t -f "$c"
	# sshd -%T in a comment
	test_expect '"'"'OpenSSH 10.5p1 (sshd -%T in CamelCase, recorded)'"'"' '"'"'
	EOF
	sshd_T_runs planted.sh | cut -d: -f2 | paste -sd" " - >got &&
	test_eq "$(cat got)" "1 2 3 4 5 6"
'

test_expect 'one runner of sshd -T: server_sshd_T in lib/server.sh (docs/architecture.md)' '
	(cd "$KIT_DIR" && sshd_T_runs $(kit_files) $(test_files)) >runs &&
	cut -d: -f1 runs | sort -u >files &&
	echo lib/server.sh >want &&
	test_cmp want files &&
	test_eq "$(wc -l <runs)" 1 &&
	test_grep -A3 "^server_sshd_T () {" "$KIT_DIR/lib/server.sh"
'

# proc_stat_reads FILE...: each line that names a process's stat file
# (/proc/PID/stat, "$f/stat"), not the machine's /proc/stat.
proc_stat_reads () {
	code_lines "$@" | awk '{ s = $0; gsub(/\/proc\/stat/, "", s) } s ~ /\/stat([^a-zA-Z0-9_.]|$)/' || :
}

# Where a shell part reads /proc/PID/stat all the same, and why.
cat >"$TEST_TMP/stat-allowed" <<'EOF'
test-ssh.sh	read -r st <"/proc/$1/stat"	pid_running: the state letter with builtins only, no child (a SIGINT to test-ssh.sh is not lost; the reason is above it)
EOF

test_expect 'the /proc/PID/stat scan finds a planted reader, and not /proc/stat or cpu.stat' '
	q_to_tab >planted.sh <<-\EOF &&
	Qparent=$(sed "s/.*) [A-Za-z] \([0-9]*\) .*/\1/" "$f/stat" 2>/dev/null)
	Qppid=$(awk "{ print \$4 }" "/proc/$pid/stat")
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null
	awk "\$1 == \"cpu\" { print \$2 }" /proc/stat
	cat "$cg/cpu.stat" /proc/$p/status
	# /proc/PID/stat in a comment
	EOF
	proc_stat_reads planted.sh | cut -d: -f2 | paste -sd" " - >got &&
	test_eq "$(cat got)" "1 2 3"
'

test_expect 'no shell part parses /proc/PID/stat: sshperf-sampler is the reader (docs/architecture.md)' '
	(cd "$KIT_DIR" && proc_stat_reads $(kit_files)) >reads &&
	awk -F"\t" "NR == FNR { a[\$1 SUBSEP \$2] = 1; n++; f[n] = \$1; t[n] = \$2; next }
		{ file = \$0; sub(/:.*/, \"\", file); ok = 0
		  for (i = 1; i <= n; i++) if (f[i] == file && index(\$0, t[i])) ok = 1
		  if (!ok) print }" "$TEST_TMP/stat-allowed" reads >left &&
	test_cmp /dev/null left
'

# The parts that read the registry (docs/architecture.md, "The metric
# registry") and must not list a metric themselves.
# shellcheck disable=SC2034 # read in a test body (eval)
REGISTRY_READERS="test-ssh.sh sshd-perf-kit lib/bin/render.sh lib/bin/fleet.sh lib/bin/results-json.sh"

# metric_mentions NAMES FILE...: each code line that treats a metric of
# NAMES (a|b|c) apart: a case pattern (NAME) or NAME |), a comparison
# (= NAME, != "NAME"), or a data file of its own ("$DIR/NAME.env",
# raw/NAME-x.tsv).
metric_mentions () {
	local names=$1
	shift
	code_lines "$@" |
		grep -E "^[^:]*:[0-9]+:(.*[[:space:](|])?($names)([[:space:]]*\||\))|(!=|==|=)[[:space:]]*\"?($names)\"?([[:space:]]|\]|;|\$)|[/\"]($names)(\.env|\.tsv|-[a-z]+\.tsv)" || :
}

metric_names () {
	awk -F"\t" "!/^#/ && NF && \$1 != \"name\" { print \$1 }" "$KIT_DIR/lib/metrics.tab" | paste -sd"|" -
}

# Where a registry reader names a metric all the same, and why. An entry
# whose reason starts with "(going)" is being removed by other work and
# may be gone already; every other entry must still be there.
cat >"$TEST_TMP/metric-allowed" <<'EOF'
lib/bin/results-json.sh	JSON_TABLES="startup rounds startup-rounds.tsv	the tables of results.json: the schema declares them ($defs/row_TEST_TABLE), this list says which raw file holds each
lib/bin/results-json.sh	auth) get "$DATA_DIR/auth.env" methods ;;	key_table_words: the rows of the schema's two key tables (auth.tables.methods)
lib/bin/results-json.sh	interactive)	key_table_words: the rows of the schema's two key tables (interactive.tables.clients)
lib/bin/results-json.sh	"$DATA_DIR/interactive.env" "${c}_exit"	key_table_words: the clients that ran (interactive.tables.clients)
lib/bin/results-json.sh	case $name in auth) table=methods ;; interactive) table=clients ;;	the names of the schema's two key tables
lib/compare.sh	[ "$3" != cpu ]	(going) issue 43: the cpu case goes through the registry
lib/compare/report.sh	"$1/data/login.env" pad_pair_p50	compare_pad: sshd's padding base time is measured by login alone and told beside every comparison of two runs (new host keys or config move it); no registry column names such a fact yet
lib/compare/report.sh	"$2/data/login.env" pad_pair_p50	compare_pad: sshd's padding base time is measured by login alone and told beside every comparison of two runs (new host keys or config move it); no registry column names such a fact yet
EOF

not_allowed_in () {
	awk -F"\t" "NR == FNR { n++; f[n] = \$1; t[n] = \$2; next }
		{ file = \$0; sub(/:.*/, \"\", file); ok = 0
		  for (i = 1; i <= n; i++) if (f[i] == file && index(\$0, t[i])) ok = 1
		  if (!ok) print }" "$1" "$2"
}

test_expect 'the metric scan finds a case, a comparison and a data file of one metric' '
	q_to_tab >planted.sh <<-\EOF &&
	Qcase $1 in cpu) same=yes ;; esac
	Q[ "$3" != cpu ] || same=1
	Qp=$(kv_get "$1/data/login.env" pad_pair_p50)
	Qtsv_select "$RUN_DIR/raw/burst-steps.tsv" clients
	Qfor name in "${METRICS[@]}"; do :; done
	Qprintf "%s\n" "$name"
	EOF
	metric_mentions "$(metric_names)" planted.sh | cut -d: -f2 | paste -sd" " - >got &&
	test_eq "$(cat got)" "1 2 3 4"
'

test_expect 'the parts that read the registry list no metric of their own (docs/architecture.md)' '
	(cd "$KIT_DIR" && metric_mentions "$(metric_names)" $REGISTRY_READERS $(ls lib/compare*.sh lib/compare/*.sh 2>/dev/null)) >found &&
	not_allowed_in "$TEST_TMP/metric-allowed" found >left &&
	test_cmp /dev/null left
'

# doc_paths DOC: the paths of the source tree DOC names (lib/..., helpers/...,
# tests/..., docs/...), one per line; an example's path (NAME, P, the
# worked examples banner and logincost) and the installed lib/paths.sh
# are not in the tree.
doc_paths () {
	grep -oE "(lib|helpers|tests|docs|templates|units|man|packaging|selinux|ansible)/[A-Za-z0-9_./*-]+" "$1" |
		sed "s/[.,;:]*\$//" | sort -u |
		grep -vE "(^|/)(NAME|P)\.|/(banner|logincost)\.sh\$|^lib/paths\.sh\$|^lib/sshd-perf-kit/|^man/man[0-9]" || :
}

test_expect 'the path check finds a path that is not there' '
	printf "%s\n" "see lib/server.sh and lib/nosuch.sh, or lib/metrics/NAME.sh." >doc.md &&
	doc_paths doc.md >paths &&
	printf "%s\n" lib/nosuch.sh lib/server.sh >want &&
	test_cmp want paths
'

test_expect 'every file docs/architecture.md names is in the tree' '
	doc_paths "$KIT_DIR/docs/architecture.md" >paths &&
	while read -r p; do
		ls -d "$KIT_DIR"/$p >/dev/null 2>&1 || echo "docs/architecture.md names $p, which is not there"
	done <paths >missing &&
	test_cmp /dev/null missing
'

# style_cites FILE...: "FILE:LINE: rule N" for each citation of a rule of
# docs/style.md, and "FILE:LINE: STYLE.md" for one of a file the
# repository does not have.
style_cites () {
	grep -nHoE "style\.md\`?,? rule [0-9]+|STYLE\.md" "$@" |
		sed -E "s/:[^:]*rule ([0-9]+)\$/: rule \1/; s/:STYLE\.md\$/: STYLE.md/" || :
}

test_expect 'the citation scan finds a rule and a STYLE.md citation' '
	printf "%s\n" "a (docs/style.md rule 5; and" "as STYLE.md says" "(\`docs/style.md\`, rule 9)" >cites.txt &&
	style_cites cites.txt >got &&
	printf "%s\n" "cites.txt:1: rule 5" "cites.txt:2: STYLE.md" "cites.txt:3: rule 9" >want &&
	test_cmp want got
'

test_expect 'every rule cited is one of docs/style.md, and no file cites a STYLE.md the repository lacks' '
	rules=$(grep -cE "^[0-9]+\. " "$KIT_DIR/docs/style.md") &&
	# this file plants citations of its own: not scanned
	(cd "$KIT_DIR" && style_cites $(kit_files) $(test_files | grep -v t17-architecture) docs/*.md README.md) >cites &&
	awk -v n="$rules" "/: STYLE\.md\$/ || \$NF + 0 < 1 || \$NF + 0 > n" cites >bad &&
	test_cmp /dev/null bad &&
	test_grep "rule" cites
'

# long_lines FILE...: "FILE:LINE: N characters" for each line over 200
# (docs/style.md rule 6: a paragraph of the report goes in a here-doc).
long_lines () {
	awk 'length($0) > 200 { printf "%s:%d: %d characters\n", FILENAME, FNR, length($0) }' "$@"
}

test_expect 'the line scan finds a line over 200 characters, and not one of 200' '
	{ printf "%200s\n" x; printf "%201s\n" y; } >lines.sh &&
	long_lines lines.sh >got &&
	printf "%s\n" "lines.sh:2: 201 characters" >want &&
	test_cmp want got
'

test_expect 'no line of the report code in lib/report/ is over 200 characters (docs/style.md rule 6)' '
	(cd "$KIT_DIR" && long_lines $(find lib/report -type f ! -name "*.tab" | sort)) >long &&
	test_cmp /dev/null long
'

test_expect 'each allowed exception is still in its file (else it leaves the list)' '
	cat "$TEST_TMP/stat-allowed" "$TEST_TMP/metric-allowed" |
	while IFS="	" read -r f text why; do
		case $why in "(going)"*) continue ;; esac
		test_grep -F -- "$text" "$KIT_DIR/$f" || return 1
	done
'

test_done
