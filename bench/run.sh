#!/bin/sh
# bench/run.sh — time `iopsy extract` (and `iopsy analyze` when it exists) on generated esxtop-shaped
# captures against wc -l (floor), a mawk one-liner and pandas read_csv(usecols=...), and check the
# streaming targets of issue 2. See bench/README.md.
#
#   sh bench/run.sh              full run (shapes a b c)
#   sh bench/run.sh --selfcheck  check on a tiny file that the mawk and pandas baselines (and iopsy
#                                extract, when built) compute the same per-column count/mean/max
#
# Environment: IOPSY (binary, default ./iopsy), BENCH_SHAPES (default "a b c"), BENCH_ROWS_SCALE
# (default 1), BENCH_RUNS (default 3), BENCH_KEEP=1 (keep generated files), BENCH_WORK (default
# bench/work), BENCH_PYTHON (default /usr/bin/python3), CC (default cc).
#
# Exit status: 0 when everything could be measured (even if a target FAILs: this is a measurement),
# 1 when --selfcheck finds a disagreement, 3 when something could not run (missing tool or binary,
# a command failed).
set -u

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=${BENCH_WORK:-$BENCH_DIR/work}
RUNS=${BENCH_RUNS:-3}
SCALE=${BENCH_ROWS_SCALE:-1}
SHAPES=${BENCH_SHAPES:-a b c}
KEEP=${BENCH_KEEP:-0}
PY=${BENCH_PYTHON:-/usr/bin/python3}
CC=${CC:-cc}
IOPSY=${IOPSY:-./iopsy}
REGEX='Average (Driver|Kernel|Guest) MilliSec/Command'

# Shapes: columns rows (before BENCH_ROWS_SCALE). a: ~190 MB, ~7.3 bytes per value like real captures.
shape_cols() { case $1 in a | c) echo 13000 ;; b) echo 50000 ;; *) echo 0 ;; esac; }
shape_rows() { case $1 in a) echo 2000 ;; b) echo 200 ;; c) echo 20000 ;; *) echo 0 ;; esac; }

# Targets (issue 2).
T_VS_MAWK=1
T_VS_PANDAS=5
T_RSS_MIB=64
T_GROWTH_PCT=20

MODE=bench
case ${1:-} in
--selfcheck) MODE=selfcheck ;;
-h | --help)
	sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
'') ;;
*)
	echo "usage: sh bench/run.sh [--selfcheck]" >&2
	exit 2
	;;
esac

say() { printf '%s\n' "$*" >&2; }
fatal() {
	say "bench: $*"
	exit 3
}

# ------------------------------------------------------------------ baselines
# mawk: header -> indexes of the columns whose unquoted name matches re (column `skip` excluded);
# rows -> per column count / mean / max of the numeric cells (empty or non-numeric cells skipped).
AWK_PROG='
NR == 1 {
	for (i = 1; i <= NF; i++) {
		h = $i; gsub(/"/, "", h)
		if (i != skip && h != "" && h ~ re) { n++; col[n] = i; name[n] = h }
	}
	next
}
{
	for (k = 1; k <= n; k++) {
		v = $(col[k]); gsub(/"/, "", v)
		if (v !~ /^[-+]?([0-9]|\.[0-9])/) continue
		v += 0; c[k]++; s[k] += v
		if (c[k] == 1 || v > m[k]) m[k] = v
	}
}
END {
	for (k = 1; k <= n; k++)
		if (c[k]) printf "%s\t%d\t%.10g\t%.10g\n", name[k], c[k], s[k] / c[k], m[k]
		else printf "%s\t0\tnan\tnan\n", name[k]
}'

# pandas: read_csv(usecols=<names matching the regex>), then per column count / mean / max.
PY_PROG='
import re, sys
import pandas as pd
path, rx = sys.argv[1], re.compile(sys.argv[2])
df = pd.read_csv(path, usecols=lambda c: rx.search(c) is not None)
out = []
for name in df.columns:
    s = df[name]
    if s.dtype == object:
        s = pd.to_numeric(s, errors="coerce")
    n = int(s.count())
    if n:
        out.append("%s\t%d\t%.10g\t%.10g" % (name, n, s.mean(), s.max()))
    else:
        out.append("%s\t0\tnan\tnan" % name)
sys.stdout.write("\n".join(out) + ("\n" if out else ""))
'

# Compare two count/mean/max tables: by name (positional=0) or by position (positional=1).
CMP_PROG='
function rel(a, b) { if (a == b) return 0; d = a - b; if (d < 0) d = -d; if (a < 0) a = -a; if (b < 0) b = -b; return d / (a > b ? a : b) }
function same(a, b) { return (a == "nan" && b == "nan") || (a != "nan" && b != "nan" && rel(a + 0, b + 0) <= 1e-9) }
FNR == NR { na++; key = positional ? na : $1; A[key] = $0; an[na] = $1; next }
{
	nb++; key = positional ? nb : $1
	if (!(key in A)) { print "only in " fb ": " $1; bad++; next }
	split(A[key], a, "\t")
	if (a[2] != $2 || !same(a[3], $3) || !same(a[4], $4)) {
		print "differ: " $1 "\n  " fa ": n=" a[2] " mean=" a[3] " max=" a[4] "\n  " fb ": n=" $2 " mean=" $3 " max=" $4
		bad++
	}
	if (positional && a[1] != $1) renamed++
	seen[key] = 1
}
END {
	for (k in A) if (!(k in seen)) { split(A[k], a, "\t"); print "only in " fa ": " a[1]; bad++ }
	if (renamed) print "note: " renamed " column names differ between " fa " and " fb " (compared by position)"
	print (bad ? "MISMATCH" : "OK") " " na " vs " nb " columns"
	exit bad ? 1 : 0
}'

# ------------------------------------------------------------------ tools
[ -x /usr/bin/time ] || fatal "/usr/bin/time not found: apt-get install -y time"
/usr/bin/time -v true >/dev/null 2>&1 || fatal "/usr/bin/time does not support -v (need GNU time: apt-get install -y time)"
command -v mawk >/dev/null 2>&1 || fatal "mawk not found: apt-get install -y mawk"
command -v "$CC" >/dev/null 2>&1 || fatal "C compiler '$CC' not found: apt-get install -y gcc"
HAVE_PANDAS=0
if [ -x "$PY" ] && "$PY" -c 'import pandas' >/dev/null 2>&1; then
	HAVE_PANDAS=1
else
	say "bench: pandas unavailable with $PY: pandas baseline SKIPPED (apt-get install -y python3-pandas)"
fi
case $IOPSY in
/*) ;;
*) [ -x "$IOPSY" ] || { [ "$IOPSY" = ./iopsy ] && [ -x "$ROOT/iopsy" ] && IOPSY=$ROOT/iopsy; } ;;
esac
HAVE_IOPSY=0
HAVE_ANALYZE=0
if [ -x "$IOPSY" ]; then
	HAVE_IOPSY=1
	"$IOPSY" analyze --help >/dev/null 2>&1 && HAVE_ANALYZE=1
else
	say "bench: iopsy binary not found at '$IOPSY' (build with 'make', or set IOPSY=/path/to/iopsy)"
fi

mkdir -p "$WORK" || fatal "cannot create $WORK"
GEN=$WORK/gen_esxtop
if [ ! -x "$GEN" ] || [ "$BENCH_DIR/gen_esxtop.c" -nt "$GEN" ]; then
	"$CC" -std=c11 -O2 -o "$GEN" "$BENCH_DIR/gen_esxtop.c" || fatal "cannot compile bench/gen_esxtop.c"
fi

now_ns() { date +%s%N; }
fsize() { wc -c <"$1" | tr -d ' '; }

# ------------------------------------------------------------------ self-check
if [ "$MODE" = selfcheck ]; then
	F=$WORK/selfcheck.csv
	"$GEN" 1000 60 7 -o "$WORK/selfcheck.raw" || fatal "generator failed"
	# one non-numeric cell in the first matched column (row 5): must be skipped like an empty one
	mawk -F, -v OFS=, -v "re=$REGEX" 'NR == 1 { for (i = 2; i <= NF; i++) if ($i ~ re) { c = i; break } }
		NR == 6 { $c = "\"n/a\"" } { print }' "$WORK/selfcheck.raw" >"$F" || fatal "mawk failed"
	rm -f "$WORK/selfcheck.raw"
	mawk -v "re=$REGEX" -v skip=1 -F, "$AWK_PROG" "$F" >"$WORK/sc-mawk.tsv" || fatal "mawk baseline failed"
	say "selfcheck: $(wc -l <"$WORK/sc-mawk.tsv" | tr -d ' ') matched columns, $(awk -F'\t' '{s += 60 - $2} END {print s}' "$WORK/sc-mawk.tsv") missing (empty or non-numeric) cells, file $(fsize "$F") bytes"
	rc=0
	if [ $HAVE_PANDAS = 1 ]; then
		"$PY" -c "$PY_PROG" "$F" "$REGEX" >"$WORK/sc-pandas.tsv" || fatal "pandas baseline failed"
		printf 'selfcheck mawk vs pandas: ' >&2
		awk -F'\t' -v positional=0 -v fa=mawk -v fb=pandas "$CMP_PROG" "$WORK/sc-mawk.tsv" "$WORK/sc-pandas.tsv" >&2 || rc=1
	else
		say "selfcheck mawk vs pandas: SKIPPED (no pandas)"
	fi
	if [ $HAVE_IOPSY = 1 ]; then
		if "$IOPSY" extract "$F" --match "$REGEX" -o "$WORK/sc-extract.csv" 2>"$WORK/sc-extract.err"; then
			mawk -v re=. -v skip=1 -F, "$AWK_PROG" "$WORK/sc-extract.csv" >"$WORK/sc-iopsy.tsv"
			printf 'selfcheck mawk vs iopsy extract output: ' >&2
			awk -F'\t' -v positional=1 -v fa=mawk -v fb=iopsy "$CMP_PROG" "$WORK/sc-mawk.tsv" "$WORK/sc-iopsy.tsv" >&2 || rc=1
		else
			say "selfcheck iopsy extract: FAILED: $(head -3 "$WORK/sc-extract.err")"
			rc=3
		fi
	else
		say "selfcheck iopsy extract: SKIPPED (no binary)"
	fi
	[ "$KEEP" = 1 ] || rm -f "$F" "$WORK"/sc-*
	[ $rc = 0 ] && say "selfcheck: PASS" || say "selfcheck: FAIL"
	exit $rc
fi

# ------------------------------------------------------------------ measurement
RESULTS=$WORK/results.tsv
: >"$RESULTS"
rm -f "$WORK/shapes.tsv.new"
STATUS=0

# measure SHAPE TOOL RUNS CMD... : best wall time of RUNS runs (ns), max peak RSS (KiB) of the runs.
measure() {
	m_shape=$1 m_tool=$2 m_n=$3
	shift 3
	m_best='' m_rss=0 m_rc=0 m_i=0
	while [ $m_i -lt "$m_n" ]; do
		m_i=$((m_i + 1))
		m_t0=$(now_ns)
		/usr/bin/time -v -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/err.txt"
		m_rc=$?
		m_t1=$(now_ns)
		if [ $m_rc -ne 0 ]; then
			say "bench: $m_tool on shape $m_shape FAILED (exit $m_rc): $*"
			sed -n '1,5p' "$WORK/err.txt" | sed 's/^/    /' >&2
			STATUS=3
			break
		fi
		m_dt=$((m_t1 - m_t0))
		m_r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
		if [ -z "$m_best" ] || [ $m_dt -lt "$m_best" ]; then m_best=$m_dt; fi
		if [ "${m_r:-0}" -gt $m_rss ]; then m_rss=$m_r; fi
	done
	if [ $m_rc -eq 0 ]; then
		printf '%s\t%s\t%s\t%s\n' "$m_shape" "$m_tool" "$m_best" "$m_rss" >>"$RESULTS"
		say "   $(printf '%-16s' "$m_tool") $(awk -v t="$m_best" -v r="$m_rss" 'BEGIN {printf "%.3f s  %.1f MiB", t / 1e9, r / 1024}')"
	else
		printf '%s\t%s\tFAILED\t0\n' "$m_shape" "$m_tool" >>"$RESULTS"
	fi
}

# ---- how iopsy writes to /dev/null
# An output path is normally written atomically (temp file + rename). Run as root on /dev/null that
# would replace the device node with a regular file, so first check on a private copy of the null
# device that `-o PATH` / `--json PATH` writes into an existing device; otherwise write to stdout
# (`-o -`, `--json -`) redirected to /dev/null, which costs the same.
EXTRACT_OUT=/dev/null
ANALYZE_OUT=/dev/null
probe_devnull() { # probe_devnull OPTION SUBCOMMAND [ARGS...] -> 0 when the device survives
	p_opt=$1
	shift
	p_dev=$WORK/probe-null
	rm -f "$p_dev" "$p_dev".tmp.*
	mknod "$p_dev" c 1 3 2>/dev/null || return 1
	"$IOPSY" "$@" "$p_opt" "$p_dev" >/dev/null 2>&1
	[ -c "$p_dev" ]
	p_r=$?
	rm -f "$p_dev" "$p_dev".tmp.*
	return $p_r
}
if [ $HAVE_IOPSY = 1 ]; then
	"$GEN" 1000 20 -o "$WORK/probe.csv" || fatal "generator failed"
	if ! probe_devnull -o extract "$WORK/probe.csv" --match "$REGEX"; then
		EXTRACT_OUT=-
		say "bench: WARNING: 'iopsy extract -o DEVICE' does not write into the device (atomic rename would"
		say "       replace it): measuring 'iopsy extract ... -o -' with stdout to /dev/null instead"
	fi
	if [ $HAVE_ANALYZE = 1 ] && ! probe_devnull --json analyze "$WORK/probe.csv"; then
		ANALYZE_OUT=-
		say "bench: WARNING: 'iopsy analyze --json DEVICE' does not write into the device: measuring"
		say "       'iopsy analyze ... --json -' with stdout to /dev/null instead"
	fi
	rm -f "$WORK/probe.csv"
fi

# ---- machine and versions
echo "== iopsy bench  $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/MemTotal/ {printf "%.1f GiB RAM", $2 / 1048576}' /proc/meminfo), Linux $(uname -r), Debian $(cat /etc/debian_version 2>/dev/null || echo '?')"
echo "tools:   $(wc --version | head -1); mawk $(mawk -W version 2>&1 | head -1 | awk '{print $2, $3}'); GNU time $(dpkg-query -W -f='${Version}' time 2>/dev/null || echo '?'); $("$CC" --version | head -1)"
if [ $HAVE_PANDAS = 1 ]; then
	echo "         $("$PY" -c 'import sys, pandas, numpy; print("python %s, pandas %s, numpy %s" % (sys.version.split()[0], pandas.__version__, numpy.__version__))')"
fi
if [ $HAVE_IOPSY = 1 ]; then
	IV=$("$IOPSY" --version 2>/dev/null | head -1)
	GV=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo 'no commit')
	echo "iopsy:   $IOPSY  ${IV:-(no --version)}  [git $GV]  analyze: $([ $HAVE_ANALYZE = 1 ] && echo yes || echo 'not yet')"
	echo "         extract -o $EXTRACT_OUT$([ "$EXTRACT_OUT" = - ] && echo ' >/dev/null (-o /dev/null would replace the device: see warning)')"
else
	echo "iopsy:   NOT FOUND ($IOPSY) - only the baselines are measured"
fi
echo "regex:   $REGEX   runs: best of $RUNS (shape c: 1 run)   rows scale: $SCALE"
echo

for S in $SHAPES; do
	COLS=$(shape_cols "$S")
	[ "$COLS" -gt 0 ] || fatal "unknown shape '$S' (known: a b c)"
	ROWS=$(awk -v r="$(shape_rows "$S")" -v s="$SCALE" 'BEGIN {n = int(r * s + 0.5); print n < 1 ? 1 : n}')
	F=$WORK/shape-$S.csv
	say "== shape $S: $COLS columns x $ROWS rows"
	t0=$(now_ns)
	"$GEN" "$COLS" "$ROWS" 1 -o "$F" || fatal "generator failed for shape $S"
	t1=$(now_ns)
	BYTES=$(fsize "$F")
	NMATCH=$(head -n 1 "$F" | tr ',' '\n' | grep -cE "$REGEX")
	printf '%s\t%s\t%s\t%s\t%s\n' "$S" "$COLS" "$ROWS" "$BYTES" "$NMATCH" >>"$WORK/shapes.tsv.new"
	say "   generated $BYTES bytes in $(awk -v t=$((t1 - t0)) 'BEGIN {printf "%.1f", t / 1e9}') s, $NMATCH matched columns"
	N=$RUNS
	[ "$S" = c ] && N=1
	measure "$S" "wc -l" "$N" wc -l "$F"
	if [ "$S" != c ]; then
		measure "$S" "mawk" "$N" mawk -v "re=$REGEX" -v skip=1 -F, "$AWK_PROG" "$F"
		if [ $HAVE_PANDAS = 1 ]; then
			measure "$S" "pandas" "$N" "$PY" -c "$PY_PROG" "$F" "$REGEX"
		fi
	fi
	if [ $HAVE_IOPSY = 1 ]; then
		measure "$S" "iopsy extract" "$N" "$IOPSY" extract "$F" --match "$REGEX" -o "$EXTRACT_OUT"
		if [ $HAVE_ANALYZE = 1 ]; then
			measure "$S" "iopsy analyze" "$N" "$IOPSY" analyze "$F" --json "$ANALYZE_OUT"
		fi
	fi
	[ "$KEEP" = 1 ] || rm -f "$F"
done
mv "$WORK/shapes.tsv.new" "$WORK/shapes.tsv" 2>/dev/null

# ---- report
awk -F'\t' -v t_mawk=$T_VS_MAWK -v t_pandas=$T_VS_PANDAS -v t_rss=$T_RSS_MIB -v t_growth=$T_GROWTH_PCT \
	-v have_iopsy=$HAVE_IOPSY -v have_pandas=$HAVE_PANDAS '
FILENAME ~ /shapes/ { cols[$1] = $2; rows[$1] = $3; bytes[$1] = $4; nm[$1] = $5; order[++ns] = $1; next }
{ key = $1 SUBSEP $2; t[key] = $3; rss[key] = $4; tools[$1, ++nt[$1]] = $2 }
function ratio(base, x) { return (base == "" || base == "FAILED" || x == "FAILED" || x == 0) ? "-" : sprintf("%.2f", base / x) }
END {
	print "times: best wall-clock seconds; MB/s = file bytes / 1e6 / seconds; vs X = time of X / time of tool"
	print "(> 1 means faster than X); peak RSS = max of the runs (/usr/bin/time -v). Files are in the page cache."
	for (o = 1; o <= ns; o++) {
		s = order[o]
		printf "\nshape %s: %d columns x %d rows, %.1f MB, %d matched columns\n", s, cols[s], rows[s], bytes[s] / 1e6, nm[s]
		printf "  %-15s %9s %9s %8s %8s %9s %13s\n", "tool", "seconds", "MB/s", "vs wc", "vs mawk", "vs pandas", "peak RSS MiB"
		for (i = 1; i <= nt[s]; i++) {
			tool = tools[s, i]; key = s SUBSEP tool; x = t[key]
			if (x == "FAILED") { printf "  %-15s %9s\n", tool, "FAILED"; continue }
			printf "  %-15s %9.3f %9.1f %8s %8s %9s %13.1f\n", tool, x / 1e9, bytes[s] * 1e3 / x, \
				ratio(t[s SUBSEP "wc -l"], x), ratio(t[s SUBSEP "mawk"], x), ratio(t[s SUBSEP "pandas"], x), rss[key] / 1024
		}
	}
	print ""
	if (!have_iopsy) { print "SKIP  targets: iopsy binary not available"; exit }
	for (o = 1; o <= ns; o++) {
		s = order[o]; if (s == "c") continue
		x = t[s SUBSEP "iopsy extract"]
		if (x == "" || x == "FAILED") { print "FAIL  shape " s ": iopsy extract did not run"; continue }
		m = t[s SUBSEP "mawk"]; p = t[s SUBSEP "pandas"]
		if (m != "" && m != "FAILED") printf "%s  shape %s: iopsy extract %.2fx mawk speed (target >= %gx)\n", (m / x >= t_mawk ? "PASS" : "FAIL"), s, m / x, t_mawk
		if (p != "" && p != "FAILED") printf "%s  shape %s: iopsy extract %.2fx pandas speed (target >= %gx)\n", (p / x >= t_pandas ? "PASS" : "FAIL"), s, p / x, t_pandas
		else printf "SKIP  shape %s: pandas baseline not available\n", s
		r = rss[s SUBSEP "iopsy extract"] / 1024
		printf "%s  shape %s: iopsy extract peak RSS %.1f MiB (target <= %g MiB)\n", (r <= t_rss ? "PASS" : "FAIL"), s, r, t_rss
	}
	if (("c" SUBSEP "iopsy extract") in rss && t["c" SUBSEP "iopsy extract"] != "FAILED" && (("a" SUBSEP "iopsy extract") in rss) && t["a" SUBSEP "iopsy extract"] != "FAILED") {
		ra = rss["a" SUBSEP "iopsy extract"]; rc = rss["c" SUBSEP "iopsy extract"]
		g = (rc - ra) * 100 / ra
		printf "%s  RSS growth of iopsy extract, shape a -> c (%dx rows): %.1f MiB -> %.1f MiB = %+.1f%% (target < %g%%)\n", \
			(g < t_growth ? "PASS" : "FAIL"), rows["c"] / rows["a"], ra / 1024, rc / 1024, g, t_growth
		if (("c" SUBSEP "iopsy analyze") in rss && ("a" SUBSEP "iopsy analyze") in rss) {
			ra = rss["a" SUBSEP "iopsy analyze"]; rc = rss["c" SUBSEP "iopsy analyze"]
			printf "INFO  RSS growth of iopsy analyze, shape a -> c: %.1f MiB -> %.1f MiB = %+.1f%%\n", ra / 1024, rc / 1024, (rc - ra) * 100 / ra
		}
	} else print "SKIP  RSS growth: needs iopsy extract on shapes a and c"
}' "$WORK/shapes.tsv" "$RESULTS"

[ $HAVE_IOPSY = 1 ] || STATUS=3
exit $STATUS
