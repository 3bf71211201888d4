#!/usr/bin/env bash
# run.sh timeout: 1800
# make check-fleet: the Ansible role and playbook (ansible/, docs/fleet.md)
# and the fleet report (test-ssh.sh --fleet), for real.
#
# Without root: the role's variables agree with settings.conf and
# lib/settings.schema, the playbook passes --syntax-check and ansible-lint,
# and the fleet report of the runs in tests/data is right.
#
# As root: `make rpm` builds the package; three booted systemd containers
# (tests/lib/container.sh) get python3 (installed into their overlay from
# .deb files fetched on the host with apt-get download: Ansible's modules
# need it, and adding it to CONTAINER_PACKAGES would rebuild the shared
# cache) and a veth pair each to a network namespace made here, the
# "controller" namespace, where nothing else lives: ansible-playbook runs
# in it and reaches each container's own sshd on 10.250.N.2:22; no packet
# can leave this machine. The playbook and role are the ones the RPM
# ships. fleet1 and fleet2 install the RPM file and run the login test
# (LOGIN_SAMPLES=3) on their own TEST_PORT; fleet3's RPM file is missing
# on purpose. Then: a bad value is refused before any container changes,
# check mode changes nothing, the real run completes on fleet1 and fleet2,
# reports fleet3 with its reason, and leaves every container as it was
# (tests/lib/snapshot.sh) but for the installed package.
# shellcheck disable=SC2016 # test bodies are single-quoted: the harness evals them
# shellcheck disable=SC2034 # names used only inside the eval'd test bodies
. "$(dirname "$0")/lib/harness.sh"
cd "$TEST_TMP" || exit 2
export LC_ALL=C.UTF-8

ANS="$KIT_DIR/ansible"
ROLE="$ANS/roles/sshd_perf_kit"
RUNS="$TEST_DIR/data/runs"
have_ansible=""
command -v ansible-playbook >/dev/null 2>&1 && have_ansible=1
# Ansible's own files of this test stay in $TEST_TMP.
export ANSIBLE_LOCAL_TEMP="$TEST_TMP/ansible-local" ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
export ANSIBLE_RETRY_FILES_ENABLED=0

# ---- The role and the playbook, without hosts ------------------------------

test_expect 'the role s variables, specs and checks are what settings.conf and lib/settings.schema give' '
	"$KIT_DIR/packaging/ansible-vars.sh" --check &&
	n=$(grep -Ecv "^[[:space:]]*(#|$)" "$KIT_DIR/lib/settings.schema") && [ "$n" -gt 30 ] &&
	grep -o "^sshd_perf_kit_[a-z0-9_]*" "$ROLE/defaults/main.yml" >vars.defaults &&
	sed -n "s/^      \(sshd_perf_kit_[a-z0-9_]*\):\$/\1/p" "$ROLE/meta/argument_specs.yml" >vars.specs &&
	test_cmp vars.defaults vars.specs &&
	[ "$(grep -c "^sshd_perf_kit_" vars.defaults)" -gt "$n" ] &&
	[ "$(grep -c "^  - name: " "$ROLE/vars/main.yml")" -eq "$n" ] &&
	test_grep -x "sshd_perf_kit_login_samples: $(sed -n "s/^LOGIN_SAMPLES=//p" "$KIT_DIR/settings.conf")" "$ROLE/defaults/main.yml"
'

if [ -n "$have_ansible" ]; then
	test_expect 'ansible-playbook --syntax-check fleet.yml passes' '
		ansible-playbook -i "$ANS/inventory.example" --syntax-check "$ANS/fleet.yml"
	'
else
	test_skip 'ansible-playbook --syntax-check fleet.yml passes' 'ansible-core is not installed (./install-deps.sh --tests)'
fi
if command -v ansible-lint >/dev/null 2>&1; then
	test_expect 'ansible-lint (production profile) finds nothing in the role and playbook' '
		cd "$ANS" && ANSIBLE_CONFIG= ansible-lint -p --profile production fleet.yml roles/sshd_perf_kit >"$TEST_TMP/lint" 2>&1 ||
			{ cat "$TEST_TMP/lint"; false; }
	'
else
	test_skip 'ansible-lint finds nothing' 'ansible-lint is not installed (Debian: apt-get install ansible-lint)'
fi

# ---- The fleet report from runs on disk ----------------------------------

# Four hosts: a and c the same run, c with a login 4.5 times slower; b an
# interrupted run; d did not run (failed.env); e in hosts only.
mkdir -p fx
cp -r "$RUNS/2026-03-02_101500" fx/a
cp -r "$RUNS/2026-03-03_091500" fx/b
cp -r "$RUNS/2026-03-02_101500" fx/c
sed -i "s/^figure=.*/figure=1400/" fx/c/data/login.env
mkdir fx/d
printf 'reason=Check that the RPM file is on the controller: not there\ntask=x\n' >fx/d/failed.env
printf 'a\nb\nc\nd\ne\n' >fx/hosts

json_ok () {
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1"
}
test_expect 'test-ssh.sh --fleet: one row per host, medians, the host that stands out, hosts not run and why' '
	[ "$("$KIT_DIR/test-ssh.sh" --fleet "$TEST_TMP/fx")" = "$TEST_TMP/fx/fleet-report.md" ] &&
	r=fx/fleet-report.md &&
	test_grep "^| a | - | 308.811 PASS | " $r &&
	test_grep "^| c | - | \*\*1400\*\* PASS (2.3 x) | " $r &&
	test_grep "^| \*\*Fleet median\*\* | | 612 (n=3) | " $r &&
	test_grep -x "| c | \`login\` | 1400 ms | 612 ms | 2.3 x worse | lower |" $r &&
	[ "$(grep -c " x worse |" $r)" -eq 1 ] &&
	test_grep -x "| d | Check that the RPM file is on the controller: not there |" $r &&
	test_grep "^| e | not reached: the play ended before this host" $r &&
	test_grep "^| a | rhel9-lab | Debian GNU/Linux 12 (bookworm) | OpenSSH_9.2 | 2 | none" $r &&
	json_ok fx/fleet.json &&
	test_grep "\"format\": \"sshd-perf-kit-fleet\"" fx/fleet.json &&
	test_grep "{\"host\": \"c\", \"metric\": \"login\", \"figure\": 1400, \"median\": 612, \"others_median\": 612, \"factor\": 2.29}" fx/fleet.json &&
	test_grep "{\"host\": \"d\", \"reason\": \"Check that the RPM file" fx/fleet.json
'

test_expect '--fleet --baseline compares every host with the baseline run; --factor moves the line' '
	"$KIT_DIR/test-ssh.sh" --fleet fx --baseline "$RUNS/2026-03-02_120000" --factor 2.5 >/dev/null &&
	r=fx/fleet-report.md &&
	test_grep "^## Against the baseline \`2026-03-02_120000\`" $r &&
	test_grep "^| a | 0.0 % (same) |" $r && test_grep "^| c | +353.4 % (worse) |" $r &&
	test_grep "^None: no figure is worse than 2.5 x" $r &&
	json_ok fx/fleet.json && test_grep "\"baseline\": \"2026-03-02_120000\"" fx/fleet.json
'

test_expect '--fleet with bad input: exit 2 and one line, nothing written' '
	mkdir empty &&
	for args in "" "nodir" "empty" "fx --factor 1" "fx --factor x" "fx --baseline fx/d" "fx --what"; do
		rm -f fx/fleet-report.md
		# shellcheck disable=SC2086
		expect_status 2 "$KIT_DIR/test-ssh.sh" --fleet $args || exit 1
		[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] || { cat "$TEST_TMP/out"; exit 1; }
		case $args in fx\ *) [ ! -e fx/fleet-report.md ] || exit 1 ;; esac
	done
'

# An INCONCLUSIVE run (exit 3: nothing failed, a test could not be
# decided) was measured: p is a run, q the same run with its login
# INCONCLUSIVE at 1400 ms.
mkdir -p fy
cp -r "$RUNS/2026-03-02_101500" fy/p
cp -r "$RUNS/2026-03-02_101500" fy/q
sed -i "s/^figure=.*/figure=1400/; s/^status=.*/status=INCONCLUSIVE/" fy/q/data/login.env
printf 'verdict=INCONCLUSIVE\n' >fy/q/data/verdict.env
test_expect 'test-ssh.sh --fleet: an INCONCLUSIVE host ran; its verdict shown, its figures in the median' '
	"$KIT_DIR/test-ssh.sh" --fleet fy >/dev/null &&
	r=fy/fleet-report.md &&
	test_grep "^| Hosts | 2, 2 ran, 0 did not run |" $r &&
	test_grep "^| q | INCONCLUSIVE | \*\*1400\*\* INCONCLUSIVE (4.5 x) | " $r &&
	test_grep "^| \*\*Fleet median\*\* | | 308.81 (n=2) | " $r &&
	test_grep -x "| q | \`login\` | 1400 ms | 308.81 ms | 4.5 x worse | lower |" $r &&
	test_grep "^None: every host ran" $r &&
	json_ok fy/fleet.json &&
	test_grep "{\"name\": \"q\", \"ran\": true, \"reason\": null, \"run\": null, \"verdict\": \"INCONCLUSIVE\"," fy/fleet.json &&
	test_grep "\"login\": {\"status\": \"INCONCLUSIVE\", \"figure\": 1400, \"unit\": \"ms\", \"stands_out\": true" fy/fleet.json
'

# Two hosts, a figure where higher is better: the nearest-rank median of
# two is the lower figure, so against the fleet median the slow host
# would equal it and never stand out. Held against the other host, it does.
test_expect 'test-ssh.sh --fleet: of two hosts, the one with the lower rate stands out against the other' '
	sed -i "s/^figure=.*/figure=10/" fy/q/data/rate.env &&
	"$KIT_DIR/test-ssh.sh" --fleet fy >/dev/null &&
	test_grep -x "| q | \`rate\` | 10 logins/s | 42.5 logins/s | 4.2 x worse | higher |" fy/fleet-report.md &&
	test_grep "^| \*\*Fleet median\*\* | | 308.81 (n=2) | 10 (n=2) |" fy/fleet-report.md &&
	test_grep "{\"host\": \"q\", \"metric\": \"rate\", \"figure\": 10, \"median\": 10, \"others_median\": 42.5, \"factor\": 4.25}" fy/fleet.json
'

# The role with the kit's exit codes: a stand-in for the kit in a checkout
# (start-ssh.sh and test-ssh.sh that only record their calls; test-ssh.sh
# copies a run of tests/data and ends as the real one does: the report's
# path, then exit 3 INCONCLUSIVE on TEST_PORT 12022, exit 1 FAIL on any
# other), on this machine (connection local, no root): what is tested is
# what the role does with each exit code, not what the kit measures.
if [ -n "$have_ansible" ]; then
	mkdir -p standin/results
	printf 'all:\n' >standin/Makefile
	cat >standin/start-ssh.sh <<-STANDIN
	#!/bin/sh
	echo "start-ssh.sh \$* TEST_PORT=\$TEST_PORT" >>"$TEST_TMP/standin/calls"
	STANDIN
	cat >standin/test-ssh.sh <<-STANDIN
	#!/bin/sh
	echo "test-ssh.sh \$* TEST_PORT=\$TEST_PORT" >>"$TEST_TMP/standin/calls"
	d=\$RESULTS_DIR/2026-12-01_0930\${TEST_PORT%022}
	cp -R "$RUNS/2026-03-02_101500" "\$d" && echo "# report" >"\$d/report.md" && echo "{}" >"\$d/results.json" || exit 2
	case \$TEST_PORT in 12022) v=INCONCLUSIVE rc=3 ;; *) v=FAIL rc=1 ;; esac
	echo "verdict=\$v" >"\$d/data/verdict.env"
	sed -i "s/^status=.*/status=\$v/" "\$d/data/login.env"
	echo "\$d/report.md"
	exit \$rc
	STANDIN
	chmod +x standin/start-ssh.sh standin/test-ssh.sh
	cat >standin/inventory <<-STANDIN
	[sshd_perf_kit]
	inconclusive sshd_perf_kit_test_port=12022
	failing sshd_perf_kit_test_port=13022

	[sshd_perf_kit:vars]
	ansible_connection=local
	ansible_become=false
	ansible_python_interpreter=$(command -v python3)
	sshd_perf_kit_source=checkout
	sshd_perf_kit_checkout_dir=$TEST_TMP/standin
	sshd_perf_kit_results_dir=$TEST_TMP/standin/results
	sshd_perf_kit_remote_tmp=$TEST_TMP/standin
	sshd_perf_kit_fleet_root=$TEST_TMP/standin/fleet
	sshd_perf_kit_tests=["login"]
	STANDIN
	test_expect 'the role: a run that ends INCONCLUSIVE (exit 3) or FAIL (exit 1) is a result, fetched and in the fleet report' '
		ANSIBLE_REMOTE_TEMP="$TEST_TMP/ansible-remote" ansible-playbook -i standin/inventory "$ANS/fleet.yml" >standin/run.out 2>&1 ||
			{ tail -n 30 standin/run.out; false; }
		test_grep -E "inconclusive +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0" standin/run.out &&
		test_grep -E "failing +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0" standin/run.out &&
		[ "$(grep -c "^test-ssh.sh -q login TEST_PORT=" standin/calls)" -eq 2 ] &&
		[ "$(grep -c "^start-ssh.sh -q cleanup TEST_PORT=" standin/calls)" -eq 2 ] &&
		f=$(find standin/fleet -mindepth 1 -maxdepth 1 -type d) && [ "$(printf "%s\n" "$f" | wc -l)" -eq 1 ] &&
		test_grep -x "verdict=INCONCLUSIVE" "$f/inconclusive/data/verdict.env" &&
		test_grep -x "verdict=FAIL" "$f/failing/data/verdict.env" &&
		test -s "$f/inconclusive/report.md" && ! test -e "$f/inconclusive/failed.env" && ! test -e "$f/failing/failed.env" &&
		test_grep "^| Hosts | 2, 2 ran, 0 did not run |" "$f/fleet-report.md" &&
		test_grep "^| inconclusive | INCONCLUSIVE | [0-9.]* INCONCLUSIVE |" "$f/fleet-report.md" &&
		test_grep "^| failing | FAIL | [0-9.]* FAIL |" "$f/fleet-report.md" &&
		test_grep "^| \*\*Fleet median\*\* | | [0-9.]* (n=2) |" "$f/fleet-report.md"
	'
else
	test_skip 'the role: a run that ends INCONCLUSIVE (exit 3) is a result' 'ansible-core is not installed (./install-deps.sh --tests)'
fi

# ---- In booted containers ---------------------------------------------------

skip_rest () {
	test_skip 'the playbook against booted systemd containers' "$1"
	test_done
	exit 0
}
[ -n "$have_ansible" ] || skip_rest 'ansible-core is not installed (./install-deps.sh --tests)'
[ "$(id -u)" -eq 0 ] || skip_rest 'needs root (containers, network namespace)'
command -v rpmbuild >/dev/null 2>&1 || skip_rest 'rpmbuild is not installed (apt-get install rpm)'

# shellcheck source=tests/lib/fleet.sh
. "$TEST_DIR/lib/fleet.sh"
N=3
FLEET_N=$N
# The harness's one cleanup path: it runs this at the end of the file
# (INT and TERM included) and removes TEST_TMP after it.
test_atexit fleet_stop_all

t0=$(date +%s)
fleet_rpm
printf '# RPM %s ready after %ds\n' "$(basename "$RPM")" "$(( $(date +%s) - t0 ))"
CTL="$TEST_TMP/ctl/usr/share/sshd-perf-kit"
CTL_EXEC="$TEST_TMP/ctl/usr/libexec/sshd-perf-kit"
[ -f "$CTL/ansible/fleet.yml" ] || skip_rest "the RPM has no ansible/fleet.yml (built from an older HEAD? commit first)"

fleet_debs 2>"$TEST_TMP/debs.err" || skip_rest "python3 .deb files for the containers: $(tail -n 1 "$TEST_TMP/debs.err")"
fleet_controller 2>"$TEST_TMP/ctl.err" || skip_rest "$(tail -n 1 "$TEST_TMP/ctl.err")"

t1=$(date +%s)
for ((i = 1; i <= N; i++)); do
	fleet_boot "$i" "fleet$i" 2>"$TEST_TMP/boot.err" || skip_rest "container fleet$i: $(tail -n 1 "$TEST_TMP/boot.err")"
done
printf '# %d containers booted with python3 and a network in %ds\n' "$N" "$(( $(date +%s) - t1 ))"

for ((i = 1; i <= N; i++)); do snapshot "$i" >"pristine.$i"; done

# The inventory: the containers' own sshd, root with the container key,
# their host key known; a TEST_PORT of its own per host.
key=$(cut -d' ' -f1,2 "$CONTAINER_CACHE/$CONTAINER_SUITE/etc/ssh/ssh_host_ed25519_key.pub")
printf '10.250.1.2,10.250.2.2,10.250.3.2 %s\n' "$key" >known_hosts
cat >inventory <<EOF
[sshd_perf_kit]
fleet1 ansible_host=10.250.1.2 sshd_perf_kit_test_port=12022
fleet2 ansible_host=10.250.2.2 sshd_perf_kit_test_port=13022
fleet3 ansible_host=10.250.3.2 sshd_perf_kit_test_port=14022 sshd_perf_kit_rpm_file=$TEST_TMP/missing/sshd-perf-kit.rpm

[sshd_perf_kit:vars]
ansible_user=root
ansible_become=false
ansible_python_interpreter=/usr/bin/python3
ansible_pipelining=true
ansible_ssh_private_key_file=$CONTAINER_CACHE/id_sshperf_container
ansible_ssh_common_args=-o UserKnownHostsFile=$TEST_TMP/known_hosts -o StrictHostKeyChecking=yes
sshd_perf_kit_source=file
sshd_perf_kit_rpm_file=$RPM
sshd_perf_kit_installer=rpm
sshd_perf_kit_rpm_nodeps=true
sshd_perf_kit_fleet_root=$TEST_TMP/fleet
sshd_perf_kit_tests=["login"]
sshd_perf_kit_login_samples=3
EOF

# ansible-playbook fleet.yml of the RPM in the controller's namespace.
play () {
	fleet_play "$TEST_TMP/inventory" "$CTL/ansible/fleet.yml" "$@"
}
unchanged () {
	local i
	for ((i = 1; i <= N; i++)); do
		snapshot "$i" >"now.$i" && test_cmp "pristine.$i" "now.$i" || return 1
		! ct "$i" rpm -q sshd-perf-kit >/dev/null || { echo "fleet$i has the package"; return 1; }
	done
}

test_expect 'Ansible reaches every container s own sshd over the controller s namespace' '
	nsenter -t "$HOLDER" -n ansible -i inventory sshd_perf_kit -m ansible.builtin.ping >ping.out 2>&1 ||
		{ cat ping.out; false; }
	[ "$(grep -c "SUCCESS" ping.out)" -eq 3 ]
'

test_expect 'a bad value is refused by the argument specs, before any container changes' '
	rc=0; play -e sshd_perf_kit_login_samples=many >bad1.out || rc=$?
	[ "$rc" -ne 0 ]
	test_grep "Validation of arguments failed" bad1.out
	test_grep "sshd_perf_kit_login_samples. is of type" bad1.out
	rc=0; play -e sshd_perf_kit_test_port=80 -e sshd_perf_kit_max_startups=30:10:20 >bad2.out || rc=$?
	[ "$rc" -ne 0 ]
	test_grep "sshd_perf_kit_test_port=80: TEST_PORT must be a TCP port from 1024 to 65535" bad2.out &&
	test_grep ! "TASK \[sshd_perf_kit : Wait for the host" bad1.out bad2.out &&
	! test -e fleet &&
	unchanged
'

test_expect 'check mode says what it would do and changes nothing' '
	rc=0; play --check >check.out || rc=$?
	[ "$rc" -eq 2 ]
	test_grep -E "fleet3 +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=1" check.out &&
	test_grep "would install sshd-perf-kit: $RPM from the controller with rpm" check.out &&
	test_grep "would start the test server on 127.0.0.1:13022" check.out &&
	test_grep "would run: .*/test-ssh.sh -q login" check.out &&
	{ find fleet -name report.md 2>/dev/null || :; } >reports &&
	test_cmp /dev/null reports &&
	unchanged
'

t2=$(date +%s)
test_expect 'the fleet run: fleet1 and fleet2 complete, fleet3 fails; ansible-playbook exits non-zero' '
	rc=0; play >run.out || rc=$?
	[ "$rc" -eq 2 ]
	test_grep -E "fleet1 +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0" run.out &&
	test_grep -E "fleet2 +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=0" run.out &&
	test_grep -E "fleet3 +: ok=[0-9]+ +changed=[0-9]+ +unreachable=0 +failed=1" run.out
'
printf '# the fleet run took %ds\n' "$(( $(date +%s) - t2 ))"
# Seconds per host: from one batch header (serial: 1) to the next.
awk '/PLAY \[Run sshd-perf-kit on each host\]/ { n++; s[n] = $1 } /PLAY \[Write the fleet report/ { s[n + 1] = $1 }
	END { for (i = 1; i <= n; i++) printf "# fleet%d: %ds\n", i, s[i + 1] - s[i] }' run.out
# Where the time went: the slowest tasks, summed over the hosts.
awk '/ (TASK|PLAY|RUNNING HANDLER) \[/ { if (name != "") t[name] += $1 - ts; name = substr($0, index($0, " ") + 1); ts = $1 }
	END { for (n in t) printf "%d %s\n", t[n], n }' run.out | sort -rn | head -n 8 |
	sed 's/^\([0-9]*\) \(.*\) \**$/# \1s \2/'
FLEET=$(find "$TEST_TMP/fleet" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | head -n 1)

# The fleet report of this run, for the log.
if [ -f "$FLEET/fleet-report.md" ]; then sed 's/^/#   /' "$FLEET/fleet-report.md"; fi

test_expect 'each host s run folder is fetched whole into fleet/<date-time>/<host>/, with its own TEST_PORT' '
	case $(basename "$FLEET") in [0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]_[0-9][0-9][0-9][0-9][0-9][0-9]) ;; *) false ;; esac &&
	for i in 1 2; do
		d="$FLEET/fleet$i"
		test -s "$d/report.md" && test -s "$d/results.json" && test -d "$d/raw" && test -s "$d/data/login.env" || exit 1
		test_grep -x "TEST_PORT=.\?$((i + 11))022.\?" "$d/data/settings.env" || exit 1
		test_grep -x "samples=3" "$d/data/login.env" || exit 1
		sed -n "s/^status=//p" "$d/data/login.env" | tail -n 1 | grep -Eqx "PASS|FAIL|INCONCLUSIVE" || exit 1
		ct "$i" test -d "/var/lib/sshd-perf-kit/results/$(cat "$d/run_id")" || exit 1
	done &&
	! test -e "$FLEET/fleet1.tar.gz" && ! test -e "$FLEET/fleet3/data"
'

test_expect 'fleet-report.md: a row per host, the median, fleet3 with its reason, each host s environment' '
	r="$FLEET/fleet-report.md" &&
	test -s "$r" && test_grep "^| Hosts | 3, 2 ran, 1 did not run |" "$r" &&
	test_grep -E "^\| fleet1 \| (PASS|FAIL|INCONCLUSIVE) \| \**[0-9.]+\** (PASS|FAIL|INCONCLUSIVE)" "$r" &&
	test_grep -E "^\| fleet2 \| (PASS|FAIL|INCONCLUSIVE) \| \**[0-9.]+\** (PASS|FAIL|INCONCLUSIVE)" "$r" &&
	test_grep "^| fleet3 | not run |" "$r" &&
	test_grep -E "^\| \*\*Fleet median\*\* \| \| [0-9.]+ \(n=2\) \|" "$r" &&
	test_grep "^| fleet3 | Stop when the RPM file is missing: the package file $TEST_TMP/missing/sshd-perf-kit.rpm is not on the controller" "$r" &&
	test_grep -E "^\| fleet1 \| sshperf-test \| Debian GNU/Linux 12 \(bookworm\) \| OpenSSH_[0-9.]+ \| [0-9]+ \| [^|]+ \| [^|]+ \| .fleet1/. \|" "$r" &&
	json_ok "$FLEET/fleet.json" &&
	test_grep "{\"host\": \"fleet3\", \"reason\": \"Stop when the RPM file is missing" "$FLEET/fleet.json" &&
	test_grep -x "fleet3" "$FLEET/hosts"
'

test_expect 'each host stays an ordinary run: --compare fleet1 fleet2; --fleet --baseline fleet1' '
	out=$("$CTL_EXEC/test-ssh.sh" --compare "$FLEET/fleet1" "$FLEET/fleet2") &&
	test_grep "^| \`login\` | p95 of the complete login (ms) |" "$out" &&
	"$CTL_EXEC/test-ssh.sh" --fleet "$FLEET" --baseline "$FLEET/fleet1" >/dev/null &&
	test_grep "^| fleet1 | 0.0 % (same) |" "$FLEET/fleet-report.md" &&
	test_grep -E "^\| fleet2 \| [-+][0-9.]+ % \((better|worse)\) \|" "$FLEET/fleet-report.md"
'

test_expect 'every container as before but for the package: no test server, user, unit or kit process' '
	for i in 1 2 3; do
		snapshot "$i" | grep -vx "exists /var/lib/sshd-perf-kit" >"after.$i" &&
		test_cmp "pristine.$i" "after.$i" || exit 1
		! ct "$i" test -e /var/lib/sshd-perf-kit/state || exit 1
		! ct "$i" getent passwd sshperf || exit 1
		[ -z "$(ct "$i" find /var/tmp -name "sshd-perf-kit*")" ] || exit 1
		[ "$(ct "$i" systemctl show -p MainPID --value ssh.service)" = "${MAINPID[$i]}" ] || exit 1
	done &&
	ct 1 rpm -q sshd-perf-kit && ct 2 rpm -q sshd-perf-kit && ! ct 3 rpm -q sshd-perf-kit
'

test_expect 'again in check mode on fleet1: the installed package is left alone (changed=0)' '
	play --check --limit fleet1 >again.out &&
	test_grep -E "fleet1 +: ok=[0-9]+ +changed=0 +unreachable=0 +failed=0" again.out &&
	test_grep "would start the test server on 127.0.0.1:12022" again.out
'

printf '# check-fleet container part took %ds\n' "$(( $(date +%s) - t0 ))"
test_done
