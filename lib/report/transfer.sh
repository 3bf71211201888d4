# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `transfer`; sourced by lib/bin/render.sh.

# transfer_rows RAW: one line per cipher for the table (cipher, default
# mark, up, down, ceiling, up %, down %, MAC note; separated by \037), from
# raw/transfer-ceiling.tsv (one row per cipher, in the order measured) and
# raw/transfer-runs.tsv (one row per cipher and direction), docs/data.md.
transfer_rows () {
	[ -f "$1/transfer-ceiling.tsv" ] || return 0
	{
		tsv_select "$1/transfer-runs.tsv" cipher direction status mbs | sed 's/^/runs\t/'
		tsv_select "$1/transfer-ceiling.tsv" cipher default mbs mac mac_timed note | sed 's/^/ceiling\t/'
	} | awk -F'\t' '
	$1 == "runs" { st[$2, $3] = $4; mbs[$2, $3] = $5; next }
	{ n++; c[n] = $2; def[n] = $3; ceil[n] = $4; mac[n] = $5; timed[n] = $6; note[n] = $7 }
	function speed(k, d) { return (st[k, d] == "ok") ? mbs[k, d] : "FAILED (" (st[k, d] == "" ? "failed" : st[k, d]) ")" }
	function pct(k, d) {
		if (st[k, d] != "ok" || ceil[i] == "" || ceil[i] == "-" || ceil[i] + 0 <= 0) return "-"
		return sprintf("%.0f", 100 * mbs[k, d] / ceil[i])
	}
	END {
		for (i = 1; i <= n; i++) {
			k = c[i]
			if (mac[i] == "aead") m = "built in (AEAD)"
			else if (timed[i] == "yes") m = mac[i]
			else if (timed[i] == "no") m = "**not timed**: " mac[i] " is not in OpenSSL, the ceiling is the cipher alone (too high)"
			else m = "-"
			cl = (ceil[i] == "") ? "-" : ceil[i]
			if (cl == "-") { cl = "not timed"; m = note[i] }
			printf "%s\037%s\037%s\037%s\037%s\037%s\037%s\037%s\n", k, (def[i] == "yes") ? " **(default)**" : "", \
				speed(k, "up"), speed(k, "down"), cl, pct(k, "up"), pct(k, "down"), m
		}
	}'
}

report_transfer () {
	local n c mark up down ceil up_pct down_pct mac_note low_pct bytes cpu_size
	n=${D[transfer|ciphers_n]-}
	# A run from before the bytes were kept: TRANSFER_MB of 10^6 bytes.
	bytes=${D[transfer|bytes]-}
	[ -n "$bytes" ] || [ -z "${D[transfer|transfer_mb]-}" ] || bytes="${D[transfer|transfer_mb]}000000"
	cpu_size=""
	[ -z "${D[transfer|cpu_bytes]-}" ] || cpu_size="$(size_text "${D[transfer|cpu_bytes]-}"), "

	# One copy per cipher and direction; the headline's interval (the
	# summary's n) is of the parts of its one copy: said together, so
	# that n = 1 and n = 16 are not two counts of one thing (issue 46,
	# case 8).
	local parts=""
	[ "${D[transfer|figure_method]-}" != chunks ] || [ -z "${D[transfer|figure_n]-}" ] ||
		parts=" The headline's 95 % interval (n = ${D[transfer|figure_n]-} in the summary) comes from the ${D[transfer|figure_n]-} parts of its one copy, not from more runs."
	prose "$(size_text "$bytes")" "${bytes:--}" "$parts" "32768" <<-'EOF'
	Bulk data through **one** SSH connection, no disk: %s (%s bytes) per cipher and direction.
	Rates are in **MB/s = 10^6 bytes per second**, everywhere in this section. Up: zeros from the kit's
	source into `ssh -c CIPHER sshperf-test 'wc -c'`, timed from the moment the remote command is
	running until the server's byte count arrives; down: `head -c` of `/dev/zero` on the server
	into the kit's sink, timed from the first to the last byte. Every byte is counted at the
	receiving end; a transfer that lost bytes counts as failed and shows no speed. One run (n = 1)
	per cipher and direction.%s The ceiling is the speed of the same algorithm on one core through
	OpenSSL (in-process, %s-byte packets, no SSH, no pipes, no network).

	EOF
	printf '| Cipher | Up MB/s | Down MB/s | Ceiling MB/s (OpenSSL, one core) | Up %% of ceiling | Down %% of ceiling | MAC in the ceiling |\n|---|---:|---:|---:|---:|---:|---|\n'
	low_pct=0
	while IFS=$'\037' read -r c mark up down ceil up_pct down_pct mac_note; do
		printf '| `%s`%s | %s | %s | %s | %s | %s | %s |\n' "$c" "$mark" "$up" "$down" "$ceil" \
			"$up_pct" "$down_pct" "$mac_note"
		if awk -v a="$up_pct" -v b="$down_pct" 'BEGIN { exit !((a != "-" && a < 25) || (b != "-" && b < 25)) }'; then
			low_pct=1
		fi
	done < <(transfer_rows "$RUN_DIR/raw")
	printf '\n'
	if tsv_select "$RUN_DIR/raw/transfer-ceiling.tsv" cipher | grep -qxF chacha20-poly1305@openssh.com; then

		prose <<-'EOF'
		The ChaCha20-Poly1305 ceiling is an approximation: OpenSSH builds its own variant (a second
		key encrypts the packet length), OpenSSL times the standard AEAD, which does the same work
		per byte.

		EOF
	fi

	prose "${D[transfer|failed]-}" "$((${n:-0} * 2))" <<-'EOF'
	Failed transfers: %s of %s. Raw: `raw/transfer-runs.tsv` (every run, with ssh's last message),
	`raw/transfer-ceiling.tsv`, and `raw/transfer-ciphers/` (the `sshd -T`, `ssh -G` and `ssh -Q`
	outputs the cipher list was taken from).

	EOF

	prose "${D[transfer|cpu_cipher]-}" "$cpu_size" "${D[transfer|cpu_bytes]-}" "${D[transfer|cpu_login_sshd_ms]-}" "${D[transfer|cpu_login_client_ms]-}" <<-'EOF'
	**CPU per GB** (GB = 10^9 bytes), during the upload of the default cipher `%s` (%s%s bytes,
	n = 1), with the cost of one login-only connection (sshd %s ms, client %s ms; measured once,
	alone, on a connection of its own: not the `cpu` section's CPU per login, a mean over logins
	under load) subtracted:

	EOF
	printf '| | CPU seconds per GB |\n|---|---:|\n'
	# A missing figure is "-" (an empty **** is no markdown).
	local su ss st sc
	su=${D[transfer|cpu_sshd_user_s_per_gb]-} ss=${D[transfer|cpu_sshd_system_s_per_gb]-}
	st=${D[transfer|cpu_sshd_s_per_gb]-} sc=${D[transfer|cpu_client_s_per_gb]-}
	printf '| sshd, user | %s |\n| sshd, system | %s |\n| **sshd, total** | **%s** |\n| ssh client (user + system) | %s |\n\n' \
		"${su:--}" "${ss:--}" "${st:--}" "${sc:--}"
	[ -z "${D[transfer|cpu_note]-}" ] || printf 'Note: %s.\n\n' "${D[transfer|cpu_note]-}"
	awk -v b="${D[transfer|cpu_bytes]-}" 'BEGIN { if (b + 0 < 500e6) print "With less than 500 MB the CPU figures rest on few clock ticks (10 ms each) and are rough.\n" }'

	part body
	printf '**How to read this result:**\n\n'
	# The readings of the ceiling and CPU tables go to the details with
	# them (to_details, to_body: the lines of part).
	awk -v up="${D[transfer|default_up_mbs]-}" -v down="${D[transfer|default_down_mbs]-}" -v target="${D[transfer|target]-}" \
		-v def="${D[transfer|default_cipher]-}" -v low="$low_pct" -v cpu="${D[transfer|cpu_sshd_s_per_gb]-}" \
		-v to_details="${PART_MARK}details@@" -v to_body="${PART_MARK}body@@" 'BEGIN {
		if (up != "" && up != "-" && down != "" && down != "-") {
			if (up + 0 >= target && down + 0 >= target)
				printf "- The default cipher `%s` carries %s MB/s up and %s MB/s down: enough for the target of %s MB/s (a 1 Gbit/s link carries about 115 MB/s).\n", def, up, down, target
			else
				printf "- The default cipher `%s` carries %s MB/s up and %s MB/s down, below the target of %s MB/s: a single SSH stream on this machine cannot fill that link.\n", def, up, down, target
		}
		printf "\n%s\n", to_details
		printf "- One connection does its encryption on one core at each end, so a single stream can never be faster than the ceiling column; parallel transfers use more cores.\n"
		if (low)

			print "- Some figures are far below their ceiling (under 25%): the cipher is not the" \
				" limit. The data also passes through pipes and the socket, is copied several times," \
				" and waits for the SSH channel window; here the client, the server and the data" \
				" source also share the same cores. Expect more on a server whose clients are" \
				" elsewhere."
		if (cpu != "" && cpu != "-")
			printf "- sshd needs about %s CPU seconds per GB: a server moving 100 MB/s spends about %.2f cores on it (client side not included).\n", cpu, cpu * 0.1
		printf "\n%s\n", to_body
	}'

	part advice
	prose <<-'EOF'

	**What to change when it is slow:** keep the AES-GCM ciphers first on CPUs with AES
	instructions (ChaCha20-Poly1305 for CPUs without them); run several transfers in parallel to
	use more cores; leave compression off on fast networks; for long-distance links, larger
	buffers in the transfer tool (e.g. `sftp -B`/`-R`) help more than a different cipher.

	EOF
}

# The specification's example for the cipher the figure is of (its
# section 4.9 table, one core of a Ryzen 9 5950X): the summary's reference
# is matched to like, chacha20 against chacha20, never against the
# aes256-gcm line (issue 28). Nothing for a cipher the table lacks.
reference_transfer () {
	local c
	c=${D[transfer|default_cipher]-}
	case $c in
	aes256-gcm@openssh.com) printf 'about 1,050 MB/s, aes256-gcm (4.9)' ;;
	aes128-gcm@openssh.com) printf 'about 1,140 MB/s, aes128-gcm (4.9)' ;;
	aes256-ctr | aes128-ctr) printf 'about 780 MB/s, %s (4.9)' "$c" ;;
	chacha20-poly1305@openssh.com) printf 'about 640 MB/s, chacha20-poly1305 (4.9)' ;;
	esac
}
