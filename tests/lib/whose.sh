# shellcheck shell=bash
# Checks of a test's whose-time tables in a run folder (lib/capture.sh,
# docs/metrics.md "Whose time"), for the host tests of the metrics that
# split their logins: startup, reload.

# whose_adds_up RUN NAME LOGINS N: in RUN/raw, every ok login of the
# sshperf-login table LOGINS (exactly N of them) has its 15 rows in
# NAME-parts.tsv (5 phases x server, client, tcp_wait) and they add up to
# its total within 2 %; and its row of NAME-whose.tsv has sshd's turns,
# the client's, the TCP waits and the rest adding up to the same total
# within 2 %, with the rest itself within 2 % of it. Prints each login
# that does not, and false.
whose_adds_up () {
	local raw=$1/raw name=$2 logins=$3 want=$4
	if [ ! -s "$raw/$name-parts.tsv" ] || [ ! -s "$raw/$name-whose.tsv" ]; then
		echo "no $name-parts.tsv or $name-whose.tsv in $raw"
		return 1
	fi
	awk -F'\t' -v want="$want" '
		function abs(x) { return x < 0 ? -x : x }
		FNR == 1 { delete c; for (i = 1; i <= NF; i++) c[$i] = i; f++; next }
		f == 1 { if ($c["status"] == "ok") { total[$c["sample"]] = $c["total_ms"]; n++ }; next }
		f == 2 { s = $c["sample"]; sum[s] += $c["ms"]; rows[s]++; next }
		{
			s = $c["sample"]; whose[s] = 1
			four = $c["server_ms"] + $c["client_ms"] + $c["tcp_wait_ms"] + $c["rest_ms"]
			if (!(s in total) || abs(four - total[s]) > 0.02 * total[s] || abs($c["rest_ms"]) > 0.02 * total[s]) {
				printf "whose row of login %s: server %s + client %s + tcp_wait %s + rest %s ms, total %s ms\n",
					s, $c["server_ms"], $c["client_ms"], $c["tcp_wait_ms"], $c["rest_ms"], total[s]
				bad = 1
			}
		}
		END {
			if (n != want) { printf "%d ok logins, expected %d\n", n, want; bad = 1 }
			for (s in total) {
				if (rows[s] != 15 || abs(sum[s] - total[s]) > 0.02 * total[s] || !(s in whose)) {
					printf "login %s: %d part rows adding up to %s ms, total %s ms%s\n", s, rows[s], sum[s], total[s],
						(s in whose) ? "" : ", no whose row"
					bad = 1
				}
			}
			exit bad
		}' "$raw/$logins" "$raw/$name-parts.tsv" "$raw/$name-whose.tsv"
}
