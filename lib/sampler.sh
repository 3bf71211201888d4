# shellcheck shell=bash
# The test server's cost, through build/sshperf-sampler: CPU (user and
# system, including processes that ended) and PSS/RSS of the server and of
# its sessions. Needs lib/common.sh, loaded settings and a running server.
#
#   sample_server >before.env        one sample, key=value lines
#   sample_server -P >procs.tsv      one TSV row per process (pid comm pss_kb rss_kb)
#   kv_get FILE KEY              a value of a sample_server file
#   samples_server_cpu FILE >OUT  FILE's rows with server_cpu_ms appended

# The sampler's target options for the running test server: the unit and
# the test user's slice with systemd, the listener's pid without.
sampler_target () {
	local uid pid
	case $(server_get MODE) in
	systemd)
		uid=$(id -u "${SETTING[TEST_USER]}" 2>/dev/null) || { warn "user ${SETTING[TEST_USER]} not found"; return 1; }
		SAMPLER_TARGET=(-u "$UNIT_NAME" -U "$uid")
		;;
	*)
		pid=$(server_pid)
		[ -n "$pid" ] || { warn "the test server is not running"; return 1; }
		SAMPLER_TARGET=(-p "$pid")
		# The cgroup start-ssh.sh put the server in, when it could.
		[ -z "$(server_get CGROUP)" ] || SAMPLER_TARGET+=(-g "$(server_get CGROUP)")
		;;
	esac
}

sample_server () {
	local per_process=()
	[ "${1:-}" != -P ] || per_process=(-P)
	sampler_target || return 1
	helper sampler "${per_process[@]}" "${SAMPLER_TARGET[@]}" once
}


# The server's sshd processes (listener, per-connection, session) now.
server_sshd_processes () {
	sample_server -P | tsv_select - comm | grep -c '^sshd' || true
}

# server_wait_settled SECONDS COUNT: waits until the server has no more
# sshd processes than COUNT: the sessions of a run have ended and were
# reaped, so their CPU is in the counters. False at the deadline.
server_wait_settled () {
	local deadline=$(( $(date +%s) + $1 ))
	while [ "$(server_sshd_processes)" -gt "$2" ]; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

# The machine's CPU time so far, from /proc/stat's cpu line, as "busy
# idle steal" jiffies (idle with iowait). Two of them around a stretch of
# time give the busy share of that stretch (machine_busy_between); the
# kit's warnings that the machine was busy rest on these, never on the
# load average, which still carries minutes of earlier work.
machine_cpu_jiffies () {
	awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $5 + $6, $9; exit }' /proc/stat
}

# machine_busy_between "B0 I0 S0" "B1 I1 S1": "busy steal" in percent of
# the CPU time between the two samples ("0 0" when none passed).
machine_busy_between () {
	awk -v a="$1" -v b="$2" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		t = (y[1] - x[1]) + (y[2] - x[2]) + (y[3] - x[3])
		if (t <= 0) { print "0 0"; exit }
		printf "%.0f %.0f\n", 100 * (y[1] - x[1]) / t, 100 * (y[3] - x[3]) / t
	}'
}

# samples_server_cpu FILE: the rows of FILE (a TSV of samples with the
# columns sshd_cpu_ms and session_cpu_ms, as load-watch writes them), each
# with the column server_cpu_ms appended: sshd's CPU since the first row
# as the cpu test counts it (the unit and the test user's slice), each
# counter summed over its rises. The slice goes some seconds after its
# last session, and its counter with it (back to 0, or "-", and from 0
# when sessions come again): a difference of two rows across that would
# lose every session's CPU (seen: 3.6 of 7.9 s in a load of 64 logins).
# What the slice used between its last row and its end is not counted.
samples_server_cpu () {
	awk -F'\t' -v OFS='\t' '
	function rise(k, v) {
		v = ($c[k] == "" || $c[k] == "-") ? 0 : $c[k]
		if (NR > 2) sum[k] += (v >= prev[k]) ? v - prev[k] : v
		prev[k] = v
	}
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print $0, "server_cpu_ms"; next }
	{ rise("sshd_cpu_ms"); rise("session_cpu_ms"); print $0, sprintf("%.3f", sum["sshd_cpu_ms"] + sum["session_cpu_ms"]) }
	' "$1"
}
