#!/usr/bin/env bash
# make bench: every benchmark of the kit's own measuring tools, one after
# another, each printing its numbers as key=value lines. They measure the
# load generator's floor (the poller, the burst releaser, the echo timer,
# the transfer source/sink, the sampler), not sshd; the echo benchmark adds
# the SSH figures when a test server is running, and rate the login
# drivers' CPU and the sweep's knee against the CPU bound, capture the
# login timeline's cost per login and its effect on the login p50 (a test
# server and root needed), and for the wire of the test hosts at a distance
# its cost per packet and per MB, its ceiling and its jitter (root, in
# namespaces of its own). No timed assertions.
set -u
cd "$(dirname "$0")/../.." || exit 2
rc=0
for b in poller sampler burst echo xfer rate html capture hashcost wire; do
	printf '# === tests/bench/%s.sh\n' "$b"
	"tests/bench/$b.sh" || { printf '# %s.sh exited with status %d\n' "$b" "$?"; rc=1; }
done
exit "$rc"
