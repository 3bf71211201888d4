#!/usr/bin/env bash
# sshperf-unit: sd-bus jobs, daemon-reload, show and terminate-user. On the
# host (no systemd) it must refuse clearly; the real work is checked inside a
# booted systemd container (tests/lib/container.sh), next to the container's
# own sshd, which must keep its MainPID and keep accepting logins.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2016 # test bodies are single-quoted: the harness evals them
# shellcheck disable=SC2034 # names used only inside the eval'd test bodies
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/container.sh
. "$TEST_DIR/lib/container.sh"
# Test bodies write their scratch files (out, show, expect) here.
cd "$TEST_TMP" || exit 2

UNIT="$BUILD_DIR/sshperf-unit"
DUMMY=sshperf-dummy.service
FAILING=sshperf-failing.service
SLOW=sshperf-slow.service
NOUSER_UID=4242
TEST_UID=4243

# The value of KEY in a key=value file.
kv () {
	sed -n "s/^$1=//p" "$2"
}

in_ct () {
	container_exec "$@"
}

unit_ct () {
	container_exec "$UNIT" "$@"
}

# Write a unit file inside the container from stdin.
put_unit () {
	container_exec tee "/etc/systemd/system/$1" >/dev/null
}

is_number () {
	case "$1" in '' | *[!0-9]*) return 1 ;; esac
}

# A test that needs the container; skipped with the reason when it did not boot.
ct_expect () {
	if [ -n "$container_skip" ]; then
		test_skip "$1" "$container_skip"
	else
		test_expect "$1" "$2"
	fi
}

if [ -d /run/systemd/system ]; then
	test_skip 'booted says no without systemd' 'systemd is PID 1 on this host'
	test_skip 'start without systemd: exit 2, one clear line' 'systemd is PID 1 on this host'
else
	test_expect 'booted says no without systemd' '
		expect_status 1 "$UNIT" booted &&
		printf "booted=no\n" >expect &&
		test_cmp expect "$TEST_TMP/out"
	'
	test_expect 'start without systemd: exit 2, one clear line' '
		expect_status 2 "$UNIT" start $DUMMY &&
		test_grep "systemd is not running as PID 1 (sd_booted): start sshd directly" "$TEST_TMP/out" &&
		[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ]
	'
fi
test_expect 'usage errors exit 2' '
	expect_status 2 "$UNIT" &&
	expect_status 2 "$UNIT" start &&
	expect_status 2 "$UNIT" -t 0 start $DUMMY &&
	expect_status 2 "$UNIT" terminate-user nobody
'

test_atexit container_stop

container_skip=
boot_start=$(date +%s)
if ! container_root 2>"$TEST_TMP/container.err"; then
	container_skip="no container root: $(tail -n 1 "$TEST_TMP/container.err")"
else
	root_end=$(date +%s)
	if ! container_start t30 2>"$TEST_TMP/container.err"; then
		container_skip="container did not boot: $(tail -n 1 "$TEST_TMP/container.err")"
	else
		printf '# container root ready in %ds, booted in %ds\n' \
		    "$((root_end - boot_start))" "$(($(date +%s) - root_end))"
		ssh_pid_before=$(in_ct systemctl show -p MainPID --value ssh.service)
	fi
fi

ct_expect 'booted=yes inside the container' '
	unit_ct booted >out &&
	printf "booted=yes\n" >expect &&
	test_cmp expect out
'

ct_expect 'daemon-reload after writing units' '
	put_unit $DUMMY <<-EOT &&
	[Service]
	Type=exec
	ExecStart=/bin/sleep 1000
	ExecReload=/bin/true
	CPUAccounting=yes
	EOT
	put_unit $FAILING <<-EOT &&
	[Service]
	Type=oneshot
	ExecStart=/bin/false
	EOT
	put_unit $SLOW <<-EOT &&
	[Service]
	Type=oneshot
	ExecStart=/bin/sleep 30
	EOT
	unit_ct daemon-reload >out &&
	test_eq "$(kv daemon_reload out)" done &&
	unit_ct show $DUMMY >show &&
	test_eq "$(kv load_state show)" loaded
'

ct_expect 'start: result=done with monotonic times' '
	unit_ct start $DUMMY >out &&
	test_eq "$(kv result out)" done &&
	issued=$(kv issued_mono_ns out) && done_ns=$(kv done_mono_ns out) &&
	is_number "$issued" && is_number "$done_ns" &&
	[ "$done_ns" -ge "$issued" ] &&
	grep -Eq "^job_ms=[0-9]+\.[0-9]{3}$" out
'

ct_expect 'show: active with the main pid and cgroup counters' '
	unit_ct show $DUMMY >out &&
	test_eq "$(kv active_state out)" active &&
	test_eq "$(kv sub_state out)" running &&
	pid=$(kv main_pid out) && [ "$pid" -gt 0 ] &&
	test_eq "$(in_ct cat /proc/"$pid"/comm)" sleep &&
	test_eq "$(kv control_group out)" /system.slice/$DUMMY &&
	cpu=$(kv cpu_usage_nsec out) &&
	{ is_number "$cpu" || [ "${CONTAINER_UNIFIED:-1}" = 0 ]; } &&
	test_eq "$(kv n_restarts out)" 0 &&
	test_eq "$(kv main_pid out)" "$(in_ct systemctl show -p MainPID --value $DUMMY)"
'

ct_expect 'reload: done, same main pid' '
	unit_ct show $DUMMY >before &&
	unit_ct reload $DUMMY >out &&
	test_eq "$(kv result out)" done &&
	unit_ct show $DUMMY >after &&
	test_eq "$(kv main_pid before)" "$(kv main_pid after)"
'

ct_expect 'restart: done, new main pid' '
	unit_ct show $DUMMY >before &&
	unit_ct restart $DUMMY >out &&
	test_eq "$(kv result out)" done &&
	unit_ct show $DUMMY >after &&
	test_eq "$(kv active_state after)" active &&
	[ "$(kv main_pid before)" != "$(kv main_pid after)" ]
'

ct_expect 'stop: done, inactive' '
	unit_ct stop $DUMMY >out &&
	test_eq "$(kv result out)" done &&
	unit_ct show $DUMMY >show &&
	test_eq "$(kv active_state show)" inactive &&
	test_eq "$(kv main_pid show)" 0
'

ct_expect 'start of a failing unit: result=failed, exit 1' '
	expect_status 1 unit_ct start $FAILING &&
	test_eq "$(kv result "$TEST_TMP/out")" failed &&
	unit_ct show $FAILING >show &&
	test_eq "$(kv active_state show)" failed
'

ct_expect 'start of a missing unit: exit 1, one line naming it' '
	expect_status 1 unit_ct start sshperf-nosuch.service &&
	[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] &&
	test_grep "start sshperf-nosuch.service: Unit sshperf-nosuch.service not found" "$TEST_TMP/out"
'

ct_expect 'a job longer than -t: result=timeout, exit 1; stop ends it' '
	expect_status 1 unit_ct -t 1 start $SLOW &&
	test_eq "$(kv result "$TEST_TMP/out")" timeout &&
	# The deadline was kept: not before 1 s, and before the job itself
	# would have ended (its sleep 30).
	awk -F= '"'"'$1 == "job_ms" { ok = ($2 >= 1000 && $2 < 30000) } END { exit !ok }'"'"' "$TEST_TMP/out" &&
	unit_ct stop $SLOW >out &&
	test_eq "$(kv result out)" done &&
	unit_ct show $SLOW >show &&
	grep -Eq "^active_state=(inactive|failed)$" show
'

ct_expect 'show of the container'\''s ssh.service' '
	unit_ct show ssh.service >out &&
	test_eq "$(kv active_state out)" active &&
	test_eq "$(kv main_pid out)" "$ssh_pid_before" &&
	cpu=$(kv cpu_usage_nsec out) &&
	{ is_number "$cpu" || [ "$cpu" = unknown ]; }
'

ct_expect 'show reads a slice (CPU of user-UID.slice for the sampler)' '
	unit_ct show user.slice >out &&
	test_eq "$(kv active_state out)" active &&
	test_eq "$(kv control_group out)" /user.slice &&
	test_eq "$(kv main_pid out)" 0
'

ct_expect 'terminate-user of a uid without sessions: terminated=no' '
	unit_ct terminate-user $NOUSER_UID >out &&
	printf "terminated=no\nreason=no-sessions\n" >expect &&
	test_cmp expect out
'

ct_expect 'terminate-user ends a logged-in user (pam_systemd session)' '
	in_ct useradd -m -u $TEST_UID sshperfu &&
	in_ct install -d -o sshperfu -m 0700 /home/sshperfu/.ssh &&
	in_ct install -o sshperfu -m 0600 /root/.ssh/authorized_keys /home/sshperfu/.ssh/ &&
	in_ct sh -c "ssh -o BatchMode=yes -i $CONTAINER_SSH_KEY sshperfu@127.0.0.1 sleep 600 \
	    </dev/null >/dev/null 2>&1 &" &&
	container_wait 20 in_ct pgrep -u $TEST_UID -x sleep &&
	in_ct loginctl show-user $TEST_UID -p State >state &&
	grep -Eq "^State=(active|online)$" state &&
	unit_ct terminate-user $TEST_UID >out &&
	test_eq "$(kv terminated out)" yes &&
	! in_ct pgrep -u $TEST_UID &&
	in_ct userdel -r sshperfu
'

ct_expect 'cleanup: units removed and reloaded' '
	in_ct rm -f /etc/systemd/system/$DUMMY /etc/systemd/system/$FAILING \
	    /etc/systemd/system/$SLOW &&
	unit_ct daemon-reload >out &&
	in_ct systemctl reset-failed &&
	unit_ct show $DUMMY >show &&
	test_eq "$(kv load_state show)" not-found
'

ct_expect 'the container'\''s own sshd: same MainPID, still accepts logins' '
	test_eq "$(in_ct systemctl show -p MainPID --value ssh.service)" "$ssh_pid_before" &&
	test_eq "$(container_ssh echo ok)" ok
'

stop_start=$(date +%s)
if [ -z "$container_skip" ]; then
	container_stop
	printf '# container stopped in %ds\n' "$(($(date +%s) - stop_start))"
fi
test_done
