# shellcheck shell=bash
# transfer: TRANSFER_MB MiB (1048576 bytes, as the specification's dd
# bs=1M count=1024: 1 GiB by default) through one ssh connection per cipher
# and direction, no disk; rates in MB/s, MB = 10^6 bytes: up into 'wc -c' on the server (which
# reports what arrived), down from 'head -c' on the server into the kit's
# sink. Next to each cipher, its single-core ceiling through OpenSSL EVP.
# The default cipher's upload, with sshd's and the client's CPU per GB, is
# the probe bulk's (lib/probes/bulk.sh, which cpu uses too).

# shellcheck source=lib/ciphers.sh
. "$KIT_DIR/lib/ciphers.sh"
# shellcheck source=lib/xfer.sh
. "$KIT_DIR/lib/xfer.sh"

about_transfer () {
	printf '%s MiB up and down per cipher through one ssh connection, plus OpenSSL ceilings (about %s s per cipher)\n' \
		"${SETTING[TRANSFER_MB]}" "$(awk -v mb="${SETTING[TRANSFER_MB]}" -v c="${SETTING[CEILING_SECONDS]}" 'BEGIN { printf "%.0f", 2 * (mb / 150 + 0.5) + c }')"
}

# precheck_transfer: test-ssh.sh's check before a run (lib/metrics.tab:
# needs precheck). TRANSFER_CIPHERS may name only ciphers this test can
# use: known to ssh, allowed by the test server, offered by the client
# (ciphers_check). One line and status 1 when it names others. When sshd
# -T itself fails, the test says so in the report instead.
precheck_transfer () {
	local work rc=0
	[ -n "${SETTING[TRANSFER_CIPHERS]}" ] || return 0
	work=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-precheck.XXXXXX") || return 0
	if ciphers_record "$work" 2>/dev/null; then
		ciphers_check "${SETTING[TRANSFER_CIPHERS]}" "$work/sshd-T.txt" "$work/ssh-G.txt" "$work/ssh-Q.txt" || rc=$?
	fi
	rm -rf -- "$work"
	return "$rc"
}

# The columns of raw/transfer-runs.tsv and raw/transfer-ceiling.tsv
# (docs/data.md); each row is written from them.
TRANSFER_RUNS_COLUMNS="cipher direction status bytes_expected bytes seconds mbs exit client_cpu_s message"
TRANSFER_CEILING_COLUMNS="cipher status evp mac mac_timed mbs bytes seconds note default"

# transfer_message F: a transfer's last message (ssh's, else the helper's note).
transfer_message () {
	local msg
	msg=$(tail -n 1 "$1.err" 2>/dev/null)
	printf '%s\n' "${msg:-$(kv_get "$1" note)}"
}

# One row of raw/transfer-runs.tsv from a helper output file.
transfer_tsv_row () {
	local k
	local -A row=([cipher]=$1 [direction]=$2 [message]="$(transfer_message "$3")")
	for k in status bytes_expected bytes seconds mbs exit client_cpu_s; do
		row[$k]=$(kv_get "$3" "$k")
	done
	tsv_row row "$TRANSFER_RUNS_COLUMNS"
}

measure_transfer () {
	local work bytes sel i=0 cipher mark dir f mac st mbs failed=0 first_fail="" \
		default="" up down silent stopped="" total probe="$DATA_DIR/probe-bulk.env" k v
	local -A row=() default_file=()
	work="$RAW_DIR/transfer-ciphers"
	mkdir -p "$work"
	bytes=$((SETTING[TRANSFER_MB] * 1048576))
	result_set transfer transfer_mb "${SETTING[TRANSFER_MB]}"
	result_set transfer bytes "$bytes"
	# The target, also when the ciphers cannot be read (result_verdict
	# below writes it again with the figure).
	result_set transfer unit "MB/s"
	result_set transfer target "${SETTING[TARGET_TRANSFER_MBS]}"
	result_set transfer target_op ">="

	if ! ciphers_record "$work" 2>"$work/error.txt"; then
		result_status transfer ERROR "$(cat "$work/error.txt")"
		result_set transfer summary "could not read the test server's ciphers"
		return 0
	fi
	if ! sel=$(ciphers_select "${SETTING[TRANSFER_CIPHERS]}" "$work/sshd-T.txt" "$work/ssh-G.txt" "$work/ssh-Q.txt" 2>"$work/error.txt"); then
		result_status transfer ERROR "$(cat "$work/error.txt")"
		result_set transfer summary "bad cipher list, nothing measured"
		return 0
	fi
	total=$(printf '%s\n' "$sel" | grep -c .)
	default=$(ciphers_default "$work/sshd-T.txt" "$work/ssh-G.txt" "$work/ssh-Q.txt")
	mac=$(ciphers_mac "$work/sshd-T.txt" "$work/ssh-G.txt")
	result_set transfer default_cipher "$default"
	result_set transfer mac "${mac:--}"

	tsv_header "$TRANSFER_RUNS_COLUMNS" >"$RAW_DIR/transfer-runs.tsv"
	tsv_header "$TRANSFER_CEILING_COLUMNS" >"$RAW_DIR/transfer-ceiling.tsv"
	while IFS=$'\t' read -r cipher mark; do
		[ -n "$cipher" ] || continue
		i=$((i + 1))
		progress_step "transfer: $cipher$([ "$mark" = default ] && echo ' (default)')"

		# The ceiling: what one core does with this algorithm in OpenSSL.
		f="$work/ceiling-$i.txt"
		helper ceiling -s "${SETTING[CEILING_SECONDS]}" -m "${mac:-hmac-sha2-256-etm@openssh.com}" "$cipher" >"$f" 2>"$f.err" || true
		# shellcheck disable=SC2034 # read by tsv_row, by its name
		row=([cipher]=$cipher [note]="$(kv_get "$f" note)$([ -s "$f.err" ] && tail -n 1 "$f.err")"
			[default]=$([ "$mark" = default ] && echo yes || echo no))
		for k in status evp mac mac_timed mbs bytes seconds; do
			# shellcheck disable=SC2034 # likewise
			row[$k]=$(kv_get "$f" "$k")
		done
		tsv_row row "$TRANSFER_CEILING_COLUMNS" >>"$RAW_DIR/transfer-ceiling.tsv"

		silent=0
		for dir in up down; do
			f="$work/run-$i-$dir.txt"
			if [ "$dir" = up ] && [ "$cipher" = "$(kv_get "$probe" cipher)" ] &&
				[ "$(kv_get "$probe" bytes)" = "$bytes" ]; then
				# The default cipher's upload is the bulk probe's, with
				# the CPU per GB.
				f="$RAW_DIR/probe-bulk-up.txt"
				while IFS='=' read -r k v; do
					case $k in cpu_*) result_set transfer "$k" "$v" ;; esac
				done <"$probe"
				result_set transfer bulk_raw raw/probe-bulk
			else
				transfer_run "$dir" "$cipher" "$bytes" "$f" || true
			fi
			transfer_tsv_row "$cipher" "$dir" "$f" >>"$RAW_DIR/transfer-runs.tsv"
			st=$(kv_get "$f" status)
			mbs=$(kv_get "$f" mbs)
			if [ "$st" != ok ]; then
				# A short or failed transfer has no speed.
				failed=$((failed + 1))
				[ -n "$first_fail" ] || first_fail="$cipher $dir: $st, $(kv_get "$f" bytes) of $bytes bytes arrived (ssh exit $(kv_get "$f" exit)): $(transfer_message "$f")"
			fi
			if [ "$mark" = default ]; then
				result_set transfer "default_${dir}_mbs" "$([ "$st" = ok ] && echo "$mbs" || echo -)"
				default_file[$dir]=$f
			fi
			! transfer_no_answer "$f" || silent=$((silent + 1))
		done
		# Neither transfer got an answer: the server does not answer, the
		# other ciphers would only wait for their own deadlines.
		if [ "$silent" -eq 2 ] && [ "$i" -lt "$total" ]; then
			stopped="neither transfer with $cipher got an answer, so the other $((total - i)) ciphers were not measured"
			result_set transfer not_measured "$(printf '%s\n' "$sel" | grep . | awk -F'\t' '{ print $1 }' | tail -n +"$((i + 1))" | paste -sd' ' -)"
			break
		fi
	done <<<"$sel"
	result_set transfer ciphers_n "$i"
	result_set transfer failed "$failed"

	up=$(result_get transfer default_up_mbs)
	down=$(result_get transfer default_down_mbs)
	if [ -z "$up" ]; then
		result_verdict transfer "" ">=" "${SETTING[TARGET_TRANSFER_MBS]}" "MB/s" "default cipher not measured"
		if [ -n "$stopped" ]; then
			result_status transfer FAIL "the test server did not answer: $failed of $((i * 2)) transfers failed, first: $first_fail; $stopped" \
				"Check that the test server still runs (./start-ssh.sh status), start it again, and rerun ./test-ssh.sh transfer"
		else
			# TRANSFER_CIPHERS left out the default: the verdict needs it.
			result_status transfer ERROR "the default cipher $default was not measured (TRANSFER_CIPHERS=${SETTING[TRANSFER_CIPHERS]}); add it to judge the target"
		fi
	else
		# The interval of the slower direction, from both directions' parts.
		if [ "$up" != - ] && [ "$down" != - ]; then
			result_interval_chunks transfer "${default_file[up]}" "${default_file[down]}"
		fi
		result_verdict transfer "$(awk -v u="$up" -v d="$down" 'BEGIN { if (u == "-" || d == "-") print "-"; else print (u + 0 < d + 0) ? u : d }')" \
			">=" "${SETTING[TARGET_TRANSFER_MBS]}" "MB/s" "$default, ${SETTING[TRANSFER_MB]} MiB, slower direction, MB/s = 10^6 bytes/s" \
			"the default cipher $default reached $(figs MB/s "$up") MB/s up and $(figs MB/s "$down") MB/s down, below ${SETTING[TARGET_TRANSFER_MBS]} MB/s" \
			"Use an AES-GCM cipher on a CPU with AES-NI (the table shows each cipher), run several transfers in parallel, or lower TARGET_TRANSFER_MBS to what one core of this machine can do"
		[ "$failed" -eq 0 ] ||
			result_status transfer FAIL "$failed of $((i * 2)) transfers did not deliver every byte or failed; first: $first_fail${stopped:+; $stopped}" \
				"Read raw/transfer-runs.tsv and the server's log for why transfers broke, fix it, and rerun ./test-ssh.sh transfer"
	fi
	result_set transfer summary "$default: ${up:--} MB/s up, ${down:--} MB/s down (${SETTING[TRANSFER_MB]} MiB each, MB/s = 10^6 bytes/s); $i ciphers, $failed failed transfers; target >= ${SETTING[TARGET_TRANSFER_MBS]} MB/s"
}
