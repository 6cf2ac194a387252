#!/bin/sh
# sizes.sh — the size budget of src/, parsers/ and reports/ (issue 33), as a ratchet that
# `make lint` runs: no function may newly reach 150 lines, a function already past it may not grow,
# and no file may gain lines over 120 columns (tabs count 8). tests/size-allowance.txt is today's
# list of what is over: it may only shrink (tests/sizes.sh --update rewrites it from the tree, for a
# change that shortened something; a change that grows something must split it instead).
# Universal Ctags gives each function's first and last line.
# Usage: tests/sizes.sh [--check | --update | N_FUNCTIONS [N_FILES]]
#   (no option: print the longest functions and the largest files; default 15 and 10)
set -u
cd "$(dirname "$0")/.." || exit 2
LIMIT=150
COLS=120
ALLOW=tests/size-allowance.txt
files=$(ls src/*/*.c src/*/*.h parsers/*.c parsers/*.h reports/*.c reports/*.h 2>/dev/null)
cfiles=$(ls src/*/*.c parsers/*.c reports/*.c 2>/dev/null)

funcs() { # "LINES FILE NAME" of every function
	# shellcheck disable=SC2086  # a list of paths without blanks
	ctags -x --_xformat='%N %F %n %{end}' --kinds-C=f --fields=+ne -o - $cfiles 2>/dev/null |
		awk 'NF == 4 && $4 > 0 { print $4 - $3 + 1, $2, $1 }'
}
wide() { # "COUNT FILE" of every file with lines over COLS columns
	for f in $files; do
		n=$(expand -t 8 "$f" | awk -v c=$COLS 'length($0) > c { n++ } END { print n + 0 }')
		[ "$n" -gt 0 ] && echo "$n $f"
	done
}
current() {
	echo "# tests/size-allowance.txt — what is over the size budget today (tests/sizes.sh): functions of"
	echo "# $LIMIT lines or more ('fn LINES FILE NAME') and files with lines over $COLS columns"
	echo "# ('cols COUNT FILE'). It may only shrink: see tests/sizes.sh."
	funcs | awk -v l=$LIMIT '$1 >= l { print "fn", $1, $2, $3 }' | sort -k3,3 -k4,4
	wide | awk '{ print "cols", $1, $2 }' | sort -k3,3
}

case ${1:-} in
--update)
	command -v ctags >/dev/null || { echo "sizes: ctags (universal-ctags) not found" >&2; exit 2; }
	current >"$ALLOW.tmp" && mv "$ALLOW.tmp" "$ALLOW"
	echo "sizes: $ALLOW: $(grep -c '^fn ' "$ALLOW") functions, $(grep -c '^cols ' "$ALLOW") files"
	exit 0 ;;
--check)
	command -v ctags >/dev/null || { echo "sizes: ctags (universal-ctags) not found: the size budget is not checked" >&2; exit 2; }
	[ -f "$ALLOW" ] || { echo "sizes: $ALLOW missing" >&2; exit 2; }
	current | awk -v allow="$ALLOW" -v l=$LIMIT -v c=$COLS '
		BEGIN { while ((getline line < allow) > 0) { split(line, f, " ");
			if (f[1] == "fn") fn[f[3] " " f[4]] = f[2]; else if (f[1] == "cols") cols[f[3]] = f[2] } }
		$1 == "fn" { k = $3 " " $4
			if (!(k in fn)) { printf "sizes: %s: %s has %d lines, past the budget of %d: split it\n", $3, $4, $2, l; bad = 1 }
			else if ($2 > fn[k]) { printf "sizes: %s: %s grew to %d lines (allowance %d): split it\n", $3, $4, $2, fn[k]; bad = 1 }
			else if ($2 < fn[k]) shrunk = shrunk "\n  " k " " fn[k] " -> " $2 }
		$1 == "cols" { a = ($3 in cols) ? cols[$3] : 0
			if ($2 > a) { printf "sizes: %s: %d lines over %d columns (allowance %d): wrap them (.clang-format)\n", $3, $2, c, a; bad = 1 } }
		END { if (shrunk != "") printf "sizes: shorter than the allowance (tests/sizes.sh --update tightens it):%s\n", shrunk
			exit bad }' || exit 1
	echo "sizes: ok"
	exit 0 ;;
esac
nf=${1:-15}
nc=${2:-10}
echo "longest functions (lines):"
funcs | sort -rn | head -n "$nf" | awk '{ printf "%6d  %s %s\n", $1, $2, $3 }'
echo "largest files (lines):"
# shellcheck disable=SC2086
wc -l $cfiles | grep -v ' total$' | sort -rn | head -n "$nc"
