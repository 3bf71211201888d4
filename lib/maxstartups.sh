# shellcheck shell=bash
# sshd's MaxStartups (start:rate:full): the one parser and the one model.
# lib/report/burst.sh, lib/report/capacity.sh and lib/charts.sh use them;
# tests/t04-maxstartups.sh holds the table test. (helpers/settings.c checks
# the MAX_STARTUPS setting when settings.conf is read; the table test
# checks that it accepts and refuses the same values.)
#
#   maxstartups_parse SPEC     "start rate full" on stdout, status 1 for a
#                              value sshd would refuse. SPEC is what sshd -T
#                              prints (start:rate:full) or sshd's short
#                              form "start" (rate 100, full start).
#   maxstartups_expected SPEC N...
#                              "N<TAB>expected clients let in" per N: N
#                              clients arrive at once and none has finished
#                              authenticating yet. Nothing (status 1) for a
#                              value maxstartups_parse refuses.
#   maxstartups_outcomes SPEC N...
#                              "N<TAB>P(all N let in)<TAB>P(N is the
#                              largest step all let in)" per step N, the
#                              steps run as separate bursts in this order,
#                              then "0<TAB>-<TAB>P(no step)".
#   maxstartups_of_run RUN     the MaxStartups the run's server had: the
#                              burst test's, the environment's (sshd -T),
#                              else the MAX_STARTUPS setting.

[ -z "${MAXSTARTUPS_SH_SOURCED:-}" ] || return 0
MAXSTARTUPS_SH_SOURCED=1

# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

maxstartups_parse () {
	local start rate full
	case $1 in
	*[!0-9:]* | '' | :* | *: | *::* | *:*:*:*) return 1 ;;
	*:*:*) IFS=: read -r start rate full <<<"$1" ;;
	*:*) return 1 ;;
	*) start=$1 rate=100 full=$1 ;;
	esac
	# Decimal even with leading zeros; sshd's own limits (servconf.c).
	start=$((10#$start)) rate=$((10#$rate)) full=$((10#$full))
	[ "$start" -le "$full" ] && [ "$full" -ge 1 ] && [ "$rate" -ge 1 ] && [ "$rate" -le 100 ] || return 1
	printf '%s %s %s\n' "$start" "$rate" "$full"
}

# sshd drops the next connection with probability
# rate + (100 - rate) * (pending - start) / (full - start) percent once
# start connections are pending, and every one at full. That formula, once,
# as an awk function of the pending count (start, rate and full are the
# awk program's globals): the chance that the next connection is let in.
MAXSTARTUPS_LET_IN_AWK='
function let_in(pending) {
	if (pending < start) return 1
	if (pending >= full) return 0
	return 1 - (rate + (100 - rate) * (pending - start) / (full - start)) / 100
}'

maxstartups_expected () {
	local parsed
	parsed=$(maxstartups_parse "$1") || return 1
	shift
	awk -v spec="$parsed" -v steps="$*" "$MAXSTARTUPS_LET_IN_AWK"'
	BEGIN {
		split(spec, m, " "); start = m[1] + 0; rate = m[2] + 0; full = m[3] + 0
		ns = split(steps, st, " ")
		for (s = 1; s <= ns; s++) {
			N = st[s] + 0
			delete P; P[0] = 1
			for (c = 1; c <= N; c++) {
				delete Q
				for (key in P) {
					k = key + 0
					pin = let_in(k)
					Q[k + 1] += P[key] * pin; Q[k] += P[key] * (1 - pin)
				}
				delete P; for (k in Q) P[k] = Q[k]
			}
			e = 0; for (k in P) e += k * P[k]
			printf "%d\t%.1f\n", N, e
		}
	}'
}

# The same model as maxstartups_expected: the chance that every one of N
# clients is let in is the product of the chances of the connections
# after the first start, each with the pending ones before it.
maxstartups_outcomes () {
	local parsed
	parsed=$(maxstartups_parse "$1") || return 1
	shift
	awk -v spec="$parsed" -v steps="$*" "$MAXSTARTUPS_LET_IN_AWK"'
	BEGIN {
		split(spec, m, " "); start = m[1] + 0; rate = m[2] + 0; full = m[3] + 0
		ns = split(steps, st, " ")
		for (s = 1; s <= ns; s++) {
			all[s] = 1
			for (k = 0; k < st[s] + 0; k++)
				all[s] *= let_in(k)
		}
		none = 1
		for (s = ns; s >= 1; s--) { res[s] = all[s] * none; none *= 1 - all[s] }
		for (s = 1; s <= ns; s++) printf "%d\t%.6g\t%.6g\n", st[s], all[s], res[s]
		printf "0\t-\t%.6g\n", none
	}'
}

maxstartups_of_run () {
	local spec
	spec=$(kv_cached "$1/data/burst.env" max_startups)
	[ -n "$spec" ] || spec=$(kv_cached "$1/data/environment.env" sshd_maxstartups)
	[ -n "$spec" ] || spec=$(kv_cached "$1/data/settings.env" MAX_STARTUPS | tr -d "'")
	printf '%s\n' "$spec"
}
