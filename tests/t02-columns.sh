#!/usr/bin/env bash
# The kit's tables are read by column name (docs/data.md): every part of
# lib/ reads a raw table through lib/data.sh (tsv_select, tsv_load) and a
# key=value file through kv_get, never by position. This test keeps it so:
# it scans lib/ and the top-level scripts for the ways a table used to be
# read by position. Needs no root and no test server.
. "$(dirname "$0")/lib/harness.sh"

# positional FILE...: one "FILE:LINE: what" per positional read.
#   - `cut -f` (a column by its number);
#   - `sort -t TAB -kN` (a table sorted on a column by its number);
#   - an awk program splitting on tabs that uses $1, $2 ... or $NF and reads a
#     file itself (an operand, or `<`), or a pipe from a .tsv, or is fed by
#     a pipe at all (a helper's table, `tail -n +2` of one); reading the
#     output of tsv_select (the columns it named, in its order) is fine,
#     and so is an awk of another separator fed by a pipe that reads no
#     table (`sort | uniq -c | awk`, `df | awk`);
#   - `IFS=$'\t' read` of a row held in a variable (<<<), or a loop of
#     them fed straight from a file;
#   - `sed -n 's/^KEY=//p' FILE`: a key=value file read around kv_get.
positional () {
	awk '
	function report(what) { printf "%s:%d: %s\t%s\n", FILENAME, start, what, first; bad++ }
	function count(s, c,   n, i) { n = 0; for (i = 1; i <= length(s); i++) if (substr(s, i, 1) == c) n++; return n }
	FNR == 1 { inawk = 0; tabloop = 0; prev = "" }
	inawk {
		text = text "\n" $0
		if (count(clean(text), "\047") >= 2) { inawk = 0; check_awk() }
		next
	}
	/^[[:space:]]*#/ { next }
	{
		start = FNR; first = $0
		if ($0 ~ /(^|[^a-z_])cut -f/) report("cut -f")
		if ($0 ~ /sort -t/ && $0 ~ /\\t/ && $0 ~ /-k[0-9]/) report("sort -k on a tab-separated table")
		if ($0 ~ /IFS=\$\047\\t\047 read/ && $0 ~ /<<</) report("a row read by position (IFS=TAB read <<<)")
		if ($0 ~ /while IFS=\$\047\\t\047 read/) tabloop = 1
		if ($0 ~ /^[[:space:]]*done/) {
			if (tabloop && $0 ~ /^[[:space:]]*done <[[:space:]]*"/) report("a loop of IFS=TAB read fed from a file")
			tabloop = 0
		}
		if ($0 ~ /sed -n [\047"]s\/\^[^\/]*=\/\/p[\047"] *"/) report("a key=value file read around kv_get")
		if ((i = index($0, "awk ")) > 0 && (i == 1 || substr($0, i - 1, 1) ~ /[^a-z_]/)) {
			head = substr($0, 1, i - 1)
			text = substr($0, i)
			# fed by a pipe: the command before the bar, on this line or
			# the line before (which ends with it)
			src = ""
			if (head ~ /\|[[:space:]]*$/) src = head
			else if (head ~ /^[[:space:]]*$/ && prev ~ /\|[[:space:]]*$/) src = prev
			tabs = text ~ /^awk (-F ?\$?\047\\t\047|-F ?"\\t")/
			if (!tabs && src == "") { prev = $0; next }
			if (count(clean(text), "\047") >= 2) check_awk(); else inawk = 1
		}
		prev = $0
	}
	# the text without the quoted tabs of -F and -v options
	function clean(s) { gsub(/\$?\047\\t\047/, "", s); return s }
	function check_awk(   t, a, prog, tail) {
		t = clean(text)
		a = index(t, "\047")
		prog = substr(t, a + 1)
		tail = substr(prog, index(prog, "\047") + 1)
		prog = substr(prog, 1, index(prog, "\047") - 1)
		if (prog !~ /\$([1-9]|NF)/) return
		if (src != "" && src !~ /tsv_select/ && (tabs || src ~ /\.tsv|tail -n \+2/)) {
			sub(/^[[:space:]]*/, "", src)
			report("awk reads a piped table by position: " src)
			return
		}
		if (!tabs) return
		sub(/\n.*/, "", tail)
		sub(/(\||&&|;|\)).*/, "", tail)
		gsub(/[0-9]?>>?[[:space:]]*("[^"]*"|[^[:space:]]+)/, "", tail)
		gsub(/[a-z_]+=("[^"]*"|[^[:space:]]+)/, "", tail)
		if (tail ~ /[^[:space:]]/) { report("awk reads a table by position: " tail); return }
		if (head ~ /\.tsv|<[[:space:]]*"/ && head !~ /tsv_select/) report("awk reads a table by position from " head)
	}
	END { exit bad > 0 }' "$@"
}

test_expect 'the scanner finds each kind of positional read' '
	cat >bad.sh <<-\EOF &&
	a=$(cut -f7 "$steps")
	sort -t "$(printf "\t")" -k2,2g "$tsv"
	IFS=$'"'"'\t'"'"' read -r n ok rest <<<"$row"
	awk -F'"'"'\t'"'"' '"'"'NR > 1 { print $7 }'"'"' "$tsv"
	x=$(awk -F'"'"'\t'"'"' '"'"'NR == 2 { print $NF }'"'"' "$base-login.tsv")
	awk -F'"'"'\t'"'"' -v n=1 '"'"'
		NR > 1 { n++; if ($2 == "ok") s++ }
		END { print s }'"'"' "$base.tsv" 2>/dev/null
	tail -n 1 "$steps.tsv" | awk -F'"'"'\t'"'"' '"'"'{ print $2 }'"'"'
	while IFS=$'"'"'\t'"'"' read -r a b; do
		:
	done <"$steps"
	v=$(sed -n "s/^$k=//p" "$base.env")
	helper login -H -n "$1" -- ssh host true |
		awk -F'"'"'\t'"'"' -v OFS='"'"'\t'"'"' -v n="$2" '"'"'{ $1 = n + $1; print }'"'"' >>"$3"
	tail -n +2 "$part" | awk -v n="$have" '"'"'{ $1 = n + $1; print }'"'"' >>"$tsv"
	EOF
	! positional bad.sh >got &&
	test_eq "$(wc -l <got)" 11 || { cat got; false; }
'

test_expect 'reads by name, of tsv_select output and of lists that are no table, pass' '
	cat >good.sh <<-\EOF &&
	tsv_select "$tsv" status error | awk -F'"'"'\t'"'"' '"'"'$1 != "ok" { print $2; exit }'"'"'
	awk -F'"'"'\t'"'"' -v OFS='"'"'\t'"'"' '"'"'{ print $1, $2 }'"'"' | sort -n
	while IFS=$'"'"'\t'"'"' read -r a b; do
		:
	done < <(tsv_select "$f" a b)
	awk -F= '"'"'{ v[$1] = $2 }'"'"' "$f.env"
	x=$(helper clock | sed -n '"'"'s/^mono_ns=//p'"'"')
	EOF
	positional good.sh || { positional good.sh; false; }
'

# What the scan finds that is no table of docs/data.md: the file, a text
# of the line it reports, and why it may stay.
cat >"$TEST_TMP/allowed" <<'EOF'
lib/bin/fleet.sh	awk -F '\t' -v factor=	its own lists ($tmp/ids, $tmp/facts), made a few lines above
lib/charts.sh	med=$(printf '%s\n' "$rows" | awk -F'\t' '	chart_login_waterfall: the tagged rows of the two tsv_select calls just above
lib/charts.sh	data=$(printf '%s\n' "$rows" | awk -F'\t' -v med=	chart_login_waterfall: the same tagged rows
lib/metrics/burst.sh	range=$(printf '%s\n' "$out" | awk -F'\t' '{ print $1, $3 }'	maxstartups_outcomes' own output (lib/maxstartups.sh: clients, count, probability), read a line above, not a kit table
lib/metrics/burst.sh	p=$(printf '%s\n' "$out" | awk -F'\t' -v r=	the same output of maxstartups_outcomes
lib/charts.sh	printf '%s\n' "$data" | awk -F'\t' '{ print $1 }'	chart_burst's own list (clients, ok), made by tsv_select a few lines above
lib/charts.sh	awk -F'\t' -v OFS='\t' '{ print $1, $2, $1, $3 }'	the join of chart_burst's own list and maxstartups_expected's output
lib/charts.sh	} | awk -F'\t' '	chart_transfer: the tagged rows of two tsv_select outputs just above
lib/ciphers.sh	awk -F'\t' '$2 == "default" { print $1 }'	ciphers_common's own output (cipher, default mark), no table
lib/ciphers.sh	awk -F'\t' -v c="$c" '$1 == c { print; exit }'	ciphers_common's own output (cipher, default mark), no table
lib/metrics/auth.sh	pam_lines chpasswd password | awk -F'\t'	pam_lines' own output (type, module line), no table
lib/metrics/transfer.sh	printf '%s\n' "$sel" | grep . | awk -F'\t'	ciphers_select's own output (cipher first), no table
lib/probes/loginload.sh	} | awk -F'\t' -v t0=	the tagged rows (edge, login) made just above, the logins through tsv_select
lib/report/guidance.sh	awk -F'\t' -f "$KIT_DIR/lib/report/guidance.awk"	the evaluator, no inline program: guidance.awk reads lib/report/guidance.tab by the names of its header and guidance_store's own TEST.KEY lines
lib/report/guidance.sh	g_burst_steps | awk -F'\t'	g_burst_steps' output, tsv_select's columns clients and ok
lib/report/transfer.sh	} | awk -F'\t' '	transfer_rows: the tagged rows of the two tsv_select calls just above
lib/registry.sh	done <"$file"	lib/metrics.tab (registry_load), whose eight columns t07 keeps
lib/report/burst.sh	awk -F'\t' -v n="$2" '$1 == n { print $2 }'	maxstartups_expected's own output (N, expected), no table
lib/serverconfig.sh	done <"$tmp/moved"	check_effective's own list (option, file, line), made a few lines above
lib/serverconfig.sh	cut -f1 "$OVERRIDES_FILE.new"	the option column of the override list this start is writing (state, no raw table)
lib/serverconfig.sh	sort -t "$(printf '\t')" -k2,2 -u	host_kept_lines' own output (file, option, line), no table
EOF

# not_allowed FINDINGS: the findings the list above does not allow.
not_allowed () {
	awk -F'\t' 'NR == FNR { n++; file[n] = $1; text[n] = $2; next }
		{ f = $1; sub(/:.*/, "", f); src = substr($0, index($0, "\t") + 1); keep = 1
		  for (i = 1; i <= n; i++) if (file[i] == f && index(src, text[i])) keep = 0
		  if (keep) print $1 }' "$TEST_TMP/allowed" "$1"
}

# The programs at the top, which read the run's files too.
# shellcheck disable=SC2034 # read in a test body (eval)
TOP_SCRIPTS="sshd-perf-kit start-ssh.sh test-ssh.sh install-deps.sh"

test_expect 'no part of lib/ nor a top-level script reads a table by position (lib/data.sh is the door)' '
	(cd "$KIT_DIR" && positional $(find lib -name "*.sh" ! -name data.sh | sort) $TOP_SCRIPTS) >found || true
	not_allowed found >left &&
	{ [ ! -s left ] || { cat left; false; }; }
'

test_expect 'each allowed exception is still in its file (else it leaves the list)' '
	while IFS="	" read -r f text _; do
		grep -qF -- "$text" "$KIT_DIR/$f" || { echo "$f no longer has: $text"; return 1; }
	done <"$TEST_TMP/allowed"
'

test_done
