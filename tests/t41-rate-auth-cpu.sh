#!/usr/bin/env bash
# rate, auth and cpu against the real test server with small settings:
# report rows with numbers and verdicts, raw files, sshd CPU per login
# above 0, the rate sweep's knee, its repeated steps and its libssh
# driver (pinned host key, the verdict against a target above the knee),
# auth's gap judged on its interval, and the host exactly as before after
# cleanup.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"
. "$TEST_DIR/lib/whose.sh"

host_kit_test 'rate auth cpu'
# shellcheck disable=SC2034 # used in the test bodies
STATE=$STATE_DIR
export RATE_WORKERS=2 DURATION=5 LOGIN_SAMPLES=3 RATE_STEP_SECONDS=1 TRANSFER_MB=8 RESULTS_DIR="$TEST_TMP/results"
mkdir -p "$RESULTS_DIR"

test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

host_snapshot_save

test_expect 'the test server starts' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null
'

test_expect 'test-ssh.sh rate auth cpu writes a report' '
	{ "$KIT_DIR/test-ssh.sh" rate auth cpu >"$TEST_TMP/run.out" 2>&1 || true; } &&
	run=$(dirname "$(tail -n 1 "$TEST_TMP/run.out")") &&
	[ -f "$run/report.md" ] && printf "%s\n" "$run" >"$TEST_TMP/run"
'
RUN=$(cat "$TEST_TMP/run" 2>/dev/null || echo /nonexistent)
export RUN

# v FILE KEY: a value of a data file.
v () {
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

test_expect 'summary rows with numbers and verdicts' '
	grep -E "^\| 3 \| .*\(\`auth\`\) \| [0-9.]+ ms .*\*\*(PASS|FAIL|INCONCLUSIVE)" "$RUN/report.md" &&
	grep -E "^\| 4 \| .*\(\`rate\`\) \| [0-9.]+ logins/s .*\*\*(PASS|FAIL|INCONCLUSIVE)" "$RUN/report.md" &&
	grep -E "^\| 11 \| .*\(\`cpu\`\) \| [0-9.]+ ms .*\*\*(PASS|FAIL|INCONCLUSIVE)" "$RUN/report.md"
'

test_expect 'raw files of every test' '
	[ "$(wc -l <"$RUN/raw/probe-loginload-logins.tsv")" -ge 3 ] &&
	[ -f "$RUN/raw/probe-loginload-errors.txt" ] &&
	[ -s "$RUN/raw/probe-loginload-server-before.env" ] && [ -s "$RUN/raw/probe-loginload-server-after.env" ] &&
	for m in ed25519 rsa password; do test_eq "$(($(wc -l <"$RUN/raw/auth-$m.tsv") - 1))" "$(auth_logins "$RUN" "$m" 3)" || return 1; done
'


test_expect 'sshd CPU per login is above 0, split into user and system' '
	c=$(v "$RUN/data/rate.env" sshd_cpu_ms_per_login) &&
	u=$(v "$RUN/data/rate.env" sshd_user_ms_per_login) &&
	s=$(v "$RUN/data/rate.env" sshd_system_ms_per_login) &&
	echo "cpu $c = user $u + system $s" &&
	awk -v c="$c" -v u="$u" -v s="$s" "BEGIN { exit !(c > 0 && u >= 0 && s >= 0 && u + s > c * 0.9 && u + s < c * 1.1) }" &&
	test_eq "$(v "$RUN/data/cpu.env" sshd_cpu_ms_per_login)" "$c"
'

test_expect 'sshd CPU per login has its interval from the run s windows, and the figure is inside it' '
	c="$RUN/data/cpu.env" &&
	test_eq "$(v "$c" figure_method)" windows &&
	n=$(v "$c" figure_n) && lo=$(v "$c" figure_lo) && hi=$(v "$c" figure_hi) && f=$(v "$c" figure) &&
	echo "figure $f, interval $lo - $hi over $n windows" &&
	[ "$n" -ge 2 ] && [ "$n" -le 5 ] &&
	awk -v lo="$lo" -v f="$f" -v hi="$hi" "BEGIN { exit !(lo != \"-\" && hi != \"-\" && lo + 0 <= f + 0 && f + 0 <= hi + 0 && lo < hi) }" &&
	test_eq "$(tsv_select "$RUN/raw/probe-loginload-windows.tsv" window | tr "\n" " ")" "1 2 3 4 5 drain " &&
	test_grep "its 95 % interval over the run.s $n windows .* | $lo - $hi ms |" "$RUN/report.md" &&
	for k in window_busy_pct window_sshd_pct window_client_pct window_other_pct window_steal_pct; do
		awk -v x="$(v "$c" "$k")" "BEGIN { exit !(x != \"\" && x >= 0 && x <= 100) }" || { echo "$k=$(v "$c" "$k")"; return 1; }
	done
'

test_expect 'the machine speed right before and after the login load, and sshd CPU per login in starts of /bin/true' '
	c="$RUN/data/cpu.env" &&
	test_eq "$(v "$c" speed_spawns)" 200 &&
	for k in speed_spawn_us_before speed_spawn_us_after speed_loop_ms_before speed_loop_ms_after; do
		awk -v x="$(v "$c" "$k")" "BEGIN { exit !(x > 0) }" || { echo "$k=$(v "$c" "$k")"; return 1; }
	done &&
	test_eq "$(v "$RUN/raw/probe-loginload-speed-before.env" spawn_n)" 200 &&
	test_eq "$(v "$RUN/raw/probe-loginload-speed-after.env" spawn_us_each)" "$(v "$c" speed_spawn_us_after)" &&
	: "the speed samples lie outside the server samples the figure comes from" &&
	[ "$(stat -c %Y "$RUN/raw/probe-loginload-speed-before.env")" -le "$(stat -c %Y "$RUN/raw/probe-loginload-server-before.env")" ] &&
	[ "$(stat -c %Y "$RUN/raw/probe-loginload-speed-after.env")" -ge "$(stat -c %Y "$RUN/raw/probe-loginload-server-after.env")" ] &&
	want=$(awk -v l="$(v "$c" sshd_cpu_ms_per_login)" -v s="$(v "$c" speed_spawn_us)" "BEGIN { printf \"%.2f\", l * 1000 / s }") &&
	test_eq "$(v "$c" sshd_cpu_per_login_spawns)" "$want" &&
	test_grep "^| sshd CPU per login in starts of ./bin/true.: .* | $want | - |" "$RUN/report.md"
'

test_expect 'sshd CPU per login over the client'"'"'s in the same run, in data and the report' '
	c="$RUN/data/cpu.env" &&
	ratio=$(v "$c" sshd_per_client_cpu) &&
	echo "sshd $(v "$c" sshd_cpu_ms_per_login) ms, client $(v "$c" client_cpu_ms_per_login) ms per login, ratio $ratio" &&
	awk -v r="$ratio" -v s="$(v "$c" sshd_cpu_ms_per_login)" -v k="$(v "$c" client_cpu_ms_per_login)" \
		"BEGIN { exit !(r > 0 && k > 0 && (r - s / k) < 0.01 * r && (s / k - r) < 0.01 * r) }" &&
	test_eq "$(v "$RUN/data/probe-loginload.env" sshd_per_client_cpu)" "$ratio" &&
	test_grep "^| sshd CPU per login over the client.s: .* | $ratio | - |" "$RUN/report.md"
'

test_expect 'rate and cpu share one closed-loop run; cpu runs the bulk upload for its per-GB figure' '
	[ "$(grep -c "^test-ssh.sh: probe loginload:" "$TEST_TMP/run.out")" -eq 1 ] &&
	[ "$(grep -c "^test-ssh.sh: probe bulk:" "$TEST_TMP/run.out")" -eq 1 ] &&
	test_eq "$(v "$RUN/data/probe-loginload.env" status)" ok &&
	test_eq "$(v "$RUN/data/probe-bulk.env" bytes)" 8388608 &&
	[ "$(v "$RUN/data/cpu.env" cpu_sshd_s_per_gb)" = "$(v "$RUN/data/probe-bulk.env" cpu_sshd_s_per_gb)" ] &&
	[ "$(v "$RUN/data/rate.env" logins_per_s)" = "$(v "$RUN/data/probe-loginload.env" logins_per_s)" ] &&
	test_grep "probe-loginload-\*. (the shared measurement .loginload.)" "$RUN/report.md"
'

# 3 logins of each method, and more of the slowest one when its p95's
# interval held the target (auth's stages: 12 in all).
test_expect 'every auth login succeeded with the method it tests' '
	for m in ed25519 rsa password; do
		test_eq "$(v "$RUN/data/auth.env" "${m}_ok")" "$(auth_logins "$RUN" "$m" 3)" &&
		test_eq "$(v "$RUN/data/auth.env" "${m}_failed")" 0 &&
		test_eq "$(v "$RUN/data/auth.env" "${m}_wrong_method")" 0 || return 1
	done &&
	awk -F"\t" "NR > 1 && \$10 != \"password\" { exit 1 }" "$RUN/raw/auth-password.tsv" &&
	awk -F"\t" "NR > 1 && \$10 != \"publickey\" { exit 1 }" "$RUN/raw/auth-rsa.tsv"
'

# Whose time of every method (lib/capture.sh): each ok login split, its
# parts adding up to its total within 2 %; the test counts none that miss.
test_expect 'whose time of every auth method: every login split, adding up to its total' '
	for m in ed25519 rsa password; do
		test_kv "$RUN/data/auth.env" "${m}_timeline" yes &&
		whose_adds_up "$RUN" "auth-$m" "auth-$m.tsv" "$(v "$RUN/data/auth.env" "${m}_ok")" &&
		test_kv "$RUN/data/auth.env" "${m}_whose_mismatched" 0 || return 1
	done
'

test_expect 'the password hash: the scheme of the account s own entry, one check timed 21 times' '
	scheme=$(getent shadow $TEST_USER | cut -d: -f2 | sed -n "s/^!*\$\([^$]*\)\$.*/\1/p") &&
	case $scheme in y) want=yescrypt ;; 6) want=sha512crypt ;; 5) want=sha256crypt ;; *) want=$scheme ;; esac &&
	test_kv "$RUN/data/auth.env" password_hash "$want" &&
	test_kv "$RUN/data/auth.env" password_hash_checks 21 &&
	c=$(kv_get "$RUN/data/auth.env" password_hash_check_ms) &&
	awk -v c="$c" "BEGIN { exit !(c > 0) }" || { echo "check_ms: $c"; return 1; }
'

test_expect 'the password is locked again after the auth test' '
	test_grep -x "password_locked_after=yes" "$RUN/data/auth.env" &&
	case $(getent shadow $TEST_USER | cut -d: -f2) in "!"*) ;; *) return 1 ;; esac
'

test_expect 'the sweep: steps, a knee or the step that broke, the libssh driver and its key exchange' '
	r="$RUN/data/rate.env" &&
	test_eq "$(v "$r" sweep_driver)" libssh &&
	[ "$(awk "NR > 1" "$RUN/raw/rate-sweep.tsv" | wc -l)" -ge 1 ] &&
	{ [ -n "$(v "$r" knee_step)" ] || [ -n "$(v "$r" break_offered_per_s)" ]; } &&
	[ -n "$(v "$r" libssh_kex)" ] && [ "$(v "$r" libssh_kex)" != - ] &&
	[ -n "$(v "$r" ssh_kex)" ] &&
	awk -v c="$(v "$r" sweep_client_cpu_ms_per_login)" "BEGIN { exit !(c > 0) }" &&
	test_grep "^### Login capacity (open-loop sweep)" "$RUN/report.md" &&
	case $(v "$r" status) in PASS | FAIL | INCONCLUSIVE) ;; *) return 1 ;; esac
'

# The headline is the libssh driver s knee: its label in the summary and
# the capacity row of the section name the driver and its key exchange,
# and, when the clients key exchange differs, the capacity scaled to it.
test_expect 'the rate headline names its driver and key exchange, and the clients one when it differs' '
	r="$RUN/data/rate.env" && kex=$(v "$r" libssh_kex) &&
	test_kv "$r" figure_label "capacity: offered logins/s sshd kept up with, libssh driver, key exchange $kex$(
		[ -z "$(v "$r" knee_clients_kex_per_s)" ] || printf "; at the ssh clients\047 key exchange %s about %s logins/s" "$(v "$r" ssh_kex)" "$(v "$r" knee_clients_kex_per_s)")" &&
	if [ -n "$(v "$r" figure)" ] && [ "$(v "$r" figure)" != - ]; then
		test_grep -F "libssh driver, key exchange $kex" "$RUN/report.md"
	fi &&
	test_grep -F "| **Capacity (the knee)**, the headline: libssh driver, key exchange \`$kex\` |" "$RUN/report.md" &&
	test_grep "^\*\*Why the headline is the libssh driver.s knee:\*\*" "$RUN/report.md"
'

# The two steps nearest the knee run once more; the knee's interval is
# the bracket of those tries: its lower end the knee's lower try (or a
# step below it), its upper end the rate that broke both times, or none;
# it holds the knee (an achieved rate over a second may pass the next
# offered one).
test_expect 'the sweep repeats the knee and the step that broke; their bracket holds the knee' '
	r="$RUN/data/rate.env" && tsv="$RUN/raw/rate-sweep.tsv" &&
	[ -n "$(v "$r" knee_step)" ] && [ -n "$(v "$r" break_offered_per_s)" ] || { echo "no knee or no break: nothing repeated"; return 0; }
	test_eq "$(v "$r" figure_method)" steps &&
	for w in knee break; do
		step=$(v "$r" "${w}_repeat_step") &&
		case $(v "$r" "${w}_repeat_good") in yes | no) ;; *) echo "${w}_repeat_good=$(v "$r" "${w}_repeat_good")"; return 1 ;; esac &&
		test_eq "$(tsv_select "$tsv" step offered_per_s | awk -F"\t" -v s="$step" "\$1 == s { print \$2 }")" "$(v "$r" "${w}_offered_per_s")" || return 1
	done &&
	lo=$(v "$r" figure_lo) hi=$(v "$r" figure_hi) f=$(v "$r" figure) n=$(v "$r" figure_n) &&
	echo "knee $f, bracket $lo-$hi over $n tries; knee again: $(v "$r" knee_repeat_good), break again: $(v "$r" break_repeat_good)" &&
	test_eq "$n" 4 &&
	awk -v l="$lo" -v h="$hi" -v f="$f" "BEGIN { exit !((l == \"-\" || l + 0 <= f + 0) && (h == \"-\" || f + 0 <= h + 0)) }" &&
	if [ "$(v "$r" break_repeat_good)" = no ]; then
		test_eq "$hi" "$(awk -v b="$(v "$r" break_offered_per_s)" -v f="$f" "BEGIN { print (b + 0 < f + 0) ? f : b }")"
	else
		test_eq "$hi" -
	fi &&
	v "$r" figure_interval_note >note && test_grep "each run twice" note
'

# auth's gap between the methods is judged on the Hodges-Lehmann shift's
# interval when the logins give one (3 logins of each method do not; the
# staged slowest method's 12 against 3 do).
test_expect 'the gap between the auth methods: its interval, and the verdict on it' '
	a="$RUN/data/auth.env" &&
	lo=$(v "$a" gap_judged_lo_ms) hi=$(v "$a" gap_judged_hi_ms) t=$(v "$a" gap_target) &&
	echo "gap $(v "$a" gap_p50_ms) ms (judged: $(v "$a" gap_judged)), shift $(v "$a" gap_shift_ms), interval $lo-$hi, target $t; $(v "$a" status): $(v "$a" reason)" &&
	awk -v s="$(v "$a" gap_shift_ms)" "BEGIN { exit !(s ~ /^-?[0-9.]+$/) }" &&
	if [ "$lo" = - ]; then
		test_eq "$hi" -
	else
		awk -v l="$lo" -v h="$hi" "BEGIN { exit !(l + 0 <= h + 0) }" &&
		# One run decides only VERDICT_MARGIN_PCT clear of the target.
		m=$(sed -n "s/^VERDICT_MARGIN_PCT=//p" "$KIT_DIR/settings.conf") && [ -n "$m" ] &&
		if awk -v l="$lo" -v t="$t" -v m="$m" "BEGIN { exit !(l + 0 > t * (1 + m / 100)) }"; then test_eq "$(v "$a" status)" FAIL
		elif awk -v h="$hi" -v t="$t" -v m="$m" "BEGIN { exit !(h + 0 <= t * (1 - m / 100)) }"; then ! v "$a" reason | grep -q "slower than"
		else [ "$(v "$a" status)" != PASS ]
		fi
	fi
'

# ssh -v ends its lines with "\r\n": nothing read from it may carry the
# carriage return on (seen: "ssh_kex=sntrup761x25519-sha512\r").
test_expect 'no control characters in the data files, the report or results.json' '
	! grep -nP "[\\x00-\\x08\\x0b-\\x1f\\x7f]" "$RUN"/data/* "$RUN/report.md" "$RUN/results.json" &&
	! grep -nE "\\\\(r|b|f|u00[01][0-9a-fA-F])" "$RUN/results.json"
'

test_expect 'one CPU-bound capacity at the clients key exchange, the same string in every section' '
	b=$(v "$RUN/data/cpu.env" capacity_logins_per_s) && echo "CPU bound $b logins/s" &&
	awk -v b="$b" -v m="$(v "$RUN/data/cpu.env" sshd_cpu_ms_per_login)" -v c="$(v "$RUN/data/cpu.env" cores)" \
		"BEGIN { exit !(b == sprintf(\"%.1f\", c * 1000 / m)) }" &&
	test_eq "$(v "$RUN/data/rate.env" capacity_logins_per_s)" "$b" &&
	test_grep "carry about $b logins/s" "$RUN/report.md" &&
	test_grep "^| Complete logins per second (all cores busy with logins) | about $b |" "$RUN/report.md" &&
	test_grep "^| CPU bound at the clients. key exchange: .* | $b logins/s |" "$RUN/report.md"
'

test_expect 'a target above the knee and the CPU bound FAILs, with the knee in the reason' '
	rc=0; TARGET_RATE_MIN=1000000 "$KIT_DIR/test-ssh.sh" -q rate >"$TEST_TMP/high.out" 2>&1 || rc=$?; [ "$rc" -eq 1 ] &&
	r="$(dirname "$(tail -n 1 "$TEST_TMP/high.out")")/data/rate.env" &&
	test_eq "$(v "$r" status)" FAIL &&
	v "$r" reason >reason && test_grep "^the knee is [0-9.]* logins/s, below the target of 1000000" reason
'

test_expect 'the libssh driver refuses a host key that is not the pinned one' '
	ssh-keygen -q -t ed25519 -N "" -f "$TEST_TMP/other" &&
	printf "[127.0.0.1]:$TEST_PORT %s\n" "$(cut -d" " -f1,2 "$TEST_TMP/other.pub")" >"$TEST_TMP/wrong_known_hosts" &&
	rc=0; "$KIT_DIR/build/sshperf-sweep" -r 2 -d 1 -o "$TEST_TMP/wrong.tsv" -h 127.0.0.1 -p $TEST_PORT -u $TEST_USER \
		-i "$(ls "$STATE"/client/id_ecdsa "$STATE"/client/id_ed25519 2>/dev/null | head -n 1)" -k "$TEST_TMP/wrong_known_hosts" >"$TEST_TMP/wrong.env" || rc=$?; [ "$rc" -eq 1 ] &&
	test_grep -x "ok=0" "$TEST_TMP/wrong.env" &&
	awk -F"\t" "NR > 1 && \$8 !~ /^host key not accepted/ { exit 1 }" "$TEST_TMP/wrong.tsv"
'

test_expect 'the password is nowhere in the results' '
	pw=$(cat "$STATE/password") &&
	! grep -rqF -- "$pw" "$RUN"
'

test_expect 'cleanup leaves the host as it was' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	host_unchanged
'

test_done
