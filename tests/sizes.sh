#!/bin/sh
# sizes.sh — the longest functions and the largest .c files of src/, parsers/ and reports/
# (issue 26's figures; Universal Ctags gives each function's first and last line).
# Usage: tests/sizes.sh [N_FUNCTIONS [N_FILES]]   (default 15 and 10)
set -u
cd "$(dirname "$0")/.." || exit 2
nf=${1:-15}
nc=${2:-10}
files=$(ls src/*/*.c parsers/*.c reports/*.c 2>/dev/null)
echo "longest functions (lines):"
# shellcheck disable=SC2086  # files is a list of paths without blanks
ctags -x --_xformat='%N %F %n %{end}' --kinds-C=f --fields=+ne -o - $files 2>/dev/null |
	awk 'NF == 4 && $4 > 0 { printf "%6d  %s:%d %s\n", $4 - $3 + 1, $2, $3, $1 }' |
	sort -rn | head -n "$nf"
echo "largest files (lines):"
# shellcheck disable=SC2086
wc -l $files | grep -v ' total$' | sort -rn | head -n "$nc"
