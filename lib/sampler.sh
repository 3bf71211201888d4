# shellcheck shell=bash
# The test server's cost, through build/sshperf-sampler: CPU (user and
# system, including processes that ended) and PSS/RSS of the server and of
# its sessions. Needs lib/common.sh, loaded settings and a running server.
#
#   sample_server >before.env        one sample, key=value lines
#   sample_server -P >procs.tsv      one TSV row per process (pid comm pss_kb rss_kb)
#   kv_get FILE KEY              a value of a sample_server file

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
