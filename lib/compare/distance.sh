# shellcheck shell=bash disable=SC2016
# (SC2016: backticks are markdown.)
# Comparing runs, the distances: the figures of raw/wire.tsv and
# raw/wire-maxstartups.tsv (docs/data.md) like with like, each at the same
# RTT setting over the same wire (rate limit and loss) in both runs. A
# distance that one run has and the other has not is said, not compared.
# Sourced by lib/compare.sh; compare_report prints it last. Nothing when
# neither run had a distance above 0.

# The figures compared, "TABLE|COLUMN|UNIT|DIRECTION|LABEL" (DIRECTION:
# lower or higher is better), in the order of the table.
COMPARE_DISTANCE_FIGURES="wire.tsv|connect_ms_p50|ms|lower|wire: TCP connect p50
wire.tsv|login_ms_p50|ms|lower|login p50
wire.tsv|login_round_trips|-|lower|round trips per login
wire.tsv|keyecho_ms_p50|ms|lower|keystroke echo p50
wire-maxstartups.tsv|auth_ms|ms|lower|time unauthenticated per login
wire-maxstartups.tsv|predicted_per_s|logins/s|higher|logins/s where MaxStartups begins to refuse"

# distance_rtts RUN: the RTT settings above 0 the run measured, one per
# line, in its order.
distance_rtts () {
	tsv_select "$1/raw/wire.tsv" rtt_ms 2>/dev/null | awk '$1 + 0 > 0' || :
}

# distance_wire RUN RTT: the wire of that distance, "MBIT Mbit/s, LOSS %
# loss" (what must be the same for two figures to be compared).
distance_wire () {
	tsv_select "$1/raw/wire.tsv" rtt_ms mbit loss_pct 2>/dev/null |
		awk -F'\t' -v d="$2" '$1 == d { printf "rate limit %s, loss %s %%\n", ($2 == "none" || $2 == "-") ? "none" : $2 " Mbit/s", $3; exit }'
}

# compare_distances A B: the section, on stdout.
compare_distances () {
	local a=$1 b=$2 ra rb d only_a="" only_b="" both="" line table col label unit dir va vb wa wb
	local -A A_CELL B_CELL
	ra=$(distance_rtts "$a")
	rb=$(distance_rtts "$b")
	[ -n "$ra" ] || [ -n "$rb" ] || return 0
	for d in $ra; do
		if grep -qxF -- "$d" <<<"$rb"; then both="$both $d"; else only_a="$only_a, $d ms"; fi
	done
	for d in $rb; do
		grep -qxF -- "$d" <<<"$ra" || only_b="$only_b, $d ms"
	done
	printf '\n## At your users'"'"' distance\n\n'
	cat <<-'EOF'
	Each figure at a distance is compared with the same figure at the same RTT setting, over a wire
	with the same rate limit and loss, in the other run; a distance that only one run measured is
	named, not compared. These figures rest on few logins each and have no interval between runs:
	the change is shown, not judged.

	EOF
	[ -z "$only_a" ] || printf -- '- Only in A (not compared): %s.\n' "${only_a#, }"
	[ -z "$only_b" ] || printf -- '- Only in B (not compared): %s.\n' "${only_b#, }"
	[ -z "$only_a$only_b" ] || printf '\n'
	if [ -z "$both" ]; then
		printf 'No RTT setting is in both runs: nothing at a distance is compared.\n'
		return 0
	fi
	printf '| RTT setting | Figure | A | B | Change | Better is |\n|---|---|---:|---:|---|---|\n'
	for d in $both; do
		wa=$(distance_wire "$a" "$d")
		wb=$(distance_wire "$b" "$d")
		if [ "$wa" != "$wb" ]; then
			printf '| %s ms | every figure | - | - | not compared: the wire differed (A: %s; B: %s) | - |\n' "$d" "$wa" "$wb"
			continue
		fi
		while IFS='|' read -r table col unit dir label; do
			tsv_load A_CELL "$a/raw/$table" rtt_ms
			tsv_load B_CELL "$b/raw/$table" rtt_ms
			va=${A_CELL[$d|$col]:-}
			vb=${B_CELL[$d|$col]:-}
			case $va in '' | - | nan) va=- ;; esac
			case $vb in '' | - | nan) vb=- ;; esac
			[ "$va" != - ] || [ "$vb" != - ] || continue
			line=$(awk -v a="$va" -v b="$vb" -v dir="$dir" 'BEGIN {
				if (a == "-" || b == "-") { print "not compared: measured in one run only"; exit }
				if (a + 0 == 0) { print "-"; exit }
				c = 100 * (b - a) / a
				w = (c == 0) ? "" : ((dir == "lower") == (c < 0)) ? " (better)" : " (worse)"
				printf "%+.1f %%%s\n", c, w }')
			printf '| %s ms | %s%s | %s | %s | %s | %s |\n' "$d" "$label" "$([ "$unit" = - ] || printf ' (%s)' "$unit")" \
				"$va" "$vb" "$line" "$dir"
		done <<<"$COMPARE_DISTANCE_FIGURES"
	done
}
