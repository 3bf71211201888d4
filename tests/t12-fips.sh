#!/usr/bin/env bash
# FIPS mode (RHEL refuses Ed25519 keys there): the kit's host keys are RSA
# and ECDSA only, the default client key is ECDSA, and everything still
# works. FIPS_FLAG_FILE stands in for /proc/sys/crypto/fips_enabled.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"

host_kit_test 'FIPS mode'
# shellcheck disable=SC2034 # used in the test bodies
STATE=$STATE_DIR
echo 1 >"$TEST_TMP/fips_enabled"
export FIPS_FLAG_FILE="$TEST_TMP/fips_enabled" LOGIN_SAMPLES=3 RESULTS_DIR="$TEST_TMP/results"
mkdir -p "$RESULTS_DIR"
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'
host_snapshot_save

test_expect 'start makes no Ed25519 key and serves RSA and ECDSA host keys' '
	"$KIT_DIR/start-ssh.sh" -q &&
	grep "^HostKey" $SSHD_CONFIG >keys &&
	printf "HostKey ${HOSTKEY_PREFIX}rsa_key\nHostKey ${HOSTKEY_PREFIX}ecdsa_key\n" >want &&
	test_cmp want keys &&
	[ ! -e ${HOSTKEY_PREFIX}ed25519_key ] &&
	[ -f "$STATE/client/id_ecdsa" ] && [ ! -e "$STATE/client/id_ed25519" ]
'

test_expect 'the default alias logs in with the ECDSA key' '
	ssh -v -F "$STATE/client/ssh_config" $HOST_ALIAS true 2>log &&
	test_grep "Server accepts key: .* ECDSA " log
'

test_expect 'auth reports the ECDSA key in place of ed25519' '
	rc=0; "$KIT_DIR/test-ssh.sh" -q auth >out || rc=$?; test_verdict_exit "$rc" out &&
	report=$(tail -n 1 out) &&
	# 3 logins, or the stages auth took (the ECDSA key keeps the name
	# ed25519 in its data).
	test_grep -E "^\| ECDSA key \(FIPS mode refuses ed25519\) \| publickey \(ECDSA\) \| $(auth_logins "${report%/*}" ed25519 3) / 0 \|" "$report"
'

test_expect 'cleanup leaves the host as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup &&
	host_unchanged
'

test_done
