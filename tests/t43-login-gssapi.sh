#!/usr/bin/env bash
# GSSAPI on the kit's client (lib/metrics/login.sh, login_gssapi): the
# client is measured as configured, so with RHEL's GSSAPIAuthentication yes
# every login tries gssapi-with-mic first. From recorded ssh -v transcripts
# (a RHEL 8.7 client that tried it, a Debian one that did not): which
# logins tried it and how long the try took. The report says which, and on
# an offline host (no default route) it carries the guide's warning about
# GSSAPI time-outs; a stored run re-rendered. Needs no server.
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/common.sh
. "$KIT_DIR/lib/common.sh"
# shellcheck source=lib/measure.sh
. "$KIT_DIR/lib/measure.sh"
# shellcheck source=lib/metrics/login.sh
. "$KIT_DIR/lib/metrics/login.sh"

D="$TEST_DIR/data"
RAW_DIR="$TEST_TMP/raw" DATA_DIR="$TEST_TMP/data"
HELPER_DIR="$KIT_DIR/build"
mkdir -p "$RAW_DIR/login-transcripts" "$DATA_DIR"
cp "$D/login-rhel87-ok.txt" "$RAW_DIR/login-transcripts/login-1.txt"
cp "$D/login-ok.txt" "$RAW_DIR/login-transcripts/login-2.txt"
# The client's effective configuration (ssh -G) as a RHEL client's says it.
SSH="$TEST_TMP/ssh-G"
printf '#!/bin/sh\nprintf "user sshperf\\ngssapiauthentication yes\\n"\n' >"$SSH"
chmod +x "$SSH"
export D RAW_DIR DATA_DIR HELPER_DIR SSH

test_expect 'each login: whether it tried gssapi-with-mic, and for how long (to the next method)' '
	login_gssapi &&
	printf "sample\ttried\tgssapi_ms\n1\tyes\t1.957\n2\tno\t-\n" >want &&
	test_cmp want "$RAW_DIR/login-gssapi.tsv"
'

test_expect 'the login data: the client'"'"'s setting, how many tried, the try'"'"'s time' '
	test_kv "$DATA_DIR/login.env" client_gssapi yes &&
	test_kv "$DATA_DIR/login.env" gssapi_tried 1 &&
	test_kv "$DATA_DIR/login.env" gssapi_n 1 &&
	test_kv "$DATA_DIR/login.env" gssapi_p50 1.957
'

# render_with ROUTE: a stored run, its login data with these GSSAPI keys
# and its environment with default_route=ROUTE, rendered; the report in
# $TEST_TMP/ROUTE.md.
RUN=2026-03-03_091500
render_with () {
	rm -rf "$TEST_TMP/res" && mkdir -p "$TEST_TMP/res" &&
	cp -R "$D/runs/$RUN" "$TEST_TMP/res/" &&
	cat "$DATA_DIR/login.env" >>"$TEST_TMP/res/$RUN/data/login.env" &&
	printf "default_route=%s\n" "$1" >>"$TEST_TMP/res/$RUN/data/environment.env" &&
	"$KIT_DIR/lib/bin/render.sh" "$TEST_TMP/res/$RUN" >/dev/null &&
	cp "$TEST_TMP/res/$RUN/report.md" "$TEST_TMP/$1.md"
}

test_expect 'the report says the client tries GSSAPI and what the try cost' '
	render_with yes &&
	test_grep "^\*\*GSSAPI\.\*\* The kit.s client is measured as it is configured, with \`GSSAPIAuthentication yes\`" "$TEST_TMP/yes.md" &&
	test_grep "so 1 of the 2 logins whose \`ssh -v\` the kit kept (of the 19 the test made) tried \`gssapi-with-mic\` before the key. The try took 2.0 ms at p50 (max 2.0 ms, n = 1)" "$TEST_TMP/yes.md" &&
	test_grep ! "This host is offline" "$TEST_TMP/yes.md"
'

test_expect 'on an offline host (no default route) the report warns about GSSAPI time-outs' '
	render_with no &&
	test_grep "^⚠ \*\*This host is offline\*\* (no default route) \*\*and the client tries GSSAPI on every login.\*\*" "$TEST_TMP/no.md"
'

test_expect 'a client with GSSAPIAuthentication no: the report says it does not try GSSAPI, and no warning' '
	rm -f "$DATA_DIR/login.env" && rm "$RAW_DIR/login-transcripts/login-1.txt" &&
	printf "#!/bin/sh\nprintf \"gssapiauthentication no\\\\n\"\n" >"$SSH" &&
	login_gssapi && test_kv "$DATA_DIR/login.env" gssapi_tried 0 &&
	render_with no &&
	test_grep "does not try GSSAPI: its configuration has \`GSSAPIAuthentication no\`" "$TEST_TMP/no.md" &&
	test_grep ! "This host is offline" "$TEST_TMP/no.md"
'

test_done
