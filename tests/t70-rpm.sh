#!/usr/bin/env bash
# The RPM: make rpm builds it from the committed tree (%check runs the C
# unit tests), rpmlint with packaging/rpmlint.toml finds no error, its
# files, config and requirements have the expected structure - the
# expectation is generated from the tree, so a new metric needs no change
# here - and then, in a booted Debian 12 container, the package is
# installed with the container's own rpm, the installed kit runs
# (start, a short login test, report in /var/lib/sshd-perf-kit/results,
# cleanup leaves nothing), an upgrade leaves a running test server alone,
# and rpm -e cleans up a test server that is still set up. The container's
# own ssh.service keeps its MainPID and keeps accepting logins. The
# container root (tests/lib/container.sh) carries Debian's rpm for this.
# shellcheck disable=SC2034 # names used only inside the eval'd test bodies
. "$(dirname "$0")/lib/harness.sh"

skip_all () {
	test_skip 'the RPM' "$1"
	test_done
	exit 0
}
[ "$(id -u)" -eq 0 ] || skip_all 'needs root (rpmbuild of the helpers works without, the container does not)'
command -v rpmbuild >/dev/null 2>&1 ||
	skip_all 'rpmbuild is not installed (Debian: apt-get install rpm; RHEL: dnf install rpm-build)'
git -C "$KIT_DIR" rev-parse -q --verify HEAD >/dev/null 2>&1 ||
	skip_all 'not a git checkout with a commit: make rpm packs git archive HEAD'

NAME=sshd-perf-kit
SPEC="$KIT_DIR/$NAME.spec"
VERSION=$(sed -n 's/^Version:[[:space:]]*//p' "$SPEC")
TOP="$TEST_TMP/rpm"
DIST="$TEST_TMP/$NAME-$VERSION.tar.gz"
if [ -n "$(git -C "$KIT_DIR" status --porcelain --untracked-files=no)" ]; then
	printf '# note: the RPM is built from HEAD; uncommitted changes are not tested here\n'
fi

# ---- Build ----------------------------------------------------------------

build_start=$(date +%s)
test_expect 'make rpm builds the source and binary RPM from the committed files' '
	make -s -C "$KIT_DIR" rpm RPM_TOPDIR="$TOP" DIST="$DIST" >"$TEST_TMP/make.out" 2>&1 &&
	ls "$TOP"/SRPMS/$NAME-"$VERSION"-*.src.rpm &&
	ls "$TOP"/RPMS/*/$NAME-"$VERSION"-*.rpm
'
printf '# make rpm took %ds\n' "$(( $(date +%s) - build_start ))"
RPM=$(find "$TOP/RPMS" -name "$NAME-$VERSION-*.rpm" 2>/dev/null | head -n 1)
SRPM=$(find "$TOP/SRPMS" -name "$NAME-$VERSION-*.src.rpm" 2>/dev/null | head -n 1)
if [ -z "$RPM" ]; then
	tail -n 30 "$TEST_TMP/make.out" | sed 's/^/#    /'
	test_done
	exit 1
fi

# What the package must hold, derived from the source tarball it was built
# from (the tracked files; others commit to the same tree meanwhile), so a
# new metric, report section or helper needs no change here: every helper
# source but the Makefile's SHARED modules as a helper, every file below
# the kit's folders, executable or not as in the tarball, plus the
# generated lib/paths.sh. $TEST_TMP/tree: "x|- PATH" per file.
tar -tvzf "$DIST" | awk -v top="$NAME-$VERSION/" '$1 ~ /^-/ {
	p = $NF; if (index(p, top) != 1) next
	print (substr($1, 4, 1) == "x" ? "x" : "-"), substr(p, length(top) + 1) }' >"$TEST_TMP/tree"
shared=$(tar -xzOf "$DIST" "$NAME-$VERSION/Makefile" | sed -n 's/^SHARED[[:space:]]*:=[[:space:]]*//p')
awk -v shared=" $shared " '$2 ~ /^helpers\/[^\/]*\.c$/ && index(shared, " " $2 " ") == 0 {
	n = $2; sub(/^helpers\//, "", n); sub(/\.c$/, "", n)
	print "-rwxr-xr-x /usr/libexec/sshd-perf-kit/sshperf-" n }' "$TEST_TMP/tree" >"$TEST_TMP/expect.helpers"
awk '$2 ~ /^(lib|templates|units|docs|ansible)\// || $2 == "start-ssh.sh" || $2 == "test-ssh.sh" {
	print ($1 == "x" ? "-rwxr-xr-x" : "-rw-r--r--"), "/usr/share/sshd-perf-kit/" $2 }' "$TEST_TMP/tree" >"$TEST_TMP/expect.data"
echo "-rw-r--r-- /usr/share/sshd-perf-kit/lib/paths.sh" >>"$TEST_TMP/expect.data"
sort -o "$TEST_TMP/expect.helpers" "$TEST_TMP/expect.helpers"
sort -o "$TEST_TMP/expect.data" "$TEST_TMP/expect.data"
# mode owner group path, one line per file or folder in the package.
rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME} %{FILEGROUPNAME} %{FILENAMES}\n]' "$RPM" >"$TEST_TMP/files" 2>/dev/null

test_expect '%check ran every C unit test, none failed' '
	want=$(grep -c "^. tests/unit/test_[^/]*\.c$" "$TEST_TMP/tree") &&
	grep -E "^# build/test_[a-z0-9_]+: [0-9]+ passed, 0 failed" "$TOP/rpmbuild.log" >"$TEST_TMP/unit" &&
	[ "$(wc -l <"$TEST_TMP/unit")" -eq "$want" ] && [ "$want" -gt 0 ] &&
	grep -qE "^[0-9]+ passed, 0 failed" "$TOP/rpmbuild.log"
'

if command -v rpmlint >/dev/null 2>&1; then
	rpmlint -c "$KIT_DIR/packaging/rpmlint.toml" "$RPM" "$SRPM" "$SPEC" >"$TEST_TMP/rpmlint" 2>&1
	# The warnings stay visible.
	grep -E ": [WE]: " "$TEST_TMP/rpmlint" | sed 's/^/# rpmlint: /'
	test_expect 'rpmlint with packaging/rpmlint.toml reports no errors' '
		grep -qE "[0-9]+ packages and 1 specfiles checked; 0 errors" "$TEST_TMP/rpmlint"
	'
else
	test_skip 'rpmlint reports no errors' 'rpmlint is not installed (apt-get install rpmlint / dnf install rpmlint)'
fi

# ---- What the package holds -------------------------------------------------

test_expect 'every file is in one of the kit s folders; no tests/, .ci or sources' '
	! grep -vE " (/usr/libexec/sshd-perf-kit|/usr/share/sshd-perf-kit|/etc/sshd-perf-kit|/var/lib/sshd-perf-kit|/usr/share/doc/sshd-perf-kit[^/]*|/usr/share/licenses/sshd-perf-kit[^/]*|/usr/lib/\.build-id)(/|$)" "$TEST_TMP/files" &&
	! grep -E "/(tests|\.ci|helpers|build|results/.)(/|$)|\.c$|Makefile|install-deps\.sh|\.spec$" "$TEST_TMP/files" &&
	! grep -v " root root /" "$TEST_TMP/files"
'

test_expect 'every helper of the tree, executable, in /usr/libexec/sshd-perf-kit, and nothing else there' '
	grep " /usr/libexec/sshd-perf-kit/" "$TEST_TMP/files" | awk "{ print \$1, \$4 }" | sort >"$TEST_TMP/got.helpers" &&
	test_cmp "$TEST_TMP/expect.helpers" "$TEST_TMP/got.helpers"
'

test_expect 'the scripts, lib/, templates/, units/, docs/, ansible/ of the tree in /usr/share/sshd-perf-kit with their modes' '
	grep " /usr/share/sshd-perf-kit/" "$TEST_TMP/files" | grep -v "^d" | awk "{ print \$1, \$4 }" | sort >"$TEST_TMP/got.data" &&
	test_cmp "$TEST_TMP/expect.data" "$TEST_TMP/got.data" &&
	! grep "^d" "$TEST_TMP/files" | grep -v "^drwxr-xr-x "
'

test_expect 'key files, license, docs; results folder owned, no state folder' '
	for f in /usr/share/sshd-perf-kit/start-ssh.sh /usr/share/sshd-perf-kit/test-ssh.sh \
	    /usr/share/sshd-perf-kit/lib/common.sh /usr/share/sshd-perf-kit/lib/settings.schema \
	    /usr/libexec/sshd-perf-kit/sshperf-settings /usr/libexec/sshd-perf-kit/sshperf-unit; do
		grep -q " $f\$" "$TEST_TMP/files" || { echo "missing $f"; exit 1; }
	done &&
	grep -qE "^-rw-r--r-- .* /usr/share/licenses/sshd-perf-kit[^/]*/LICENSE$" "$TEST_TMP/files" &&
	grep -qE " /usr/share/doc/sshd-perf-kit[^/]*/README\.md$" "$TEST_TMP/files" &&
	grep -qx "drwxr-xr-x root root /var/lib/sshd-perf-kit" "$TEST_TMP/files" &&
	grep -qx "drwxr-xr-x root root /var/lib/sshd-perf-kit/results" "$TEST_TMP/files" &&
	grep -qx "drwxr-xr-x root root /etc/sshd-perf-kit" "$TEST_TMP/files" &&
	! grep -q "/var/lib/sshd-perf-kit/state" "$TEST_TMP/files"
'

test_expect 'settings.conf is the only config file, %config(noreplace), same as the tree s' '
	[ "$(rpm -qpc "$RPM")" = /etc/sshd-perf-kit/settings.conf ] &&
	rpm -qp --qf "[%{FILEFLAGS:fflags} %{FILENAMES}\n]" "$RPM" | grep -qx "cn /etc/sshd-perf-kit/settings.conf" &&
	mkdir "$TEST_TMP/x" && (cd "$TEST_TMP/x" && rpm2cpio "$RPM" | cpio -idm --quiet) &&
	tar -xzOf "$DIST" "$NAME-$VERSION/settings.conf" | cmp - "$TEST_TMP/x/etc/sshd-perf-kit/settings.conf"
'

test_expect 'lib/paths.sh points the installed scripts at the installed layout' '
	. "$TEST_TMP/x/usr/share/sshd-perf-kit/lib/paths.sh" &&
	[ "$HELPER_DIR" = /usr/libexec/sshd-perf-kit ] &&
	[ "$SETTINGS_FILE_DEFAULT" = /etc/sshd-perf-kit/settings.conf ] &&
	[ "$RESULTS_DIR_DEFAULT" = /var/lib/sshd-perf-kit/results ] &&
	[ "$STATE_PARENT" = /var/lib/sshd-perf-kit ] &&
	! grep -qx ". lib/paths.sh" "$TEST_TMP/tree"
'

test_expect 'installed scripts name their interpreter by absolute path' '
	for f in $(awk "\$1 ~ /^-..x/ && \$4 ~ /^\/usr\/share\// { print \$4 }" "$TEST_TMP/files"); do
		head -n 1 "$TEST_TMP/x$f" | grep -qE "^#!/(usr/)?bin/(ba)?sh$" || { echo "$f: $(head -n 1 "$TEST_TMP/x$f")"; exit 1; }
	done
'

test_expect 'requires: OpenSSH, the run-time tools, the helpers libraries; no build tools' '
	rpm -qp --requires "$RPM" | sed "s/ .*//" | sort -u >"$TEST_TMP/req" &&
	for r in openssh-server openssh-clients bash coreutils util-linux shadow-utils gawk sed grep findutils diffutils openssl \
	    "libssh.so.4()(64bit)" "libsystemd.so.0()(64bit)" "libselinux.so.1()(64bit)" "libsemanage.so.2()(64bit)" "libcrypto.so.3()(64bit)"; do
		grep -qxF "$r" "$TEST_TMP/req" || { echo "does not require $r"; exit 1; }
	done &&
	! grep -E "^(gcc|make|pkgconfig|.*-devel|/usr/bin/env)$" "$TEST_TMP/req" &&
	rpm -qp --qf "%{SOURCERPM} %{LICENSE}\n" "$RPM" | grep -qx "$NAME-$VERSION-.*\.src\.rpm MIT"
'

test_expect 'scriptlets: only %preun, which cleans up on erase only' '
	rpm -qp --scripts "$RPM" >"$TEST_TMP/scripts" &&
	[ "$(grep -c "scriptlet" "$TEST_TMP/scripts")" -eq 1 ] &&
	grep -q "^preuninstall scriptlet" "$TEST_TMP/scripts" &&
	grep -q "\"\$1\" -eq 0" "$TEST_TMP/scripts" &&
	grep -q "/usr/share/sshd-perf-kit/start-ssh.sh -q cleanup" "$TEST_TMP/scripts"
'

# The issue's own command, into a scratch root on this host: the files land
# where the package says, and an erase takes them all away again (without
# scriptlets: the scratch root has no shell for them).
test_expect 'rpm -i --root DIR --nodeps installs the layout; rpm -e --root removes it' '
	root="$TEST_TMP/root" && mkdir "$root" &&
	rpm --root "$root" -i --nodeps "$RPM" 2>"$TEST_TMP/rpm-root.err" &&
	rpm --root "$root" -V --nodeps "$NAME" &&
	test -x "$root/usr/share/sshd-perf-kit/start-ssh.sh" &&
	test -x "$root/usr/libexec/sshd-perf-kit/sshperf-login" &&
	test -f "$root/etc/sshd-perf-kit/settings.conf" &&
	test -d "$root/var/lib/sshd-perf-kit/results" &&
	rpm --root "$root" -e --noscripts "$NAME" 2>>"$TEST_TMP/rpm-root.err" &&
	! test -e "$root/usr/share/sshd-perf-kit" && ! test -e "$root/usr/libexec/sshd-perf-kit" &&
	! test -e "$root/etc/sshd-perf-kit" && ! test -e "$root/var/lib/sshd-perf-kit"
'

# ---- Installed and run in a booted container ------------------------------

# shellcheck source=lib/container.sh
. "$TEST_DIR/lib/container.sh"
trap 'container_stop; rm -rf "$TEST_TMP"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

ct_skip () {
	test_skip 'the installed kit in a booted container' "$1"
	test_done
	exit 0
}
ct_start=$(date +%s)
container_root 2>"$TEST_TMP/container.err" || ct_skip "no container root: $(tail -n 1 "$TEST_TMP/container.err")"
container_start t70 2>"$TEST_TMP/container.err" || ct_skip "container did not boot: $(tail -n 1 "$TEST_TMP/container.err")"
printf '# container ready after %ds\n' "$(( $(date +%s) - ct_start ))"

# In the container, as an administrator's login shell would: a clean
# environment, nothing of the test's.
ct () {
	container_exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}
# In the installed kit's folder, as docs/install.md says.
kit () {
	ct bash -c 'cd /usr/share/sshd-perf-kit && "$@"' kit "$@"
}
snapshot () {
	ct bash -c ". '$TEST_DIR/lib/snapshot.sh' && host_snapshot && kit_processes"
}
ssh_main_pid () {
	ct systemctl show -p MainPID --value ssh.service
}
snapshot >"$TEST_TMP/pristine"
main_pid=$(ssh_main_pid)

test_expect 'the container runs its own ssh.service and has rpm' '
	[ "${main_pid:-0}" -gt 0 ] && container_ssh true && ct rpm --version
'

test_expect 'rpm -i --nodeps installs the package in the container; rpm -V finds it intact' '
	ct rpm -i --nodeps "$RPM" &&
	ct rpm -q "$NAME" &&
	ct rpm -V --nodeps "$NAME" &&
	ct test -x /usr/libexec/sshd-perf-kit/sshperf-unit &&
	ct test -d /var/lib/sshd-perf-kit/results
'
snapshot >"$TEST_TMP/installed"

# An administrator's edit of the installed settings (a target: it changes
# only the verdict): the run must read it, and an upgrade must keep it.
test_expect 'the installed kit names /etc/sshd-perf-kit/settings.conf; an edit there' '
	ct sed -i "s/^TARGET_LOGIN_P95_MS=.*/TARGET_LOGIN_P95_MS=4321/" /etc/sshd-perf-kit/settings.conf &&
	ct grep -qx "TARGET_LOGIN_P95_MS=4321" /etc/sshd-perf-kit/settings.conf &&
	kit ./start-ssh.sh --help | grep -q "Settings: /etc/sshd-perf-kit/settings.conf"
'

test_expect 'cd /usr/share/sshd-perf-kit && ./start-ssh.sh: the unit runs, a login works' '
	kit ./start-ssh.sh >"$TEST_TMP/start.out" 2>&1 &&
	grep -q "unit sshd-perf-test.service" "$TEST_TMP/start.out" &&
	[ "$(ct systemctl is-active sshd-perf-test.service)" = active ] &&
	[ "$(ct ssh -F /var/lib/sshd-perf-kit/state/client/ssh_config sshperf-test id -un)" = sshperf ]
'

test_expect 'LOGIN_SAMPLES=3 ./test-ssh.sh login: report in /var/lib/sshd-perf-kit/results/<date-time>/' '
	rc=0; kit env LOGIN_SAMPLES=3 ./test-ssh.sh login >"$TEST_TMP/t.out" 2>&1 || rc=$? &&
	[ "$rc" -le 1 ] &&
	report=$(tail -n 1 "$TEST_TMP/t.out") &&
	case $report in /var/lib/sshd-perf-kit/results/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]_*/report.md) ;; *) false ;; esac &&
	ct test -f "$report" &&
	ct cat "$report" >"$TEST_TMP/report.md" &&
	grep -qE "\*\*(PASS|FAIL)\*\*" "$TEST_TMP/report.md" &&
	ct grep -qx "LOGIN_SAMPLES=.\?3.\?" "${report%/report.md}/data/settings.env" &&
	ct grep -qx "TARGET_LOGIN_P95_MS=.\?4321.\?" "${report%/report.md}/data/settings.env" &&
	ct grep -qx "kit_dir=/usr/share/sshd-perf-kit" "${report%/report.md}/data/run.env" &&
	ct grep -qx "samples=3" "${report%/report.md}/data/login.env" &&
	ct grep -qx "target=4321" "${report%/report.md}/data/login.env"
'

test_expect './start-ssh.sh cleanup leaves the container as installed; the package s folders stay' '
	kit ./start-ssh.sh cleanup >"$TEST_TMP/c.out" 2>&1 &&
	! ct getent passwd sshperf &&
	[ "$(ct systemctl show -p LoadState --value sshd-perf-test.service)" = not-found ] &&
	! ct test -e /var/lib/sshd-perf-kit/state &&
	ct test -d /var/lib/sshd-perf-kit/results &&
	snapshot >"$TEST_TMP/after" &&
	test_cmp "$TEST_TMP/installed" "$TEST_TMP/after" &&
	ct rpm -V --nodeps --noconfig "$NAME"
'

test_expect 'the container s own ssh.service kept its MainPID and accepts logins' '
	[ "$(ssh_main_pid)" = "$main_pid" ] && container_ssh true
'

test_expect 'an upgrade (rpm -U --replacepkgs) leaves a running test server and edited settings alone' '
	kit ./start-ssh.sh -q &&
	pid=$(ct systemctl show -p MainPID --value sshd-perf-test.service) && [ "${pid:-0}" -gt 0 ] &&
	ct rpm -U --replacepkgs --nodeps "$RPM" &&
	[ "$(ct systemctl show -p MainPID --value sshd-perf-test.service)" = "$pid" ] &&
	ct getent passwd sshperf >/dev/null &&
	ct grep -qx "TARGET_LOGIN_P95_MS=4321" /etc/sshd-perf-kit/settings.conf &&
	kit ./start-ssh.sh status >/dev/null
'

test_expect 'rpm -e with a test server set up cleans it up (%preun): only the reports and the edited settings (.rpmsave) stay' '
	ct rpm -e "$NAME" >"$TEST_TMP/erase.out" 2>&1 &&
	! ct rpm -q "$NAME" &&
	! ct getent passwd sshperf &&
	[ "$(ct systemctl show -p LoadState --value sshd-perf-test.service)" = not-found ] &&
	! ct test -e /usr/share/sshd-perf-kit && ! ct test -e /usr/libexec/sshd-perf-kit &&
	! ct test -e /var/lib/sshd-perf-kit/state &&
	[ "$(ct ls -A /etc/sshd-perf-kit)" = settings.conf.rpmsave ] &&
	ct grep -qx "TARGET_LOGIN_P95_MS=4321" /etc/sshd-perf-kit/settings.conf.rpmsave &&
	ct find /var/lib/sshd-perf-kit -name report.md | grep -q . &&
	snapshot | grep -vx "exists /var/lib/sshd-perf-kit" >"$TEST_TMP/erased" &&
	test_cmp "$TEST_TMP/pristine" "$TEST_TMP/erased"
'

test_expect 'the container s own ssh.service is untouched after the erase' '
	[ "$(ssh_main_pid)" = "$main_pid" ] && container_ssh true
'

test_expect 'install and rpm -e again without a test server: %preun does nothing, nothing left' '
	ct rpm -i --nodeps "$RPM" 2>/dev/null &&
	ct rpm -e "$NAME" >"$TEST_TMP/erase2.out" 2>&1 &&
	! ct test -e /usr/share/sshd-perf-kit &&
	snapshot | grep -vx "exists /var/lib/sshd-perf-kit" >"$TEST_TMP/erased2" &&
	test_cmp "$TEST_TMP/pristine" "$TEST_TMP/erased2" &&
	! grep -v "should not be used directly\|assuming you know what" "$TEST_TMP/erase2.out"
'

printf '# container part took %ds\n' "$(( $(date +%s) - ct_start ))"
test_done
