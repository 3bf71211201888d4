# shellcheck shell=bash
# transfer: TRANSFER_MB MB (MB = 10^6 bytes) through one ssh connection per
# cipher and direction, no disk: up into 'wc -c' on the server (which
# reports what arrived), down from 'head -c' on the server into the kit's
# sink. Next to each cipher, its single-core ceiling through OpenSSL EVP;
# during the default cipher's upload, sshd's and the client's CPU per GB.

# shellcheck source=lib/ciphers.sh
. "$KIT_DIR/lib/ciphers.sh"

about_transfer () {
	printf '%s MB (10^6 bytes) up and down per cipher through one ssh connection, plus OpenSSL ceilings (about %s s per cipher)\n' \
		"$TRANSFER_MB" "$(awk -v mb="$TRANSFER_MB" -v c="$CEILING_SECONDS" 'BEGIN { printf "%.0f", 2 * (mb / 150 + 0.5) + c }')"
}

# Seconds one transfer may take: a minute plus 1 s per 5 MB (5 MB/s).
transfer_timeout () {
	printf '%s\n' "$((60 + $1 / 5000000))"
}

# The ssh command for one cipher; the remote command follows.
transfer_ssh () {
	printf '%s\0' "$SSH" -F "$CLIENT_CONFIG" -o Compression=no -c "$1" "$HOST_ALIAS"
}

# transfer_run DIRECTION CIPHER BYTES OUT: one transfer; the helper's
# key=value lines to OUT, ssh's messages to OUT.err. Status 0 when every
# byte arrived and ssh exited 0.
transfer_run () {
	local dir=$1 cipher=$2 bytes=$3 out=$4 remote
	local -a ssh_cmd
	mapfile -d '' ssh_cmd < <(transfer_ssh "$cipher")
	if [ "$dir" = up ]; then
		# The server says "ready" once the session runs, then counts.
		remote='echo ready; exec wc -c'
	else
		remote="exec head -c $bytes /dev/zero"
	fi
	helper xfer "$dir" -n "$bytes" -t "$(transfer_timeout "$bytes")" -- "${ssh_cmd[@]}" "$remote" \
		>"$out" 2>"$out.err" </dev/null
}


# transfer_no_answer FILE: true when the transfer of a helper output file
# got no answer: ended at its deadline, or ssh timed out by itself.
transfer_no_answer () {
	[ "$(kv_get "$1" status)" = timeout ] || grep -q 'timed out' "$1.err" 2>/dev/null
}

# Waits (up to 10 s) until the listener has no session processes left, so
# that their CPU has been collected by the listener before a sample.
transfer_settle () {
	local pid deadline
	pid=$(server_pid)
	[ -n "$pid" ] || return 0
	deadline=$(($(date +%s) + 10))
	while [ -n "$(cat /proc/"$pid"/task/*/children 2>/dev/null | tr -d ' \n')" ]; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.02
	done
}

# "USER_MS SYSTEM_MS" of the test server: the listener and every process
# it started (ended ones too), plus, under systemd, the test user's
# sessions (user-UID.slice, where pam_systemd moves them). From the
# sampler; status 1 when it cannot tell.
transfer_sshd_cpu () {
	local out
	transfer_settle || true
	out=$(sample_server 2>/dev/null) || return 1
	printf '%s\n' "$out" | awk -F= '{ v[$1] = $2 }
		END {
			u = v["cpu_user_ms"]; s = v["cpu_system_ms"]
			if (u == "" || u == "-" || s == "" || s == "-") exit 1
			su = v["session_user_ms"]; ss = v["session_system_ms"]
			if (su == "" || su == "-") su = 0
			if (ss == "" || ss == "-") ss = 0
			printf "%.3f %.3f\n", u + su, s + ss
		}'
}

# transfer_cpu CIPHER BYTES PREFIX: one upload of BYTES with CIPHER,
# sshd's CPU sampled before and after, and one login-only connection
# (ssh true) measured the same way and subtracted, so that the figures
# are the cost of the data alone. Leaves PREFIX-login.txt and
# PREFIX-up.txt (sshperf-xfer output) and prints key=value lines:
# cpu_direction cpu_cipher cpu_bytes cpu_sshd_s_per_gb
# cpu_sshd_user_s_per_gb cpu_sshd_system_s_per_gb cpu_client_s_per_gb
# cpu_login_sshd_ms cpu_login_client_ms (GB = 10^9 bytes; "-" unknown).
transfer_cpu () {
	local cipher=$1 bytes=$2 prefix=$3 a b d login_ok=1
	local -a ssh_cmd
	mapfile -d '' ssh_cmd < <(transfer_ssh "$cipher")
	a=$(transfer_sshd_cpu) || a=""
	helper xfer run -t "$LOGIN_TIMEOUT" -- "${ssh_cmd[@]}" true \
		>"$prefix-login.txt" 2>"$prefix-login.txt.err" </dev/null || login_ok=0
	b=$(transfer_sshd_cpu) || b=""
	transfer_run up "$cipher" "$bytes" "$prefix-up.txt" || true
	d=$(transfer_sshd_cpu) || d=""
	awk -v a="$a" -v b="$b" -v d="$d" -v bytes="$bytes" -v cipher="$cipher" \
		-v login_ok="$login_ok" -v up_ok="$(kv_get "$prefix-up.txt" status)" \
		-v lc="$(kv_get "$prefix-login.txt" client_cpu_s)" -v uc="$(kv_get "$prefix-up.txt" client_cpu_s)" 'BEGIN {
		gb = bytes / 1e9
		print "cpu_direction=up"
		print "cpu_cipher=" cipher
		print "cpu_bytes=" bytes
		ok = (up_ok == "ok" && login_ok == 1)
		split(a, A, " "); split(b, B, " "); split(d, D, " ")
		if (ok && a != "" && b != "" && d != "") {
			lu = B[1] - A[1]; ls = B[2] - A[2]
			uu = D[1] - B[1] - lu; us = D[2] - B[2] - ls
			if (uu < 0) uu = 0
			if (us < 0) us = 0
			printf "cpu_sshd_user_s_per_gb=%.3f\n", uu / 1000 / gb
			printf "cpu_sshd_system_s_per_gb=%.3f\n", us / 1000 / gb
			printf "cpu_sshd_s_per_gb=%.3f\n", (uu + us) / 1000 / gb
			printf "cpu_login_sshd_ms=%.1f\n", lu + ls
		} else {
			print "cpu_sshd_user_s_per_gb=-"
			print "cpu_sshd_system_s_per_gb=-"
			print "cpu_sshd_s_per_gb=-"
			print "cpu_login_sshd_ms=-"
		}
		if (ok && lc != "" && uc != "") {
			x = uc - lc
			if (x < 0) x = 0
			printf "cpu_client_s_per_gb=%.3f\n", x / gb
			printf "cpu_login_client_ms=%.1f\n", lc * 1000
		} else {
			print "cpu_client_s_per_gb=-"
			print "cpu_login_client_ms=-"
		}
		if (!ok) print "cpu_note=the upload or the login-only connection failed"
		else if (a == "" || b == "" || d == "") print "cpu_note=the sampler could not read the test server'"'"'s CPU"
	}'
}

# For the cpu test when transfer did not run: the default cipher's CPU per
# GB from one upload of min(TRANSFER_MB, 256) MB; key=value lines on
# stdout (see transfer_cpu), raw files in $RAW_DIR/cpu-transfer-*.
transfer_cpu_per_gb () {
	local dir mb default
	dir=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-ciphers.XXXXXX")
	if ! ciphers_record "$dir" 2>"$dir/err"; then
		printf 'cpu_note=%s\n' "$(cat "$dir/err")"
		rm -rf "$dir"
		return 1
	fi
	default=$(ciphers_default "$dir/sshd-T.txt" "$dir/ssh-G.txt" "$dir/ssh-Q.txt")
	rm -rf "$dir"
	[ -n "$default" ] || { printf 'cpu_note=the test server and the client have no cipher in common\n'; return 1; }
	mb=$TRANSFER_MB
	[ "$mb" -le 256 ] || mb=256
	transfer_cpu "$default" "$((mb * 1000000))" "$RAW_DIR/cpu-transfer"
}

# One row of raw/transfer-runs.tsv from a helper output file.
transfer_tsv_row () {
	local cipher=$1 dir=$2 f=$3 msg
	msg=$(tail -n 1 "$f.err" 2>/dev/null | tr '\t' ' ')
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cipher" "$dir" "$(kv_get "$f" status)" \
		"$(kv_get "$f" bytes_expected)" "$(kv_get "$f" bytes)" "$(kv_get "$f" seconds)" "$(kv_get "$f" mbs)" \
		"$(kv_get "$f" exit)" "$(kv_get "$f" client_cpu_s)" "${msg:-$(kv_get "$f" note)}"
}

measure_transfer () {
	local work bytes sel i=0 cipher mark dir f mac st mbs ceil failed=0 first_fail="" \
		default="" up down cpu_prefix reason silent stopped="" total
	work="$RAW_DIR/transfer-ciphers"
	mkdir -p "$work"
	bytes=$((TRANSFER_MB * 1000000))
	result_set transfer transfer_mb "$TRANSFER_MB"
	result_set transfer bytes "$bytes"
	result_set transfer unit "MB/s"
	result_set transfer target "$TARGET_TRANSFER_MBS"
	result_set transfer target_op ">="

	if ! ciphers_record "$work" 2>"$work/error.txt"; then
		result_set transfer status ERROR
		result_set transfer reason "$(cat "$work/error.txt")"
		result_set transfer summary "could not read the test server's ciphers"
		return 0
	fi
	if ! sel=$(ciphers_select "$TRANSFER_CIPHERS" "$work/sshd-T.txt" "$work/ssh-G.txt" "$work/ssh-Q.txt" 2>"$work/error.txt"); then
		result_set transfer status ERROR
		result_set transfer reason "$(cat "$work/error.txt")"
		result_set transfer summary "bad cipher list, nothing measured"
		return 0
	fi
	total=$(printf '%s\n' "$sel" | grep -c .)
	default=$(ciphers_default "$work/sshd-T.txt" "$work/ssh-G.txt" "$work/ssh-Q.txt")
	mac=$(ciphers_mac "$work/sshd-T.txt" "$work/ssh-G.txt")
	result_set transfer default_cipher "$default"
	result_set transfer mac "${mac:--}"

	printf 'cipher\tdirection\tstatus\tbytes_expected\tbytes\tseconds\tmbs\texit\tclient_cpu_s\tmessage\n' \
		>"$RAW_DIR/transfer-runs.tsv"
	printf 'cipher\tstatus\tevp\tmac\tmac_timed\tmbs\tbytes\tseconds\tnote\tdefault\n' >"$RAW_DIR/transfer-ceiling.tsv"
	while IFS=$'\t' read -r cipher mark; do
		[ -n "$cipher" ] || continue
		i=$((i + 1))
		progress_step "transfer: $cipher$([ "$mark" = default ] && echo ' (default)')"

		# The ceiling: what one core does with this algorithm in OpenSSL.
		f="$work/ceiling-$i.txt"
		helper ceiling -s "$CEILING_SECONDS" -m "${mac:-hmac-sha2-256-etm@openssh.com}" "$cipher" >"$f" 2>"$f.err" || true
		ceil=$(kv_get "$f" mbs)
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$cipher" "$(kv_get "$f" status)" "$(kv_get "$f" evp)" "$(kv_get "$f" mac)" \
			"$(kv_get "$f" mac_timed)" "${ceil:--}" "$(kv_get "$f" bytes)" "$(kv_get "$f" seconds)" \
			"$(printf '%s' "$(kv_get "$f" note)$([ -s "$f.err" ] && tail -n 1 "$f.err")" | tr '\t\n' '  ')" \
			"$([ "$mark" = default ] && echo yes || echo no)" >>"$RAW_DIR/transfer-ceiling.tsv"

		silent=0
		for dir in up down; do
			f="$work/run-$i-$dir.txt"
			if [ "$mark" = default ] && [ "$dir" = up ]; then
				# The default cipher's upload also gives the CPU per GB.
				cpu_prefix="$work/cpu"
				transfer_cpu "$cipher" "$bytes" "$cpu_prefix" >"$work/cpu.env" || true
				mv -f "$cpu_prefix-up.txt" "$f"
				mv -f "$cpu_prefix-up.txt.err" "$f.err"
				result_import transfer "$work/cpu.env"
			else
				transfer_run "$dir" "$cipher" "$bytes" "$f" || true
			fi
			transfer_tsv_row "$cipher" "$dir" "$f" >>"$RAW_DIR/transfer-runs.tsv"
			st=$(kv_get "$f" status)
			mbs=$(kv_get "$f" mbs)
			if [ "$st" != ok ]; then
				# A short or failed transfer has no speed.
				failed=$((failed + 1))
				[ -n "$first_fail" ] || first_fail="$cipher $dir: $st, $(kv_get "$f" bytes) of $bytes bytes arrived (ssh exit $(kv_get "$f" exit)): $(transfer_tsv_row "$cipher" "$dir" "$f" | cut -f10)"
			fi
			if [ "$mark" = default ]; then
				result_set transfer "default_${dir}_mbs" "$([ "$st" = ok ] && echo "$mbs" || echo -)"
			fi
			! transfer_no_answer "$f" || silent=$((silent + 1))
		done
		# Neither transfer got an answer: the server does not answer, the
		# other ciphers would only wait for their own deadlines.
		if [ "$silent" -eq 2 ] && [ "$i" -lt "$total" ]; then
			stopped="neither transfer with $cipher got an answer, so the other $((total - i)) ciphers were not measured"
			result_set transfer not_measured "$(printf '%s\n' "$sel" | grep . | cut -f1 | tail -n +"$((i + 1))" | paste -sd' ' -)"
			break
		fi
	done <<<"$sel"
	result_set transfer ciphers_n "$i"
	result_set transfer failed "$failed"

	up=$(result_get transfer default_up_mbs)
	down=$(result_get transfer default_down_mbs)
	if [ -z "$up" ] && [ -n "$stopped" ]; then
		result_set transfer figure -
		result_set transfer figure_label "default cipher not measured"
		result_set transfer status FAIL
		result_set transfer reason "the test server did not answer: $failed of $((i * 2)) transfers failed, first: $first_fail; $stopped"
	elif [ -z "$up" ]; then
		# TRANSFER_CIPHERS left out the default: the verdict needs it.
		reason="the default cipher $default was not measured (TRANSFER_CIPHERS=$TRANSFER_CIPHERS); add it to judge the target"
		result_set transfer figure -
		result_set transfer figure_label "default cipher not measured"
		result_set transfer status ERROR
		result_set transfer reason "$reason"
	else
		result_set transfer figure "$(awk -v u="$up" -v d="$down" 'BEGIN { if (u == "-" || d == "-") print "-"; else print (u + 0 < d + 0) ? u : d }')"
		result_set transfer figure_label "$default, slower direction, MB = 10^6 bytes"
		if [ "$failed" -gt 0 ]; then
			result_set transfer status FAIL
			result_set transfer reason "$failed of $((i * 2)) transfers did not deliver every byte or failed; first: $first_fail${stopped:+; $stopped}"
		else
			result_set transfer status "$(verdict "$(result_get transfer figure)" ">=" "$TARGET_TRANSFER_MBS")"
			[ "$(result_get transfer status)" = PASS ] ||
				result_set transfer reason "the default cipher $default reached $up MB/s up and $down MB/s down, below $TARGET_TRANSFER_MBS MB/s"
		fi
	fi
	result_set transfer summary "$default: ${up:--} MB/s up, ${down:--} MB/s down ($TRANSFER_MB MB of 10^6 bytes each); $i ciphers, $failed failed transfers; target >= $TARGET_TRANSFER_MBS MB/s"
}
