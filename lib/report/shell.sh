# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `shell`; sourced by lib/bin/render.sh.

# Parts over this many ms at p50 or p95 get their own line of advice.
SHELL_SLOW_MS=100

report_shell () {
	local cell_1 cell_2
	local n login_p50 parts="$RUN_DIR/raw/shell-parts.tsv"
	n=${D[shell|samples]-}
	prose "${D[shell|account]-}" "${D[shell|account_shell]-}" "$n" "${D[shell|floor_command]-}" <<-'EOF'
	What a person waits for when they open a terminal to the server: a login with a terminal
	(`ssh -tt`) to the account %s, whose login shell (%s) reads its start files, then answers. Each of
	the %s logins was timed from the start of `ssh` until the shell answered a first command,
	`unset HISTFILE; echo sshperf-an''swer`, typed as soon as the client had logged in (its
	terminal went raw): the answer is the word without the quotes, so neither the typed line's echo
	nor the account's prompt is taken for it. The floor is the same login with the start files
	skipped (`%s` as the command, same terminal). Times in ms, on this machine (no network).

	EOF
	printf '| | n | p50 | p95 | max |\n|---|---:|---:|---:|---:|\n'
	shell_row '**Time to a usable shell**' whole_ready
	shell_row 'Floor: the same login, start files skipped' floor_ready
	shell_row 'Traced logins (xtrace on: slower)' traced_ready
	printf '\nThe whole time, in parts (per login, p50 and p95 of each part on its own):\n\n'
	printf '| Part | From, to | p50 | p95 |\n|---|---|---:|---:|\n'
	shell_part 'sshd'"'"'s login: connect, key exchange, authentication' 'start of ssh, client'"'"'s terminal raw' part_login
	shell_part 'Session: channel, terminal, PAM session (message of the day, last login)' 'terminal raw, typed line'"'"'s echo' part_session
	shell_part 'The shell and its start files' 'echo, answer' part_shell
	shell_part 'The shell alone (floor)' 'echo, answer' floor_part_shell
	login_p50=$(compared shell login total_p50 2>/dev/null || true)
	printf '\n'
	ms_to cell_1 "$login_p50"
	[ -z "$login_p50" ] || printf 'The `login` test (`ssh host true`, no terminal) took %s ms at p50 in this run. ' "$cell_1"
	case ${D[shell|startfiles_ms]-} in
	'') ;;
	-*) printf 'The floor'"'"'s p50 was %s ms above the whole time'"'"'s: what the start files cost is within this run'"'"'s noise.' "${D[shell|startfiles_ms]#-}" ;;
	*) printf 'The start files cost **%s ms** at p50: the whole time'"'"'s p50 less the floor'"'"'s.' "${D[shell|startfiles_ms]-}" ;;
	esac
	printf '\n\n'

	if [ "${D[shell|split]-}" = yes ] && [ -f "$parts" ]; then
		prose "$n" <<-'EOF'
		**Each start file** (bash only): %s more logins ran the login shell with `xtrace` on, its
		`PS4` stamping every line with `$EPOCHREALTIME` and the file it comes from, written through
		`BASH_XTRACEFD` to a file of the kit's own (in its state folder, removed afterwards; the
		account is not changed). A file's time runs from the line that read it to the first line after
		it, so it includes the files it reads (listed after it). Left out: bash's own start before the
		first line of `/etc/profile`, the prompt after the last file, and what the trace itself costs
		(one write per line). Network: connection attempts (TCP SYN leaving by an interface other than
		loopback) and DNS queries seen on the whole host while the file ran, median per login; another
		program's packets at that moment count too.

		EOF
		printf '| Start file | n | p50 | p95 | connects | DNS |\n|---|---:|---:|---:|---:|---:|\n'
		tsv_select "$parts" kind path n p50 p95 connects dns | awk -F'\t' '$1 == "file"' |
			while IFS=$'\t' read -r _ path pn p50 p95 conn dns; do
				ms_to cell_1 "$p50"
				ms_to cell_2 "$p95"
				printf '| `%s` | %s | %s | %s | %s | %s |\n' "$path" "$pn" "$cell_1" "$cell_2" "$conn" "$dns"
			done
		printf '\n'
	elif [ "${D[shell|split]-}" = no ]; then
		prose <<-'EOF' "${D[shell|account_shell]-}"
		The account's shell is %s: the split per start file covers bash only (it rests on bash's
		xtrace); the whole time and the floor above hold for any shell.

		EOF
	fi

	if [ "${D[shell|use_pam]-}" = no ]; then
		printf '**The PAM session:** the test server has `UsePAM no`: no PAM session, no message of the day from pam_motd.\n\n'
	else
		printf '**The PAM session** (`/etc/pam.d/sshd`): pam_motd %s, pam_systemd %s, pam_lastlog %s; sshd'"'"'s `PrintLastLog` %s. ' \
			"$(shell_yes "${D[shell|pam_motd]-}")" "$(shell_yes "${D[shell|pam_systemd]-}")" "$(shell_yes "${D[shell|pam_lastlog]-}")" "${D[shell|print_last_log]:--}"
		prose <<-'EOF' "$n"
		They run inside the session part above, for the floor too; only the message of the day can be
		timed on its own without changing the host: each script pam_motd runs (`/etc/update-motd.d`,
		Debian) was run as pam_motd runs it (as root, clean environment, output discarded), each file
		it shows (`/etc/motd`, `/etc/motd.d`, `/run/motd.d`, `/usr/lib/motd.d`) read by bash, %s times
		each. A script's time includes starting it (`timeout`, `env`, the program): the runner's row is
		that cost alone, and the advice below takes it off.

		EOF
		if [ -f "$parts" ] && tsv_select "$parts" kind | grep -q '^motd-'; then
			printf '| Message of the day | n | p50 | p95 |\n|---|---:|---:|---:|\n'
			tsv_select "$parts" kind path n p50 p95 | awk -F'\t' '$1 ~ /^motd-/' |
				while IFS=$'\t' read -r kind path pn p50 p95; do
					ms_to cell_1 "$p50"
					ms_to cell_2 "$p95"
					case $kind in
					motd-runner) printf '| the runner alone: `%s` started as a script is | %s | %s | %s |\n' "$path" "$pn" "$cell_1" "$cell_2" ;;
					*) printf '| %s `%s` | %s | %s | %s |\n' "${kind#motd-}" "$path" "$pn" "$cell_1" "$cell_2" ;;
					esac
				done
			printf '\n'
		fi
	fi

	part body
	printf '**How to read this result:**\n\n'
	shell_advice "$parts"
	part advice
	prose <<-'EOF'

	**What to change when it is slow:** find the file above, then make it quicker or skip it for
	logins that do not need it; a script that reaches the network (subscription-manager, a proxy
	check, an update notice) waits for it on every login, and on an offline network until its timeout:
	give it a short timeout, run it in the background, or remove it. A slow message of the day script
	(`/etc/update-motd.d`) runs for every session, with or without a terminal.

	EOF
}

shell_yes () {
	case $1 in yes) printf 'in the stack' ;; no) printf 'not in it' ;; *) printf 'unknown' ;; esac
}

# shell_row LABEL PREFIX: one row of the times table.
shell_row () {
	local cell_1 cell_2 cell_3 cell_4
	local n=${D[shell|${2}_n]-}
	[ -n "$n" ] || return 0
	ms_to cell_1 "${D[shell|${2}_p50]-}"
	ms_to cell_2 "${D[shell|${2}_p95]-}"
	n_note_to cell_3 "$n" p95
	ms_to cell_4 "${D[shell|${2}_max]-}"
	printf '| %s | %s | %s | %s%s | %s |\n' "$1" "$n" "$cell_1" \
		"$cell_2" "$cell_3" "$cell_4"
}

shell_part () {
	local cell_1 cell_2
	ms_to cell_1 "${D[shell|${3}_p50]-}"
	ms_to cell_2 "${D[shell|${3}_p95]-}"
	printf '| %s | %s | %s | %s |\n' "$1" "$2" "$cell_1" "$cell_2"
}

# shell_advice PARTS: a line per part over SHELL_SLOW_MS, and the verdict
# in words.
shell_advice () {
	local p50=${D[shell|whole_ready_p50]-}
	if [ -z "$p50" ]; then
		printf -- '- No login reached a usable shell: see `raw/shell-errors.txt` and `raw/shell-transcripts/`.\n'
		return 0
	fi
	[ -f "$1" ] && tsv_select "$1" kind path p50 p95 connects dns |
		awk -F'\t' -v slow="$SHELL_SLOW_MS" '
		$1 == "motd-runner" { run50 = $3 + 0; next }
		$1 == "motd-script" { if ($3 != "-") $3 = $3 - run50; if ($4 != "-") $4 = $4 - run50 }
		($3 != "-" && $3 + 0 > slow) || ($4 != "-" && $4 + 0 > slow) {
			what = ($1 == "file") ? "start file" : "message of the day " substr($1, 6)
			net = ($5 != "-" && $5 + $6 > 0)
			printf "- The %s `%s` takes %.0f ms at p50, %.0f ms at p95%s%s\n", what, $2, $3, $4, ($1 == "motd-script" ? " (less the runner)" : ""),
				net ? sprintf(" and **waited on the network** (%d connection attempts, %d DNS queries per login): " \
					"a script that reaches the network before the prompt; on an offline network it waits " \
					"for its timeout on every login. Make it fail fast or run it in the background.", $5, $6) : \
				($1 == "file" && $5 != "-" ? ": no connection attempt or DNS query was seen meanwhile, " \
					"so it is its own work (or a wait on something local)." : ".")
			found = 1
		}
		END { if (!found) printf "- No start file or message of the day part took over %d ms.\n", slow }'
	awk -v p50="$p50" -v floor="${D[shell|floor_ready_p50]:--1}" 'BEGIN {
		if (floor >= 0 && p50 - floor > 100)
			printf "- The start files add %.0f ms to every terminal login: users notice delays from about 100 ms.\n", p50 - floor
		if (p50 > 1000)
			printf "- %.1f s to a usable shell: over 1 s, look for the cause above.\n", p50 / 1000
	}'
}
