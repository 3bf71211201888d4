# shellcheck shell=bash disable=SC2016
# (SC2016: the awk program is in single quotes on purpose.)
# Comparing runs, the words: the one place where a decision of
# judge_decide (lib/compare/rules.sh, lib/compare/whose.sh: key=value
# lines, docs/data.md "compare-RUN.tsv") becomes a sentence, for
# --compare, the report's change column and results.json. Nothing here
# decides: every answer is the decision's word and rule; only the figures
# are put in words (a shift as a share of its median, for one). Sourced
# by lib/compare.sh.

# judge_word DATA: the decision's word (DATA: judge_decide's lines) in
# words, for results.json and the stability bench: "significantly
# better", "significantly worse", "no significant change", "not judged",
# or nothing for no decision.
judge_word () {
	case $(judge_get "$1" word) in
	'') ;;
	better) printf 'significantly better' ;;
	worse) printf 'significantly worse' ;;
	unchanged) printf 'no significant change' ;;
	*) printf 'not judged' ;;
	esac
}

# judge_text: judge_decide's lines on stdin as one sentence on stdout,
# written by the decision's rule.
judge_text () {
	awk -v rounds="$COMPARE_ROUNDS_NEEDED" '
	{ k = $0; sub(/=.*/, "", k); v[k] = substr($0, length(k) + 2) }
	function word(w) {
		return w == "better" ? "significantly better" : (w == "worse" ? "significantly worse" : \
			(w == "unchanged" ? "no significant change" : "not judged"))
	}
	function ms(f) { return v["unit"] == "ms" ? sprintf(f, v["floor"]) : "" }
	# part(PRE): what a part of the whose-time split did (whose_part).
	function part(pre,   base, s) {
		base = v[pre "_median_a"] + 0
		s = sprintf("%s of the same logins moved %+.1f %% (95 %% %+.1f to %+.1f %%, median %.4g and %.4g, n %d and %d)", \
			pre == "over" ? "sshd'"'"'s part over the ssh client'"'"'s" : (pre == "own" ? "sshd'"'"'s own part" : "sshd'"'"'s turns outside authentication"), \
			v[pre "_shift"] / base * 100, v[pre "_shift_lo"] / base * 100, v[pre "_shift_hi"] / base * 100, \
			v[pre "_median_a"], v[pre "_median_b"], v[pre "_n_a"], v[pre "_n_b"])
		if (pre != "over")
			s = s sprintf(", by %+.4g ms (95 %% %+.4g to %+.4g ms)", v[pre "_shift"], v[pre "_shift_lo"], v[pre "_shift_hi"])
		return s
	}
	function phase() {
		if (v["phase"] == "") return ""
		return sprintf("; sshd'"'"'s turns moved most in %s: %+.4g ms (95 %% %+.4g to %+.4g ms)", v["phase"], v["phase_shift"], v["phase_shift_lo"], v["phase_shift_hi"])
	}
	function rank(   base, ci, how) {
		base = v["median_a"] + 0
		how = v["how"] == "rounds" ? "rank test of the rounds'"'"' figures" : "rank test of the samples"
		ci = v["shift_lo"] == "" || v["shift_hi"] == "" ? "95 % interval not known" : \
			sprintf("95 %% %+.4g to %+.4g (at least %+.1f %%)", v["shift_lo"], v["shift_hi"], v["near_pct"])
		return sprintf("%s: shift %+.4g %s (%+.1f %% of the median), %s, p %.2g, n %d and %d; threshold %s %%%s%s for all of the interval", \
			how, v["shift"], v["unit"], base != 0 ? v["shift"] / base * 100 : 0, ci, v["p"], v["n_a"], v["n_b"], v["threshold"], \
			v["noise"] != "" && v["noise"] + 0 == v["threshold"] + 0 ? sprintf(" (the between-run noise of single runs, lib/metrics.tab; REPEAT=%d on both sides judges smaller changes)", rounds) : "", \
			ms(" and %s ms"))
	}
	function gap(   g) {
		g = v["gap"] + 0
		return v["apart"] == "yes" ? sprintf("apart by %.4g (%+.1f %%)", g < 0 ? -g : g, v["gap_pct"]) : "overlap"
	}
	END {
		r = v["rule"]; w = word(v["word"]); th = v["threshold"]
		if (r == "too-few") { print "too few samples: not judged"; exit }
		if (r == "rank") { printf "%s (%s)\n", w, rank(); exit }
		if (r == "whose-part") {
			other = v[v["part"] "_moved"] == "other"
			printf "no significant change (%s, %s: %s; %s)\n", part(v["part"]), \
				other ? "past the threshold " th " % but the other way than the whole logins" : "its near end less than the threshold " th " %", \
				v["part"] == "over" ? (other ? "the client'"'"'s part, on the same CPUs in the same seconds, moved more than sshd'"'"'s, so the machine or the client did, not sshd" : \
					"the client, on the same CPUs in the same seconds, moved with sshd, so the machine did, not sshd") : \
				"the change is the client'"'"'s or the TCP waits'"'"', not sshd'"'"'s", rank()
			exit
		}
		if (r == "whose-steps") {
			printf "no significant change (sshd'"'"'s padding: the authentication turns of both runs sat on the same two steps, about %s and %s ms, %d of %d logins on the upper one against %d of %d; which step a login lands on follows the machine'"'"'s speed as much as sshd'"'"'s work, so this is no evidence of a change in sshd (a change of a few ms in its authentication work would look the same: REPEAT on both sides, docs/metrics.md); %s, not past the threshold; %s)\n", \
				v["steps_low"], v["steps_high"], v["steps_up_a"], v["steps_n_a"], v["steps_up_b"], v["steps_n_b"], part("outside"), rank()
			exit
		}
		if (r == "whose-own") {
			if (v["whole"] == "yes") printf "%s (%s; %s%s; %s, past the threshold: sshd, not the machine)\n", w, rank(), part("own"), phase(), part("over")
			else printf "%s (%s, not met by the whole logins, whose client part and TCP waits move between runs, but by sshd'"'"'s: %s%s; %s, past the threshold: sshd, not the machine)\n", w, rank(), part("own"), phase(), part("over")
			exit
		}
		if (r == "whose-caution") {
			if (v["over_moved"] == "yes") printf "%s (%s%s; %s, past the threshold: sshd, not the machine)\n", w, rank(), phase(), part("over")
			else printf "%s (%s%s; caution: %s, not past the threshold %s %%: the ssh client, unchanged, moved with sshd, as when the machine'"'"'s speed changed between the runs; unless the setting changes the client'"'"'s work too (Ciphers, MACs, KexAlgorithms, the crypto policy), compare each setup with itself first, docs/try-a-change.md)\n", \
				w, rank(), phase(), part("over"), th
			exit
		}
		below = sprintf("the change %+.1f %% is below the threshold %s %%%s", v["change_pct"], th, ms(" or %s ms"))
		ivs = sprintf("intervals %s-%s and %s-%s %s", v["lo_a"], v["hi_a"], v["lo_b"], v["hi_b"], gap())
		nd = v["intervals"] == "yes" ? ivs : "no interval"
		noise = sprintf("between-run noise of single runs %s %% (lib/metrics.tab, measured by make stability; REPEAT=%d on both sides judges smaller changes)", v["noise"], rounds)
		chg = sprintf("the change %+.1f %%", v["change_pct"])
		if (r == "noise-within") printf "no significant change (%s is within the %s; %s)\n", chg, noise, nd
		else if (r == "noise-machine")
			printf "no significant change (%s is past the %s, but the ssh clients'"'"' CPU per login in the same seconds moved %+.1f %% with it and sshd'"'"'s over theirs only %+.1f %% (%s to %s), less than the threshold %s %%: the machine, not sshd; %s)\n", \
				chg, noise, v["client_change_pct"], v["ratio_change_pct"], v["ratio_a"], v["ratio_b"], th, nd
		else if (r == "noise-gap") printf "no significant change (%s is past the %s, but the gap between the intervals is not; %s)\n", chg, noise, nd
		else if (r == "noise-past") printf "%s (%s is past the %s%s; %s)\n", w, chg, noise, v["intervals"] == "yes" ? ", and so is the gap between the intervals" : "", nd
		else if (r == "no-interval-under") printf "no significant change (%s; no interval)\n", below
		else if (r == "no-interval") print "no interval: not judged"
		else {
			ivs = ivs sprintf("; threshold %s %%%s for the gap between them", th, ms(" and %s ms"))
			if (r == "one-run-under") printf "no significant change (%s; %s)\n", below, ivs
			else if (r == "one-run")
				printf "single runs: not judged (%s, from each run'"'"'s %s: how steady that run was, not how far two runs of one setup land apart; REPEAT=%d on both sides compares the rounds'"'"' figures)\n", \
					ivs, v["one"] == "windows" ? "CPU windows" : (v["one"] == "chunks" ? "transfer parts" : "sweep steps"), rounds
			else {
				if (v["model"] == "yes")
					ivs = ivs "; the ranges are the MaxStartups model'"'"'s for each run'"'"'s setting, so identical settings give the same range: this row tells settings apart, not runs"
				printf "%s (%s)\n", w, ivs
			}
		}
	}'
}
