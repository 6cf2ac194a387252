#!/bin/sh
# stress.sh — the 2 GB streamed capture: bench/gen_esxtop writes an esxtop batch capture into a
# pipe (nothing is stored), `iopsy counters -` and `iopsy extract -` read it from stdin. Reports
# time, throughput and peak RSS (/usr/bin/time) and checks the row count and the RSS bound.
# Usage: tests/stress.sh BIN   Env: STRESS_COLUMNS=20000 STRESS_ROWS=(2 GB worth) STRESS_GZIP=1
#        (also through gzip -1), RSS_BOUND_KB=400000, TMPDIR
# Prints "stress: N passed, M failed".
set -u
BIN=$1
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export LC_ALL=C TZ=UTC
T=$(mktemp -d "${TMPDIR:-/tmp}/iopsy-stress.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
CC=${CC:-cc}
COLS=${STRESS_COLUMNS:-20000}
RSS_BOUND_KB=${RSS_BOUND_KB:-400000}
pass=0 fail=0
GEN=$T/gen_esxtop
$CC -std=c11 -O2 -o "$GEN" bench/gen_esxtop.c || { echo "stress: cannot build bench/gen_esxtop.c"; exit 2; }

# rows for ~2 GB: measure one small capture's bytes per row
"$GEN" "$COLS" 20 >"$T/probe.csv" || exit 2
hdr=$(head -1 "$T/probe.csv" | wc -c)
per_row=$(( ($(wc -c <"$T/probe.csv") - hdr) / 20 ))
ROWS=${STRESS_ROWS:-$(( (2 * 1024 * 1024 * 1024 - hdr) / per_row + 1 ))}
bytes=$(( hdr + ROWS * per_row ))
echo "stress: $COLS columns x $ROWS rows, about $((bytes / 1048576)) MiB, streamed through a pipe"

TIME=
[ -x /usr/bin/time ] && TIME="/usr/bin/time -f %e:%M -o $T/time"

# stage NAME CHECK-COMMAND... : runs "$GEN | [gzip |] iopsy ARGS" set up by the caller in $cmd
stage() {
	name=$1
	: >"$T/time"
	# shellcheck disable=SC2086
	if [ -n "${GZ:-}" ]; then
		"$GEN" "$COLS" "$ROWS" | gzip -1 | $TIME "$BIN" $ARGS >"$T/out" 2>"$T/err"
	else
		"$GEN" "$COLS" "$ROWS" | $TIME "$BIN" $ARGS >"$T/out" 2>"$T/err"
	fi
	rc=$?
	t=$(cut -d: -f1 "$T/time" 2>/dev/null); rss=$(cut -d: -f2 "$T/time" 2>/dev/null)
	t=${t:-?}; rss=${rss:-0}
	mbs=$(awk -v b="$bytes" -v t="$t" 'BEGIN { if (t + 0 > 0) printf "%.0f", b / 1048576 / t; else print "?" }')
	if [ $rc != 0 ]; then
		fail=$((fail + 1)); echo "stress: FAIL $name: exit $rc: $(head -c 300 "$T/err")"; return 1
	fi
	if [ "$rss" -gt "$RSS_BOUND_KB" ]; then
		fail=$((fail + 1)); echo "stress: FAIL $name: peak RSS $rss KB over $RSS_BOUND_KB KB"; return 1
	fi
	echo "stress: $name: $t s, $mbs MiB/s, peak RSS $((rss / 1024)) MiB"
	return 0
}

ARGS="counters -q -"
if stage counters; then
	if grep -q "^rows       $ROWS" "$T/out"; then pass=$((pass + 1))
	else fail=$((fail + 1)); echo "stress: FAIL counters: expected $ROWS rows: $(grep '^rows' "$T/out")"; fi
fi
ARGS="extract -q - --match Physical.Disk.SCSI.Device.*Average.Driver.MilliSec/Command -o $T/x.csv"
if stage extract; then
	n=$(($(wc -l <"$T/x.csv") - 1))
	if [ "$n" = "$ROWS" ]; then pass=$((pass + 1)); echo "stress: extract wrote $n rows x $(head -1 "$T/x.csv" | tr ',' '\n' | wc -l) columns"
	else fail=$((fail + 1)); echo "stress: FAIL extract: $n rows, expected $ROWS"; fi
fi
if [ -n "${STRESS_GZIP:-}" ]; then
	GZ=1 ARGS="counters -q -"
	if stage counters-gzip; then
		if grep -q "^rows       $ROWS" "$T/out"; then pass=$((pass + 1))
		else fail=$((fail + 1)); echo "stress: FAIL counters-gzip: row count"; fi
	fi
fi
echo "stress: $pass passed, $fail failed"
[ $fail = 0 ]
