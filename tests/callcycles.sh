#!/bin/sh
# callcycles.sh — the call graph between the engine's modules has no cycle (tests/lint.sh runs
# it): an edge A -> B when src/engine/A.o uses a function src/engine/B.o defines (nm: a symbol
# of type T). A module is one .c file; a file's helpers that another file also needs belong in a
# file below both. Data (a table, a name list) is not a call: the detector table of detect.c
# names every family's functions, and the families read their own row of it.
# Usage: tests/callcycles.sh [BUILD_DIR] [-v]   (default build; exit 0 ok, 1 a cycle, 2 no objects;
# -v prints every edge with the symbols behind it)
set -u
B=${1:-build}
verbose=${2:-}
cd "$(dirname "$0")/.." || exit 2
objs=$(ls "$B"/src/engine/*.o 2>/dev/null)
if [ -z "$objs" ]; then
	echo "lint: callcycles: no objects in $B/src/engine (build them first: make iopsy)"
	exit 2
fi
edges=$(mktemp) || exit 2
trap 'rm -f "$edges" "$edges.err"' EXIT
# shellcheck disable=SC2086  # objs is a list of paths without blanks
nm -P -A $objs 2>/dev/null | awk -v verbose="$verbose" '
function mod(obj) { sub(/:$/, "", obj); sub(/.*\//, "", obj); sub(/\.o$/, "", obj); return obj }
{
	o = mod($1); sym = $2; type = $3
	if (type == "U") { nu++; uo[nu] = o; us[nu] = sym; next }
	if (type == "T" && !(sym in def)) def[sym] = o
}
END {
	for (i = 1; i <= nu; i++) {
		if (!(us[i] in def) || def[us[i]] == uo[i]) continue
		e = uo[i] " " def[us[i]]
		if (!(e in syms)) { order[++ne] = e; syms[e] = us[i] } else syms[e] = syms[e] "," us[i]
	}
	for (i = 1; i <= ne; i++) {
		print order[i]
		if (verbose == "-v") printf "%s: %s\n", order[i], syms[order[i]] > "/dev/stderr"
	}
}' >"$edges"
if ! tsort "$edges" >/dev/null 2>"$edges.err"; then
	echo "lint: callcycles: the call graph of src/engine has a cycle (A -> B: A.o calls a function B.o defines):"
	sed 's/^/  /' "$edges.err"
	exit 1
fi
exit 0
