#!/bin/sh
# lint.sh — `make lint`: the checks the compiler does not do.
#  1. banned string functions (sprintf, strcpy, strcat, gets, atoi, strtok) anywhere;
#  2. only src/cli/ prints or exits: no stderr, exit( or printf( in code outside it;
#  3. the include graph of the project's modules has no cycle (a module is a .c/.h pair; a
#     private header NAME_int.h belongs to module NAME);
#  4. no upward include between the layers base ← parsers ← engine ← reports ← batch ← cli, and
#     the simulator sees src/base and the kind table only (the build enforces it with per-layer
#     include paths; this names the offending line); no '..' in a quoted include
#     (#include "../../reports/fmt.h" walks around the include paths);
#  5. the same rule on the built objects (tests/layers.sh, nm): every project symbol a layer's
#     objects use is defined in that layer or below; skipped with a note when nothing is built
#     (`make lint` builds the objects first). BUILD names the build folder (default build);
#  6. the call graph between src/engine's modules has no cycle (tests/callcycles.sh, nm): a
#     helper two files need lives in a file below both;
#  7. the engine reads captures only through the reader interface (parser.h: reader_*, the
#     format's parser_ops): no file of src/engine calls a pdh_ function or includes pdh.h, so a
#     format that is not PDH-framed needs no engine change (the shared types pdh_column, pdh_row,
#     ... are no calls and stay allowed).
#  8. the size budget: tests/sizes.sh --check (a ratchet on long functions and wide lines).
# Comments and string literals are ignored (gcc -fpreprocessed strips comments).
set -u
cd "$(dirname "$0")/.." || exit 2
status=0
files=$(ls src/base/*.[ch] parsers/*.[ch] src/engine/*.[ch] reports/*.[ch] src/batch/*.[ch] src/cli/*.[ch] src/sim/*.[ch] 2>/dev/null)

code() { # the file without comments and with string literals emptied
	gcc -fpreprocessed -dD -E -P -x c "$1" 2>/dev/null | sed 's/"\([^"\\]\|\\.\)*"/""/g'
}

for f in $files; do
	c=$(code "$f")
	if printf '%s\n' "$c" | grep -nE '\b(sprintf|vsprintf|strcpy|strcat|gets|atoi|strtok)[[:space:]]*\(' >/dev/null; then
		echo "lint: $f: banned function: $(printf '%s\n' "$c" | grep -oE '\b(sprintf|vsprintf|strcpy|strcat|gets|atoi|strtok)[[:space:]]*\(' | head -1)"
		status=1
	fi
	case $f in src/cli/*) continue ;; esac
	hit=$(printf '%s\n' "$c" | grep -oE '\bstderr\b|\bexit[[:space:]]*\(|\bprintf[[:space:]]*\(' | sort -u | tr '\n' ' ')
	if [ -n "$hit" ]; then
		echo "lint: $f: only src/cli/ prints or exits: $hit"
		status=1
	fi
done

for f in $files; do
	hit=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*\.\.' "$f" | head -1)
	if [ -n "$hit" ]; then
		echo "lint: $f:${hit%%:*}: '..' in an include: name the header, the layer's include path finds it"
		status=1
	fi
done

layer() {
	case $1 in
	src/base/*) echo 0 ;; parsers/*) echo 1 ;; src/engine/*) echo 2 ;; reports/*) echo 3 ;;
	src/batch/*) echo 4 ;; src/cli/*) echo 5 ;; src/sim/*) echo 9 ;; *) echo -1 ;;
	esac
}
edges=$(mktemp) || exit 2
trap 'rm -f "$edges"' EXIT
for f in $files; do
	from=$(basename "$f" | sed 's/\.[ch]$//; s/_int$//')
	lf=$(layer "$f")
	for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		to=$(basename "$h" .h | sed 's/_int$//')
		target=$(ls src/base/"$h" parsers/"$h" src/engine/"$h" reports/"$h" src/batch/"$h" src/cli/"$h" "$(dirname "$f")/$h" 2>/dev/null | head -1)
		[ -n "$target" ] || continue
		lt=$(layer "$target")
		if [ "$lf" != 9 ] && [ "$lt" -gt "$lf" ]; then
			echo "lint: $f includes $h from a layer above it"
			status=1
		fi
		# the simulator: src/base and the kind table only
		if [ "$lf" = 9 ] && [ "$lt" != 0 ] && [ "$lt" != 9 ] && [ "$h" != kinds.h ]; then
			echo "lint: $f (simulator) includes $h: only src/base and kinds.h"
			status=1
		fi
		[ "$from" = "$to" ] || echo "$from $to" >>"$edges"
	done
done
if ! tsort "$edges" >/dev/null 2>"$edges.err"; then
	echo "lint: the include graph has a cycle:"
	sed 's/^/  /' "$edges.err"
	status=1
fi
rm -f "$edges.err"
for f in src/engine/*.[ch]; do
	hit=$(code "$f" | grep -oE '\bpdh_[A-Za-z0-9_]*[[:space:]]*\(' | sort -u | tr -d ' \t' | tr '\n' ' ')
	if [ -n "$hit" ]; then
		echo "lint: $f calls the PDH reader: $hit(read through reader_*, parser.h)"
		status=1
	fi
	hit=$(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"pdh\.h"' "$f" | head -1)
	if [ -n "$hit" ]; then
		echo "lint: $f:${hit%%:*}: includes pdh.h: the engine reads through parser.h (reader_*)"
		status=1
	fi
done
sh tests/layers.sh "${BUILD:-build}"
case $? in
0) ;;
2) echo "lint: layers: not checked (nothing built)" ;;
*) status=1 ;;
esac
sh tests/callcycles.sh "${BUILD:-build}"
case $? in
0) ;;
2) echo "lint: callcycles: not checked (nothing built)" ;;
*) status=1 ;;
esac
# 8. the size budget (tests/sizes.sh): no function newly at 150 lines or more, none of those
#    grown, no file with more lines over 120 columns than tests/size-allowance.txt allows
if ! sh tests/sizes.sh --check; then
	status=1
fi
# 9. every unit suite (tests/suites.h) is run by make check: named in the Makefile's UNIT_QUICK,
#    or one of the suites it runs on their own (compare) or in shards (UNIT_SHARDS)
suites=$(grep -oE 'X\([a-z_]+\)' tests/suites.h | sed 's/X(\(.*\))/\1/' | sort -u)
listed=$(sed -n -e '/^UNIT_SHARDS/,/^[^\t]/s/^\t//p' -e 's/^UNIT_QUICK *:= *//p' -e 's/^UNIT_SHARDS *:= *//p' Makefile |
	tr ' \\' '\n\n' | sed 's/\..*//' | sort -u)
for su in $suites; do
	[ "$su" = compare ] && continue
	if ! echo "$listed" | grep -qx "$su"; then
		echo "lint: unit suite '$su' (tests/suites.h) is not in the Makefile's UNIT_QUICK or UNIT_SHARDS: make check would not run it"
		status=1
	fi
done
[ $status -eq 0 ] && echo "lint: ok"
exit $status
