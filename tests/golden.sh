#!/bin/sh
# golden.sh — runs iopsy on every sample and broken input and compares stdout, stderr and the
# exit code with tests/golden/. Usage: tests/golden.sh BIN [--update | --threads]
# --threads: every case runs twice, with IOPSY_THREADS=1 (one thread) and with IOPSY_THREADS=2 and
# small chunks (IOPSY_THREAD_CHUNK, so chunk ends fall everywhere in these small files), and both
# must equal the golden: the output does not depend on the threads.
# Cases: each file in tests/inputs/ and samples/ with `counters --json` and `extract --match .`,
# plus the explicit cases in tests/golden/cases.txt (NAME|ARGS, run through the same harness).
# Reports are reproducible here: SOURCE_DATE_EPOCH is fixed and neither gnuplot nor Chromium is
# found (the HTML has no charts and says so). A case whose name ends in -xlsx writes its workbook to
# stdout; the golden holds the workbook's XML parts (unzip), one tag a line, not the zip.
set -u
BIN=$1
UPDATE=${2:-}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export LC_ALL=C TZ=UTC
SOURCE_DATE_EPOCH=1700000000 IOPSY_GNUPLOT=/nonexistent/gnuplot IOPSY_CHROMIUM=/nonexistent/chromium
export SOURCE_DATE_EPOCH IOPSY_GNUPLOT IOPSY_CHROMIUM
G=tests/golden
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

run_case() { # name, then the iopsy arguments; stdin from /dev/null unless IN is set
	if [ "$UPDATE" = "--threads" ]; then
		IOPSY_THREADS=1 run_one "$@"
		IOPSY_THREADS=2 IOPSY_THREAD_CHUNK=${GOLDEN_CHUNK:-577} run_one "$@"
	else
		run_one "$@"
	fi
}

xlsx_parts() { # the workbook in $1 as its XML parts, in the zip's order, one tag a line
	for part in $(unzip -Z1 "$1"); do
		echo "==== $part"
		# unzip takes the name as a pattern: [Content_Types].xml needs its brackets escaped
		unzip -p "$1" "$(printf '%s' "$part" | sed 's/[][*?]/\\&/g')" | sed 's/></>\
</g'
		echo
	done
}

run_one() {
	name=$1; shift
	if [ -n "${IN:-}" ]; then
		"$BIN" "$@" <"$IN" >"$tmp/out" 2>"$tmp/err"
	else
		"$BIN" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
	fi
	echo $? >"$tmp/rc"
	case $name in
	*-xlsx)
		if [ -s "$tmp/out" ]; then
			xlsx_parts "$tmp/out" >"$tmp/parts" 2>&1 || echo "golden: $name: unzip failed" >>"$tmp/parts"
			mv "$tmp/parts" "$tmp/out"
		fi
		;;
	esac
	if [ "$UPDATE" = "--update" ]; then
		cp "$tmp/out" "$G/$name.out"; cp "$tmp/err" "$G/$name.err"; cp "$tmp/rc" "$G/$name.rc"
		pass=$((pass + 1))
		return
	fi
	ok=1
	for k in out err rc; do
		if [ ! -f "$G/$name.$k" ]; then
			echo "golden: $name: missing $G/$name.$k (run: make golden-update)"; ok=0
		elif ! cmp -s "$tmp/$k" "$G/$name.$k"; then
			echo "golden: $name${IOPSY_THREADS:+ (IOPSY_THREADS=$IOPSY_THREADS)}: $k differs:"
			diff -u "$G/$name.$k" "$tmp/$k" | head -20; ok=0
		fi
	done
	if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
}

for f in tests/inputs/*; do
	[ -f "$f" ] || continue
	b=$(basename "$f")
	IN= run_case "$b.counters" counters --json "$f"
	IN= run_case "$b.extract" extract "$f" --match . -o -
done
# samples: the analysis (text and JSON) and the storage part of the inventory
for d in samples/*/ samples/*/*/; do
	d=${d%/}
	[ -f "$d/esxtop.csv.gz" ] || continue
	n=$(echo "$d" | sed 's|^samples/||; s|/|-|g')
	set -- "$d/esxtop.csv.gz" "$d/perfmon.csv.gz"
	[ -f "$d/vmkernel.log" ] && set -- "$@" --vmkernel-log "$d/vmkernel.log"
	[ -f "$d/partitions.txt" ] && set -- "$@" --partitions "$d/partitions.txt"
	IN= run_case "sample-$n.analyze" analyze "$@"
	IN= run_case "sample-$n.analyze-json" analyze --json - "$@"
	IN= run_case "sample-$n.counters" counters --json --match 'SCSI Device|LogicalDisk\(D:' "$d/esxtop.csv.gz" "$d/perfmon.csv.gz"
done
# the Hyper-V samples: the host's perfmon and the guest's
for d in samples/*/; do
	d=${d%/}
	[ -f "$d/hyperv.csv.gz" ] || continue
	n=$(echo "$d" | sed 's|^samples/||; s|/|-|g')
	IN= run_case "sample-$n.analyze" analyze "$d/hyperv.csv.gz" "$d/perfmon.csv.gz"
	IN= run_case "sample-$n.analyze-json" analyze --json - "$d/hyperv.csv.gz" "$d/perfmon.csv.gz"
	IN= run_case "sample-$n.counters" counters --json --match 'Storage Device|CSVFS|LogicalDisk\(D:' "$d/hyperv.csv.gz" "$d/perfmon.csv.gz"
done
if [ -f "$G/cases.txt" ]; then
	while IFS='|' read -r name stdin args; do
		case "$name" in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2086  # ARGS are split on spaces by design
		IN=$stdin run_case "$name" $args
	done <"$G/cases.txt"
fi
echo "golden: $pass passed, $fail failed"
[ $fail = 0 ]
