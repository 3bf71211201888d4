#!/usr/bin/env bash
# SELinux policy: every file and folder the kit makes or points sshd to,
# the test port and the domain transition into sshd_t, asked of RHEL 9's
# targeted policy (RHEL9_SELINUX, default ../shared/vendor/rhel9-selinux
# next to the checkout: policy.33 and its file_contexts) and of Debian's
# refpolicy (the throwaway store t20 uses). The paths come from the kit's
# own state record: start-ssh.sh runs twice here (its own user, and an
# existing account), and every path its manifest lists, or that its sshd
# -T names, must have a row in selinux/expectations.tsv, the type that
# row needs by the policy's file contexts, and the permissions the row
# names by the policy's allow rules (setools' sesearch, libselinux's
# selabel_lookup through sshperf-selinux check). RHEL's answers are
# asserted; where Debian's differ, the differences are printed as notes.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2016 # test bodies are single-quoted: test_expect evals them
set -u
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/sepolicy-root.sh
. "$TEST_DIR/lib/sepolicy-root.sh"

RHEL9_SELINUX=${RHEL9_SELINUX:-$KIT_DIR/../shared/vendor/rhel9-selinux}
# shellcheck disable=SC2034 # used in the test bodies
TABLE=$KIT_DIR/selinux/expectations.tsv
SELINUX_HELPER=$BUILD_DIR/sshperf-selinux
# The account the second start uses as an existing one: made here, with no
# home (so the kit's sftp folder is in the record too), removed at the end.
# Named after the instance's user (set by host_kit_test below), so that a
# host snapshot of another lane of tests/run.sh leaves it out.
# Port types sshperf-seport may take over (docs/selinux.md).
FREE_PORT_TYPES=" unreserved_port_t ephemeral_port_t reserved_port_t hi_reserved_port_t port_t "

# ---- The table itself (no root, no policy) ----------------------------------

test_expect 'selinux/expectations.tsv has the header docs/data.md declares, 8 fields a row' '
	want=$(awk "/^### selinux\\/expectations.tsv/ { on = 1 } on && /^\`\`\`header\$/ { getline h; print h; exit }" "$KIT_DIR/docs/data.md" | tr " " "\t") &&
	[ -n "$want" ] &&
	got=$(grep -v "^#" "$TABLE" | head -n 1) &&
	{ [ "$got" = "$want" ] || { echo "header: $got, docs/data.md: $want"; return 1; }; } &&
	grep -v "^#" "$TABLE" | awk -F "\t" "NR > 1 && NF != 8 { print \"row \" NR \": \" NF \" fields\"; bad = 1 }
		NR > 1 && \$1 !~ /^(file|dir|port|exec)\$/ { print \"row \" NR \": kind \" \$1; bad = 1 }
		NR > 1 && \$4 !~ /^(file_contexts|transition|seport|genfs)\$/ { print \"row \" NR \": labelled_by \" \$4; bad = 1 }
		END { exit bad }"
'

missing=""
[ -f "$RHEL9_SELINUX/policy.33" ] && [ -f "$RHEL9_SELINUX/file_contexts" ] ||
	missing="RHEL 9's policy is not in RHEL9_SELINUX=$RHEL9_SELINUX (policy.33, file_contexts)"
[ -n "$missing" ] || command -v sesearch >/dev/null || missing="sesearch not found (apt-get install setools, or ./install-deps.sh --tests)"
[ -n "$missing" ] || command -v seinfo >/dev/null || missing="seinfo not found (apt-get install setools)"
if [ -n "$missing" ]; then
	test_skip 'the kit against RHEL 9 policy' "$missing"
	test_done
	exit 0
fi
# ---- start-ssh.sh's label check, with labels planted (no SELinux needed) ----

# set_label FILE TYPE: the file's SELinux label as an extended attribute,
# which the kernel keeps also with SELinux off.
set_label () {
	python3 -c 'import os, sys; os.setxattr(sys.argv[1], "security.selinux", sys.argv[2].encode() + b"\0")' \
		"$1" "system_u:object_r:$2:s0"
}

# label_check: lib/selinux.sh's selinux_check_labels on a state record of
# its own (an existing account's keys file in $TEST_TMP/lc/.ssh), with
# RHEL 9's file contexts; its output in lc.out, its exit status returned.
# shellcheck disable=SC2030 # the subshell's own settings
label_check () {
	(
		# shellcheck disable=SC2034 # read by lib/common.sh
		PROG="start-ssh.sh"
		# shellcheck source=../lib/common.sh
		. "$KIT_DIR/lib/common.sh"
		# shellcheck source=../lib/serverconfig.sh
		. "$KIT_DIR/lib/serverconfig.sh"
		SSHPERF_AUDIT_LOG=$TEST_TMP/lc/audit.log
		# shellcheck source=../lib/selinux.sh
		. "$KIT_DIR/lib/selinux.sh"
		MANIFEST=$TEST_TMP/lc/created SERVER_ENV=$TEST_TMP/lc/server.env
		AUTHKEYS_DIR=$TEST_TMP/lc/.ssh
		SELINUX_FILE_CONTEXTS=$RHEL9_SELINUX/file_contexts
		selinux_check_labels "" 11022 /usr/sbin/sshd
	) >"$TEST_TMP/lc.out" 2>&1
}

if ! command -v python3 >/dev/null; then
	test_skip "start-ssh.sh's label check" 'python3 is needed to plant a label (os.setxattr)'
else
	test_expect "label check: a wrong label stops the start with one line, the fix and the AVC" '
		mkdir -p lc/.ssh && echo "ssh-ed25519 AAAA k" >lc/.ssh/alice &&
		printf "file %s\n" "$TEST_TMP/lc/.ssh/alice" >lc/created && echo EXISTING=yes >lc/server.env &&
		echo "type=AVC msg=audit(1.2:3): avc:  denied  { read } for  pid=7 comm=\"sshd\" name=\"alice\" dev=\"vda\" ino=9 scontext=system_u:system_r:sshd_t:s0 tcontext=system_u:object_r:var_lib_t:s0 tclass=file permissive=0" >lc/audit.log &&
		set_label lc/.ssh/alice var_lib_t &&
		rc=0 && label_check || rc=$?
		cat lc.out &&
		[ "$rc" -eq 2 ] && [ "$(wc -l <lc.out)" -eq 1 ] &&
		test_grep -F "start-ssh.sh: SELinux: $TEST_TMP/lc/.ssh/alice is labelled var_lib_t, sshd_t needs ssh_home_t to use it (read,open,getattr: the keys of an existing account" lc.out &&
		test_grep -F "fix: semanage fcontext -a -t ssh_home_t" lc.out &&
		test_grep -F "audit log: type=AVC msg=audit(1.2:3): avc:  denied  { read }" lc.out
	'
	test_expect 'label check: the label the table needs passes' '
		mkdir -p lc/.ssh && echo "ssh-ed25519 AAAA k" >lc/.ssh/alice &&
		printf "file %s\n" "$TEST_TMP/lc/.ssh/alice" >lc/created && echo EXISTING=yes >lc/server.env &&
		set_label lc/.ssh/alice ssh_home_t &&
		label_check && [ ! -s lc.out ]
	'
fi

host_kit_test 'the kit against RHEL 9 policy'
# shellcheck disable=SC2031 # host_kit_test set TEST_USER in this shell
export EXISTING=${TEST_USER}se

cleanup_t21 () {
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1
	! getent passwd "$EXISTING" >/dev/null || userdel "$EXISTING" 2>/dev/null
}
test_atexit cleanup_t21

# ---- What the kit made: two starts, their state records ---------------------

# kit_run NAME SETTING=value...: start the kit, write NAME.rows (the table
# filled in with this kit's paths, by lib/selinux.sh) and NAME.items
# ("kind path", one a line: the state record, what sshd -T points to, the
# port, the sshd program), clean up again.
kit_run () {
	local name=$1 rc=0
	shift
	if ! env "$@" "$KIT_DIR/start-ssh.sh" -q >"$TEST_TMP/$name.start" 2>&1; then
		cat "$TEST_TMP/$name.start"
		"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1
		return 1
	fi
	(
		# shellcheck disable=SC2034 # read by lib/common.sh
		PROG=t21
		# shellcheck source=../lib/common.sh
		. "$KIT_DIR/lib/common.sh"
		# shellcheck source=../lib/serverconfig.sh
		. "$KIT_DIR/lib/serverconfig.sh"
		# shellcheck source=../lib/selinux.sh
		. "$KIT_DIR/lib/selinux.sh"
		user=$(server_get USER)
		home=$(getent passwd "$user" | cut -d: -f6)
		find_tools "$(server_get OPENSSH_PREFIX)"
		selinux_rows "$home" "$(server_get PORT)" "$SSHD" >"$TEST_TMP/$name.rows"
		cp "$MANIFEST" "$TEST_TMP/$name.manifest"
		{
			if test_user_is_kits; then selinux_kit_paths "$home"; else selinux_kit_paths ""; fi
			"$TEST_DIR/lib/sshd-T.sh" "$SSHD_CONFIG" "$user" "$(server_get OPENSSH_PREFIX)" |
				awk -v u="$user" -v h="$home" '
				$1 == "hostkey" || $1 == "pidfile" { print "file", $2 }
				$1 == "authorizedkeysfile" { for (i = 2; i <= NF; i++) {
					f = $i; gsub(/%u/, u, f); gsub(/%h/, h, f); gsub(/%%/, "%", f)
					if (f !~ /^\//) f = h "/" f
					print "file", f } }'
			printf 'port %s\nexec %s\n' "$(server_get PORT)" "$SSHD"
		} | sort -u >"$TEST_TMP/$name.items"
	) || rc=1
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1 || rc=1
	return "$rc"
}

# The notes of a test that passed (its own output shows only on failure).
notes () {
	[ ! -f "$TEST_TMP/$1" ] || sed "s/^/# $2/" "$TEST_TMP/$1"
}

test_expect 'start-ssh.sh with its own user: the state record is read' '
	kit_run kit && [ -s "$TEST_TMP/kit.items" ]
'
notes kit.manifest "record (own user): "
test_expect 'start-ssh.sh with an existing account: the state record is read' '
	useradd --no-create-home --home-dir "/nonexistent-$EXISTING" --shell /bin/bash "$EXISTING" &&
	kit_run existing TEST_USER="$EXISTING" TEST_USER_EXISTING=yes && [ -s "$TEST_TMP/existing.items" ] &&
	userdel "$EXISTING"
'
notes existing.manifest "record (existing account): "

# ---- Asking a policy ------------------------------------------------------

# perms POLICY DOMAIN TYPE CLASS: the permissions the allow rules give
# DOMAIN on TYPE:CLASS, "perm<TAB>" for an unconditional rule and
# "perm<TAB>[ boolean ]:True" for one under a boolean (sesearch, cached:
# each call reads the whole policy).
perms () {
	local key
	key=$(printf '%s' "$*" | tr -c 'A-Za-z0-9_.-' _)
	if [ ! -f "$TEST_TMP/cache/$key" ]; then
		mkdir -p "$TEST_TMP/cache"
		sesearch -A -s "$2" -t "$3" -c "$4" "$1" 2>/dev/null | awk '/^allow / {
			line = $0; cond = ""
			if (match(line, /\[ .* \]:(True|False)/)) cond = substr(line, RSTART, RLENGTH)
			p = line; sub(/;.*/, "", p); sub(/^allow [^ ]+ [^ ]+ /, "", p); gsub(/[{}]/, "", p)
			n = split(p, a, " "); for (i = 1; i <= n; i++) print a[i] "\t" cond }' >"$TEST_TMP/cache/$key"
	fi
	cat "$TEST_TMP/cache/$key"
}

# lacking POLICY DOMAIN TYPE CLASS PERM,PERM...: nothing when every
# permission is allowed without a condition, else what is not ("read",
# "read (only with [ b ]:True)"), comma-separated.
lacking () {
	local got p out=""
	got=$(perms "$1" "$2" "$3" "$4")
	for p in ${5//,/ }; do
		if printf '%s\n' "$got" | grep -qx "$p	"; then
			continue
		elif printf '%s\n' "$got" | grep -q "^$p	."; then
			out="$out${out:+, }$p (only with $(printf '%s\n' "$got" | grep -m 1 "^$p	." | cut -f2))"
		else
			out="$out${out:+, }$p"
		fi
	done
	printf '%s' "$out"
}

# label FC PATH: the type the file contexts give PATH (none: no entry).
label () {
	"$SELINUX_HELPER" -f "$1" check "$2" - | sed -n 's/.* policy=\([^ ]*\) .*/\1/p'
}

# allow_text POLICY DOMAIN TYPE CLASS PERMS: "" or "; DOMAIN lacks ... on TYPE:CLASS (sesearch ...)"
allow_text () {
	local miss first
	miss=$(lacking "$@")
	[ -n "$miss" ] || return 0
	first=${miss%%[ ,]*}
	printf '; %s may not %s on %s:%s (sesearch -A -s %s -t %s -c %s -p %s finds %s)' \
		"$2" "$miss" "$3" "$4" "$2" "$3" "$4" "$first" \
		"$( [ -n "$(perms "$1" "$2" "$3" "$4" | awk -v p="$first" '$1 == p')" ] && echo "it under a boolean only" || echo nothing)"
}

# check_item POLICY FC ROWS KIND PATH: one line "ok|FAIL<TAB>kind path<TAB>what the policy says".
check_item () {
	local pol=$1 fc=$2 rows=$3 kind=$4 path=$5 row want how dom cls prm why
	local has wrong="" text="" from to parent lines t
	row=$(selinux_row_of "$rows" "$kind" "$path")
	if [ -z "$row" ]; then
		printf 'FAIL\t%s %s\tno row in selinux/expectations.tsv covers it\n' "$kind" "$path"
		return 0
	fi
	IFS=$'\t' read -r _ _ want how dom cls prm why <<<"$row"
	case $how in
	genfs)
		printf 'ok\t%s %s\tnot labelled by file contexts (%s): not asked\n' "$kind" "$path" "$why"
		return 0 ;;
	file_contexts)
		has=$(label "$fc" "$path")
		text="labelled $has"
		[ "$has" = "$want" ] || { wrong=1; text="$text, the table needs $want"; }
		if [ "$kind" != exec ]; then
			t=$(allow_text "$pol" "$dom" "$has" "$cls" "$prm")
		else
			from=${dom%%->*} to=${dom#*->}
			t=$(allow_text "$pol" "$from" "$has" file execute)
			t="$t$(allow_text "$pol" "$from" "$to" process transition)"
			t="$t$(allow_text "$pol" "$to" "$has" file entrypoint)"
			sesearch -T -s "$from" -t "$has" -c process "$pol" 2>/dev/null | grep -q " $has:process $to;" ||
				t="$t; no type_transition $from $has:process $to"
			text="$text; $from runs it as $to"
		fi
		;;
	transition)
		parent=$(label "$fc" "$(dirname "$path")")
		has=$(label "$fc" "$path")
		lines=$(sesearch -T -s "$dom" -t "$parent" -c "$cls" "$pol" 2>/dev/null)
		if [ "$has" != none ] && [ "$has" != "$want" ]; then
			wrong=1; text="labelled $has by the file contexts, the table needs $want"
		elif printf '%s\n' "$lines" | grep -q " $parent:$cls $want;"; then
			text="created by $dom in $parent as $want"
		else
			wrong=1; text="$dom creates it in $parent, but no type_transition makes it $want"
		fi
		t=$(allow_text "$pol" "$dom" "$want" "$cls" "$prm")
		;;
	seport)
		has=$(seinfo --portcon="$path" "$pol" 2>/dev/null | awk '$1 == "portcon" && $2 == "tcp" {
			n = split($3, r, "-"); size = (n == 2 ? r[2] - r[1] : 0)
			if (best == "" || size < bsize) { best = $4; bsize = size } } END { print best }' |
			cut -d: -f3)
		text="port type ${has:-none}"
		if [ "$has" = "$want" ]; then
			:
		elif [[ $FREE_PORT_TYPES == *" $has "* ]]; then
			text="$text until sshperf-seport add labels it $want$( [ -z "$(lacking "$pol" "$dom" "$has" "$cls" "$prm")" ] && echo " ($dom may bind $has too)")"
		else
			wrong=1; text="$text: it belongs to another service, sshperf-seport refuses it"
		fi
		t=$(allow_text "$pol" "$dom" "$want" "$cls" "$prm")
		;;
	esac
	[ -z "$t" ] || wrong=1
	printf '%s\t%s %s\t%s%s\n' "$( [ -n "$wrong" ] && echo FAIL || echo ok)" "$kind" "$path" "$text" "$t"
}

# selinux_row_of ROWS KIND PATH: lib/selinux.sh's selinux_row, in a shell
# that has the kit's paths.
selinux_row_of () {
	(
		# shellcheck disable=SC2034 # read by lib/common.sh
		PROG=t21
		# shellcheck source=../lib/common.sh
		. "$KIT_DIR/lib/common.sh"
		# shellcheck source=../lib/serverconfig.sh
		. "$KIT_DIR/lib/serverconfig.sh"
		# shellcheck source=../lib/selinux.sh
		. "$KIT_DIR/lib/selinux.sh"
		selinux_row "$@"
	)
}

# check_policy POLICY FC OUT: every item of both starts, and every row
# whose path is not a pattern (the unit file in direct mode, ...), into OUT.
check_policy () {
	local pol=$1 fc=$2 out=$3 name kind path rows
	: >"$out"
	for name in kit existing; do
		[ -f "$TEST_TMP/$name.items" ] || continue
		rows=$(cat "$TEST_TMP/$name.rows")
		{
			cat "$TEST_TMP/$name.items"
			# What the sftp test writes into a folder of the kit's.
			awk '$1 == "tree" { print "file", substr($0, 6) "/upload" }' "$TEST_TMP/$name.items"
			# Rows for one path, not a pattern, that this run did not
			# make (the unit file in direct mode); those under the home
			# are for the kit's own user only.
			[ "$name" != kit ] ||
				awk -F '\t' '$2 !~ /[*?[]/ { print $1, $2 }' "$TEST_TMP/$name.rows"
		} | sort -u | while read -r kind path; do
			check_item "$pol" "$fc" "$rows" "$kind" "$path"
		done
	done | sort -u -t "$(printf '\t')" -k2,2 >"$out"
}

test_expect "RHEL 9: every path, the port and the transition as the table says" '
	check_policy "$RHEL9_SELINUX/policy.33" "$RHEL9_SELINUX/file_contexts" "$TEST_TMP/rhel9.txt" &&
	[ "$(grep -c "^ok" "$TEST_TMP/rhel9.txt")" -ge 10 ] &&
	! grep "^FAIL" "$TEST_TMP/rhel9.txt"
'
notes rhel9.txt "rhel9: "

test_expect 'RHEL 9: the existing account keys are in the record, and sshd_t may read them' '
	grep "^file .*/${EXISTING}\$" "$TEST_TMP/existing.manifest" >"$TEST_TMP/keys" &&
	keys=$(cut -d" " -f2- "$TEST_TMP/keys") &&
	test_grep -F "ok	file $keys	labelled ssh_home_t" "$TEST_TMP/rhel9.txt"
'

# What the report says about other domains (docs/selinux.md): an
# OPENSSH_PREFIX build's sshd is no sshd_exec_t, a confined user's
# sftp-server may not write the kit's sftp folder.
test_expect 'RHEL 9: notes on a build of its own and on confined users' '
	pol=$RHEL9_SELINUX/policy.33 &&
	t=$(label "$RHEL9_SELINUX/file_contexts" /opt/openssh/sbin/sshd) &&
	dom=$(sesearch -T -s init_t -t "$t" -c process "$pol" | sed -n "s/.*:process \\([a-z_]*\\);.*/\\1/p" | head -n 1) &&
	echo "an OPENSSH_PREFIX sshd (/opt/openssh/sbin/sshd) is $t; systemd runs it as ${dom:-init_t}, not sshd_t" >"$TEST_TMP/notes.txt" &&
	[ "$dom" != sshd_t ] &&
	for d in user_t staff_t unconfined_t; do
		miss=$(lacking "$pol" "$d" var_lib_t file create,write,open)
		echo "sftp-server as $d uploading into the kit sftp folder (var_lib_t files): ${miss:+may not }${miss:-may create and write}" >>"$TEST_TMP/notes.txt"
	done &&
	[ -n "$(lacking "$pol" user_t var_lib_t file create,write)" ] &&
	[ -z "$(lacking "$pol" unconfined_t var_lib_t file create,write)" ]
'
notes notes.txt "note: "

if ! sepolicy_root "$TEST_TMP/debian-root"; then
	test_skip "Debian's refpolicy: the same questions" "$SEPOLICY_ROOT_ERROR"
else
	# shellcheck disable=SC2034 # used in the test body
	DEB_POLICY=$(find "$TEST_TMP/debian-root/etc/selinux/default/policy" -name "policy.*" | sort | tail -n 1)
	# shellcheck disable=SC2034 # used in the test body
	DEB_FC=$TEST_TMP/debian-root/etc/selinux/default/contexts/files/file_contexts
	test_expect "Debian's refpolicy: the same questions; where it differs from RHEL 9" '
		check_policy "$DEB_POLICY" "$DEB_FC" "$TEST_TMP/debian.txt" &&
		[ "$(wc -l <"$TEST_TMP/debian.txt")" -eq "$(wc -l <"$TEST_TMP/rhel9.txt")" ] &&
		join -t "	" -1 2 -2 2 <(sort -t "	" -k2,2 "$TEST_TMP/rhel9.txt") <(sort -t "	" -k2,2 "$TEST_TMP/debian.txt") |
			awk -F "\t" "\$3 != \$5 { print \$1 \": RHEL 9 \" \$2 \" (\" \$3 \"); Debian \" \$4 \" (\" \$5 \")\" }" >"$TEST_TMP/differs.txt"
	'
	notes differs.txt "differs: "
fi

test_done
