# shellcheck shell=bash
# Reading this host's PAM stacks (/etc/pam.d), includes and substacks
# followed, 8 deep at most: which modules sshd's stack holds (the
# environment section, the auth test's reading of the password gap), and
# the options of pam_unix in chpasswd's password stack (the scheme new
# passwords get).
#
#   pam_lines SERVICE TYPE    one line per module: FILE<TAB>MODULE ARGS...
#                             (MODULE without its path and .so)
#   pam_modules SERVICE TYPE  the module names, one a line ("pam_unix")

pam_lines () {
	local svc=$1 type=$2 depth=${3:-0} file line t ctl mod
	file=/etc/pam.d/$svc
	[ -f "$file" ] && [ "$depth" -le 8 ] || return 0
	while read -r line; do
		case $line in '' | '#'*) continue ;; esac
		if [ "${line%% *}" = @include ]; then
			pam_lines "${line#@include }" "$type" $((depth + 1))
			continue
		fi
		t=${line%%[[:space:]]*}
		[ "${t#-}" = "$type" ] || continue
		line=${line#*[[:space:]]}
		line=${line#"${line%%[![:space:]]*}"}
		if [ "${line:0:1}" = '[' ]; then
			ctl=${line%%]*}
			line=${line#*]}
		else
			ctl=${line%%[[:space:]]*}
			line=${line#"$ctl"}
		fi
		line=${line#"${line%%[![:space:]]*}"}
		mod=${line%%[[:space:]]*}
		case $ctl in
		include | substack) pam_lines "$mod" "$type" $((depth + 1)) ;;
		*)
			line=${line#"$mod"}
			mod=${mod##*/}
			printf '%s\t%s%s\n' "$file" "${mod%.so}" "$line"
			;;
		esac
	done <"$file"
}

pam_modules () {
	local file mod
	pam_lines "$1" "$2" | while IFS=$'\t' read -r file mod; do printf '%s\n' "${mod%% *}"; done
}
