#!/bin/sh
# busy.sh — analyze's memory and time on hosts of many busy devices (doc/limits.md, "Busy
# devices"), and its speed on the bundled samples and a 60,000-column capture, for ./iopsy and
# optionally an older binary measured in the same run, runs interleaved (best of BUSY_RUNS).
# Usage: sh bench/busy.sh   Env: IOPSY=./iopsy IOPSY_BEFORE=(none) BUSY_DEVICES="2000 20000"
#        BUSY_RUNS=3 BUSY_WORK=bench/work/busy (1.4 GB for 20,000 devices; kept)
# Prints one line per input and binary: peak RSS (KB), best wall time (s), and the ratio
# after/before when IOPSY_BEFORE is given.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
export LC_ALL=C TZ=UTC
IOPSY=${IOPSY:-./iopsy}
BEFORE=${IOPSY_BEFORE:-}
RUNS=${BUSY_RUNS:-3}
W=${BUSY_WORK:-bench/work/busy}
mkdir -p "$W"
[ -x /usr/bin/time ] || { echo "busy.sh: needs GNU time (/usr/bin/time)" >&2; exit 3; }

[ -f "$W/sat/esxtop.csv" ] || "$IOPSY" simulate --scenario backend-saturated --only esxtop --out "$W/sat" >/dev/null
[ -f "$W/wide/esxtop.csv" ] || "$IOPSY" simulate --scenario healthy --width 60000 --out "$W/wide" >/dev/null
inputs=""
for n in ${BUSY_DEVICES:-2000 20000}; do
	[ -f "$W/busy$n.csv" ] || python3 bench/busy_host.py "$W/sat/esxtop.csv" "$n" "$W/busy$n.csv"
	inputs="$inputs $W/busy$n.csv"
done
for s in samples/*/esxtop.csv.gz samples/migration/before/esxtop.csv.gz; do
	[ -f "$s" ] && inputs="$inputs $(dirname "$s")"
done
inputs="$inputs $W/wide"

for in in $inputs; do
	# a folder: its captures (esxtop and perfmon)
	if [ -d "$in" ]; then
		args=$(ls "$in"/*.csv* 2>/dev/null | tr '\n' ' ')
	else
		args=$in
	fi
	# the samples take milliseconds: timed 20 analyses at a time
	rep=1
	case $in in samples/*) rep=20 ;; esac
	# shellcheck disable=SC2086
	a=$(best=""; rss=0; i=0; while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f '%e %M' -o "$W/t" sh -c 'n=$1; shift; while [ $n -gt 0 ]; do "$@" >/dev/null || true; n=$((n - 1)); done' - $rep "$IOPSY" analyze $args 2>"$W/err" || true
		read -r s k <"$W/t"; best=$(awk -v a="$best" -v b="$s" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
		[ "$k" -gt "$rss" ] && rss=$k
		if [ -n "$BEFORE" ]; then
			/usr/bin/time -f '%e %M' -o "$W/tb" sh -c 'n=$1; shift; while [ $n -gt 0 ]; do "$@" >/dev/null || true; n=$((n - 1)); done' - $rep "$BEFORE" analyze $args 2>"$W/errb" || true
			read -r sb kb <"$W/tb"; echo "$sb $kb" >>"$W/before.$$"
		fi
		i=$((i + 1)); done; echo "$best $rss")
	name=$in
	case $in in samples/*) name="$in (x$rep)" ;; esac
	line="$name: after ${a% *} s ${a#* } KB"
	if [ -n "$BEFORE" ]; then
		b=$(awk 'NR == 1 || $1 < t { t = $1 } $2 > r { r = $2 } END { print t, r }' "$W/before.$$")
		rm -f "$W/before.$$"
		line="$line; before ${b% *} s ${b#* } KB; time ratio $(awk -v x="${a% *}" -v y="${b% *}" 'BEGIN { printf "%.2f", (y > 0) ? x / y : 0 }'), RSS ratio $(awk -v x="${a#* }" -v y="${b#* }" 'BEGIN { printf "%.2f", (y > 0) ? x / y : 0 }')"
	fi
	echo "$line"
done
