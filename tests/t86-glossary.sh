#!/usr/bin/env bash
# The glossary covers the report: every technical term of the list below
# that a rendered report uses has an entry in the glossary.md of its run
# folder (docs/glossary.md, copied by the renderer), and report.html
# carries the same entries inline. Renders the stored runs of
# tests/data/runs and tests/data/fullrun. Needs no root and no test
# server.
. "$(dirname "$0")/lib/harness.sh"

# The technical terms a reader of the report may not know, one a line,
# as the glossary heads them (case does not matter).
cat >"$TEST_TMP/terms" <<'EOF'
95 % interval
achieved
AEAD
AES-NI
askpass
barrier
bracket
capacity
ceiling
cgroup
cipher
closed loop
ControlMaster
ControlPersist
CPU bound
crypto policy
curve25519
deciding step
delayed ACK
driver
ETM
FIPS
greeting
GSSAPI
Hodges-Lehmann
host key
INCONCLUSIVE
keystroke echo
KEX
knee
libssh
listener
load average
load generator
loopback
MAC
Mann-Whitney
MaxStartups
median
motd
Moses
Nagle
nearest rank
OOM
open loop
order statistics
p50
p95
p99
padding
PAM
percentile
PSS
PTY
reference
release spread
reload
REPEAT
round trip
RSS
sha512crypt
SIGHUP
SFTP
sntrup761x25519
sshd-session
stage
steal
Student t
sweep
TasksMax
ulimit
whose time
yescrypt
EOF

RES="$TEST_TMP/results"
mkdir -p "$RES"
cp -R "$TEST_DIR/data/runs/." "$TEST_DIR/data/fullrun/." "$RES/"

# undefined REPORT GLOSSARY: the terms REPORT uses that no head of
# GLOSSARY (its "**...**" lines) names, one a line.
undefined () {
	local term
	grep -o '^\*\*[^*]*\*\*' "$2" | tr '[:upper:]' '[:lower:]' >"$TEST_TMP/heads"
	while IFS= read -r term; do
		grep -qiwF -- "$term" "$1" || continue
		grep -qF -- "$(printf '%s' "$term" | tr '[:upper:]' '[:lower:]')" "$TEST_TMP/heads" ||
			printf '%s\n' "$term"
	done <"$TEST_TMP/terms"
}

test_expect 'the check finds a term the glossary lacks' '
	awk "/^\*\*Knee\.\*\*/ { skip = 1 } skip && /^$/ { skip = 0; next } !skip" "$KIT_DIR/docs/glossary.md" >short.md &&
	test_grep ! "^\*\*Knee" short.md &&
	printf "The knee of the sweep.\n" >report.md &&
	undefined report.md short.md >missing &&
	test_grep -x knee missing
'

test_expect 'every term a rendered report uses is in its glossary, and inline in report.html' '
	used=0 &&
	for run in "$RES"/*/; do
		run=${run%/} &&
		"$KIT_DIR/lib/bin/render.sh" "$run" >/dev/null &&
		undefined "$run/report.md" "$run/glossary.md" >missing &&
		test_cmp /dev/null missing &&
		k=$(grep -ciwF -f "$TEST_TMP/terms" "$run/report.md" || true) &&
		used=$((used + k)) &&
		test_grep -F "<h2 id=\"glossary\">Glossary</h2>" "$run/report.html" &&
		test_grep -F "<strong>Hodges-Lehmann shift, Moses interval.</strong>" "$run/report.html" || return 1
	done &&
	echo "$used lines with a term" &&
	test "$used" -gt 100
'

test_done
