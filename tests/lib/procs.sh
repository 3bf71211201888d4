# shellcheck shell=bash
# Processes in the host tests: the tree a command started, which of it is
# still there (both from sshperf-sampler's process lists, $BUILD_DIR), the
# kit's clients, and polling with a deadline. Needs $CFG (the kit's client
# config) for kit_clients.

# "pid start" of every process below pid $1 (start: its start time in
# clock ticks after boot), from sshperf-sampler's process list.
tree () {
	{ "$BUILD_DIR/sshperf-sampler" tree "$1" || true; } | awk -F'\t' -v root="$1" '
		NR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
		$at["pid"] != root { print $at["pid"], $at["start"] }'
}

# Processes of a tree listing (file $1) that still run (same start time,
# not a zombie): "pid command line", each once.
left_of () {
	local pid
	[ -s "$1" ] || return 0
	# shellcheck disable=SC2046 # a list of pids
	{ "$BUILD_DIR/sshperf-sampler" ps $(cut -d' ' -f1 "$1" | sort -un) || true; } |
		awk 'NR == FNR { was[$1 " " $2] = 1; next }
			FNR == 1 { for (i = 1; i <= NF; i++) at[$i] = i; next }
			$at["state"] != "Z" && (($at["pid"] " " $at["start"]) in was) { print $at["pid"] }' FS=' ' "$1" FS='\t' - |
		while read -r pid; do
			printf '%s %s\n' "$pid" "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
		done
	return 0
}

# Clients of the kit: anything run with its client config (ssh, sftp, a
# ControlMaster), in this PID namespace.
kit_clients () {
	local p self
	self=$(readlink /proc/self/ns/pid)
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$self" ] || continue
		{ tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null | grep -qF "$CFG" && echo "${p#/proc/} $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)"
	done
	return 0
}

# other_lane PID: the process is another lane's (tests/run.sh runs test
# files side by side): its environment names another lane's instance,
# TEST_INSTANCE. Theirs to check; a process without one is counted here.
other_lane () {
	local i
	[ -n "${TEST_LANE_INSTANCES:-}" ] || return 1
	i=$({ tr '\0' '\n' <"/proc/$1/environ"; } 2>/dev/null | sed -n 's/^TEST_INSTANCE=//p' | head -n 1)
	[ -n "$i" ] && [ "$i" != "${TEST_INSTANCE:-}" ] || return 1
	case " $TEST_LANE_INSTANCES " in *" $i "*) return 0 ;; esac
	return 1
}

# waits_for SECONDS CMD...: polls CMD until it succeeds.
waits_for () {
	local deadline=$(( $(date +%s) + $1 ))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$deadline" ] || { echo "timed out waiting for: $*"; return 1; }
		sleep 0.05
	done
}
