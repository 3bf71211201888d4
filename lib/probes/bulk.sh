# shellcheck shell=bash
# Probe bulk: one upload of TRANSFER_MB MiB (1048576 bytes) with the cipher the
# client and the test server agree on by default, and the test server's
# and the client's CPU per GB (one login-only connection measured the same
# way and subtracted; lib/xfer.sh, transfer_cpu). Used by transfer (the
# default cipher's upload) and cpu (its per-GB figures).
#
# Outputs (docs/architecture.md, "Probes"):
#   data/probe-bulk.env        status, reason, cipher, bytes, and transfer_cpu's
#                              cpu_* keys (cpu_sshd_s_per_gb, cpu_client_s_per_gb, ...)
#   raw/probe-bulk-up.txt      the upload (sshperf-xfer output), ssh's messages in .err
#   raw/probe-bulk-login.txt   the login-only connection, likewise
#   raw/probe-bulk-ciphers/    sshd -T, ssh -G and ssh -Q as read for the default

# shellcheck source=lib/ciphers.sh
. "$KIT_DIR/lib/ciphers.sh"
# shellcheck source=lib/xfer.sh
. "$KIT_DIR/lib/xfer.sh"

about_probe_bulk () {
	printf 'one upload of %s MiB with the default cipher, the server'"'"'s CPU sampled around it\n' "${SETTING[TRANSFER_MB]}"
}

probe_bulk () {
	local p=probe-bulk dir="$RAW_DIR/probe-bulk-ciphers" default bytes
	mkdir -p "$dir"
	if ! ciphers_record "$dir" 2>"$dir/error.txt"; then
		result_set "$p" status ERROR
		result_set "$p" reason "$(cat "$dir/error.txt")"
		return 1
	fi
	default=$(ciphers_default "$dir/sshd-T.txt" "$dir/ssh-G.txt" "$dir/ssh-Q.txt")
	if [ -z "$default" ]; then
		result_set "$p" status ERROR
		result_set "$p" reason "the test server and the client have no cipher in common"
		return 1
	fi
	bytes=$((SETTING[TRANSFER_MB] * 1048576))
	result_set "$p" cipher "$default"
	result_set "$p" bytes "$bytes"
	transfer_cpu "$default" "$bytes" "$RAW_DIR/$p" >>"$DATA_DIR/$p.env"
	result_set "$p" up_status "$(kv_get "$RAW_DIR/$p-up.txt" status)"
	result_set "$p" status ok
}
