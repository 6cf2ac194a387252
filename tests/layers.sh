#!/bin/sh
# layers.sh — the layer rule on the built objects (tests/lint.sh runs it): every symbol an
# object of a layer uses and the project defines is defined in that layer or one below it
# (doc/architecture.md: src/base < parsers < src/engine < reports < src/batch < src/cli).
# src/sim uses src/base, itself and the kind table (src/engine/kinds.o) only; src/cli may call
# the simulator (iopsy simulate). Symbols the project does not define (libc, libcsv, PCRE2, ...)
# are not checked. The include rule (lint.sh) catches an upward #include; this catches what it
# cannot: a prototype written by hand, an extern declared in the caller.
# Usage: tests/layers.sh [BUILD_DIR]   (default build; exit 0 ok, 1 violations, 2 no objects)
set -u
B=${1:-build}
cd "$(dirname "$0")/.." || exit 2
objs=
for d in src/base parsers src/engine reports src/batch src/cli src/sim; do
	for o in "$B/$d"/*.o; do
		[ -f "$o" ] && objs="$objs $o"
	done
done
if [ -z "$objs" ]; then
	echo "lint: layers: no objects in $B/ (build them first: make iopsy)"
	exit 2
fi
# shellcheck disable=SC2086  # objs is a list of paths without blanks
nm -P -A $objs 2>/dev/null | awk -v B="$B/" '
function layer(obj,   p) {
	p = substr(obj, length(B) + 1)
	if (p ~ /^src\/base\//) return 0
	if (p ~ /^parsers\//) return 1
	if (p ~ /^src\/engine\//) return 2
	if (p ~ /^reports\//) return 3
	if (p ~ /^src\/batch\//) return 4
	if (p ~ /^src\/cli\//) return 5
	if (p ~ /^src\/sim\//) return 9
	return -1
}
function name(l) {
	return l == 0 ? "src/base" : l == 1 ? "parsers" : l == 2 ? "src/engine" : l == 3 ? "reports" : \
	       l == 4 ? "src/batch" : l == 5 ? "src/cli" : "src/sim"
}
{
	obj = $1; sub(/:$/, "", obj)
	sym = $2; type = $3
	if (type == "U") { nu++; uobj[nu] = obj; usym[nu] = sym; next }
	# global definitions only (upper case; weak W/V too); the first one wins
	if (type ~ /^[A-Z]$/ && !(sym in def)) { def[sym] = obj }
}
END {
	bad = 0
	for (i = 1; i <= nu; i++) {
		sym = usym[i]
		if (!(sym in def)) continue          # libc and the libraries
		lu = layer(uobj[i]); ld = layer(def[sym])
		ok = 0
		if (lu == 9) ok = ld == 0 || ld == 9 || def[sym] ~ /\/src\/engine\/kinds\.o$/
		else if (lu == 5) ok = ld <= 5 || ld == 9
		else ok = ld >= 0 && ld <= lu
		if (!ok) {
			key = uobj[i] " " sym
			if (key in said) continue
			said[key] = 1
			printf "lint: layers: %s (%s) uses %s, defined in %s (%s): only its own layer and those below\n", \
			       uobj[i], name(lu), sym, def[sym], name(ld)
			bad = 1
		}
	}
	exit bad
}'
