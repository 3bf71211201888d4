#!/usr/bin/env bash
# run.sh timeout: 2700
# make check-fleet: ansible/loadtest.yml for real (issue 47,
# docs/fleet.md "Load from other machines"): one target and two load
# hosts, each a booted systemd container (tests/lib/fleet.sh) reached by
# ansible-playbook from the controller's network namespace, which also
# routes between them (10.250.0.0/16 on their veths; no packet leaves
# this machine).
#
# As between real machines, the target's CPU goes to sshd alone: its
# processes are in a cpuset of CPU 0 with a CFS quota of 50 % (cgroup v1
# here: the host has no systemd for AllowedCPUs= and CPUQuota=), the load
# hosts' in a cpuset of CPU 1, so the load hosts have more CPU than the
# target, as a real rig would.
#
# Checked: bad input (a wildcard listening address, an address the target
# lacks, a load host that does not resolve) ends the play with one line
# and exit 2 before any container changes; the closed loops of two hosts
# reach the target's CPU bound, and the target runs out of its quota in
# most periods of their window (it, not the load hosts, is the limit; run
# this file with nothing else on CPU 0, or the target idles for lack of a
# CPU, not of work); a burst of 50 clients from each host is
# classified against sshd's log with each host's release and clock
# offset; 500 sessions from two hosts are held on the target; a load host
# lost during its run is named, and the report keeps the other's figures
# as partial; after each play the containers are as before but for the
# package and its results folder.
# shellcheck disable=SC2016 # test bodies are single-quoted: the harness evals them
# shellcheck disable=SC2034 # names used only inside the eval'd test bodies
. "$(dirname "$0")/lib/harness.sh"
cd "$TEST_TMP" || exit 2
export LC_ALL=C.UTF-8
export ANSIBLE_LOCAL_TEMP="$TEST_TMP/ansible-local" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
export ANSIBLE_RETRY_FILES_ENABLED=0

ANS="$KIT_DIR/ansible"
have_ansible=""
command -v ansible-playbook >/dev/null 2>&1 && have_ansible=1

if [ -n "$have_ansible" ]; then
	printf '[sshd_perf_kit_target]\nt\n[sshd_perf_kit_load]\nl\n' >syntax.inventory
	test_expect 'ansible-playbook --syntax-check loadtest.yml passes' '
		ansible-playbook -i syntax.inventory --syntax-check "$ANS/loadtest.yml"
	'
fi
if command -v ansible-lint >/dev/null 2>&1; then
	test_expect 'ansible-lint (production profile) finds nothing in loadtest.yml' '
		cd "$ANS" && ANSIBLE_CONFIG= ansible-lint -p --profile production loadtest.yml >"$TEST_TMP/lint" 2>&1 ||
			{ cat "$TEST_TMP/lint"; false; }
	'
fi

skip_rest () {
	test_skip 'loadtest.yml against booted systemd containers' "$1"
	test_done
	exit 0
}
[ -n "$have_ansible" ] || skip_rest 'ansible-core is not installed (./install-deps.sh --tests)'
[ "$(id -u)" -eq 0 ] || skip_rest 'needs root (containers, network namespace, cgroups)'
command -v rpmbuild >/dev/null 2>&1 || skip_rest 'rpmbuild is not installed (apt-get install rpm)'
[ "$(nproc)" -ge 2 ] || skip_rest "needs 2 CPUs, one for the target and one for the load hosts (nproc: $(nproc))"
CG=/sys/fs/cgroup
{ [ -d "$CG/cpuset" ] && [ -f "$CG/cpu/cpu.cfs_quota_us" ]; } ||
	skip_rest "needs the cgroup v1 cpuset and cpu hierarchies under $CG (to pin the containers)"

# shellcheck source=tests/lib/fleet.sh
. "$TEST_DIR/lib/fleet.sh"
FLEET_N=3
# The harness runs these in reverse: the containers go first, then their
# cgroups (pin, below), which must be empty to go.
cgroups_remove () {
	local g
	for g in "$CG"/cpuset/sshperf-loadtest-"$$"-* "$CG"/cpu/sshperf-loadtest-"$$"-*; do
		[ ! -d "$g" ] || rmdir "$g" || :
	done
}
test_atexit cgroups_remove
test_atexit fleet_stop_all

t0=$(date +%s)
fleet_rpm
BOOK="$TEST_TMP/ctl/usr/share/sshd-perf-kit/ansible/loadtest.yml"
[ -f "$BOOK" ] || skip_rest "the RPM has no ansible/loadtest.yml (built from an older HEAD? commit first)"
printf '# RPM %s ready after %ds\n' "$(basename "$RPM")" "$(( $(date +%s) - t0 ))"

fleet_debs 2>"$TEST_TMP/debs.err" || skip_rest "python3 .deb files for the containers: $(tail -n 1 "$TEST_TMP/debs.err")"
fleet_controller 2>"$TEST_TMP/ctl.err" || skip_rest "$(tail -n 1 "$TEST_TMP/ctl.err")"
nsenter -t "$HOLDER" -n sysctl -qw net.ipv4.ip_forward=1 || skip_rest "the controller's namespace cannot route"

# pin I CPUS QUOTA_US: every process of container I into cgroups of its
# own, a cpuset of CPUS and a CFS quota of QUOTA_US per 100 ms (-1: none).
# Their children stay there (the container's systemd manages only its own
# cgroup v2 tree). Twice over the processes, for those forked meanwhile.
pin () {
	local i=$1 cpus=$2 quota=$3 name="sshperf-loadtest-$$-$1" ns p g pass
	ns=$(readlink "/proc/${CPID[i]}/ns/pid") || return 1
	mkdir "$CG/cpuset/$name" "$CG/cpu/$name" || return 1
	echo "$cpus" >"$CG/cpuset/$name/cpuset.cpus" &&
		cat "$CG/cpuset/cpuset.mems" >"$CG/cpuset/$name/cpuset.mems" &&
		echo 100000 >"$CG/cpu/$name/cpu.cfs_period_us" &&
		echo "$quota" >"$CG/cpu/$name/cpu.cfs_quota_us" || return 1
	for pass in 1 2; do
		for p in /proc/[0-9]*; do
			[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "$ns" ] || continue
			for g in cpuset cpu; do echo "${p#/proc/}" >"$CG/$g/$name/cgroup.procs" 2>/dev/null || :; done
		done
	done
	echo "$name"
}
# cpus_of I: the CPUs the processes of container I (its init and every
# descendant, as the host sees them) may run on, one line each distinct
# list. A command run in it with nsenter (ct) is not its descendant and
# keeps the host's CPUs.
cpus_of () {
	local p
	for p in $(pstree -pT "${CPID[$1]}" | grep -o '([0-9]*)' | tr -d '()'); do
		sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null
	done | sort -u
}

NAMES=(- ltarget lload1 lload2)
t1=$(date +%s)
for i in 1 2 3; do
	fleet_boot "$i" "${NAMES[i]}" 2>"$TEST_TMP/boot.err" || skip_rest "container ${NAMES[i]}: $(tail -n 1 "$TEST_TMP/boot.err")"
	use "$i"
	container_exec ip route add 10.250.0.0/16 via "10.250.$i.1" dev eth1 ||
		skip_rest "no route from ${NAMES[i]} through the controller"
done
printf '# 3 containers booted with python3 and a network in %ds\n' "$(( $(date +%s) - t1 ))"

test_expect 'the target is pinned to CPU 0 at a 50 % quota, the load hosts to CPU 1' '
	pin 1 0 50000 >/dev/null && pin 2 1 -1 >/dev/null && pin 3 1 -1 >/dev/null &&
	test_eq "$(cpus_of 1)" 0 && test_eq "$(cpus_of 2)" 1 && test_eq "$(cpus_of 3)" 1
'

test_expect 'the load hosts reach the target through the controller' '
	ct 2 timeout 5 bash -c "exec 3<>/dev/tcp/10.250.1.2/22" && ct 3 timeout 5 bash -c "exec 3<>/dev/tcp/10.250.1.2/22"
'

for i in 1 2 3; do snapshot "$i" >"pristine.$i"; done

key=$(cut -d' ' -f1,2 "$CONTAINER_CACHE/$CONTAINER_SUITE/etc/ssh/ssh_host_ed25519_key.pub")
printf '10.250.1.2,10.250.2.2,10.250.3.2 %s\n' "$key" >known_hosts
cat >inventory <<EOF
[sshd_perf_kit_target]
ltarget ansible_host=10.250.1.2 sshd_perf_kit_listen_address=10.250.1.2

[sshd_perf_kit_load]
lload1 ansible_host=10.250.2.2
lload2 ansible_host=10.250.3.2

[all:vars]
ansible_user=root
ansible_python_interpreter=/usr/bin/python3
ansible_pipelining=true
ansible_ssh_private_key_file=$CONTAINER_CACHE/id_sshperf_container
ansible_ssh_common_args=-o UserKnownHostsFile=$TEST_TMP/known_hosts -o StrictHostKeyChecking=yes
sshd_perf_kit_source=file
sshd_perf_kit_rpm_file=$RPM
sshd_perf_kit_installer=rpm
sshd_perf_kit_rpm_nodeps=true
sshd_perf_kit_fleet_root=$TEST_TMP/fleet
sshd_perf_kit_load_lead=20
sshd_perf_kit_duration=20
# 4 clients per host: 8 at once, under MaxStartups' start of 10
sshd_perf_kit_rate_workers=4
sshd_perf_kit_concurrent_login_parallel=4
EOF

play () {
	fleet_play "$TEST_TMP/inventory" "$BOOK" "$@"
}
# unchanged I...: containers I as before any play, the package not installed.
unchanged () {
	local i
	for i in "$@"; do
		snapshot "$i" >"now.$i" && test_cmp "pristine.$i" "now.$i" || return 1
		! ct "$i" rpm -q sshd-perf-kit >/dev/null || { echo "${NAMES[i]} has the package"; return 1; }
	done
}
# as_before I...: containers I as before but for the package and its
# results folder; no key, archive or watch folder of the play's left.
as_before () {
	local i
	for i in "$@"; do
		snapshot "$i" | grep -vx "exists /var/lib/sshd-perf-kit" >"after.$i" &&
			test_cmp "pristine.$i" "after.$i" || return 1
		ct "$i" find /var/tmp -maxdepth 1 -name "sshd-perf-kit*" >"left.$i" && test_cmp /dev/null "left.$i" || return 1
		! ct "$i" test -e /var/lib/sshd-perf-kit/state || { echo "${NAMES[i]} has a state folder"; return 1; }
	done
}
# refused ARGS...: the play ends with exit 2 before anything changes.
refused () {
	local rc=0 msg=$1
	shift
	play "$@" >refused.out || rc=$?
	test_eq "$rc" 2 && test_grep -F "$msg" refused.out &&
		test_grep ! "TASK \[Install the kit\]" refused.out &&
		unchanged 1 2 3
}

test_expect 'bad input: a wildcard listening address, exit 2, no container changed' '
	refused "sshd_perf_kit_listen_address=0.0.0.0: the target needs one address of its own" -e sshd_perf_kit_listen_address=0.0.0.0
'
test_expect 'bad input: an address the target does not have, exit 2, no container changed' '
	refused "sshd_perf_kit_listen_address=10.250.9.9: the target ltarget has no such address" -e sshd_perf_kit_listen_address=10.250.9.9
'
test_expect 'bad input: a load host that does not resolve, exit 2, no container changed' '
	refused "load host nosuchhost.invalid (sshd_perf_kit_load_hosts" -e sshd_perf_kit_load_hosts=nosuchhost.invalid
'

# run_dir OUT: the merged folder on the controller that play output OUT names.
run_dir () {
	sed -n 's/.*"msg": "\(\/[^ ]*\)\/load-report\.md (on the target.*/\1/p' "$1" | tail -n 1
}
# env_of DIR KEY: a key of DIR's data/load-merge.env.
env_of () {
	sed -n "s/^$2=//p" "$1/data/load-merge.env" | tail -n 1
}

# ---- The closed loops against the target's CPU ------------------------------
# throttled I: the CFS periods of container I so far, and those in which
# its quota ran out ("PERIODS THROTTLED").
throttled () {
	awk '$1 == "nr_periods" { p = $2 } $1 == "nr_throttled" { t = $2 } END { print p + 0, t + 0 }' \
		"$CG/cpu/sshperf-loadtest-$$-$1/cpu.stat" 2>/dev/null
}
# quota_samples I: every half second, the wall clock (ns; the containers
# share this kernel's) and container I's periods and throttled periods,
# until quota.stop appears; at most an hour of them.
quota_samples () {
	local i=0
	while [ ! -e "$TEST_TMP/quota.stop" ] && [ "$i" -lt 7200 ]; do
		printf '%s %s\n' "$(date +%s%N)" "$(throttled "$1")"
		sleep 0.5
		i=$((i + 1))
	done
}
t2=$(date +%s)
throttled 1 >throttled.before
quota_samples 1 >quota.tsv &
QUOTA_PID=$!
test_atexit 'touch "$TEST_TMP/quota.stop"; kill "$QUOTA_PID" 2>/dev/null; :'
test_expect 'the closed loops of two load hosts: the play completes and the merged report is on the controller' '
	play -e "{\"sshd_perf_kit_load_tests\": [\"rate\"]}" >rate.out ||
		{ tail -n 40 rate.out; false; }
	R=$(run_dir rate.out) && test -s "$R/load-report.md" && test -s "$R/data/load-merge.env" &&
	test_grep -x "status=ok" "$R/data/load-merge.env" &&
	test -s "$R/hosts/lload1/data/load.env" && test -s "$R/hosts/lload2/data/load.env" &&
	echo "$R" >rate.dir
'
printf '# the rate play took %ds\n' "$(( $(date +%s) - t2 ))"
touch quota.stop
wait "$QUOTA_PID" 2>/dev/null || :
# Whether the target ran at its quota: the share of its CFS periods over
# the play (the install and the watch's lead included) that ran it out.
read -r p0 n0 <throttled.before
throttled 1 | { read -r p1 n1; [ "$p1" -le "$p0" ] || printf '# the target ran out of its quota in %d of %d periods of 100 ms during the rate play\n' "$((n1 - n0))" "$((p1 - p0))"; }
R=$(cat rate.dir 2>/dev/null || echo "$TEST_TMP/no-run")
if [ -f "$R/load-report.md" ]; then sed -n '1,/^## /p' "$R/load-report.md" | sed 's/^/#   /' | head -n 30; fi

# The bound: the CPU sshd had (its share over the loops' window, of the
# target's one CPU) over sshd's CPU per login, both from this run.
test_expect 'the logins/s of the loops reach at least 90 % of the target s CPU bound (share x 1000 / CPU ms per login)' '
	test_grep -x "cores=1" "$R/data/watch.env" &&
	lps=$(env_of "$R" rate_logins_per_s) && pct=$(env_of "$R" rate_sshd_cpu_pct) &&
	ms=$(env_of "$R" sshd_cpu_ms_per_login) &&
	printf "%s %s %s\n" "$lps" "$pct" "$ms" | awk "{ bound = \$2 / 100 * 1000 / \$3; quota = 0.5 * 1000 / \$3
		printf \"# %.1f logins/s; sshd %.1f %% of the target CPU (quota 50 %%), %.2f ms per login: bound %.1f/s, %.0f %% of it; at the quota %.1f/s, %.0f %%\\n\", \$1, \$2, \$3, bound, 100 * \$1 / bound, quota, 100 * \$1 / quota
		exit !(\$1 >= 0.9 * bound) }"
'

# That bound is sshd's own share, so the check above says the rate window
# and the whole watch agree. This one says the target was the limit, not
# the load hosts: over the loops' window (the merge's, by the target's
# clock), the target ran out of its 50 % quota in most CFS periods. Were
# the load hosts too slow, the target would idle below its quota.
test_expect 'over the loops window the target ran out of its CPU quota in most periods: the target was the limit' '
	ws=$(env_of "$R" rate_window_start_wall_ns) && we=$(env_of "$R" rate_window_end_wall_ns) &&
	test_grep -E "^rate_window_start_wall_ns=[0-9]+$" "$R/data/load-merge.env" && test_grep -E "^rate_window_end_wall_ns=[0-9]+$" "$R/data/load-merge.env" &&
	awk -v ws="$ws" -v we="$we" "\$1 >= ws && \$1 <= we { if (p0 == \"\") { p0 = \$2; t0 = \$3 } p1 = \$2; t1 = \$3; n++ }
		END { if (n < 2 || p1 <= p0) { print \"# no two quota samples inside the window (\" n + 0 \")\"; exit 1 }
			printf \"# over the loops window: out of quota in %d of %d periods (%.0f %%), %d samples\\n\", t1 - t0, p1 - p0, 100 * (t1 - t0) / (p1 - p0), n
			exit !((t1 - t0) * 2 > p1 - p0) }" quota.tsv
'

test_expect 'after the rate play: every container as before but for the package' '
	as_before 1 2 3 && ct 1 rpm -q sshd-perf-kit && ct 2 rpm -q sshd-perf-kit
'

# ---- A burst of 50 clients per host, then 250 sessions per host ---------------
t3=$(date +%s)
test_expect 'burst and concurrent from two load hosts: the play completes' '
	play -e "{\"sshd_perf_kit_load_tests\": [\"burst\", \"concurrent\"]}" -e sshd_perf_kit_load_burst_clients=50 \
		-e sshd_perf_kit_concurrent_sessions=250 >bc.out || { tail -n 40 bc.out; false; }
	B=$(run_dir bc.out) && test -s "$B/load-report.md" && echo "$B" >bc.dir
'
printf '# the burst and concurrent play took %ds\n' "$(( $(date +%s) - t3 ))"
B=$(cat bc.dir 2>/dev/null || echo "$TEST_TMP/no-run")
if [ -f "$B/raw/load-merge-hosts.tsv" ]; then sed 's/^/#   /' "$B/raw/load-merge-hosts.tsv"; fi

test_expect 'each host s burst of 50 is classified against sshd s log, with its release and clock offset' '
	for h in lload1 lload2; do
		awk -F"\t" -v h=$h "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
			\$1 == h { n++; if (\$c[\"burst_clients\"] != 50) exit 1
				if (\$c[\"burst_ok\"] + \$c[\"burst_refused\"] + \$c[\"burst_penalty\"] != 50) exit 1
				if (\$c[\"clock_offset_ms\"] == \"-\" || \$c[\"burst_release_spread_ms\"] == \"-\" || \$c[\"burst_release_apart_ms\"] == \"-\") exit 1 }
			END { exit n != 1 }" "$B/raw/load-merge-hosts.tsv" || { echo "host $h"; exit 1; }
	done &&
	test_grep -E "^burst_releases_wide=(yes|no)$" "$B/data/load-merge.env"
'

test_expect '500 sessions from two load hosts are held at once on the target and each answers' '
	peak=$(sed -n "s/^peak_sessions=//p" "$B/data/watch.env") &&
	printf "# the most sessions open on the target at once: %s\n" "$peak" &&
	[ "$peak" -ge 500 ] &&
	for h in lload1 lload2; do
		test_grep -x "concurrent_alive=250" "$B/hosts/$h/data/load.env" || exit 1
	done
'

test_expect 'after the burst and concurrent play: every container as before but for the package' '
	as_before 1 2 3
'

# ---- A load host lost during its run -------------------------------------------
# lload2's link is cut once its load runs; the play notices at its next
# poll, records it and goes on; lload1's figures stay, marked partial.
cut_when_loading () {
	local n
	for n in $(seq 1 1200); do
		if ct 3 pgrep -f "lib/bin/load[.]sh" >/dev/null; then
			sleep 5
			nsenter -t "$HOLDER" -n ip link set fleet3 down
			return 0
		fi
		sleep 0.5
	done
	return 1
}
t4=$(date +%s)
test_expect 'a load host lost during its run: named in one line, the report partial with the other s figures' '
	cut_when_loading & cutter=$!
	rc=0; play -e "{\"sshd_perf_kit_load_tests\": [\"rate\"]}" -e sshd_perf_kit_duration=40 >lost.out || rc=$?
	wait $cutter; crc=$?
	nsenter -t "$HOLDER" -n ip link set fleet3 up
	test_eq "$crc $rc" "0 2" &&
	test_grep -E "load host lload2 did not complete: lost during its run" lost.out &&
	L=$(run_dir lost.out) && test -s "$L/load-report.md" &&
	test_grep -x "hosts_failed=lload2" "$L/data/load-merge.env" &&
	test_grep "lload2" "$L/load-report.md" &&
	test -s "$L/hosts/lload1/data/load.env" &&
	awk -F"\t" "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next } \$1 == \"lload1\" && \$c[\"logins_ok\"] > 0 { ok = 1 } END { exit !ok }" \
		"$L/raw/load-merge-hosts.tsv"
'
printf '# the lost-host play took %ds\n' "$(( $(date +%s) - t4 ))"

# lload2 went on alone until its loop's deadline; its own trap removes
# the key when its run ends.
key_gone () { [ -z "$(ct 3 find /var/tmp -maxdepth 1 -name "sshd-perf-kit-key.*")" ]; }
load_gone () { ! ct 3 pgrep -f "lib/bin/load[.]sh" >/dev/null; }
test_expect 'the lost host removes the key itself when its run ends; then every container is as before' '
	container_wait 180 key_gone && container_wait 120 load_gone &&
	as_before 1 2 3
'

# ---- A load host unreachable from the start ---------------------------------------
t5=$(date +%s)
test_expect 'a load host unreachable at the start: named in one line, the other loads, the report partial' '
	nsenter -t "$HOLDER" -n ip link set fleet3 down &&
	rc=0; play -e "{\"sshd_perf_kit_load_tests\": [\"rate\"]}" -e sshd_perf_kit_duration=10 -e sshd_perf_kit_connect_timeout=10 >unreach.out || rc=$?
	nsenter -t "$HOLDER" -n ip link set fleet3 up
	test_eq "$rc" 2 &&
	test_grep -E "load host lload2 did not complete: Wait for the load host to answer: " unreach.out &&
	U=$(run_dir unreach.out) && test -s "$U/load-report.md" &&
	test_grep -x "hosts_failed=lload2" "$U/data/load-merge.env" &&
	test_grep -x "status=partial" "$U/data/load-merge.env" &&
	test_grep "lload2 did not complete" "$U/load-report.md" &&
	test -s "$U/hosts/lload1/data/load.env" &&
	as_before 1 2 3
'
printf '# the unreachable-host play took %ds\n' "$(( $(date +%s) - t5 ))"

printf '# check-loadtest took %ds\n' "$(( $(date +%s) - t0 ))"
test_done
