# shellcheck shell=bash
# sftp: one file of SFTP_FILE_MB MiB up and down and SFTP_SMALL_FILES files
# of SFTP_SMALL_FILE_KB KiB up, each with 'sftp -b BATCH' into a folder of
# its own in the test user's home (on disk). MiB = 1048576 bytes, KiB =
# 1024 bytes (the specification's dd bs=1M); rates in MB/s, MB = 10^6
# bytes. Each sftp run includes one login, which the figures leave out: the
# copy is timed from sftp's echo of its first batch command (it is logged
# in by then) to its exit. The large file is one file, one put or get, as
# the specification measures it; its copy is timed in SFTP_CHUNKS chunks
# by the size of the file being written (sshperf-xfer run -w: on the
# server for up, it is on this host, locally for down), as transfer times
# its one stream, and the chunks give the interval of the rate
# (sshperf-rank rate). The small files go as SFTP_BATCHES put commands in
# one run: sftp echoes each command as it starts it, so each is timed. The
# specification's way, the run minus the median of
# SFTP_LOGIN_RUNS sftp runs that only log in, is kept next to it as a
# cross-check (at a few MB the login's run-to-run spread of some 30 ms
# swamps it; at 256 MB both agree). Every upload is checked on the server (size and
# sha256, or count and sizes), the download against the original; a
# mismatch is a failure. Whatever the test wrote is removed at its end,
# also when it fails or test-ssh.sh is interrupted.

# Login-only sftp runs whose median is subtracted from each timed run.
SFTP_LOGIN_RUNS=3
# The large file's copy timed in this many chunks (16 MiB each of the
# default 256 MiB), the small files in this many put commands (fewer with
# fewer files).
SFTP_CHUNKS=16
SFTP_BATCHES=10
# The columns of raw/sftp-parts.tsv (docs/data.md).
SFTP_PARTS_COLUMNS="run part bytes files seconds mbs files_per_s"

about_sftp () {
	printf 'one file of %s MiB up and down, %s files of %s KiB up with sftp -b, on disk in the test user'"'"'s home (about %s s)\n' \
		"${SETTING[SFTP_FILE_MB]}" "${SETTING[SFTP_SMALL_FILES]}" "${SETTING[SFTP_SMALL_FILE_KB]}" \
		"$(awk -v mb="${SETTING[SFTP_FILE_MB]}" -v n="${SETTING[SFTP_SMALL_FILES]}" 'BEGIN { printf "%.0f", 3 + 2 * mb / 100 + n / 300 }')"
}


# Bytes an ordinary user may still write (df's "available") in the file
# system that holds DIR; nothing when df fails.
sftp_free_bytes () {
	df -P -k -- "$1" 2>/dev/null | awk 'NR == 2 { printf "%.0f\n", $4 * 1024 }'
}

# sftp_full_note WHAT DIR: after a failed copy, "; <why>" when the file
# system of DIR is full (no block or no inode left for an ordinary user):
# sftp itself says only "Failure" then. Nothing otherwise.
sftp_full_note () {
	local what=$1 dir=$2 kb inodes
	kb=$(df -P -k -- "$dir" 2>/dev/null | awk 'NR == 2 { print $4 }')
	inodes=$(df -P -i -- "$dir" 2>/dev/null | awk 'NR == 2 { print $4 }')
	if [ "${kb:-1}" = 0 ] || [ "${inodes:-1}" = 0 ]; then
		printf '; the file system of %s %s is full (%s KB and %s inodes free): free space there or lower SFTP_FILE_MB / SFTP_SMALL_FILES\n' \
			"$what" "$dir" "${kb:-?}" "${inodes:-?}"
	fi
}

# sftp_disk_bytes BYTES: what a file of BYTES takes on disk (4 KiB blocks).
sftp_disk_bytes () {
	printf '%s\n' "$(( ($1 + 4095) / 4096 * 4096 ))"
}

# sftp_space_check WHAT DIR BYTES: nothing when the file system of DIR has
# twice the BYTES the test writes there, else one line why not.
sftp_space_check () {
	local what=$1 dir=$2 bytes=$3 free
	free=$(sftp_free_bytes "$dir")
	if [ -z "$free" ]; then
		printf 'cannot read the free space of %s %s (df failed)\n' "$what" "$dir"
	elif [ "$free" -lt $((2 * bytes)) ]; then
		printf 'too little free space in %s %s: %s MB free, the test needs twice the %s MB it writes there; free space%s or lower SFTP_FILE_MB / SFTP_SMALL_FILES\n' \
			"$what" "$dir" "$((free / 1000000))" "$(( (bytes + 999999) / 1000000 ))" \
			"$(case $what in *temporary*) printf ', set TMPDIR to a larger folder,' ;; esac)"
	fi
}

# Seconds one sftp run may take: a minute, plus 1 s per 5 MB and per 20
# small files (5 MB/s, 20 files/s: far below anything usable).
sftp_timeout () {
	printf '%s\n' "$((60 + $1 / 5000000 + $2 / 20))"
}

# The ssh command for the checks and the clean-up on the server, with the
# deadline of the longest sftp run (it may hash the large file).
sftp_ssh () {
	timeout --kill-after=2 "$(sftp_timeout "${SFTP_BIG_BYTES:-0}" "${SETTING[SFTP_SMALL_FILES]:-0}")" \
		"$SSH" -F "$CLIENT_CONFIG" -o BatchMode=yes "$HOST_ALIAS" "$@" </dev/null
}

# sftp_run NAME BATCH TIMEOUT [FILE]: one timed 'sftp -b BATCH';
# sshperf-xfer's key=value lines to $SFTP_WORK/NAME.txt, sftp's messages to
# NAME.err. With FILE (the large file's copy) its size is read as sftp
# writes it, for the copy's SFTP_CHUNKS chunks.
sftp_run () {
	local name=$1 batch=$2 timeout=$3 watch=${4:-}
	local -a chunked=()
	[ -z "$watch" ] || chunked=(-w "$watch" -n "$SFTP_BIG_BYTES" -k "$SFTP_CHUNKS")
	helper xfer run -o "${chunked[@]}" -t "$timeout" -- "$SFTP" -b "$batch" -F "$CLIENT_CONFIG" "$HOST_ALIAS" \
		>"$SFTP_WORK/$name.txt" 2>"$SFTP_WORK/$name.err" </dev/null
}

# The last line sftp or ssh printed for a run, for the reason of a failure.
sftp_message () {
	grep -v '^sftp> ' "$SFTP_WORK/$1.err" 2>/dev/null | tr -d '\r' | grep -v '^$' | tail -n 1 | tr '\t' ' '
}

# The columns of raw/sftp-runs.tsv (docs/data.md).
SFTP_RUNS_COLUMNS="run kind status exit seconds copy_seconds minus_login_seconds bytes files mbs files_per_s client_cpu_s check message"

# sftp_tsv_row NAME KIND BYTES FILES NET_SECONDS MBS FILES_PER_S CHECK
sftp_tsv_row () {
	local f="$SFTP_WORK/$1.txt"
	# shellcheck disable=SC2034 # read by tsv_row, by its name
	local -A row=([run]=$1 [kind]=$2 [bytes]=$3 [files]=$4 [copy_seconds]=$5 [mbs]=$6 [files_per_s]=$7 [check]=$8
		[status]="$(kv_get "$f" status)" [exit]="$(kv_get "$f" exit)" [seconds]="$(kv_get "$f" seconds)"
		[minus_login_seconds]="$(sftp_sub "$(kv_get "$f" seconds)")" [client_cpu_s]="$(kv_get "$f" client_cpu_s)"
		[message]="$(sftp_message "$1")")
	tsv_row row "$SFTP_RUNS_COLUMNS" >>"$RAW_DIR/sftp-runs.tsv"
}

# sftp_sub SECONDS: SECONDS minus the login-only median, or "-" when the
# run was not longer than a login alone.
sftp_sub () {
	awk -v s="$1" -v l="$SFTP_LOGIN_S" 'BEGIN {
		if (s == "" || l == "" || s - l <= 0.001) print "-"; else printf "%.6f\n", s - l }'
}

# sftp_net NAME: the copy's seconds of one run, from sftp's first batch
# command to its exit; the run minus the login-only median when sftp
# printed nothing (never seen); "-" when neither gives a time.
sftp_net () {
	local f="$SFTP_WORK/$1.txt" out
	out=$(kv_get "$f" output_seconds)
	if awk -v o="$out" 'BEGIN { exit !(o != "" && o + 0 > 0) }'; then
		printf '%s\n' "$out"
	else
		sftp_sub "$(kv_get "$f" seconds)"
	fi
}

# sftp_per_s AMOUNT NET_SECONDS SCALE: AMOUNT / SCALE per second, or "-".
sftp_per_s () {
	awk -v a="$1" -v s="$2" -v k="$3" 'BEGIN { if (s == "-" || s + 0 <= 0) print "-"; else printf "%.1f\n", a / k / s }'
}

# Removes the server folder and the local folder; safe to call twice. The
# server folder goes with ssh; if that fails (the server is gone), root
# removes it directly: it is on this host.
sftp_cleanup () {
	if [ -n "${SFTP_REMOTE_DIR:-}" ]; then
		sftp_ssh rm -rf -- "$SFTP_REMOTE_DIR" >/dev/null 2>&1 || true
		case $SFTP_REMOTE_DIR in
		"$SFTP_HOME"/sshperf-sftp.*) [ ! -e "$SFTP_REMOTE_DIR" ] || rm -rf -- "$SFTP_REMOTE_DIR" ;;
		esac
		[ -e "$SFTP_REMOTE_DIR" ] || SFTP_REMOTE_DIR=""
	fi
	if [ -n "${SFTP_LOCAL_DIR:-}" ]; then
		rm -rf -- "$SFTP_LOCAL_DIR"
		[ -e "$SFTP_LOCAL_DIR" ] || SFTP_LOCAL_DIR=""
	fi
}

# sftp_fail REASON: the first failure is the reason; all are counted.
sftp_fail () {
	SFTP_FAILED=$((SFTP_FAILED + 1))
	[ -n "$SFTP_FIRST_FAIL" ] || SFTP_FIRST_FAIL=$1
	printf '%s\n' "$1" >>"$RAW_DIR/sftp-errors.txt"
}

# sftp_prepare: the local files, the batch files and the server folder.
# Status 1 with a line on stderr when something cannot be made.
sftp_prepare () {
	local l=$SFTP_LOCAL_DIR r base k from n
	head -c "$SFTP_BIG_BYTES" /dev/urandom >"$l/big" ||
		{ echo "cannot write the large file in $l" >&2; return 1; }
	[ "$(stat -c %s "$l/big")" -eq "$SFTP_BIG_BYTES" ] ||
		{ echo "cannot write the large file in $l (disk full?)" >&2; return 1; }
	SFTP_BIG_SHA=$(sha256sum <"$l/big" | cut -d' ' -f1)
	mkdir "$l/small" "$l/down"
	# The small files in SFTP_SMALL_BATCHES folders of (nearly) equal
	# counts, named f000000, f000001, ... across them: N files of exactly
	# SMALL bytes. SFTP_SMALL_AMOUNTS: "bytes files" of each batch.
	from=0
	SFTP_SMALL_AMOUNTS=""
	for k in $(seq 0 $((SFTP_SMALL_BATCHES - 1))); do
		n=$(( (k + 1) * SETTING[SFTP_SMALL_FILES] / SFTP_SMALL_BATCHES - from ))
		mkdir "$l/small/g$k"
		head -c "$((n * SFTP_SMALL_BYTES))" /dev/urandom |
			(cd "$l/small/g$k" && split -b "$SFTP_SMALL_BYTES" -a 6 -d --numeric-suffixes="$from" - f) ||
			{ echo "cannot write the small files in $l/small" >&2; return 1; }
		from=$((from + n))
		SFTP_SMALL_AMOUNTS+="$((n * SFTP_SMALL_BYTES)) $n"$'\n'
	done
	SFTP_SMALL_AMOUNTS=${SFTP_SMALL_AMOUNTS%$'\n'}
	[ "$(find "$l/small" -type f -size "${SFTP_SMALL_BYTES}c" | wc -l)" -eq "${SETTING[SFTP_SMALL_FILES]}" ] ||
		{ echo "cannot write the small files in $l/small (disk full?)" >&2; return 1; }

	# A folder of the test's own on the server, in the home; made with
	# mktemp there, so its absolute path comes back.
	# shellcheck disable=SC2016 # $HOME is the server's, expanded there
	base='$HOME'
	# An existing account whose home cannot take files: the kit's folder.
	[ -z "$(server_get SFTP_DIR)" ] || base=$SFTP_HOME
	if ! r=$(sftp_ssh "mktemp -d \"$base/sshperf-sftp.XXXXXX\"" 2>"$SFTP_WORK/mkdir.err"); then
		printf 'cannot make a folder in the test user'"'"'s home over ssh: %s\n' "$(tail -n 1 "$SFTP_WORK/mkdir.err")" >&2
		return 1
	fi
	case $r in
	"$SFTP_HOME"/sshperf-sftp.*) SFTP_REMOTE_DIR=$r ;;
	*) printf 'the server made the folder "%s", not one in %s\n' "$r" "$SFTP_HOME" >&2; return 1 ;;
	esac
	sftp_ssh mkdir -- "$SFTP_REMOTE_DIR/small" 2>"$SFTP_WORK/mkdir.err" ||
		{ printf 'cannot make %s/small: %s\n' "$SFTP_REMOTE_DIR" "$(tail -n 1 "$SFTP_WORK/mkdir.err")" >&2; return 1; }

	# The large file: one command, nothing else. The small files: one
	# command a batch; sftp echoes each as it starts it (line k of its
	# output is batch k's start, sftp_parts).
	: >"$SFTP_WORK/login.batch"
	printf 'put "%s" "%s"\n' "$l/big" "$SFTP_REMOTE_DIR/big" >"$SFTP_WORK/up.batch"
	printf 'get "%s" "%s"\n' "$SFTP_REMOTE_DIR/big" "$l/down/big" >"$SFTP_WORK/down.batch"
	# The folder quoted, the glob after it (sftp globs only outside quotes).
	for k in $(seq 0 $((SFTP_SMALL_BATCHES - 1))); do
		printf 'put "%s/"* "%s/"\n' "$l/small/g$k" "$SFTP_REMOTE_DIR/small" >>"$SFTP_WORK/small.batch"
	done
}

# sftp_chunks NAME: the chunks of the large file's copy (sshperf-xfer run
# -w: chunk_bytes and chunk_seconds, which add up to the copy's time) into
# raw/sftp-parts.tsv; the interval of its rate (sshperf-rank rate, MB/s)
# into $SFTP_WORK/NAME-rate.env. A note there instead when the copy was
# not timed in chunks.
sftp_chunks () {
	local name=$1 f="$SFTP_WORK/$1.txt" n=0 secs bytes k
	k=$(kv_get "$f" chunks)
	case $k in
	'' | 0 | 1)
		printf 'note=the copy was timed in %s chunks, too few for an interval\n' "${k:-no}" >"$SFTP_WORK/$name-rate.env"
		return 0
		;;
	esac
	paste -d' ' <(kv_get "$f" chunk_seconds | tr ',' '\n') <(kv_get "$f" chunk_bytes | tr ',' '\n') |
		while read -r secs bytes; do
			n=$((n + 1))
			# shellcheck disable=SC2034 # read by tsv_row, by its name
			local -A row=([run]=$name [part]=$n [bytes]=$bytes [files]=- [seconds]=$secs
				[mbs]="$(sftp_per_s "$bytes" "$secs" 1000000)" [files_per_s]=-)
			tsv_row row "$SFTP_PARTS_COLUMNS"
		done >>"$RAW_DIR/sftp-parts.tsv"
	tsv_select "$RAW_DIR/sftp-parts.tsv" run bytes seconds |
		awk -F'\t' -v run="$name" '$1 == run && $3 > 0 { print $2 / 1e6, $3 }' |
		stats_rank rate >"$SFTP_WORK/$name-rate.env" 2>>"$SFTP_WORK/$name.err" || true
}

# sftp_parts NAME AMOUNTS: the small files' batches of one run (its K
# commands, one line of AMOUNTS, "bytes files" each, per batch) timed from
# sftp's echoes: batch k from the echo of command k to that of k + 1, the
# last to sftp's exit, so that they add up to the copy's time. Rows into
# raw/sftp-parts.tsv; the interval of the whole's rate (sshperf-rank
# rate, files/s) into $SFTP_WORK/NAME-rate.env. Nothing when sftp did not
# echo each command once.
sftp_parts () {
	local name=$1 amounts=$2 f="$SFTP_WORK/$1.txt" k lines n=0 secs bytes files
	k=$(printf '%s\n' "$amounts" | wc -l)
	lines=$(kv_get "$f" lines)
	if [ "${lines:-0}" -ne "$k" ]; then
		printf 'note=sftp echoed %s lines, not the %s commands of its batch: the parts were not timed\n' "${lines:-0}" "$k" >"$SFTP_WORK/$name-rate.env"
		return 0
	fi
	kv_get "$f" line_seconds | tr ',' '\n' |
		awk -v end="$(kv_get "$f" output_seconds)" 'NR > 1 { printf "%.6f\n", $1 - prev } { prev = $1 } END { printf "%.6f\n", end - prev }' |
		paste -d' ' - <(printf '%s\n' "$amounts") | while read -r secs bytes files; do
			n=$((n + 1))
			# shellcheck disable=SC2034 # read by tsv_row, by its name
			local -A row=([run]=$name [part]=$n [bytes]=$bytes [files]=$files [seconds]=$secs
				[mbs]="$(sftp_per_s "$bytes" "$secs" 1000000)" [files_per_s]="$(sftp_per_s "$files" "$secs" 1)")
			tsv_row row "$SFTP_PARTS_COLUMNS"
		done >>"$RAW_DIR/sftp-parts.tsv"
	tsv_select "$RAW_DIR/sftp-parts.tsv" run files seconds |
		awk -F'\t' -v run="$name" '$1 == run { print $2, $3 }' |
		# Two echoes in one read leave a part 0 s long: it joins the next.
		awk '{ a += $1; if ($2 > 0) { print a, $2; a = 0 } }' |
		stats_rank rate >"$SFTP_WORK/$name-rate.env" 2>>"$SFTP_WORK/$name.err" || true
}

# Runs the login-only runs; sets SFTP_LOGIN_S (median, seconds) or leaves
# it empty when none worked.
sftp_logins () {
	local i s
	SFTP_LOGIN_S=""
	for i in $(seq 1 "$SFTP_LOGIN_RUNS"); do
		sftp_run "login-$i" "$SFTP_WORK/login.batch" "${SETTING[LOGIN_TIMEOUT]}" || true
		s=$(kv_get "$SFTP_WORK/login-$i.txt" seconds)
		sftp_tsv_row "login-$i" login 0 0 - - - -
		if [ "$(kv_get "$SFTP_WORK/login-$i.txt" status)" = ok ]; then
			printf '%s\n' "$s" >>"$SFTP_WORK/login-seconds"
		else
			sftp_fail "login-only sftp run $i failed (exit $(kv_get "$SFTP_WORK/login-$i.txt" exit)): $(sftp_message "login-$i")"
		fi
	done
	[ -s "$SFTP_WORK/login-seconds" ] || return 0
	SFTP_LOGIN_S=$(stats_median <"$SFTP_WORK/login-seconds")
	result_set sftp login_n "$(wc -l <"$SFTP_WORK/login-seconds")"
	result_set sftp login_ms "$(awk -v s="$SFTP_LOGIN_S" 'BEGIN { printf "%.1f", s * 1000 }')"
}

# sftp_got FILES...: "BYTES SHA256 COUNT" of the files, concatenated in
# the order given.
sftp_got_local () {
	printf '%s %s %s\n' "$(cat "$@" | wc -c)" "$(cat "$@" | sha256sum | cut -d' ' -f1)" "$#"
}

# sftp_interval NAME KEY: the interval of a run's rate (sftp_chunks,
# sftp_parts) into
# KEY_lo, KEY_hi, and the parts it rests on into KEY_parts.
sftp_interval () {
	local f="$SFTP_WORK/$1-rate.env"
	result_set sftp "${2}_lo" "$(kv_get "$f" rate_lo | sed 's/^$/-/')"
	result_set sftp "${2}_hi" "$(kv_get "$f" rate_hi | sed 's/^$/-/')"
	result_set sftp "${2}_parts" "$(kv_get "$f" n | sed 's/^$/0/')"
}

# sftp_large DIRECTION: the one large file up or down, checked, its copy
# timed in SFTP_CHUNKS chunks; sets the result keys large_DIRECTION_*.
sftp_large () {
	local dir=$1 f="$SFTP_WORK/$1.txt" st check got size sum count net mbs full watch
	# The file as sftp writes it: on the server (this host) or here.
	watch="$SFTP_REMOTE_DIR/big"
	[ "$dir" = up ] || watch="$SFTP_LOCAL_DIR/down/big"
	sftp_run "$dir" "$SFTP_WORK/$dir.batch" "$(sftp_timeout "$SFTP_BIG_BYTES" 0)" "$watch" || true
	st=$(kv_get "$f" status)
	if [ "$dir" = up ]; then
		got=$(sftp_ssh "cd '$SFTP_REMOTE_DIR' && find . -maxdepth 1 -type f | wc -l && wc -c <big && sha256sum <big" 2>/dev/null |
			awk 'NR == 1 { c = $1 } NR == 2 { s = $1 } NR == 3 { print s, $1, c }')
	elif [ -n "$(ls -A "$SFTP_LOCAL_DIR/down")" ]; then
		got=$(sftp_got_local "$SFTP_LOCAL_DIR"/down/*)
		rm -f "$SFTP_LOCAL_DIR"/down/*
	else
		got=""
	fi
	read -r size sum count <<<"$got"
	if [ -z "$got" ]; then
		check="missing"
	elif [ "$size" != "$SFTP_BIG_BYTES" ]; then
		check="size $size of $SFTP_BIG_BYTES bytes"
	elif [ "$count" != 1 ]; then
		check="$count files where one was copied"
	elif [ "$sum" != "$SFTP_BIG_SHA" ]; then
		check="sha256 differs"
	else
		check=ok
	fi
	net=$(sftp_net "$dir")
	mbs=-
	if [ "$st" = ok ] && [ "$check" = ok ]; then
		mbs=$(sftp_per_s "$SFTP_BIG_BYTES" "$net" 1000000)
		[ "$mbs" != - ] || sftp_fail "large file $dir: no time for the copy ($(kv_get "$f" seconds) s with the login, $SFTP_LOGIN_S s a login alone)"
		sftp_chunks "$dir"
	elif [ "$st" != ok ]; then
		if [ "$dir" = up ]; then
			full=$(sftp_full_note "the test user's home" "$SFTP_HOME")
		else
			full=$(sftp_full_note "the local temporary folder" "$SFTP_LOCAL_DIR")
		fi
		sftp_fail "large file $dir: sftp $st (exit $(kv_get "$f" exit)): $(sftp_message "$dir")$full"
	else
		sftp_fail "large file $dir: the copy does not match the original ($check)"
	fi
	sftp_tsv_row "$dir" "large-$dir" "$SFTP_BIG_BYTES" 1 "$net" "$mbs" - "$check"
	result_set sftp "large_${dir}_status" "${st:-failed}"
	result_set sftp "large_${dir}_check" "$check"
	result_set sftp "large_${dir}_seconds" "$(kv_get "$f" seconds)"
	result_set sftp "large_${dir}_net_seconds" "$net"
	result_set sftp "large_${dir}_minus_login_seconds" "$(sftp_sub "$(kv_get "$f" seconds)")"
	result_set sftp "large_${dir}_minus_login_mbs" "$(sftp_per_s "$SFTP_BIG_BYTES" "$(sftp_sub "$(kv_get "$f" seconds)")" 1000000)"
	result_set sftp "large_${dir}_mbs" "$mbs"
	sftp_interval "$dir" "large_${dir}_mbs"
}

# The small files up in SFTP_SMALL_BATCHES put commands, checked by count
# and size on the server.
sftp_small () {
	local f="$SFTP_WORK/small.txt" st check got n bad net fps mbs
	sftp_run small "$SFTP_WORK/small.batch" "$(sftp_timeout "$SFTP_SMALL_TOTAL" "${SETTING[SFTP_SMALL_FILES]}")" || true
	st=$(kv_get "$f" status)
	got=$(sftp_ssh "find '$SFTP_REMOTE_DIR/small' -type f -printf '%s\n'" 2>/dev/null |
		awk -v s="$SFTP_SMALL_BYTES" '{ n++; if ($1 != s) bad++ } END { print n + 0, bad + 0 }')
	n=${got%% *}
	bad=${got#* }
	if [ -z "$got" ]; then
		check=missing
	elif [ "$n" -ne "${SETTING[SFTP_SMALL_FILES]}" ]; then
		check="$n of ${SETTING[SFTP_SMALL_FILES]} files"
	elif [ "$bad" -ne 0 ]; then
		check="$bad files of the wrong size"
	else
		check=ok
	fi
	net=$(sftp_net small)
	fps=-
	mbs=-
	if [ "$st" = ok ] && [ "$check" = ok ]; then
		fps=$(sftp_per_s "${SETTING[SFTP_SMALL_FILES]}" "$net" 1)
		mbs=$(sftp_per_s "$SFTP_SMALL_TOTAL" "$net" 1000000)
		[ "$fps" != - ] || sftp_fail "small files: no time for the copy ($(kv_get "$f" seconds) s with the login, $SFTP_LOGIN_S s a login alone)"
		sftp_parts small "$SFTP_SMALL_AMOUNTS"
	elif [ "$st" != ok ]; then
		sftp_fail "small files: sftp $st (exit $(kv_get "$f" exit)): $(sftp_message small)$(sftp_full_note "the test user's home" "$SFTP_HOME")"
	else
		sftp_fail "small files: the server has $check"
	fi
	sftp_tsv_row small small-up "$SFTP_SMALL_TOTAL" "${SETTING[SFTP_SMALL_FILES]}" "$net" "$mbs" "$fps" "$check"
	result_set sftp small_status "${st:-failed}"
	result_set sftp small_check "$check"
	result_set sftp small_files_found "${n:-0}"
	result_set sftp small_seconds "$(kv_get "$f" seconds)"
	result_set sftp small_net_seconds "$net"
	result_set sftp small_minus_login_seconds "$(sftp_sub "$(kv_get "$f" seconds)")"
	result_set sftp small_minus_login_files_per_s "$(sftp_per_s "${SETTING[SFTP_SMALL_FILES]}" "$(sftp_sub "$(kv_get "$f" seconds)")" 1)"
	result_set sftp small_files_per_s "$fps"
	result_set sftp small_mbs "$mbs"
	[ "$fps" = - ] || result_set sftp small_ms_per_file "$(awk -v f="$fps" 'BEGIN { printf "%.3f", 1000 / f }')"
	sftp_interval small small_files_per_s
}

measure_sftp () {
	local tmp remote_bytes local_bytes why up down fps left missed missed_small label
	label="one file of ${SETTING[SFTP_FILE_MB]} MiB, slower direction, MB/s = 10^6 bytes/s"
	SFTP_BIG_BYTES=$((SETTING[SFTP_FILE_MB] * 1048576))
	SFTP_SMALL_BYTES=$((SETTING[SFTP_SMALL_FILE_KB] * 1024))
	SFTP_SMALL_TOTAL=$((SETTING[SFTP_SMALL_FILES] * SFTP_SMALL_BYTES))
	SFTP_SMALL_BATCHES=$SFTP_BATCHES
	[ "${SETTING[SFTP_SMALL_FILES]}" -ge "$SFTP_SMALL_BATCHES" ] || SFTP_SMALL_BATCHES=${SETTING[SFTP_SMALL_FILES]}
	SFTP_FAILED=0
	SFTP_FIRST_FAIL=""
	SFTP_REMOTE_DIR=""
	SFTP_LOCAL_DIR=""
	SFTP_LOGIN_S=""
	SFTP_WORK="$RAW_DIR/sftp-runs"
	SFTP_HOME=$(getent passwd "${SETTING[TEST_USER]}" | cut -d: -f6)
	if [ -n "$(server_get SFTP_DIR)" ]; then
		SFTP_HOME=$(server_get SFTP_DIR)
		result_warn sftp "the files went to the kit's folder $SFTP_HOME, because $(server_get SFTP_DIR_WHY)"
	fi
	mkdir -p "$SFTP_WORK"
	: >"$RAW_DIR/sftp-errors.txt"
	tsv_header "$SFTP_RUNS_COLUMNS" >"$RAW_DIR/sftp-runs.tsv"
	tsv_header "$SFTP_PARTS_COLUMNS" >"$RAW_DIR/sftp-parts.tsv"
	result_set sftp file_mb "${SETTING[SFTP_FILE_MB]}"
	result_set sftp file_bytes "$SFTP_BIG_BYTES"
	result_set sftp small_files "${SETTING[SFTP_SMALL_FILES]}"
	result_set sftp small_file_bytes "$SFTP_SMALL_BYTES"
	# No figure until the large file went both ways.
	result_verdict sftp "" ">=" "${SETTING[TARGET_SFTP_MBS]}" "MB/s" "$label"
	result_set sftp target_files_per_s "${SETTING[TARGET_SFTP_FILES_PER_S]}"
	result_set sftp home "$SFTP_HOME"

	# Free space first: too little is a skip, and nothing is written.
	tmp=${TMPDIR:-/tmp}
	remote_bytes=$(( $(sftp_disk_bytes "$SFTP_BIG_BYTES") + SETTING[SFTP_SMALL_FILES] * $(sftp_disk_bytes "$SFTP_SMALL_BYTES") ))
	local_bytes=$(( 2 * $(sftp_disk_bytes "$SFTP_BIG_BYTES") + SETTING[SFTP_SMALL_FILES] * $(sftp_disk_bytes "$SFTP_SMALL_BYTES") ))
	# A confined SELinux user's sftp-server (user_t, staff_t ...) may not
	# create files in the kit's folder (var_lib_t): said before, instead
	# of failed uploads (selinux/expectations.tsv).
	case $(server_get SEUSER) in
	'' | unconfined_u | root | system_u) ;;
	*)
		if [ -n "$(server_get SFTP_DIR)" ]; then
			why="the existing account ${SETTING[TEST_USER]} is mapped to the confined SELinux user $(server_get SEUSER), whose sftp-server may not create files in the kit's folder $SFTP_HOME (var_lib_t); give the account a writable home, or test with an account mapped to unconfined_u (semanage login -l)"
			result_status sftp SKIPPED "$why"
			result_set sftp summary "skipped: $why"
			return 0
		fi
		;;
	esac
	if [ -z "$SFTP_HOME" ] || [ ! -d "$SFTP_HOME" ]; then
		result_status sftp ERROR "the test user ${SETTING[TEST_USER]} has no home folder on this host; run ./start-ssh.sh again"
		result_set sftp summary "no home folder, nothing measured"
		return 0
	fi
	why=$(sftp_space_check "the test user's home" "$SFTP_HOME" "$remote_bytes")
	[ -n "$why" ] || why=$(sftp_space_check "the local temporary folder" "$tmp" "$local_bytes")
	if [ -n "$why" ]; then
		result_status sftp SKIPPED "$why"
		result_set sftp summary "skipped: $why"
		return 0
	fi

	# Removed again also when the job ends in the middle (a signal).
	at_exit sftp_cleanup

	ls -A "$SFTP_HOME" >"$SFTP_WORK/home-before.txt"
	if ! SFTP_LOCAL_DIR=$(mktemp -d "$tmp/sshperf-sftp.XXXXXX") ||
		! sftp_prepare 2>"$SFTP_WORK/prepare.err"; then
		at_exit_pop
		result_status sftp ERROR "could not prepare the files: $(tail -n 1 "$SFTP_WORK/prepare.err")"
		result_set sftp summary "could not prepare the files, nothing measured"
		return 0
	fi
	progress_step "sftp: $SFTP_LOGIN_RUNS login-only runs"
	sftp_logins
	if [ -z "$SFTP_LOGIN_S" ]; then
		at_exit_pop
		result_status sftp FAIL "no sftp login worked: $SFTP_FIRST_FAIL" \
			"Check that the test server offers the sftp subsystem (Subsystem sftp in its sshd -T) and log in with sftp by hand, then rerun ./test-ssh.sh sftp"
		result_set sftp summary "no sftp login worked"
		return 0
	fi
	progress_step "sftp: one file of ${SETTING[SFTP_FILE_MB]} MiB up and down"
	sftp_large up
	sftp_large down
	progress_step "sftp: ${SETTING[SFTP_SMALL_FILES]} files of ${SETTING[SFTP_SMALL_FILE_KB]} KiB up"
	sftp_small

	at_exit_pop
	ls -A "$SFTP_HOME" >"$SFTP_WORK/home-after.txt"
	left=$(comm -13 "$SFTP_WORK/home-before.txt" "$SFTP_WORK/home-after.txt" | paste -sd' ' -)
	result_set sftp left_behind "${left:-none}"
	[ -z "$SFTP_REMOTE_DIR$SFTP_LOCAL_DIR" ] ||
		sftp_fail "could not remove the test's files: ${SFTP_REMOTE_DIR:-} ${SFTP_LOCAL_DIR:-}"

	up=$(result_get sftp large_up_mbs)
	down=$(result_get sftp large_down_mbs)
	fps=$(result_get sftp small_files_per_s)
	result_set sftp failed "$SFTP_FAILED"
	result_set sftp large_chunks "$SFTP_CHUNKS"
	result_set sftp small_batches "$SFTP_SMALL_BATCHES"
	# The figure is the slower direction; the small files have a target too.
	# Each target's miss says its own figures: both misses, when both
	# missed, follow one another in the reason, each once.
	missed="large file $(figs MB/s "$up") MB/s up and $(figs MB/s "$down") MB/s down (target >= ${SETTING[TARGET_SFTP_MBS]})"
	missed_small="small files $(figs files/s "$fps") files/s (target >= ${SETTING[TARGET_SFTP_FILES_PER_S]})"
	sftp_figure_interval
	result_verdict sftp "$(awk -v u="$up" -v d="$down" 'BEGIN { if (u == "-" || d == "-") print "-"; else print (u + 0 < d + 0) ? u : d }')" \
		">=" "${SETTING[TARGET_SFTP_MBS]}" "MB/s" "$label" "$missed" \
		"Look at the disk of the test user's home and the cipher (the transfer section), or lower TARGET_SFTP_MBS to what this disk and one core can do"
	result_noise_hint sftp SFTP_FILE_MB "$(noise_samples "${SETTING[SFTP_FILE_MB]}" "$(result_or_dash sftp figure_lo)" \
		"$(result_or_dash sftp figure_hi)" "$(result_or_dash sftp figure)" "${SETTING[TARGET_SFTP_MBS]}")"
	if [ "$SFTP_FAILED" -gt 0 ]; then
		result_status sftp FAIL "$SFTP_FAILED problem(s); first: $SFTP_FIRST_FAIL" \
			"Fix the first problem named here (a full disk, a missing folder, a refused login) and rerun ./test-ssh.sh sftp"
	else
		result_second sftp ">=" "${SETTING[TARGET_SFTP_FILES_PER_S]}" "$fps" "$(result_or_dash sftp small_files_per_s_lo)" \
			"$(result_or_dash sftp small_files_per_s_hi)" "the small files" "$missed_small" \
			"Pack many small files into one archive (tar) before sending, or run several sftp sessions at once; lower TARGET_SFTP_FILES_PER_S if this rate is enough"
	fi
	result_set sftp summary "one file of ${SETTING[SFTP_FILE_MB]} MiB ${up:--} MB/s up, ${down:--} MB/s down; ${SETTING[SFTP_SMALL_FILES]} small files of ${SETTING[SFTP_SMALL_FILE_KB]} KiB ${fps:--} files/s (login left out); targets >= ${SETTING[TARGET_SFTP_MBS]} MB/s, >= ${SETTING[TARGET_SFTP_FILES_PER_S]} files/s (MB = 10^6 bytes)"
}

# The headline's interval: that of the slower direction, from both
# directions' (interval_lower). The verdict's PASS then needs both
# directions' intervals above the target, its FAIL one below it.
sftp_figure_interval () {
	local lo hi n up_n down_n
	up_n=$(result_or_dash sftp large_up_mbs_parts) down_n=$(result_or_dash sftp large_down_mbs_parts)
	if [ "$(result_or_dash sftp large_up_mbs_lo)" = - ] || [ "$(result_or_dash sftp large_down_mbs_lo)" = - ]; then
		result_interval sftp - - 0 chunks - "the copies were not timed in chunks: no interval$(
			kv_get "$SFTP_WORK/up-rate.env" note | sed 's/^/ (up: /; s/$/)/')$(kv_get "$SFTP_WORK/down-rate.env" note | sed 's/^/ (down: /; s/$/)/')"
		return 0
	fi
	read -r lo hi <<<"$(interval_lower "$(result_get sftp large_up_mbs_lo)" "$(result_or_dash sftp large_up_mbs_hi)" \
		"$(result_get sftp large_down_mbs_lo)" "$(result_or_dash sftp large_down_mbs_hi)")"
	n=$up_n
	[ "$down_n" -ge "$n" ] || n=$down_n
	result_interval sftp "$lo" "$hi" "$n" chunks - \
		"each direction's copy of the one file timed in $SFTP_CHUNKS chunks of $(awk -v m="${SETTING[SFTP_FILE_MB]}" -v k="$SFTP_CHUNKS" 'BEGIN { printf "%g", m / k }') MiB by the size of the file being written, read every 1 ms: the 95 % t interval of the time per MB over the chunks, as MB/s, the lower of the two directions' bounds; it says how steady the copy was in this run, not how the next run will do"
}
