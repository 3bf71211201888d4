#!/usr/bin/env bash
# What one check of a password hash costs here (sshperf-hashcost, as the
# auth test times the test user's own hash): a sha512crypt setting with
# the default 5000 rounds (RHEL 9's default scheme) and a yescrypt one
# with cost j9T (Debian 12's), each salt made up here, no one's password.
# Per scheme, the p50 and p95 of 101 checks in wall time (what a login
# waits) and in CPU time (the work alone), and for sha512crypt the goal
# the auth test's split assumes: one check under 5 ms. No assertion: a
# busy machine may miss it, which the two times then show.
#
#   tests/bench/hashcost.sh [checks]     default 101
set -eu
kit_dir=$(cd "$(dirname "$0")/../.." && pwd)
hashcost="${BUILD_DIR:-$kit_dir/build}/sshperf-hashcost"
checks=${1:-101}
if [ ! -x "$hashcost" ]; then
	printf '%s: not built; run make first\n' "$hashcost" >&2
	exit 2
fi
printf 'load_before=%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
for spec in 'sha512crypt:$6$sshperfbenchsalt$' 'yescrypt:$y$j9T$dQkD.XbEXYFfc9YcEc7NY1$'; do
	name=${spec%%:*}
	out=$("$hashcost" -n "$checks" -s "${spec#*:}")
	for k in check_ms_n check_ms_p50 check_ms_p95 check_cpu_ms_p50 check_cpu_ms_p95; do
		printf '%s_%s=%s\n' "$name" "$k" "$(printf '%s\n' "$out" | sed -n "s/^$k=//p")"
	done
	printf '%s_params=%s\n' "$name" "$(printf '%s\n' "$out" | sed -n 's/^params=//p')"
	if [ "$name" = sha512crypt ]; then
		p50=$(printf '%s\n' "$out" | sed -n 's/^check_ms_p50=//p')
		printf 'sha512crypt_check_goal=one check < 5 ms (wall, p50): %s\n' \
			"$(awk -v v="$p50" 'BEGIN { if (v == "") print "no figure"; else if (v < 5) printf "met, %.2f ms", v; else printf "missed, %.2f ms", v }')"
	fi
done
printf 'load_after=%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
