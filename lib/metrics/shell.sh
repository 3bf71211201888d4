# shellcheck shell=bash
# shell: the time to a usable shell. SHELL_SAMPLES logins as a terminal
# opens them (ssh -tt, the account's own login shell), each timed until
# the shell answers a first command typed as soon as the login is done
# (sshperf-shell); as many with the start files skipped (the floor); for
# a bash account as many traced (xtrace with $EPOCHREALTIME, to a file of
# the kit's own) to time each start file, with the network watched
# (sshperf-netwatch) to tell a file that waited on it; and each message
# of the day script or file pam_motd would show, timed on its own.
# Nothing of the account or the host is changed: the trace files live in
# the kit's state folder (recorded, removed at the end of the test and at
# cleanup), the typed line unsets HISTFILE so no history is written.

# The tables this test writes by their columns (docs/data.md).
SHELL_SPLIT_COLUMNS="sample status login_ms session_ms shell_ms"
SHELL_FILES_COLUMNS="sample order depth start_s end_s ms file"
SHELL_MOTD_COLUMNS="sample kind ms status path"
SHELL_PARTS_COLUMNS="kind path n p50 p95 connects dns"

about_shell () {
	local runs=2
	[ "$(shell_kind)" != bash ] || runs=3
	printf '%s logins to a terminal timed until the shell answers, %s kinds (whole, floor%s) (about %s s)\n' \
		"${SETTING[SHELL_SAMPLES]}" "$runs" "$([ "$runs" = 2 ] || echo ', traced')" \
		"$(( runs * SETTING[SHELL_SAMPLES] + 5 ))"
}

# The account's login shell, from the passwd database.
shell_of_account () {
	getent passwd "${SETTING[TEST_USER]}" | cut -d: -f7
}

# bash, or the shell's own name.
shell_kind () {
	local s
	s=$(shell_of_account)
	s=${s##*/}
	printf '%s' "${s:-sh}"
}

# shell_timed OUT KIND N [COMMAND]: N runs of ssh -tt [COMMAND] through
# sshperf-shell, their table into OUT, what each session wrote into
# raw/shell-transcripts/KIND/shell-N.txt.
shell_timed () {
	local out=$1 dir="$RAW_DIR/shell-transcripts/$2" n=$3
	shift 3
	mkdir -p "$dir"
	timeout --kill-after=5 $(( n * (SETTING[LOGIN_TIMEOUT] + 15) + 30 )) \
		"$HELPER_DIR/sshperf-shell" -n "$n" -t "${SETTING[LOGIN_TIMEOUT]}" -g "$NO_ANSWER_STOP" -T "$dir" \
		-- "$SSH" -tt -F "$CLIENT_CONFIG" "$HOST_ALIAS" "$@" \
		>"$out" 2>>"$RAW_DIR/shell-errors.raw" || true
}

# The trace folder: in the kit's state, the account may write its own
# file there and nothing else.
SHELL_TRACE_DIR=""
shell_trace_dir () {
	SHELL_TRACE_DIR="$STATE_PARENT/shell-trace"
	record tree "$SHELL_TRACE_DIR"
	rm -rf "$SHELL_TRACE_DIR"
	install -d -m 0711 "$SHELL_TRACE_DIR"
	at_exit rm -rf "$SHELL_TRACE_DIR"
}

# shell_trace_files N TRACE: one row per start file of one traced login
# (sample N): the order it was entered, its depth, its first and last
# second (epoch), its ms (from the line that read it to the first line
# after it), its path. A file read inside another counts in both.
shell_trace_files () {
	awk -v sample="$1" '
	function close_to(d, t) {
		while (depth > d) {
			printf "%s\t%d\t%d\t%.6f\t%.6f\t%.3f\t%s\n", sample, ord[depth], depth, start[depth], t, (t - start[depth]) * 1000, stack[depth]
			depth--
		}
	}
	/^\+*[0-9]+\.[0-9]+\t/ {
		sub(/^\+*/, "")
		split($0, f, "\t")
		t = f[1] + 0; src = f[2]
		if (src == "-") { close_to(0, t); done = 1; exit }
		if (depth > 0 && stack[depth] == src) { prev = t; next }
		for (i = depth - 1; i >= 1; i--) if (stack[i] == src) break
		if (i >= 1) { close_to(i, t); prev = t; next }
		depth++; stack[depth] = src; start[depth] = (prev == "" ? t : prev); ord[depth] = ++n
		prev = t
	}
	END { if (!done) close_to(0, prev) }' "$2"
}

# shell_traced N: N traced logins of a bash account into
# raw/shell-files.tsv, with the network watched meanwhile
# (raw/shell-net.tsv).
shell_traced () {
	local n=$1 shell i trace cmd nw_pid=""
	shell=$(shell_of_account)
	shell_trace_dir
	"$HELPER_DIR/sshperf-netwatch" -d $(( n * (SETTING[LOGIN_TIMEOUT] + 15) + 30 )) -o "$RAW_DIR/shell-net.tsv" \
		>"$RAW_DIR/shell-net.env" 2>>"$RAW_DIR/shell-errors.raw" &
	nw_pid=$!
	at_exit end_pids 5 "$nw_pid"
	local end=$(( $(date +%s) + 5 ))
	until [ -s "$RAW_DIR/shell-net.tsv" ] || ! kill -0 "$nw_pid" 2>/dev/null || [ "$(date +%s)" -ge "$end" ]; do
		sleep 0.01
	done
	[ -s "$RAW_DIR/shell-net.tsv" ] || result_set shell net_note "the network could not be watched: $(tail -n 1 "$RAW_DIR/shell-errors.raw")"
	tsv_header "$SHELL_FILES_COLUMNS" >"$RAW_DIR/shell-files.tsv"
	: >"$RAW_DIR/shell-traced.tsv"
	local missed=0
	for i in $(seq 1 "$n"); do
		[ "$missed" -lt "$NO_ANSWER_STOP" ] || break
		trace="$SHELL_TRACE_DIR/trace-$i"
		install -m 0600 -o "${SETTING[TEST_USER]}" /dev/null "$trace"
		# The login shell, traced from its first line: PS4 and
		# BASH_XTRACEFD reach it through the environment.
		cmd="exec 9>>'$trace'; BASH_XTRACEFD=9 PS4='+\${EPOCHREALTIME}\\011\${BASH_SOURCE[0]:--}\\011' exec -l '$shell' -x"
		shell_timed "$TMPDIR/shell-traced-one.tsv" traced 1 "$cmd"
		if [ "$(tsv_select "$TMPDIR/shell-traced-one.tsv" status)" = ok ]; then missed=0; else missed=$((missed + 1)); fi
		[ "$i" -gt 1 ] || head -n 1 "$TMPDIR/shell-traced-one.tsv" >>"$RAW_DIR/shell-traced.tsv"
		tsv_renumber sample $((i - 1)) <"$TMPDIR/shell-traced-one.tsv" >>"$RAW_DIR/shell-traced.tsv" || true
		mv -f "$RAW_DIR/shell-transcripts/traced/shell-1.txt" "$RAW_DIR/shell-transcripts/traced/traced-$i.txt" 2>/dev/null || true
		# Only the files' times are kept: the trace shows the account's
		# commands with their values.
		shell_trace_files "$i" "$trace" >>"$RAW_DIR/shell-files.tsv"
		rm -f "$trace"
	done
	rm -f "$TMPDIR/shell-traced-one.tsv"
	end_pids 5 "$nw_pid"
	wait "$nw_pid" 2>/dev/null || true
	at_exit_pop
	at_exit_pop
}

# shell_motd_items: the message of the day's parts pam_motd shows, one per
# line: "script PATH" (update-motd.d, Debian, run by pam_motd unless it
# has noupdate on every line) or "file PATH" (motd, motd.d).
shell_motd_items () {
	local f
	shell_pam_has pam_motd || return 0
	if [ -d /etc/update-motd.d ] && shell_pam_lines | grep -w pam_motd | grep -vqw noupdate; then
		for f in /etc/update-motd.d/*; do
			if [ ! -f "$f" ] || [ ! -x "$f" ]; then continue; fi
			case ${f##*/} in *[!A-Za-z0-9_-]*) continue ;; esac
			printf 'script %s\n' "$f"
		done
	fi
	for f in /etc/motd /run/motd.dynamic /etc/motd.d/* /run/motd.d/* /usr/lib/motd.d/*; do
		[ -f "$f" ] && printf 'file %s\n' "$f"
	done
	return 0
}

# The session lines of the sshd PAM service, with the files it includes
# (Debian's @include, RHEL's include and substack) read in their place.
shell_pam_lines () {
	awk '
	function read(file, depth,   line, a, n) {
		if (depth > 8) return
		while ((getline line <file) > 0) {
			sub(/^[[:space:]]+/, "", line)
			if (line ~ /^#/) continue
			n = split(line, a, /[[:space:]]+/)
			if (a[1] == "@include" && n >= 2) read("/etc/pam.d/" a[2], depth + 1)
			else if (a[1] ~ /^-?session$/ && (a[2] == "include" || a[2] == "substack") && n >= 3) read("/etc/pam.d/" a[3], depth + 1)
			else if (a[1] ~ /^-?session$/) print line
		}
		close(file)
	}
	BEGIN { read("/etc/pam.d/sshd", 0) }' 2>/dev/null
}

# shell_pam_has MODULE: the test server uses PAM and its session stack
# has MODULE.
shell_pam_has () {
	[ "$(shell_sshd_option usepam no)" = yes ] || return 1
	shell_pam_lines | grep -qw "$1\.so"
}

# shell_sshd_option NAME DEFAULT: the test server's setting (the first line
# of its config, as sshd takes it).
shell_sshd_option () {
	awk -v k="$1" -v d="$2" 'tolower($1) == k && v == "" { v = tolower($2) } END { print (v == "" ? d : v) }' "$SSHD_CONFIG" 2>/dev/null
}

# shell_motd N: each motd script run N times as pam_motd runs it (as
# root, a clean environment, output discarded), each file read N times
# (by bash itself, no program started): raw/shell-motd.tsv. First the
# runner alone (kind runner, /bin/true run the same way): what starting
# any script costs here, which the report takes off a script's time.
shell_motd () {
	local n=$1 kind path i t0 t1 rc line
	tsv_header "$SHELL_MOTD_COLUMNS" >"$RAW_DIR/shell-motd.tsv"
	while read -r kind path; do
		for i in $(seq 1 "$n"); do
			rc=0
			t0=$EPOCHREALTIME
			case $kind in
			script | runner)
				timeout --kill-after=2 "${SETTING[LOGIN_TIMEOUT]}" env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
					"$path" >/dev/null 2>&1 </dev/null || rc=$?
				;;
			file)
				while IFS= read -r -t "${SETTING[LOGIN_TIMEOUT]}" line || [ -n "$line" ]; do line=""; done <"$path" 2>/dev/null || rc=$?
				;;
			esac
			t1=$EPOCHREALTIME
			printf '%s\t%s\t%s\t%s\t%s\n' "$i" "$kind" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", (b - a) * 1000 }')" \
				"$([ "$rc" = 0 ] && echo ok || echo "exit-$rc")" "$path" >>"$RAW_DIR/shell-motd.tsv"
		done
	done < <(shell_motd_list)
}

# The runner first when there is a script to run, then the motd's parts.
shell_motd_list () {
	local items
	items=$(shell_motd_items)
	case $items in *"script "*) printf 'runner %s\n' "$(type -P true)" ;; esac
	[ -z "$items" ] || printf '%s\n' "$items"
}

# shell_parts: raw/shell-parts.tsv, one row per part that shows in a
# report line: kind (file, motd), path, n, p50, p95, and for a file the
# median count of connection attempts and DNS queries seen during it.
shell_parts () {
	local file kind path n p50 p95 conn dns
	tsv_header "$SHELL_PARTS_COLUMNS" >"$RAW_DIR/shell-parts.tsv"
	if [ -f "$RAW_DIR/shell-files.tsv" ]; then
		# In the order of the first login that read them.
		tsv_select "$RAW_DIR/shell-files.tsv" sample order file | sort -n -k1,1 -k2,2 | awk -F'\t' '!seen[$3]++ { print $3 }' |
		while IFS= read -r file; do
			# Per login, the file's ms summed (a file read twice).
			{ echo ms; tsv_select "$RAW_DIR/shell-files.tsv" sample ms file | awk -F'\t' -v f="$file" '$3 == f { ms[$1] += $2 } END { for (s in ms) print ms[s] }'; } >"$TMPDIR/shell-sum.tsv"
			n=$(( $(wc -l <"$TMPDIR/shell-sum.tsv") - 1 ))
			read -r p50 p95 <<<"$(shell_p50_p95 "$TMPDIR/shell-sum.tsv")"
			read -r conn dns <<<"$(shell_net_during "$file")"
			printf 'file\t%s\t%s\t%s\t%s\t%s\t%s\n' "$file" "$n" "$p50" "$p95" "$conn" "$dns" >>"$RAW_DIR/shell-parts.tsv"
		done
	fi
	if [ -f "$RAW_DIR/shell-motd.tsv" ]; then
		tsv_select "$RAW_DIR/shell-motd.tsv" kind path | awk -F'\t' '!seen[$2]++' | while IFS=$'\t' read -r kind path; do
			{ echo ms; tsv_select "$RAW_DIR/shell-motd.tsv" ms path | awk -F'\t' -v f="$path" '$2 == f { print $1 }'; } >"$TMPDIR/shell-one.tsv"
			n=$(( $(wc -l <"$TMPDIR/shell-one.tsv") - 1 ))
			read -r p50 p95 <<<"$(shell_p50_p95 "$TMPDIR/shell-one.tsv")"
			printf 'motd-%s\t%s\t%s\t%s\t%s\t-\t-\n' "$kind" "$path" "$n" "$p50" "$p95" >>"$RAW_DIR/shell-parts.tsv"
		done
	fi
	rm -f "$TMPDIR/shell-one.tsv" "$TMPDIR/shell-sum.tsv" "$TMPDIR/shell-net-c" "$TMPDIR/shell-net-d"
}

# shell_p50_p95 TSV: "p50 p95" of its column ms.
shell_p50_p95 () {
	helper summary -c ms "$1" | awk -F= '$1 == "p50" { a = $2 } $1 == "p95" { b = $2 } END { print (a == "" ? "-" : a), (b == "" ? "-" : b) }'
}

# shell_net_during FILE: the median over the logins of the connection
# attempts and DNS queries seen while FILE (a start file of
# raw/shell-files.tsv) was read; "- -" when the network was not watched.
# The medians are sshperf-rank's (lib/stats.sh).
shell_net_during () {
	[ -s "$RAW_DIR/shell-net.tsv" ] || { echo "- -"; return 0; }
	{ tsv_select "$RAW_DIR/shell-net.tsv" epoch_s kind | sed 's/^/N\t/'; tsv_select "$RAW_DIR/shell-files.tsv" sample start_s end_s file | sed 's/^/F\t/'; } | awk -F'\t' -v f="$1" -v cf="$TMPDIR/shell-net-c" -v df="$TMPDIR/shell-net-d" '
	$1 == "N" { t[++np] = $2 + 0; k[np] = $3; next }
	$1 == "F" && $5 == f { s = $2; a = $3 + 0; b = $4 + 0; login[s] = 1
	  for (i = 1; i <= np; i++) if (t[i] >= a && t[i] <= b) { if (k[i] == "connect") c[s]++; else d[s]++ } }
	END { printf "" >cf; printf "" >df; for (s in login) { print c[s] + 0 >cf; print d[s] + 0 >df } }'
	printf '%s %s\n' "$(stats_median <"$TMPDIR/shell-net-c")" "$(stats_median <"$TMPDIR/shell-net-d")"
}

# shell_split TSV: a table of sshperf-shell as the login's parts.
shell_split () {
	tsv_header "$SHELL_SPLIT_COLUMNS"
	tsv_select "$1" sample status up_ms echo_ms ready_ms | awk -F'\t' -v OFS='\t' '{
		if ($2 == "ok" && $4 != "-") printf "%s\t%s\t%s\t%.3f\t%.3f\n", $1, $2, $3, $4 - $3, $5 - $4
		else print $1, $2, "-", "-", "-" }'
}

measure_shell () {
	local n=${SETTING[SHELL_SAMPLES]} shell kind floor p50 p95 ok failed fp50 err
	: >"$RAW_DIR/shell-errors.raw"
	shell=$(shell_of_account)
	kind=$(shell_kind)
	result_set shell account "${SETTING[TEST_USER]}"
	result_set shell account_shell "${shell:--}"
	result_set shell account_kits "$(test_user_is_kits && echo yes || echo no)"
	result_set shell shell_kind "$kind"
	if [ -z "$shell" ]; then
		result_status shell ERROR "the account ${SETTING[TEST_USER]} has no login shell in the passwd database" \
			"Give the test account a login shell (usermod -s /bin/bash), or leave shell out of the tests"
		return 0
	fi
	progress_step "shell: $n logins to a terminal with $shell as a login shell"
	shell_timed "$RAW_DIR/shell-whole.tsv" whole "$n"
	progress_step "shell: $n logins with the start files skipped (the floor)"
	case $kind in
	bash) floor="exec '$shell' --noprofile --norc" ;;
	*) floor="exec '$shell'" ;;
	esac
	result_set shell floor_command "$floor"
	# No answer at all: the floor and the trace would only wait as long.
	if ! tsv_select "$RAW_DIR/shell-whole.tsv" status | grep -qx ok; then
		result_set shell split none
	else
		shell_timed "$RAW_DIR/shell-floor.tsv" floor "$n" "$floor"
	fi
	if [ "$(result_get shell split)" = none ]; then
		:
	elif [ "$kind" = bash ]; then
		progress_step "shell: $n traced logins, each start file timed"
		shell_traced "$n"
		result_set shell split yes
	else
		result_set shell split no
	fi
	if shell_pam_has pam_motd; then
		progress_step "shell: the message of the day's scripts and files, each timed $n times"
		shell_motd "$n"
	fi
	result_set shell pam_motd "$(shell_pam_has pam_motd && echo yes || echo no)"
	result_set shell pam_systemd "$(shell_pam_has pam_systemd && echo yes || echo no)"
	result_set shell pam_lastlog "$(shell_pam_has pam_lastlog && echo yes || echo no)"
	result_set shell use_pam "$(shell_sshd_option usepam no)"
	result_set shell print_last_log "$(shell_sshd_option printlastlog yes)"
	result_set shell net_watched "$([ -s "$RAW_DIR/shell-net.tsv" ] && echo yes || echo no)"
	shell_parts
	tr -d '\r' <"$RAW_DIR/shell-errors.raw" | grep -v '^Connection to .* closed\.$' >"$RAW_DIR/shell-errors.txt" || true
	rm -f "$RAW_DIR/shell-errors.raw"

	local t col
	for t in whole floor traced; do
		[ -f "$RAW_DIR/shell-$t.tsv" ] || continue
		result_set shell "${t}_ok" "$(tsv_select "$RAW_DIR/shell-$t.tsv" status | grep -cx ok || true)"
		for col in up first echo ready; do
			helper summary -c "${col}_ms" -w status=ok -p "${t}_${col}_" "$RAW_DIR/shell-$t.tsv" >>"$DATA_DIR/shell.env"
		done
	done
	# The parts of the whole login, per login: session (terminal raw to
	# the echo), shell (echo to answer).
	shell_split "$RAW_DIR/shell-whole.tsv" >"$RAW_DIR/shell-split.tsv"
	[ ! -f "$RAW_DIR/shell-floor.tsv" ] || shell_split "$RAW_DIR/shell-floor.tsv" >"$RAW_DIR/shell-floor-split.tsv"
	for col in login session shell; do
		helper summary -c "${col}_ms" -w status=ok -p "part_${col}_" "$RAW_DIR/shell-split.tsv" >>"$DATA_DIR/shell.env"
		[ ! -f "$RAW_DIR/shell-floor-split.tsv" ] ||
			helper summary -c "${col}_ms" -w status=ok -p "floor_part_${col}_" "$RAW_DIR/shell-floor-split.tsv" >>"$DATA_DIR/shell.env"
	done
	p50=$(result_get shell whole_ready_p50)
	fp50=$(result_get shell floor_ready_p50)
	[ -z "$p50" ] || [ -z "$fp50" ] ||
		result_set shell startfiles_ms "$(awk -v a="$p50" -v b="$fp50" 'BEGIN { printf "%.1f", a - b }')"
	ok=$(result_get shell whole_ok)
	failed=$(( n - ${ok:-0} ))
	result_set shell samples "$n"
	result_set shell ok "${ok:-0}"
	result_set shell failed "$failed"
	p95=$(result_get shell whole_ready_p95)
	result_interval_order shell "$RAW_DIR/shell-whole.tsv" ready_ms 95
	result_verdict shell "$p95" "<=" "${SETTING[TARGET_SHELL_P95_MS]}" ms "p95 of the time to a usable shell, n=${ok:-0}" \
		"p95 $(figs ms "$p95") ms is above the target of ${SETTING[TARGET_SHELL_P95_MS]} ms" \
		"Find the slow start file or motd script in the section's split and make it local and fast, or raise TARGET_SHELL_P95_MS if this wait is acceptable"
	result_noise_hint shell SHELL_SAMPLES "$(noise_samples "${ok:-0}" "$(result_or_dash shell figure_lo)" \
		"$(result_or_dash shell figure_hi)" "${p95:-0}" "${SETTING[TARGET_SHELL_P95_MS]}")"
	if [ "${ok:-0}" -eq 0 ]; then
		err=$(tsv_select "$RAW_DIR/shell-whole.tsv" status error | awk -F'\t' '$1 != "ok" { print $2; exit }')
		result_status shell FAIL "no login reached a usable shell: ${err:-see raw/shell-errors.txt}" \
			"Log in by hand with ssh -t to see where the shell stops, fix it, and rerun ./test-ssh.sh shell"
	elif [ "$failed" -gt 0 ]; then
		result_status shell FAIL "$failed of $n logins did not reach a usable shell" \
			"Read raw/shell-errors.txt for where the shell stopped, fix it, and rerun ./test-ssh.sh shell"
	fi
	[ "$kind" = bash ] ||
		result_warn shell "the account's shell is $shell: the whole time and the floor are measured, the split per start file covers bash only"
	result_set shell summary "p50 ${p50:--} ms, p95 ${p95:--} ms over ${ok:-0} logins ($failed failed), floor p50 ${fp50:--} ms, target p95 <= ${SETTING[TARGET_SHELL_P95_MS]} ms"
}
