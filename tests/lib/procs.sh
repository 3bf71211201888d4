# shellcheck shell=bash
# Processes in the host tests: the tree a command started, which of it is
# still there, the kit's clients, and polling with a deadline. Needs $CFG
# (the kit's client config) for kit_clients.

# "pid starttime" of every process below pid $1, from /proc.
tree () {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" '
		{ pid = $1; sub(/.*\) /, ""); parent[pid] = $2; start[pid] = $20 }
		END {
			want[root] = 1; changed = 1
			while (changed) {
				changed = 0
				for (p in parent)
					if (!(p in want) && (parent[p] in want)) { want[p] = 1; changed = 1 }
			}
			for (p in want) if (p != root) print p, start[p]
		}'
}

# Processes of a tree listing (file $1) that still run (same start time).
left_of () {
	local pid start now
	while read -r pid start; do
		now=$(awk '{ sub(/.*\) /, ""); print $20 }' "/proc/$pid/stat" 2>/dev/null) || continue
		[ "$now" = "$start" ] && [ "$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$pid/stat" 2>/dev/null)" != Z ] &&
			printf '%s %s\n' "$pid" "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)"
	done <"$1"
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

# waits_for SECONDS CMD...: polls CMD until it succeeds.
waits_for () {
	local deadline=$(( $(date +%s) + $1 ))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$deadline" ] || { echo "timed out waiting for: $*"; return 1; }
		sleep 0.05
	done
}
