# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `sftp`; sourced by lib/bin/render.sh.

# sftp_cell VALUE STATUS CHECK: a figure, or why there is none.
sftp_cell () {
	if [ -n "$1" ] && [ "$1" != - ]; then
		printf '%s' "$1"
	elif [ "$2" != ok ]; then
		printf 'FAILED (sftp %s)' "${2:-did not run}"
	elif [ "$3" != ok ]; then
		printf 'FAILED (check: %s)' "${3:-not done}"
	else
		printf 'not timed'
	fi
}

# sftp_s SECONDS: three decimals, "-" when missing.
sftp_s () {
	case $1 in '' | -) printf -- '-' ;; *) printf '%.3f' "$1" ;; esac
}

# sftp_interval KEY UNIT: the interval of a result from its parts, "lo-hi
# (n parts)" in the digits the interval supports (fig), ? for a bound not
# known; "-" without one (a run made before the parts were timed, or a
# copy that failed).
sftp_interval () {
	local lo hi n
	lo=${D[sftp|${1}_lo]-} hi=${D[sftp|${1}_hi]-} n=${D[sftp|${1}_parts]-}
	case $lo in '' | -) printf -- '-'; return 0 ;; esac
	case $hi in
	'' | -) fig lo "$2" "$lo"; hi="?" ;;
	*) fig lo "$2" "$lo" "$lo" "$hi"; fig hi "$2" "$hi" "$lo" "$hi" ;;
	esac
	printf '%s-%s (%s parts)' "$lo" "$hi" "$n"
}

# sftp_row LABEL PREFIX UNIT: one row of the table.
sftp_row () {
	local label=$1 p=$2 unit=$3 value sub all net key
	if [ "$p" = small ]; then
		key=small_files_per_s
		sub=${D[sftp|small_minus_login_files_per_s]-}
	else
		key=${p}_mbs
		sub=${D[sftp|${p}_minus_login_mbs]-}
	fi
	value=${D[sftp|$key]-}
	all=${D[sftp|${p}_seconds]-}
	net=${D[sftp|${p}_net_seconds]-}
	if [ -n "$value" ] && [ "$value" != - ]; then
		value="**$(figs "$unit" "$value") $unit**"
	else
		value=$(sftp_cell "$value" "${D[sftp|${p}_status]-}" "${D[sftp|${p}_check]-}")
	fi
	printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$(sftp_s "$all")" \
		"$(awk -v a="$all" -v n="$net" 'BEGIN { if (a == "" || n == "" || n == "-") print "-"; else printf "%.0f", (a - n) * 1000 }')" \
		"$(sftp_s "$net")" "$value" "$(sftp_interval "$key" "$unit")" \
		"$( [ -n "$sub" ] && [ "$sub" != - ] && printf '%s %s' "$(figs "$unit" "$sub")" "$unit" || printf -- '-')" "${D[sftp|${p}_check]-}"
}

report_sftp () {
	local login fps ms_file big
	[ -n "${D[sftp|large_up_status]-}${D[sftp|login_ms]-}" ] || return 0
	login=${D[sftp|login_ms]-}
	fps=${D[sftp|small_files_per_s]-}
	ms_file=${D[sftp|small_ms_per_file]-}
	big=$(size_text "${D[sftp|file_bytes]-}")

	prose "$(t sftp home | xargs basename)" "${D[sftp|home]-}" \
		"$big" "${D[sftp|small_files]-}" "$(size_text "${D[sftp|small_file_bytes]-}")" \
		"${D[sftp|login_n]-}" "$(ms "$login")" <<-'EOF'
	Files copied with `sftp -b BATCH -F CLIENT_CONFIG sshperf-test` into a folder of the test's own
	in the home of `%s` (`%s`, on disk), one sftp run each: one file of %s up and the same file
	down, then %s files of %s each up in one run. Rates are in **MB/s = 10^6 bytes per
	second**. Every sftp run logs in once, and the figures leave the login out: the copy is timed from the moment
	sftp echoes its first batch command (it is logged in by then) to its exit. As a cross-check,
	the specification's way is shown too: the whole run minus the median of %s sftp runs that only
	log in (**%s ms**); at a few MB the login's own spread from run to run (tens of ms) makes that
	column rough, at 256 MiB the two agree. After each copy the result is checked: the uploaded
	file's size and SHA-256 on the server, the downloaded one against the original, the number and
	sizes of the small files on the server.

	EOF

	if [ -n "${D[sftp|large_chunks]-}" ]; then
		prose "${D[sftp|large_chunks]-}" "${D[sftp|small_batches]-}" <<-'EOF'
		The large file is **one file**, copied with one `put` and one `get`, as the specification
		measures it. Each copy is timed in %s chunks of equal size, as `transfer` times its one
		stream: the kit reads the size of the file being written (the server's copy for up, it is on
		this machine; the local copy for down) every millisecond, and a chunk ends when the file
		has grown past it; the last ends with sftp's exit, so the chunks add up to the copy. The
		small files go as %s `put` commands in their one run: sftp echoes every command as it starts
		it, so each is timed from its echo to the next one's. The result is the whole copy's rate;
		its **95 %% interval** is the Student t interval of the time per MB (per file) over the
		chunks (commands), turned into a rate. It shows how steady the copy was within this run;
		the chunks share one machine's moment, so a second run on a shared machine can still
		differ by more (10-20 %% is common). Each chunk and command: `raw/sftp-parts.tsv`.

		EOF
	elif [ -n "${D[sftp|large_parts]-}" ]; then
		prose "${D[sftp|large_parts]-}" "${D[sftp|small_batches]-}" <<-'EOF'
		The large file goes as %s files of an equal share and the small files as %s `put`
		commands, each in the one sftp run of its row: sftp echoes every command as it starts it, so
		each part is timed, from its echo to the next one's (the last to sftp's exit), and the parts
		add up to the copy. The result is the whole copy's rate; its **95 %% interval** is the
		Student t interval of the time per MB (per file) over the parts, turned into a rate. It
		shows how steady the copy was within this run; the parts share one machine's moment, so a
		second run on a shared machine can still differ by more (10-20 %% is common). Each part:
		`raw/sftp-parts.tsv`.

		EOF
	else
		prose <<-'EOF'
		One run (n = 1) each; on a shared machine a second run can differ by 10-20%%.

		EOF
	fi

	printf '| | Whole run (s) | Its login (ms) | Copy (s) | **Result** | 95 %% interval | Run minus login-only run | Check |\n|---|---:|---:|---:|---:|---:|---:|---|\n'
	sftp_row "$big file up" large_up MB/s
	sftp_row "$big file down" large_down MB/s
	sftp_row "${D[sftp|small_files]-} small files up" small files/s
	printf '\n'

	prose "${D[sftp|target]-}" "${D[sftp|target_files_per_s]-}" "${D[sftp|failed]-}" "${D[sftp|left_behind]-}" <<-'EOF'
	Targets: >= %s MB/s both ways for the large file, >= %s files/s for the small files, each
	judged on its interval (PASS when all of it meets the target). Problems:
	%s. Left in the home afterwards: %s. Raw: `raw/sftp-runs.tsv` (every sftp run, login-only runs
	included), `raw/sftp-runs/` (batch files, sftp's messages, the home listing before and after),
	`raw/sftp-errors.txt`.

	EOF

	part body
	printf '**How to read this result:**\n\n'
	awk -v up="${D[sftp|large_up_mbs]-}" -v down="${D[sftp|large_down_mbs]-}" -v target="${D[sftp|target]-}" \
		-v tup="$(compared sftp transfer default_up_mbs)" -v tdown="$(compared sftp transfer default_down_mbs)" \
		-v fps="${fps:--}" -v msf="${ms_file:--}" -v msf_t="$(figs ms "${ms_file:--}")" \
		-v ftarget="${D[sftp|target_files_per_s]-}" -v mb="$(awk -v b="${D[sftp|file_bytes]-}" 'BEGIN { print b / 1e6 }')" -v big="$big" \
		-v to_details="${PART_MARK}details@@" -v to_body="${PART_MARK}body@@" 'BEGIN {
		if (up != "" && up != "-" && down != "" && down != "-") {
			if (up + 0 >= target && down + 0 >= target)
				printf "- The large file moves at %s MB/s up and %s MB/s down, above the target of %s MB/s.\n", up, down, target
			else
				printf "- The large file moves at %s MB/s up and %s MB/s down; the target is %s MB/s.\n", up, down, target
			# The comparison with the transfer figures: in the details.
			printf "\n%s\n", to_details
			if (tup != "" && tup != "-" && tdown != "" && tdown != "-")

				printf "- Without a disk and without SFTP'"'"'s requests, one SSH connection carried %s MB/s" \
					" up and %s MB/s down (the `transfer` test). SFTP near those figures is limited by" \
					" the cipher on one core; far below them, by the disk or by how many requests sftp" \
					" keeps in flight.\n", tup, tdown
			printf "\n%s\n", to_body
			if (mb + 0 < 100)

				printf "- With only %s the copy lasts a fraction of a second and the login subtracted" \
					" from it varies by tens of ms between runs: treat these figures as rough; the" \
					" default 256 MiB gives steadier ones.\n", big
		}
		if (fps != "-" && fps != "") {

			printf "- The small files went at %s files/s, %s ms each. Each file costs the client at" \
				" least three request/answer round trips (open, write, close), and sftp sends the next" \
				" file only after the last one was closed.\n", fps, msf_t
			# What the round trips make of it on a network: in the details.
			printf "\n%s\n", to_details

			printf "- Over loopback a round trip takes a few microseconds, so this is the server'"'"'s and" \
				" the client'"'"'s own work per file. Across a network the round trips add up: with 3" \
				" of them per file, one sftp session manages at most about\n\n"
			# The table is not indented under the item: the report
			# subset has no blocks inside list items (docs/report-format.md).
			printf "| Round-trip time | Files/s, one session (at most) |\n|---:|---:|\n"
			n = split("0.2 1 10 50", rtt, " ")
			for (i = 1; i <= n; i++)
				printf "| %s ms | %.0f |\n", rtt[i], 1000 / (3 * rtt[i] + msf)
			printf "\n(1000 / (3 x RTT + the %s ms measured here)); from a client 1 ms away that is about %.0f files/s, whatever the server.\n\n", msf_t, 1000 / (3 + msf)
			printf "%s\n", to_body
			if (fps + 0 < ftarget)
				printf "- Below the target of %s files/s already over loopback: look at the disk (many small writes, each file created and closed) and at the server'"'"'s CPU during the run.\n", ftarget
		}
	}'

	part advice
	prose <<-'EOF'

	**What to change when it is slow:** for many small files, send one archive instead (`tar c
	DIR | ssh HOST tar x`, or `tar` first and one `put`) or run several sftp sessions in parallel,
	each its own share of the files; the round trips then overlap. For large files over long distances,
	let sftp keep more and larger requests in flight (`sftp -R 128 -B 262144`). When the large file
	is far below the `transfer` figures, check the disk of the home folder; when it is close to
	them, the cipher is the limit (see `transfer`).

	EOF
}
