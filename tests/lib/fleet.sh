# shellcheck shell=bash
# Booted containers for the Ansible plays (tests/check-fleet.sh,
# tests/check-loadtest.sh), reached over ssh from a network namespace of
# the test's own, the "controller", where nothing else lives: no packet
# leaves this machine.
#
#   . "$TEST_DIR/lib/fleet.sh"           # sources lib/container.sh
#   test_atexit fleet_stop_all
#   fleet_rpm                            # RPM, and its files in ctl/ (or the rest skips)
#   fleet_debs || skip ...               # python3 .deb files for Ansible
#   fleet_controller || skip ...         # the controller's namespace (HOLDER)
#   fleet_boot 1 NAME || skip ...        # container 1: 10.250.1.2 on its eth1
#   ct 1 CMD...                          # CMD in container 1, a clean root shell's environment
#   fleet_play INVENTORY PLAYBOOK ARGS   # ansible-playbook in the controller's namespace
#
# Container I has the veth pair fleetI (10.250.I.1, in the controller's
# namespace) and eth1 (10.250.I.2, in the container). The container's
# own sshd on port 22 is what Ansible logs in to, as root, with the
# container key (tests/lib/container.sh).

# shellcheck source=tests/lib/container.sh
. "$TEST_DIR/lib/container.sh"

# shellcheck disable=SC2034 # MAINPID is read by the files that source this
NSPAWN=() CPID=() MAINPID=()
HOLDER=""
FLEET_N=0

# fleet_rpm: RPM is the package the containers get, and ctl/ (in
# TEST_TMP) holds its files, unpacked: the controller's copy, so the
# playbooks tested are the shipped ones. FLEET_RPM names one (to try a
# change quickly); without it, make rpm builds one from the committed
# HEAD, as a test of its own. Without an RPM the rest of the file skips.
fleet_rpm () {
	if [ -n "${FLEET_RPM:-}" ]; then
		RPM=$FLEET_RPM
	else
		# shellcheck disable=SC2034 # read by the test body below
		VERSION=$(sed -n 's/^Version:[[:space:]]*//p' "$KIT_DIR/sshd-perf-kit.spec")
		test_expect 'make rpm builds the package the containers get' '
			make -s -C "$KIT_DIR" rpm RPM_TOPDIR="$TEST_TMP/rpm" DIST="$TEST_TMP/sshd-perf-kit-$VERSION.tar.gz" >"$TEST_TMP/make.out" 2>&1 ||
				{ tail -n 20 "$TEST_TMP/make.out"; false; }
		'
		RPM=$(find "$TEST_TMP/rpm/RPMS" -name 'sshd-perf-kit-*.rpm' 2>/dev/null | head -n 1)
	fi
	[ -f "$RPM" ] || skip_rest "no RPM (make rpm failed above)"
	if ! mkdir "$TEST_TMP/ctl" || ! (cd "$TEST_TMP/ctl" && rpm2cpio "$RPM" | cpio -idm --quiet); then
		skip_rest 'rpm2cpio could not unpack the RPM'
	fi
}

# use I: the container functions act on container I.
use () { CONTAINER_NSPAWN_PID=${NSPAWN[$1]:-} CONTAINER_PID=${CPID[$1]:-}; }

# fleet_stop_all: power off every container booted here and end the
# controller's namespace (its holder, by its recorded pid).
fleet_stop_all () {
	local i
	for ((i = 1; i <= FLEET_N; i++)); do use "$i"; container_stop; done
	if [ -n "$HOLDER" ]; then kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null; HOLDER=""; fi
}

# fleet_debs: python3 for Ansible's modules inside the containers, the
# packages the container root lacks, fetched once into the cache's debs
# folder (in apt's order, in which each one's pre-dependencies come first)
# and copied to $TEST_TMP/debs with their order. Adding python3 to
# CONTAINER_PACKAGES would rebuild the shared cache.
fleet_debs () {
	local debs="$CONTAINER_CACHE/debs-python3" root="$CONTAINER_CACHE/$CONTAINER_SUITE" pkgs p f
	container_root || return 1
	if [ ! -f "$debs/.complete" ]; then
		rm -rf "$debs"
		pkgs=$(apt-get -s -o Dir::State::status="$root/var/lib/dpkg/status" install --no-install-recommends python3 |
			awk '$1 == "Inst" { print $2 }') || return 1
		[ -n "$pkgs" ] || { echo "apt-get finds nothing to install for python3" >&2; return 1; }
		mkdir -p "$debs.new" || return 1
		# shellcheck disable=SC2086 # a list of package names
		(cd "$debs.new" && apt-get download -q $pkgs) >"$TEST_TMP/debs.log" 2>&1 ||
			{ tail -n 3 "$TEST_TMP/debs.log" >&2; rm -rf "$debs.new"; return 1; }
		for p in $pkgs; do ls "$debs.new/${p}_"*.deb; done >"$debs.new/order" || return 1
		touch "$debs.new/.complete" && mv "$debs.new" "$debs" || return 1
	fi
	mkdir -p "$TEST_TMP/debs" || return 1
	while read -r f; do
		cp "$debs/$(basename "$f")" "$TEST_TMP/debs/" && basename "$f"
	done <"$debs/order" >"$TEST_TMP/debs/order" ||
		{ echo "$debs is incomplete; remove it and run again" >&2; return 1; }
}

# fleet_controller: the controller's network namespace, held by a
# sleeping process (HOLDER), with its loopback up.
fleet_controller () {
	unshare --net sleep 100000 &
	HOLDER=$!
	container_wait 60 fleet_holder_ns_ ||
		{ echo "unshare --net sleep (pid $HOLDER) made no network namespace within 60 s" >&2; return 1; }
	nsenter -t "$HOLDER" -n ip link set lo up
}
fleet_holder_ns_ () {
	local ns
	ns=$(readlink "/proc/$HOLDER/ns/net" 2>/dev/null) && [ "$ns" != "$(readlink /proc/self/ns/net)" ]
}

# fleet_boot I NAME: boot container I as NAME with python3 installed and
# its veth pair to the controller. MAINPID[I] is its ssh.service's pid.
fleet_boot () {
	local i=$1
	CONTAINER_NSPAWN_PID="" CONTAINER_PID=""
	[ "$i" -le "$FLEET_N" ] || FLEET_N=$i
	container_start "$2" || return 1
	NSPAWN[i]=$CONTAINER_NSPAWN_PID CPID[i]=$CONTAINER_PID
	# One at a time: dpkg wants a pre-dependency configured, not only unpacked.
	container_exec sh -c "cd $TEST_TMP/debs && while read -r f; do dpkg -i \"\$f\" || exit 1; done <order" >"$TEST_TMP/dpkg.$i" 2>&1 ||
		{ echo "dpkg -i python3 failed in $2: $(tail -n 1 "$TEST_TMP/dpkg.$i")" >&2; return 1; }
	ip link add "fleet$i" netns "$HOLDER" type veth peer name eth1 netns "$CONTAINER_PID" || return 1
	nsenter -t "$HOLDER" -n ip addr add "10.250.$i.1/24" dev "fleet$i" &&
		nsenter -t "$HOLDER" -n ip link set "fleet$i" up &&
		container_exec ip addr add "10.250.$i.2/24" dev eth1 &&
		container_exec ip link set eth1 up || return 1
	# shellcheck disable=SC2034 # read by the files that source this
	MAINPID[i]=$(container_exec systemctl show -p MainPID --value ssh.service)
}

# ct I CMD...: CMD in container I, as an administrator's shell would.
ct () {
	local i=$1
	shift
	use "$i"
	container_exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}

# snapshot I: what must be the same after a play as before it in
# container I (tests/lib/snapshot.sh) and the kit's processes.
snapshot () {
	ct "$1" bash -c ". '$TEST_DIR/lib/snapshot.sh' && host_snapshot && kit_processes"
}

# fleet_play INVENTORY PLAYBOOK ARGS...: ansible-playbook in the
# controller's namespace; each output line gets the second it came (for
# the time per host and task).
fleet_play () {
	local inv=$1 book=$2 line
	shift 2
	nsenter -t "$HOLDER" -n ansible-playbook -i "$inv" "$book" "$@" 2>&1 |
		while IFS= read -r line; do printf '%s %s\n' "$(date +%s)" "$line"; done
	return "${PIPESTATUS[0]}"
}
