#!/usr/bin/env bash
# Are the transfer test's own ends ever the limit? Measures sshperf-xfer
# through local pipes, without ssh, in the three ways the transfer test
# uses it, and prints each cipher's single-core OpenSSL ceiling next to
# them: the pipe figures should be many times every SSH figure.
#
#   tests/bench/xfer.sh [MB [ceiling_seconds]]
#
# Defaults: 2000 MB (MB = 10^6 bytes), 1 s per cipher. Prints key=value
# lines:
#   pipe_mbs          sshperf-xfer source | sshperf-xfer sink
#   down_mbs          sshperf-xfer down -- sshperf-xfer source (the
#                     download path: the child writes, the helper counts)
#   up_wc_mbs         sshperf-xfer up -- sh -c 'echo ready; exec wc -c'
#                     (the upload path with the receiver the server runs)
#   ceiling_CIPHER_mbs  sshperf-ceiling for every cipher ssh -Q knows and
#                     the ceiling helper can time
# Exit 1 when a run did not count every byte, 2 when not built.
set -eu

kit_dir=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$kit_dir/build}
xfer="$build/sshperf-xfer"
ceiling="$build/sshperf-ceiling"
mb=${1:-2000}
seconds=${2:-1}

for h in "$xfer" "$ceiling"; do
	if [ ! -x "$h" ]; then
		printf '%s: not built; run make first\n' "$h" >&2
		exit 2
	fi
done
case $mb in '' | *[!0-9]*) printf 'MB must be a whole number, not "%s"\n' "$mb" >&2; exit 2 ;; esac
bytes=$((mb * 1000000))

# check NAME OUTPUT: prints NAME_mbs, or fails when the count is not exact.
check () {
	local name=$1 out=$2 status
	status=$(printf '%s\n' "$out" | sed -n 's/^status=//p')
	if [ "$status" != ok ]; then
		printf '%s: status %s, %s of %s bytes\n' "$name" "$status" \
			"$(printf '%s\n' "$out" | sed -n 's/^bytes=//p')" "$bytes" >&2
		return 1
	fi
	printf '%s_mbs=%s\n' "$name" "$(printf '%s\n' "$out" | sed -n 's/^mbs=//p')"
}

rc=0
printf 'bytes=%s\n' "$bytes"
check pipe "$("$xfer" source "$bytes" | "$xfer" sink -n "$bytes")" || rc=1
check down "$("$xfer" down -n "$bytes" -- "$xfer" source "$bytes")" || rc=1
check up_wc "$("$xfer" up -n "$bytes" -- sh -c 'echo ready; exec wc -c')" || rc=1

for c in $(ssh -Q cipher 2>/dev/null); do
	out=$("$ceiling" -s "$seconds" "$c" 2>/dev/null) || continue
	printf 'ceiling_%s_mbs=%s\n' "$c" "$(printf '%s\n' "$out" | sed -n 's/^mbs=//p')"
done
exit "$rc"
