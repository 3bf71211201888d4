# shellcheck shell=bash
# The one door to the kit's data files (docs/data.md): key=value files
# (data/NAME.env, run.env, environment.env, the helpers' raw/*.env) and
# tab-separated tables with one header line (raw/*.tsv).
#
# key=value files:
#   kv_get FILE KEY      the value of KEY, the last line wins; nothing (and
#                        status 0) when the file or the key is missing.
#                        Reads the file each time: for files still written.
#   kv_set FILE KEY VAL  sets KEY: appends one line, so the last line wins
#                        for every reader (kv_get, kv_load; results.json
#                        lists a key where it first appears, with its last
#                        value).
#   kv_load FILE         reads FILE once into the cache (no process).
#   kv_load_run RUN...   kv_load of every RUN/data/*.env.
#   kv_cached FILE KEY   as kv_get, from the cache (loaded on first use):
#                        for a finished run, whose files no longer change.
#                        Load the files in the main shell before the
#                        $(...) calls, so that every subshell has them.
#   kv_read VAR FILE KEY, kv_cached_to VAR FILE KEY
#                        as kv_get and kv_cached, the value (or nothing)
#                        into the variable VAR: no $(...), which is a fork
#                        of the calling shell (the renderer looks keys up
#                        hundreds of times).
#
# Tables: columns are picked by their header names, never by position.
#   tsv_select FILE NAME...  the named columns of every row, tab-separated,
#                        in the order named, without the header; status 1
#                        (and nothing) when the file or a column is missing;
#                        with TSV_ABSENT set, a missing column is that value
#                        in every row (a table of a run made before the
#                        column was declared). FILE - is stdin.
#   tsv_load ARRAY FILE KEY  every cell of FILE into the associative array
#                        ARRAY, as ARRAY[VALUE OF KEY|COLUMN] (through
#                        tsv_select); ARRAY is emptied first, and stays
#                        empty when FILE is missing.
#   tsv_cell "NAME..." ROW NAME  the cell NAME of ROW, one line of a table
#                        with the columns NAME... (a row held in memory
#                        before its table is written); status 1 for a
#                        column the table does not have.
#   tsv_renumber NAME N  the table on stdin (with its header) without its
#                        header, the column NAME of every row raised by N:
#                        more rows numbered on after N rows already kept;
#                        status 1 when the table has no column NAME.
#   tsv_header "NAME..." a table's header line (the names tab-joined).
#   tsv_row ARRAY "NAME..."  one row: the values of the associative array
#                        ARRAY for the columns NAME..., in that order; "-"
#                        for a value not set or empty, tabs and newlines
#                        in a value become spaces.
# A writer declares its table's columns once (NAME_COLUMNS="a b c", the
# header of docs/data.md) and writes the file whole: tsv_header
# "$NAME_COLUMNS", then tsv_row per row (tests/t09-data.sh checks the
# declaration against docs/data.md).

[ -z "${DATA_SH_SOURCED:-}" ] || return 0
DATA_SH_SOURCED=1

# Read by the shell itself: a data file is a few hundred lines, and this
# is called thousands of times in a run and its report, where a sed and a
# tail cost two program starts each (1.8 ms apiece on a 2-core VM).
kv_get () {
	[ -f "$1" ] || return 0
	local line value="" found=""
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in "$2="*) value=${line#*=} found=1 ;; esac
	done <"$1"
	[ -z "$found" ] || printf '%s\n' "$value"
}

kv_read () {
	local kv_read_line kv_read_value=""
	if [ -f "$2" ]; then
		while IFS= read -r kv_read_line || [ -n "$kv_read_line" ]; do
			case $kv_read_line in "$3="*) kv_read_value=${kv_read_line#*=} ;; esac
		done <"$2"
	fi
	printf -v "$1" '%s' "$kv_read_value"
}

kv_set () {
	printf '%s=%s\n' "$2" "$3" >>"$1"
}

declare -gA KV_CACHE=() KV_LOADED=()

kv_load () {
	local line
	KV_LOADED[$1]=1
	[ -f "$1" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in *=*) KV_CACHE["$1|${line%%=*}"]=${line#*=} ;; esac
	done <"$1"
}

# kv_load_run RUN...: every data/*.env of finished runs into the cache.
kv_load_run () {
	local run f
	for run in "$@"; do
		for f in "$run"/data/*.env; do kv_load "$f"; done
	done
}

kv_cached () {
	[ -n "${KV_LOADED[$1]:-}" ] || kv_load "$1"
	[ -z "${KV_CACHE[$1|$2]+set}" ] || printf '%s\n' "${KV_CACHE[$1|$2]}"
}

kv_cached_to () {
	[ -n "${KV_LOADED[$2]:-}" ] || kv_load "$2"
	printf -v "$1" '%s' "${KV_CACHE[$2|$3]-}"
}

tsv_select () {
	local file=$1
	shift
	[ "$file" = - ] || [ -f "$file" ] || return 1
	awk -F'\t' -v want="$*" -v absent="${TSV_ABSENT-}" -v tolerate="${TSV_ABSENT+1}" '
	NR == 1 {
		n = split(want, w, " ")
		for (i = 1; i <= NF; i++) at[$i] = i
		for (i = 1; i <= n; i++) {
			if (w[i] in at) col[i] = at[w[i]]
			else if (tolerate) col[i] = 0
			else exit 1
		}
		next
	}
	{
		line = ""
		for (i = 1; i <= n; i++) line = line (i > 1 ? "\t" : "") (col[i] ? $col[i] : absent)
		print line
	}' "$file"
}

tsv_load () {
	local -n tsv_load_to=$1
	local names name key value
	tsv_load_to=()
	[ -f "$2" ] || return 0
	IFS= read -r names <"$2" || return 0
	for name in ${names//$'\t'/ }; do
		while IFS=$'\t' read -r key value; do
			# shellcheck disable=SC2034 # the caller's array
			tsv_load_to["$key|$name"]=$value
		done < <(tsv_select "$2" "$3" "$name")
	done
}

tsv_cell () {
	local c rest=$2$'\t'
	for c in $1; do
		if [ "$c" = "$3" ]; then
			printf '%s\n' "${rest%%$'\t'*}"
			return 0
		fi
		rest=${rest#*$'\t'}
	done
	return 1
}

tsv_renumber () {
	awk -F'\t' -v OFS='\t' -v name="$1" -v n="$2" '
	NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; if (!c) exit 1; next }
	{ $c = n + $c; print }'
}

tsv_header () {
	printf '%s\n' "${1// /$'\t'}"
}

tsv_row () {
	local -n tsv_row_of=$1
	local c v tsv_row_cells=()
	for c in $2; do
		v=${tsv_row_of[$c]:-}
		v=${v//$'\t'/ }
		v=${v//$'\n'/ }
		tsv_row_cells+=("${v:--}")
	done
	local IFS=$'\t'
	printf '%s\n' "${tsv_row_cells[*]}"
}

# levels_of, the two-level split, is the statistics engine's (lib/stats.sh,
# sshperf-rank levels); sourced here for the parts that call it with only
# this file (lib/compare.sh), until they source lib/stats.sh themselves.
# shellcheck source=lib/stats.sh
. "${BASH_SOURCE[0]%/*}/stats.sh"
