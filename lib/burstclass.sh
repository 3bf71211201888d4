# shellcheck shell=bash
# The burst's clients classified from sshd's own log: shared by the burst
# test (lib/metrics/burst.sh, each step) and the target's merge of a load
# run (lib/bin/load-merge.sh, each load host's burst against the log of
# the target's watch). Needs lib/data.sh (tsv_header, tsv_select).

[ -z "${BURSTCLASS_SH_SOURCED:-}" ] || return 0
BURSTCLASS_SH_SOURCED=1

# The columns of raw/burst-step-N-class.tsv and
# raw/load-merge-HOST-burst-class.tsv (docs/data.md).
BURST_CLASS_COLUMNS="client class source outcome"

# burst_classify CLIENTS_TSV SERVER_LOG PORT OUT: each client of a step
# classified from the server's own log. Every gate reported the local
# address and port of its connection (columns local_addr, local_port of
# CLIENTS_TSV; a recording older than the source addresses has the port
# alone, and then the port decides), and sshd at LogLevel
# VERBOSE names them: "drop connection #N from [ADDR]:PORT on
# [ADDR]:TEST_PORT <reason>" when the listener turns the connection away
# (MaxStartups; penalties from 9.8), "Connection from ADDR port PORT on
# ADDR port TEST_PORT" when a session starts for it. A client that
# connected but that the log names in neither line was dropped without a
# line of its own (OpenSSH 10 rate-limits its drop lines: "Maxstartups
# logging rate-limited: additional N connections dropped"). The client's
# own message decides only where the log says nothing (no log at all, or
# the client never connected).
# Writes OUT.tsv, one row per client (BURST_CLASS_COLUMNS: outcome is the
# client's own), and OUT.env, key=value lines: ok refused failed timeout
# (the classification),
# client_refused (by the clients' messages), log (yes/no), log_named,
# log_unnamed, log_other_drops (drop lines for other connections),
# log_ratelimited (the N of rate-limit notes), penalty (drops for another
# reason than MaxStartups), disagree (clients whose own message says
# otherwise), pending (connected clients the log does not name yet).
burst_classify () {
	tsv_header "$BURST_CLASS_COLUMNS" >"$4.tsv"
	{ tsv_select "$1" client outcome local_port local_addr ||
		tsv_select "$1" client outcome local_port | sed 's/$/\t-/'; } |
		awk -F'\t' -v tport="$3" -v cols="$BURST_CLASS_COLUMNS" -v env="$4.env" -v logfile="$2" '
	function port_after(s, key,   i) {
		i = index(s, key)
		if (i == 0) return ""
		s = substr(s, i + length(key))
		if (s !~ /^[0-9]/) return ""
		return s + 0
	}
	# The server log first, line by line; then the clients, on stdin.
	BEGIN {
		while ((getline line <logfile) > 0) {
			if ((i = index(line, "drop connection #")) > 0) {
				s = substr(line, i)
				j = index(s, " from [")
				if (j == 0) continue
				s = substr(s, j + 7)
				a = substr(s, 1, index(s, "]") - 1)
				p = port_after(s, "]:")
				k = index(s, " on [")
				if (p == "" || k == 0) continue
				s = substr(s, k + 5)
				if (port_after(s, "]:") != tport + 0) continue
				seen = 1
				drop[a ":" p] = drop[p] = (tolower(s) ~ /maxstartups/) ? "maxstartups" : "other"
				continue
			}
			if ((i = index(line, "Connection from ")) > 0) {
				s = substr(line, i + 16)
				a = substr(s, 1, index(s, " ") - 1)
				p = port_after(s, " port ")
				k = index(s, " on ")
				if (p == "" || k == 0) continue
				if (port_after(substr(s, k), " port ") != tport + 0) continue
				seen = 1
				adm[a ":" p] = adm[p] = 1
				continue
			}
			if ((i = index(line, "logging rate-limited: additional ")) > 0) {
				ratelimited += substr(line, i + 33) + 0
				seen = 1
			}
		}
		close(logfile)
	}
	{
		client = $1; out = $2; lp = $3
		# The address and port together where the gate gave both:
		# clients from two sources may have the same port.
		if ($4 != "-" && $4 != "" && lp != "-" && lp != "") { lp = $4 ":" lp; byaddr = 1 }
		if (out == "refused") client_refused++
		if (!seen) { cls = out; src = "client" }
		else if (lp != "-" && lp != "" && (lp in drop)) {
			cls = "refused"; src = "server"; named++
			if (drop[lp] != "maxstartups") penalty++
			mine[lp] = 1
		} else if (lp != "-" && lp != "" && (lp in adm)) {
			cls = (out == "refused") ? "failed" : out; src = "server"
		} else if (lp != "-" && lp != "") {
			if (out == "ok" || out == "timeout") { cls = out; src = "client"; pending++ }
			else { cls = "refused"; src = "server (no line)"; unnamed++ }
		} else { cls = out; src = "client" }
		if ((cls == "refused") != (out == "refused")) disagree++
		count[cls]++
		row["client"] = client; row["class"] = cls; row["source"] = src; row["outcome"] = out
		n = split(cols, c, " ")
		for (i = 1; i <= n; i++) printf "%s%s", row[c[i]], (i < n ? "\t" : "\n")
	}
	END {
		for (p in drop) if ((index(p, ":") > 0) == (byaddr == 1) && !(p in mine)) other++
		printf "ok=%d\nrefused=%d\nfailed=%d\ntimeout=%d\n", count["ok"], count["refused"], count["failed"], count["timeout"] >env
		printf "client_refused=%d\nlog=%s\nlog_named=%d\nlog_unnamed=%d\n", client_refused, seen ? "yes" : "no", named, unnamed >env
		printf "log_other_drops=%d\nlog_ratelimited=%d\npenalty=%d\ndisagree=%d\npending=%d\n", other, ratelimited, penalty, disagree, pending >env
	}' >>"$4.tsv"
}
