#!/usr/bin/env bash
# The RPM: make rpm builds it from the committed tree (%check runs the C
# unit tests), rpmlint with packaging/rpmlint.toml finds no error, its
# files, config and requirements have the expected structure - the
# expectation is generated from the tree, so a new metric needs no change
# here - the man pages resolve with man -w from an rpm --root install, and
# then, in a booted Debian 12 container, the package is installed with the
# container's own rpm, the installed command runs (sshd-perf-kit start,
# test login with its report in /var/lib/sshd-perf-kit/results, cleanup
# leaves nothing), its bash completion loads, an upgrade leaves a running
# test server alone, rpm -e cleans up a test server that is still set up
# and leaves nothing of the package, and an erase whose cleanup fails
# still succeeds and prints the commands that remove what is left. The
# container's own ssh.service keeps its MainPID and keeps accepting
# logins. The container root (tests/lib/container.sh) carries Debian's rpm
# for this; it has no man-db, so man -w runs on this host.
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
# new metric, report section or helper needs no change here. In
# /usr/libexec/sshd-perf-kit (the programs): every helper source but the
# Makefile's SHARED modules as a helper, the command, the two scripts and
# every lib/*.sh and the metric registry lib/metrics.tab, executable or
# not as in the tarball, plus the generated
# lib/paths.sh. In /usr/share/sshd-perf-kit (what they read): templates/,
# units/, selinux/ and the two schemas. As %doc: README.md and docs/.
# $TEST_TMP/tree: "x|- PATH" per file.
tar -tvzf "$DIST" | awk -v top="$NAME-$VERSION/" '$1 ~ /^-/ {
	p = $NF; if (index(p, top) != 1) next
	print (substr($1, 4, 1) == "x" ? "x" : "-"), substr(p, length(top) + 1) }' >"$TEST_TMP/tree"
shared=$(tar -xzOf "$DIST" "$NAME-$VERSION/Makefile" | sed -n 's/^SHARED[[:space:]]*:=[[:space:]]*//p')
LIBEXEC=/usr/libexec/sshd-perf-kit SHARE=/usr/share/sshd-perf-kit DOC=/usr/share/doc/sshd-perf-kit
{
	awk -v shared=" $shared " -v d="$LIBEXEC" '$2 ~ /^helpers\/[^\/]*\.c$/ && index(shared, " " $2 " ") == 0 {
		n = $2; sub(/^helpers\//, "", n); sub(/\.c$/, "", n)
		print "-rwxr-xr-x " d "/sshperf-" n }' "$TEST_TMP/tree"
	awk -v d="$LIBEXEC" '($2 ~ /^lib\/.*\.sh$/ && $2 != "lib/paths.sh") || $2 == "lib/metrics.tab" || $2 == "lib/report/html.awk" || $2 == "lib/report/report.css" || $2 == "lib/report/guidance.awk" || $2 == "lib/report/guidance.tab" || $2 == "start-ssh.sh" || $2 == "test-ssh.sh" || $2 == "sshd-perf-kit" {
		print ($1 == "x" ? "-rwxr-xr-x" : "-rw-r--r--"), d "/" $2 }' "$TEST_TMP/tree"
	echo "-rw-r--r-- $LIBEXEC/lib/paths.sh"
} | sort >"$TEST_TMP/expect.libexec"
{
	awk -v d="$SHARE" '$2 ~ /^(templates|units|selinux|ansible)\// { print ($1 == "x" ? "-rwxr-xr-x" : "-rw-r--r--"), d "/" $2 }' "$TEST_TMP/tree"
	echo "-rw-r--r-- $SHARE/settings.schema"
	echo "-rw-r--r-- $SHARE/results.schema.json"
} | sort >"$TEST_TMP/expect.data"
awk -v d="$DOC" '$2 ~ /^docs\// || $2 == "README.md" { print d "/" $2 }' "$TEST_TMP/tree" | sort >"$TEST_TMP/expect.doc"
# mode owner group path, one line per file or folder in the package.
rpm -qp --qf '[%{FILEMODES:perms} %{FILEUSERNAME} %{FILEGROUPNAME} %{FILENAMES}\n]' "$RPM" >"$TEST_TMP/files" 2>/dev/null

test_expect '%check ran every C unit test, none failed' '
	want=$(grep -c "^. tests/unit/test_[^/]*\.c$" "$TEST_TMP/tree") &&
	grep -E "^# build/test_[a-z0-9_]+: [0-9]+ passed, 0 failed" "$TOP/rpmbuild.log" >"$TEST_TMP/unit" &&
	[ "$(wc -l <"$TEST_TMP/unit")" -eq "$want" ] && [ "$want" -gt 0 ] &&
	test_grep -E "^[0-9]+ passed, 0 failed" "$TOP/rpmbuild.log"
'

if command -v rpmlint >/dev/null 2>&1; then
	rpmlint -c "$KIT_DIR/packaging/rpmlint.toml" "$RPM" "$SRPM" "$SPEC" >"$TEST_TMP/rpmlint" 2>&1
	# The warnings stay visible.
	grep -E ": [WE]: " "$TEST_TMP/rpmlint" | sed 's/^/# rpmlint: /'
	test_expect 'rpmlint with packaging/rpmlint.toml reports no errors' '
		test_grep -E "[0-9]+ packages and 1 specfiles checked; 0 errors" "$TEST_TMP/rpmlint"
	'
else
	test_skip 'rpmlint reports no errors' 'rpmlint is not installed (apt-get install rpmlint / dnf install rpmlint)'
fi

# ---- The source RPM as a build system rebuilds it ----------------------------
# mock and Koji run rpmbuild --rebuild as an unprivileged user, without a
# network. "su user" keeps the caller's PATH, and root's may hold a folder
# the user cannot search, which turns "not found" into "permission
# denied" for a program looked up by name: the unit tests must not depend
# on it. Here the user is nobody, the network namespace has loopback
# only, and the caller's PATH gets a root-only folder in front.
REBUILD=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-t70-rebuild.XXXXXX")
ROOT_ONLY="$TEST_TMP/root-only-bin"
mkdir -p "$ROOT_ONLY" && chmod 0700 "$ROOT_ONLY"
chmod 0755 "$REBUILD"
[ -z "$SRPM" ] || cp "$SRPM" "$REBUILD/"
chown -R nobody "$REBUILD"
brp_nodeps=""
rpm -q --quiet rpm 2>/dev/null || brp_nodeps=--nodeps
export REBUILD ROOT_ONLY brp_nodeps
# unprivileged_rebuild NAME PATH: rpmbuild --rebuild as nobody, no network.
# shellcheck disable=SC2086 # $brp_nodeps is empty or one option
unprivileged_rebuild () {
	local top="$REBUILD/$1" brp=""
	[ -z "$brp_nodeps" ] || [ ! -x /usr/lib/rpm/brp-compress ] ||
		brp="bash %{_rpmconfigdir}/brp-compress %{?_prefix}"
	setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- mkdir -p "$top" || return 1
	# A network namespace of its own: loopback only, as in mock.
	unshare --net -- sh -c 'ip link set lo up && exec "$@"' sh setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups -- \
		env -i PATH="$2" HOME="$REBUILD" USER=nobody LOGNAME=nobody LANG=C.UTF-8 \
		rpmbuild $brp_nodeps --define "_topdir $top" ${brp:+--define "__brp_compress $brp"} \
		--rebuild "$REBUILD/$(basename "$SRPM")" >"$REBUILD/$1.log" 2>&1 ||
		{ tail -n 20 "$REBUILD/$1.log"; return 1; }
	grep -qE "^[0-9]+ passed, 0 failed" "$REBUILD/$1.log" ||
		{ echo "no clean %check summary:"; grep -E "^not ok|passed, [0-9]+ failed" "$REBUILD/$1.log"; return 1; }
	ls "$top"/RPMS/*/"$NAME-$VERSION"-*.rpm
}
test_expect 'rpmbuild --rebuild as an unprivileged user without network, with the caller s PATH (a root-only folder in it): %check passes' '
	[ -n "$SRPM" ] && unprivileged_rebuild callers-path "$ROOT_ONLY:$PATH"
'
test_expect 'rpmbuild --rebuild as an unprivileged user without network, with a clean PATH (su -): %check passes' '
	[ -n "$SRPM" ] && unprivileged_rebuild clean-path /usr/local/bin:/usr/bin:/bin
'
rm -rf "$REBUILD"

# ---- What the package holds -------------------------------------------------

test_expect 'every file is in one of the kit s places; no tests/, .ci or sources' '
	! grep -vE " (/usr/libexec/sshd-perf-kit|/usr/share/sshd-perf-kit|/etc/sshd-perf-kit|/var/lib/sshd-perf-kit|/usr/share/doc/sshd-perf-kit[^/]*|/usr/share/licenses/sshd-perf-kit[^/]*|/usr/lib/\.build-id|/usr/sbin/sshd-perf-kit|/usr/share/man/man8/sshd-perf-kit\.8(\.gz)?|/usr/share/man/man5/sshd-perf-kit\.conf\.5(\.gz)?|/usr/share/bash-completion/completions/sshd-perf-kit)(/|$)" "$TEST_TMP/files" &&
	! grep -E "/(tests|\.ci|helpers|build|results/.)(/|$)|\.c$|Makefile|install-deps\.sh|\.spec$|\.in\.in$" "$TEST_TMP/files" &&
	! grep -v " root root /" "$TEST_TMP/files"
'

test_expect '/usr/libexec/sshd-perf-kit: the helpers, the command, the scripts and lib/*.sh of the tree with their modes, nothing else' '
	grep " /usr/libexec/sshd-perf-kit/" "$TEST_TMP/files" | grep -v "^d" | awk "{ print \$1, \$4 }" | sort >"$TEST_TMP/got.libexec" &&
	test_cmp "$TEST_TMP/expect.libexec" "$TEST_TMP/got.libexec"
'

test_expect '/usr/share/sshd-perf-kit: templates, units, selinux, schemas and the Ansible role, no program; folders 0755' '
	grep " /usr/share/sshd-perf-kit/" "$TEST_TMP/files" | grep -v "^d" | awk "{ print \$1, \$4 }" | sort >"$TEST_TMP/got.data" &&
	test_cmp "$TEST_TMP/expect.data" "$TEST_TMP/got.data" &&
	! grep "^d" "$TEST_TMP/files" | grep -v "^drwxr-xr-x "
'

test_expect 'README.md and docs/ are %doc in /usr/share/doc/sshd-perf-kit, and nothing else is doc but the man pages' '
	rpm -qdp "$RPM" | grep "^/usr/share/doc/" | sort >"$TEST_TMP/got.doc" &&
	test_cmp "$TEST_TMP/expect.doc" "$TEST_TMP/got.doc" &&
	[ "$(rpm -qdp "$RPM" | grep -vc "^/usr/share/doc/")" -eq 2 ] &&
	rpm -qdp "$RPM" >"$TEST_TMP/all.doc" &&
	test_grep -E "^/usr/share/man/man8/sshd-perf-kit\.8(\.gz)?$" "$TEST_TMP/all.doc" &&
	test_grep -E "^/usr/share/man/man5/sshd-perf-kit\.conf\.5(\.gz)?$" "$TEST_TMP/all.doc"
'

test_expect 'the command on PATH (a relative link to libexec), the man pages, the completion' '
	test_grep -x "lrwxrwxrwx root root /usr/sbin/sshd-perf-kit" "$TEST_TMP/files" &&
	[ "$(rpm -qp --qf "[%{FILENAMES} %{FILELINKTOS}\n]" "$RPM" | sed -n "s|^/usr/sbin/sshd-perf-kit ||p")" = ../libexec/sshd-perf-kit/sshd-perf-kit ] &&
	test_grep -E "^-rw-r--r-- root root /usr/share/man/man8/sshd-perf-kit\.8(\.gz)?$" "$TEST_TMP/files" &&
	test_grep -E "^-rw-r--r-- root root /usr/share/man/man5/sshd-perf-kit\.conf\.5(\.gz)?$" "$TEST_TMP/files" &&
	test_grep -x -- "-rw-r--r-- root root /usr/share/bash-completion/completions/sshd-perf-kit" "$TEST_TMP/files"
'

test_expect 'key files, license; results folder owned, no state folder' '
	for f in /usr/libexec/sshd-perf-kit/start-ssh.sh /usr/libexec/sshd-perf-kit/test-ssh.sh \
	    /usr/libexec/sshd-perf-kit/sshd-perf-kit /usr/libexec/sshd-perf-kit/lib/common.sh \
	    /usr/share/sshd-perf-kit/settings.schema /usr/share/sshd-perf-kit/units/sshd-perf-test.service.in \
	    /usr/libexec/sshd-perf-kit/sshperf-settings /usr/libexec/sshd-perf-kit/sshperf-unit; do
		test_grep " $f\$" "$TEST_TMP/files" || return 1
	done &&
	test_grep -E "^-rw-r--r-- .* /usr/share/licenses/sshd-perf-kit[^/]*/LICENSE$" "$TEST_TMP/files" &&
	test_grep -x "drwxr-xr-x root root /var/lib/sshd-perf-kit" "$TEST_TMP/files" &&
	test_grep -x "drwxr-xr-x root root /var/lib/sshd-perf-kit/results" "$TEST_TMP/files" &&
	test_grep -x "drwxr-xr-x root root /etc/sshd-perf-kit" "$TEST_TMP/files" &&
	test_grep ! "/var/lib/sshd-perf-kit/state" "$TEST_TMP/files"
'

test_expect 'settings.conf is the only config file, %config(noreplace), same as the tree s' '
	[ "$(rpm -qpc "$RPM")" = /etc/sshd-perf-kit/settings.conf ] &&
	rpm -qp --qf "[%{FILEFLAGS:fflags} %{FILENAMES}\n]" "$RPM" >"$TEST_TMP/flags" &&
	test_grep -x "cn /etc/sshd-perf-kit/settings.conf" "$TEST_TMP/flags" &&
	mkdir "$TEST_TMP/x" && (cd "$TEST_TMP/x" && rpm2cpio "$RPM" | cpio -idm --quiet) &&
	tar -xzOf "$DIST" "$NAME-$VERSION/settings.conf" | cmp - "$TEST_TMP/x/etc/sshd-perf-kit/settings.conf"
'

test_expect 'lib/paths.sh points the installed scripts at the installed layout, with the version and release of the package' '
	. "$TEST_TMP/x/usr/libexec/sshd-perf-kit/lib/paths.sh" &&
	[ "$HELPER_DIR" = /usr/libexec/sshd-perf-kit ] &&
	[ "$SCHEMA_FILE" = /usr/share/sshd-perf-kit/settings.schema ] &&
	[ "$RESULTS_SCHEMA" = /usr/share/sshd-perf-kit/results.schema.json ] &&
	[ "$TEMPLATE_DIR" = /usr/share/sshd-perf-kit/templates ] &&
	[ "$UNIT_DIR" = /usr/share/sshd-perf-kit/units ] &&
	[ "$SELINUX_DIR" = /usr/share/sshd-perf-kit/selinux ] &&
	[ "$SETTINGS_FILE_DEFAULT" = /etc/sshd-perf-kit/settings.conf ] &&
	[ "$RESULTS_DIR_DEFAULT" = /var/lib/sshd-perf-kit/results ] &&
	[ "$STATE_PARENT" = /var/lib/sshd-perf-kit ] &&
	[ "$KIT_VERSION" = "$VERSION" ] &&
	test_eq "$KIT_RELEASE" "$(rpm -qp --qf "%{RELEASE}" "$RPM")" &&
	test_grep ! -x ". lib/paths.sh" "$TEST_TMP/tree"
'

test_expect 'installed scripts name their interpreter by absolute path; file times kept (install -p)' '
	for f in start-ssh.sh settings.conf lib/common.sh templates/ssh_config.in; do
		src_time=$(tar -tvzf "$DIST" "$NAME-$VERSION/$f" | awk "{ print \$4, \$5 }")
		case $f in settings.conf) dest=/etc/sshd-perf-kit/$f ;; templates/*) dest=/usr/share/sshd-perf-kit/$f ;; *) dest=/usr/libexec/sshd-perf-kit/$f ;; esac
		# tar -tv shows minutes: compare minutes.
		[ $(( $(date -d "$src_time" +%s) / 60 )) -eq $(( $(stat -c %Y "$TEST_TMP/x$dest") / 60 )) ] ||
			{ echo "$dest: time $(stat -c %y "$TEST_TMP/x$dest"), source $src_time"; return 1; }
	done &&
	for f in $(awk "\$1 ~ /^-..x/ && \$4 ~ /^\/usr\/(libexec|share)\// && \$4 !~ /\/sshperf-[^\/]*$/ { print \$4 }" "$TEST_TMP/files"); do
		head -n 1 "$TEST_TMP/x$f" | grep -qE "^#!/(usr/)?bin/(ba)?sh$" || { echo "$f: $(head -n 1 "$TEST_TMP/x$f")"; return 1; }
	done
'

test_expect 'requires: OpenSSH, the run-time tools, the helpers libraries; no build tools' '
	rpm -qp --requires "$RPM" | sed "s/ .*//" | sort -u >"$TEST_TMP/req" &&
	for r in openssh-server openssh-clients bash coreutils util-linux shadow-utils gawk sed grep findutils diffutils openssl \
	    "libssh.so.4()(64bit)" "libsystemd.so.0()(64bit)" "libselinux.so.1()(64bit)" "libsemanage.so.2()(64bit)" "libcrypto.so.3()(64bit)"; do
		test_grep -xF "$r" "$TEST_TMP/req" || return 1
	done &&
	! grep -E "^(gcc|make|pkgconfig|.*-devel|/usr/bin/env)$" "$TEST_TMP/req" &&
	rpm -qp --qf "%{SOURCERPM} %{LICENSE} %{URL}\n" "$RPM" >"$TEST_TMP/srpm" &&
	test_grep -x "$NAME-$VERSION-.*\.src\.rpm MIT https://.*" "$TEST_TMP/srpm"
'

# What the cleanup in %preun calls must still be there when it runs.
test_expect 'Requires(preun): bash and the tools the cleanup calls' '
	rpm -qp --qf "[%{REQUIREFLAGS:deptype} %{REQUIRENAME}\n]" "$RPM" | sed -n "s/^preun //p" | sort -u >"$TEST_TMP/req.preun" &&
	for r in bash coreutils util-linux shadow-utils gawk sed grep; do
		test_grep -x "$r" "$TEST_TMP/req.preun" || return 1
	done
'

test_expect 'scriptlets: only %preun, which cleans up on erase only and always exits 0' '
	rpm -qp --scripts "$RPM" >"$TEST_TMP/scripts" &&
	[ "$(grep -c "scriptlet (using" "$TEST_TMP/scripts")" -eq 1 ] &&
	test_grep "^preuninstall scriptlet" "$TEST_TMP/scripts" &&
	test_grep "\"\$1\" -eq 0" "$TEST_TMP/scripts" &&
	test_grep "/usr/libexec/sshd-perf-kit/start-ssh.sh -q cleanup" "$TEST_TMP/scripts" &&
	[ "$(tail -n 1 "$TEST_TMP/scripts")" = "exit 0" ] && test_grep ! "exit 1" "$TEST_TMP/scripts"
'

# The build honours the environment's CFLAGS (%set_build_flags), with no
# CFLAGS= of its own on the make line.
test_expect '%build: %set_build_flags and a plain %make_build; the helpers were built with its CFLAGS' '
	sed -n "/^%build/,/^%install/p" "$SPEC" >"$TEST_TMP/build.spec" &&
	test_grep -x "%set_build_flags" "$TEST_TMP/build.spec" &&
	test_grep ! "CFLAGS=\|LDFLAGS=" "$TEST_TMP/build.spec" &&
	flags=$(rpm --eval "%{build_cflags}" 2>/dev/null) && [ -n "$flags" ] &&
	{ grep -E "^(cc|gcc) .* -o build/sshperf-settings " "$TOP/rpmbuild.log" || true; } >"$TEST_TMP/cc" &&
	test_grep -F -- " $flags " "$TEST_TMP/cc"
'

# The issue's own command, into a scratch root on this host: the files land
# where the package says, and an erase takes them all away again (without
# scriptlets: the scratch root has no shell for them).
test_expect 'rpm -i --root DIR --nodeps installs the layout; rpm -e --root removes it' '
	root="$TEST_TMP/root" && mkdir "$root" &&
	{ rpm --root "$root" -i --nodeps "$RPM" 2>"$TEST_TMP/rpm-root.err" || { cat "$TEST_TMP/rpm-root.err"; false; }; } &&
	verbose rpm --root "$root" -V --nodeps "$NAME" &&
	verbose test -x "$root/usr/libexec/sshd-perf-kit/start-ssh.sh" &&
	verbose test -x "$root/usr/libexec/sshd-perf-kit/sshperf-login" &&
	verbose test -x "$root/usr/sbin/sshd-perf-kit" &&
	verbose test -f "$root/etc/sshd-perf-kit/settings.conf" &&
	verbose test -d "$root/var/lib/sshd-perf-kit/results" &&
	"$root/usr/sbin/sshd-perf-kit" --version >"$TEST_TMP/root-version" &&
	test_eq "$(cat "$TEST_TMP/root-version")" "sshd-perf-kit $VERSION" &&
	test_eq "$("$root/usr/libexec/sshd-perf-kit/sshperf-settings" --version)" "sshperf-settings (sshd-perf-kit) $VERSION" &&
	if command -v man >/dev/null 2>&1; then
		# man-db on this host, the pages of the scratch root: what man
		# finds on an installed system (the container has no man-db).
		test_eq "$(MANPATH="$root/usr/share/man" man -w sshd-perf-kit)" "$(ls "$root"/usr/share/man/man8/sshd-perf-kit.8*)" &&
		test_eq "$(MANPATH="$root/usr/share/man" man -w 5 sshd-perf-kit.conf)" "$(ls "$root"/usr/share/man/man5/sshd-perf-kit.conf.5*)" &&
		{ MANPATH="$root/usr/share/man" MANWIDTH=80 man 5 sshd-perf-kit.conf >"$TEST_TMP/man.out" 2>"$TEST_TMP/man.err" ||
			{ echo "man 5 sshd-perf-kit.conf exited $?"; false; }; } &&
		test_grep "TARGET_LOGIN_P95_MS" "$TEST_TMP/man.out" &&
		test_cmp /dev/null "$TEST_TMP/man.err"
	else
		printf "# man-db not installed: man -w not tried\n"
	fi &&
	{ rpm --root "$root" -e --noscripts "$NAME" 2>>"$TEST_TMP/rpm-root.err" || { cat "$TEST_TMP/rpm-root.err"; false; }; } &&
	verbose test ! -e "$root/usr/share/sshd-perf-kit" && verbose test ! -e "$root/usr/libexec/sshd-perf-kit" &&
	verbose test ! -e "$root/usr/sbin/sshd-perf-kit" &&
	{ ls -d "$root"/usr/share/man/man*/sshd-perf-kit* >"$TEST_TMP/man-left" 2>/dev/null || :; } &&
	test_cmp /dev/null "$TEST_TMP/man-left" &&
	verbose test ! -e "$root/etc/sshd-perf-kit" && verbose test ! -e "$root/var/lib/sshd-perf-kit"
'

# ---- Installed and run in a booted container ------------------------------

# shellcheck source=lib/container.sh
. "$TEST_DIR/lib/container.sh"
test_atexit container_stop

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
# The installed command, found on PATH as an administrator would.
kit () {
	ct sshd-perf-kit "$@"
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
	ct cat /etc/sshd-perf-kit/settings.conf >"$TEST_TMP/seen" && test_grep -x "TARGET_LOGIN_P95_MS=4321" "$TEST_TMP/seen" &&
	kit help >"$TEST_TMP/help" && test_grep "Settings: /etc/sshd-perf-kit/settings.conf" "$TEST_TMP/help" &&
	[ "$(ct sh -c "command -v sshd-perf-kit")" = /usr/sbin/sshd-perf-kit ] &&
	[ "$(kit version)" = "sshd-perf-kit $VERSION" ] &&
	[ "$(ct /usr/libexec/sshd-perf-kit/start-ssh.sh --version)" = "start-ssh.sh (sshd-perf-kit) $VERSION" ] &&
	[ "$(ct /usr/libexec/sshd-perf-kit/test-ssh.sh --version)" = "test-ssh.sh (sshd-perf-kit) $VERSION" ] &&
	for h in $(ct ls /usr/libexec/sshd-perf-kit | grep "^sshperf-"); do
		[ "$(ct "/usr/libexec/sshd-perf-kit/$h" --version)" = "$h (sshd-perf-kit) $VERSION" ] || { echo "$h --version"; return 1; }
	done
'

test_expect 'the bash completion loads and completes commands, tests and settings' '
	ct bash -ic ". /usr/share/bash-completion/completions/sshd-perf-kit && complete -p sshd-perf-kit" 2>/dev/null >"$TEST_TMP/complete" &&
	test_grep -x "complete -F _sshd_perf_kit sshd-perf-kit" "$TEST_TMP/complete" &&
	out=$(ct bash -c ". /usr/share/bash-completion/completions/sshd-perf-kit
		c () { COMP_WORDS=(\"\$@\"); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); COMPREPLY=(); _sshd_perf_kit; echo \"\${COMPREPLY[*]}\"; }
		c sshd-perf-kit st; c sshd-perf-kit test lo; c sshd-perf-kit start LOGIN_S") &&
	[ "$out" = "$(printf "start status stop\nlogin\nLOGIN_SAMPLES=")" ]
'

test_expect 'sshd-perf-kit start: the unit runs, a login works' '
	kit start >"$TEST_TMP/start.out" 2>&1 &&
	test_grep "unit sshd-perf-test.service" "$TEST_TMP/start.out" &&
	[ "$(ct systemctl is-active sshd-perf-test.service)" = active ] &&
	[ "$(ct ssh -F /var/lib/sshd-perf-kit/state/client/ssh_config sshperf-test id -un)" = sshperf ]
'

# Exit 3 is INCONCLUSIVE: 3 logins (12 after the stages) give the p95 no
# upper bound, so a figure under the target cannot be called a PASS.
test_expect 'sshd-perf-kit test login LOGIN_SAMPLES=3: report in /var/lib/sshd-perf-kit/results/<date-time>/' '
	rc=0; kit test login LOGIN_SAMPLES=3 >"$TEST_TMP/t.out" 2>&1 || rc=$? &&
	test_verdict_exit "$rc" "$TEST_TMP/t.out" &&
	report=$(tail -n 1 "$TEST_TMP/t.out") &&
	case $report in /var/lib/sshd-perf-kit/results/[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]_*/report.md) ;; *) false ;; esac &&
	ct test -f "$report" &&
	ct cat "$report" >"$TEST_TMP/report.md" &&
	test_grep -E "\*\*(PASS|FAIL|INCONCLUSIVE)\*\*" "$TEST_TMP/report.md" &&
	ct cat "${report%/report.md}/data/settings.env" >"$TEST_TMP/seen" && test_grep -x "LOGIN_SAMPLES=.\?3.\?" "$TEST_TMP/seen" &&
	ct cat "${report%/report.md}/data/settings.env" >"$TEST_TMP/seen" && test_grep -x "TARGET_LOGIN_P95_MS=.\?4321.\?" "$TEST_TMP/seen" &&
	ct cat "${report%/report.md}/data/run.env" >"$TEST_TMP/seen" && test_grep -x "kit_dir=/usr/libexec/sshd-perf-kit" "$TEST_TMP/seen" &&
	ct cat "${report%/report.md}/results.json" | python3 -m json.tool >/dev/null &&
	ct cat "${report%/report.md}/data/login.env" >"$TEST_TMP/seen" && test_grep -x "samples=3" "$TEST_TMP/seen" &&
	ct cat "${report%/report.md}/data/login.env" >"$TEST_TMP/seen" && test_grep -x "target=4321" "$TEST_TMP/seen"
'

test_expect 'sshd-perf-kit cleanup leaves the container as installed; the package s folders stay' '
	kit cleanup >"$TEST_TMP/c.out" 2>&1 &&
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
	kit start -q &&
	pid=$(ct systemctl show -p MainPID --value sshd-perf-test.service) && [ "${pid:-0}" -gt 0 ] &&
	ct rpm -U --replacepkgs --nodeps "$RPM" &&
	[ "$(ct systemctl show -p MainPID --value sshd-perf-test.service)" = "$pid" ] &&
	ct getent passwd sshperf >/dev/null &&
	ct cat /etc/sshd-perf-kit/settings.conf >"$TEST_TMP/seen" && test_grep -x "TARGET_LOGIN_P95_MS=4321" "$TEST_TMP/seen" &&
	kit status >/dev/null &&
	ct /usr/libexec/sshd-perf-kit/start-ssh.sh status >/dev/null
'

test_expect 'rpm -e with a test server set up cleans it up (%preun): only the reports and the edited settings (.rpmsave) stay' '
	ct rpm -e "$NAME" >"$TEST_TMP/erase.out" 2>&1 &&
	! ct rpm -q "$NAME" &&
	! ct getent passwd sshperf &&
	[ "$(ct systemctl show -p LoadState --value sshd-perf-test.service)" = not-found ] &&
	! ct test -e /usr/share/sshd-perf-kit && ! ct test -e /usr/libexec/sshd-perf-kit &&
	! ct test -e /var/lib/sshd-perf-kit/state &&
	for f in $(rpm -qlp "$RPM" | grep -v "^/var/lib/sshd-perf-kit\|^/etc/sshd-perf-kit$\|^/usr/lib/\.build-id"); do
		! ct test -e "$f" -o -L "$f" || { echo "left after rpm -e: $f"; return 1; }
	done &&
	[ "$(ct ls -A /etc/sshd-perf-kit)" = settings.conf.rpmsave ] &&
	ct cat /etc/sshd-perf-kit/settings.conf.rpmsave >"$TEST_TMP/seen" && test_grep -x "TARGET_LOGIN_P95_MS=4321" "$TEST_TMP/seen" &&
	ct find /var/lib/sshd-perf-kit -name report.md >"$TEST_TMP/reports" && test_grep . "$TEST_TMP/reports" &&
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

# A cleanup that cannot finish (here: userdel fails) must not keep the
# package: rpm -e succeeds, and %preun prints what is left and the
# commands that remove it - which, run by hand, leave the container as it
# was before the package.
test_expect 'rpm -e when the cleanup fails: the erase succeeds and prints what is left and how to remove it' '
	ct rpm -i --nodeps "$RPM" 2>/dev/null &&
	kit start -q &&
	ct mv /usr/sbin/userdel /usr/sbin/userdel.kit-test &&
	ct sh -c "printf \"#!/bin/sh\necho userdel: refused by the test >&2\nexit 1\n\" >/usr/sbin/userdel && chmod 0755 /usr/sbin/userdel" &&
	rc=0; ct rpm -e "$NAME" >"$TEST_TMP/erase3.out" 2>&1 || rc=$?
	ct mv -f /usr/sbin/userdel.kit-test /usr/sbin/userdel &&
	[ "$rc" -eq 0 ] && ! ct rpm -q "$NAME" &&
	! ct test -e /usr/libexec/sshd-perf-kit && ! ct test -e /usr/sbin/sshd-perf-kit &&
	test_grep "cleanup did not finish; left on this host" "$TEST_TMP/erase3.out" &&
	test_grep "^  loginctl terminate-user sshperf; userdel --remove sshperf$" "$TEST_TMP/erase3.out" &&
	test_grep "^  rm -rf /var/lib/sshd-perf-kit/state$" "$TEST_TMP/erase3.out" &&
	test_grep "the package is removed all the same" "$TEST_TMP/erase3.out" &&
	ct getent passwd sshperf >/dev/null &&
	sed -n "s/^  //p" "$TEST_TMP/erase3.out" >"$TEST_TMP/by-hand" &&
	while IFS= read -r line; do ct bash -c "$line" >/dev/null 2>&1 || true; done <"$TEST_TMP/by-hand" &&
	! ct getent passwd sshperf && ! ct test -e /var/lib/sshd-perf-kit/state &&
	snapshot | grep -vx "exists /var/lib/sshd-perf-kit" >"$TEST_TMP/erased3" &&
	test_cmp "$TEST_TMP/pristine" "$TEST_TMP/erased3"
'

printf '# container part took %ds\n' "$(( $(date +%s) - ct_start ))"
test_done
