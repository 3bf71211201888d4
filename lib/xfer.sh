# shellcheck shell=bash
# One transfer through ssh, driven through build/sshperf-xfer: TRANSFER
# bytes up into 'wc -c' on the server or down from 'head -c', and the
# test server's CPU around it. Used by the transfer test and the bulk
# probe (lib/probes/bulk.sh). Needs lib/common.sh, lib/server.sh,
# lib/sampler.sh, lib/data.sh and a test run ($SSH, $CLIENT_CONFIG).

# The parts one transfer is timed in (sshperf-xfer -k): 64 MiB each of the
# default 1024 MiB, no extra bytes.
TRANSFER_CHUNKS=16

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
	# Timed in TRANSFER_CHUNKS parts too, for the interval of the rate.
	helper xfer "$dir" -n "$bytes" -k "$TRANSFER_CHUNKS" -t "$(transfer_timeout "$bytes")" -- "${ssh_cmd[@]}" "$remote" \
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
	helper xfer run -t "${SETTING[LOGIN_TIMEOUT]}" -- "${ssh_cmd[@]}" true \
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
