#!/bin/sh
# hostile.sh — hostile and extreme inputs, generated on the fly (nothing big is committed): each
# case runs iopsy, checks the exit code, a message on stderr (or stdout), the peak RSS against the
# bound in doc/limits.md (with /usr/bin/time), and that outputs stay inert.
# Usage: tests/hostile.sh BIN   Env: TMPDIR (scratch, needs ~400 MB free), HOSTILE_ONLY=name (one
# case), HOSTILE_KEEP=1 (keep the scratch directory), HOSTILE_TIER=fast (every case but the memory
# bounds of large generated inputs, which are said to be skipped: make check-fast) or mem (those
# only: make check runs both tiers, so every case runs once)
# Prints "hostile: N passed, M failed".
set -u
BIN=$1
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
export LC_ALL=C TZ=UTC
T=$(mktemp -d "${TMPDIR:-/tmp}/iopsy-hostile.XXXXXX") || exit 2
[ -n "${HOSTILE_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
pass=0 fail=0
# the memory tier runs the memory cases only: every other case is guarded by HOSTILE_ONLY
[ "${HOSTILE_TIER:-}" = mem ] && [ -z "${HOSTILE_ONLY:-}" ] && HOSTILE_ONLY=__mem__
# Peak RSS bound for every case (doc/limits.md): the 64 MiB line buffer, libcsv's copy of the
# longest field and the header's names, with room to spare.
RSS_BOUND_KB=${RSS_BOUND_KB:-400000}
TIME=
[ -x /usr/bin/time ] && TIME=/usr/bin/time

ok() { pass=$((pass + 1)); echo "hostile: ok   $1${2:+ ($2)}"; }
# A sanitizer build (make SANITIZE=..., build-san/) keeps shadow memory and a quarantine of freed
# blocks: its RSS says nothing about iopsy's, so the cases that exist to measure a memory bound
# are said to be skipped there (they run in the plain build of every make check).
case $BIN in */build-san/*) SAN=1 ;; *) SAN= ;; esac
skipped=0
skip() { skipped=$((skipped + 1)); echo "hostile: skip $1: $2"; }
bad() { fail=$((fail + 1)); echo "hostile: FAIL $1: $2"; }

# run NAME EXPECTED_RC MESSAGE ARGS... — MESSAGE is a fixed string looked for in stderr+stdout
# ("" = no check). Sets $out, $err, $rss (KB).
run() {
	name=$1 want=$2 msg=$3
	shift 3
	if [ -n "${HOSTILE_ONLY:-}" ] && [ "$HOSTILE_ONLY" != "$name" ] &&
		! { [ "$HOSTILE_ONLY" = __mem__ ] && [ -n "${MEMCASE:-}" ]; }; then
		return 1
	fi
	out=$T/$name.out err=$T/$name.err
	start=$(date +%s)
	if [ -n "$TIME" ]; then
		$TIME -f '%M' -o "$T/$name.rss" "$BIN" "$@" </dev/null >"$out" 2>"$err"
	else
		"$BIN" "$@" </dev/null >"$out" 2>"$err"
	fi
	rc=$?
	secs=$(($(date +%s) - start))
	rss=$(tail -1 "$T/$name.rss" 2>/dev/null || echo 0)
	case $rss in '' | *[!0-9]*) rss=0 ;; esac
	if [ "$rc" != "$want" ]; then
		bad "$name" "exit $rc, expected $want; stderr: $(head -c 300 "$err")"
		return 1
	fi
	if [ -n "$msg" ] && ! grep -qF -- "$msg" "$err" "$out"; then
		bad "$name" "no '$msg' in the output; stderr: $(head -c 300 "$err")"
		return 1
	fi
	if [ "$rss" -gt "$RSS_BOUND_KB" ]; then
		bad "$name" "peak RSS ${rss} KB over the bound ${RSS_BOUND_KB} KB"
		return 1
	fi
	info="exit $rc, ${secs} s, peak RSS ${rss} KB"
	return 0
}

# a raw byte that must not appear in a file: inert outputs escape it
has_byte() { # FILE OCTAL
	[ "$(tr -d "\\$2" <"$1" | wc -c)" != "$(wc -c <"$1")" ]
}

json_ok() { # FILE: valid JSON when jq is there
	command -v jq >/dev/null 2>&1 || return 0
	jq empty "$1" >/dev/null 2>&1
}

HDR='"(PDH-CSV 4.0) (UTC)(0)"'
row() { printf '"07/27/2026 13:10:%02d"' "$1"; }

# ---- 1. 200,000-column header ----
awk 'BEGIN { n = 200000
	printf "\"(PDH-CSV 4.0) (UTC)(0)\""
	for (i = 0; i < n; i++) printf ",\"\\\\\\\\esx01\\\\Vcpu(%d:vm%d:%d:vmx)\\\\%% Used\"", i, i % 97, i
	printf ",\n"
	for (r = 0; r < 3; r++) { printf "\"07/27/2026 13:10:%02d\"", r * 5; for (i = 0; i < n; i++) printf ",\"%d\"", (i + r) % 100; printf ",\n" }
}' >"$T/cols200k.csv"
if run cols200k 0 "columns    200000" counters "$T/cols200k.csv"; then ok cols200k "$info"; fi
if run cols200k-extract 0 "" extract "$T/cols200k.csv" --match 'Vcpu\(199999:' -o "$T/c.csv"; then
	if [ "$(wc -l <"$T/c.csv")" = 4 ] && grep -q '^2026-07-27T13:10:10Z,1$' "$T/c.csv"; then ok cols200k-extract "$info"
	else bad cols200k-extract "wrong rows: $(head -c 200 "$T/c.csv")"; fi
fi

# a header of 4,000,000 empty columns (4 MB of commas): past the column limit, not GBs of RAM
{ printf '%s' "$HDR"; head -c 4000000 /dev/zero | tr '\0' ','; printf '\n'; row 0; printf '\n'; } >"$T/commas.csv"
if run columns-4m 3 "more than the 1000000 this tool reads" counters "$T/commas.csv"; then ok columns-4m "$info"; fi

# ---- 2. a 20 MB header line (100,000 columns of 200-byte names) ----
awk 'BEGIN { n = 100000; pad = sprintf("%150s", ""); gsub(/ /, "x", pad)
	printf "\"(PDH-CSV 4.0) (UTC)(0)\""
	for (i = 0; i < n; i++) printf ",\"\\\\\\\\esx01\\\\Physical Disk SCSI Device(naa.%s%08d)\\\\Commands/sec\"", pad, i
	printf ",\n\"07/27/2026 13:10:00\""; for (i = 0; i < n; i++) printf ",\"1\""; printf ",\n"
}' >"$T/header20m.csv"
if run header20m 0 "columns    100000" counters "$T/header20m.csv"; then
	sz=$(head -1 "$T/header20m.csv" | wc -c)
	if [ "$sz" -gt 20000000 ]; then ok header20m "$info, header line $sz bytes"; else bad header20m "header only $sz bytes"; fi
fi

# ---- 3. a 100 MB field inside an unterminated quote (and one that closes) ----
{ printf '%s,"\\\\h\\Memory\\Free MBytes",\n' "$HDR"; row 0; printf ',"1",\n'; row 5; printf ',"'
  head -c 100000000 /dev/zero | tr '\0' 'x'; } >"$T/field100m.csv"
if run field100m 0 "longer than 64 MiB and never ends" extract "$T/field100m.csv" --match . -o "$T/f.csv"; then
	if grep -q '^2026-07-27T13:10:00Z,1$' "$T/f.csv"; then ok field100m "$info"; else bad field100m "row before the damage lost"; fi
fi
{ cat "$T/field100m.csv"; printf '",\n'; row 10; printf ',"3",\n'; } >"$T/field100m-closed.csv"
rm -f "$T/field100m.csv"
if run field100m-closed 0 "line longer than 64 MiB" extract "$T/field100m-closed.csv" --match . -o "$T/f.csv"; then
	if grep -q '^2026-07-27T13:10:10Z,3$' "$T/f.csv"; then ok field100m-closed "$info"; else bad field100m-closed "row after the damage lost"; fi
fi
rm -f "$T/field100m-closed.csv"
{ head -c 70000000 /dev/zero | tr '\0' 'j'; printf '\n%s,"\\\\h\\Memory\\Free MBytes"\n' "$HDR"; } >"$T/junk70m.csv"
if run junk70m 3 "longer than 64 MiB while looking for the PDH-CSV header" counters "$T/junk70m.csv"; then ok junk70m "$info"; fi
rm -f "$T/junk70m.csv"

# ---- 4. binary garbage ----
head -c 1000000 "$BIN" >"$T/garbage-nul.bin"
if run garbage-nul 3 "binary data (NUL bytes)" counters "$T/garbage-nul.bin"; then ok garbage-nul "$info"; fi
tr -d '\000' <"$BIN" | head -c 1000000 >"$T/garbage.bin"
if run garbage 3 "not a capture this tool reads" extract "$T/garbage.bin" --match . -o "$T/g.csv"; then
	if [ ! -e "$T/g.csv" ]; then ok garbage "$info"; else bad garbage "an output was written for garbage"; fi
fi
{ head -c 100 tests/inputs/esxtop-small.csv.gz; head -c 5000 "$BIN"; } >"$T/broken.csv.gz"
if run gzip-corrupt 3 "gzip" counters "$T/broken.csv.gz"; then ok gzip-corrupt "$info"; fi

# ---- 5. gzip bomb: 10 GiB of line ends from concatenated gzip members (10 MB) ----
# deflate cannot beat ~1032:1, so "1 KB -> 10 GB" does not exist; the ratio limit is what stops
# this one (SOURCE_BOMB_RATIO past SOURCE_BOMB_MIN_BYTES, parsers/source.h).
printf '%s,"\\\\h\\Memory\\Free MBytes",\n' "$HDR" | gzip -9 >"$T/bomb.csv.gz"
head -c 67108864 /dev/zero | tr '\0' '\n' | gzip -9 >"$T/member.gz"
i=0
while [ $i -lt 160 ]; do cat "$T/member.gz"; i=$((i + 1)); done >>"$T/bomb.csv.gz"
if run gzip-bomb 3 "expands more than 1000:1" counters "$T/bomb.csv.gz"; then
	if [ "$secs" -le 60 ]; then ok gzip-bomb "$info, $(wc -c <"$T/bomb.csv.gz") bytes compressed"
	else bad gzip-bomb "took $secs s"; fi
fi
if run gzip-bomb-extract 3 "refusing a likely gzip bomb" extract "$T/bomb.csv.gz" --match . -o "$T/b.csv"; then ok gzip-bomb-extract "$info"; fi
if [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = gzip-bomb-pipe ]; then
	# through a pipe the compressed offset cannot come from lseek: the reader counts it itself
	start=$(date +%s)
	cat "$T/bomb.csv.gz" | "$BIN" counters -q - >/dev/null 2>"$T/bomb-pipe.err"
	rc=$? secs=$(($(date +%s) - start))
	if [ $rc = 3 ] && grep -q "refusing a likely gzip bomb" "$T/bomb-pipe.err" && [ $secs -le 60 ]; then
		ok gzip-bomb-pipe "exit 3, $secs s"
	else bad gzip-bomb-pipe "exit $rc after $secs s: $(head -c 300 "$T/bomb-pipe.err")"; fi
fi
rm -f "$T/bomb.csv.gz" "$T/member.gz"

# ---- 6. NUL bytes ----
{ printf '%s,"\\\\h\\Mem\000ory\\Free MBytes",\n' "$HDR"; row 0; printf ',"1",\n'; } >"$T/nul-header.csv"
if run nul-header 3 "binary data (NUL bytes)" counters "$T/nul-header.csv"; then ok nul-header "$info"; fi
{ printf '%s,"\\\\h\\Memory\\Free MBytes",\n' "$HDR"; i=0; while [ $i -lt 200 ]; do row $((i % 60)); printf ',"%d",\n' $i; i=$((i + 1)); done
  row 1; printf ',"1\0002",\n'; row 2; printf ',"7",\n'; } >"$T/nul-late.csv"
if run nul-late 0 'non-numeric value "1\x002"' extract "$T/nul-late.csv" --match . -o "$T/n.csv"; then
	if has_byte "$T/nul-late.err" 000; then bad nul-late "raw NUL in a message"; else ok nul-late "$info"; fi
fi

# ---- 7. invalid UTF-8 and UTF-16 ----
{ printf '%s,"\\\\h\\Disk(\377\376\300\257<b>)\\Reads/sec","\\\\h\\Disk(\355\240\200)\\Reads/sec",\n' "$HDR"; row 0; printf ',"1","2",\n'; } >"$T/bad-utf8.csv"
if run bad-utf8 0 "" counters --json "$T/bad-utf8.csv"; then
	if has_byte "$out" 377 || has_byte "$out" 355 || ! json_ok "$out" || ! grep -qF '\\xFF\\xFE' "$out"; then
		bad bad-utf8 "invalid UTF-8 not escaped in JSON: $(head -c 300 "$out")"
	else ok bad-utf8 "$info"; fi
fi
if run bad-utf8-text 0 "" counters "$T/bad-utf8.csv"; then
	if has_byte "$out" 377; then bad bad-utf8-text "raw invalid byte in text output"; else ok bad-utf8-text "$info"; fi
fi
# UTF-16LE: BOM, an unpaired high surrogate and a lone low surrogate in a name, odd length
u16() { printf '%s' "$1" | iconv -f UTF-8 -t UTF-16LE; }
{ printf '\377\376'; u16 '"(PDH-CSV 4.0) (UTC)(0)","\\h\Disk('; printf '\000\330A\000\000\334'
  u16 ')\Reads/sec",'; printf '\r\000\n\000'; u16 '"07/27/2026 13:10:00","1",'; printf '\r\000\n\000Z'; } >"$T/bad-utf16.csv"
if run bad-utf16 0 "half a character" counters --json "$T/bad-utf16.csv"; then
	if grep -q "$(printf '\357\277\275')" "$out" && json_ok "$out"; then ok bad-utf16 "$info"
	else bad bad-utf16 "no U+FFFD for the broken surrogates: $(head -c 400 "$out")"; fi
fi

# ---- 8. time going backwards, and 100 years apart ----
{ printf '%s,"\\\\h\\Physical Disk(vmhba2)\\Commands/sec",\n' "$HDR"
  for s in 00 05 10 02 15 20; do printf '"07/27/2026 13:10:%s","5",\n' $s; done; } >"$T/backwards.csv"
if run backwards 0 "time goes backwards" counters "$T/backwards.csv"; then ok backwards "$info"; fi
{ printf '%s,"\\\\h\\Physical Disk SCSI Device(naa.1)\\Average Driver MilliSec/Command","\\\\h\\Physical Disk SCSI Device(naa.1)\\Commands/sec",\n' "$HDR"
  for t in '1990 00:00:00' '1990 00:00:05' '1990 00:00:10' '2090 00:00:00' '2090 00:00:05' '2090 00:00:10'; do
	printf '"01/01/%s","30","500",\n' "$t"; done; } >"$T/century2.csv"
if run century 0 "time jumps forward by more than a year" counters "$T/century2.csv"; then ok century "$info"; fi
if run century-analyze 0 "" analyze --json "$T/a.json" "$T/century2.csv"; then
	if json_ok "$T/a.json"; then ok century-analyze "$info"; else bad century-analyze "invalid JSON"; fi
fi

# ---- 9. duplicate column names, one column only, header only, empty file ----
{ printf '%s,"\\\\h\\Memory\\Free MBytes","\\\\h\\Memory\\Free MBytes",\n' "$HDR"; row 0; printf ',"1","2",\n'; } >"$T/dup.csv"
if run duplicate-columns 0 "" extract "$T/dup.csv" --match . -o "$T/d.csv"; then
	if grep -q '^2026-07-27T13:10:00Z,1,2$' "$T/d.csv"; then ok duplicate-columns "$info"; else bad duplicate-columns "$(cat "$T/d.csv")"; fi
fi
if run duplicate-analyze 0 "" analyze "$T/dup.csv"; then ok duplicate-analyze "$info"; fi
{ printf '%s\n' "$HDR"; row 0; printf '\n'; } >"$T/one-column.csv"
if run one-column 0 "columns    0" counters "$T/one-column.csv"; then ok one-column "$info"; fi
if run one-column-extract 2 "no column of" extract "$T/one-column.csv" --match . -o "$T/o.csv"; then ok one-column-extract "$info"; fi
printf '%s,"\\\\h\\Memory\\Free MBytes",\n' "$HDR" >"$T/header-only.csv"
if run header-only 0 "(no data rows)" counters "$T/header-only.csv"; then ok header-only "$info"; fi
if run header-only-analyze 3 "no complete data row" analyze "$T/header-only.csv"; then ok header-only-analyze "$info"; fi
: >"$T/empty.csv"
if run empty 3 "empty file" counters "$T/empty.csv"; then ok empty "$info"; fi
if run empty-analyze 3 "empty file" analyze "$T/empty.csv"; then ok empty-analyze "$info"; fi

# ---- 10. a catastrophic regex on a long name of 'a's ----
aa=$(head -c 5000 /dev/zero | tr '\0' a)
{ printf '%s,"\\\\h\\%s\\b",\n' "$HDR" "$aa"; row 0; printf ',"1",\n'; } >"$T/aaaa.csv"
if run regex-catastrophic 2 "regex gave up" extract "$T/aaaa.csv" --match '(a+)+$' -o "$T/r.csv"; then
	if [ "$secs" -le 10 ]; then ok regex-catastrophic "$info"; else bad regex-catastrophic "took $secs s"; fi
fi
# a benign pattern on the same long name must still work (JIT stack, not the match limit)
if run regex-long-name 0 "" extract "$T/aaaa.csv" --match '(a|b)*\\b' -o "$T/r.csv"; then ok regex-long-name "$info"; fi
# counters exits 3 here, extract 2 (cmd_counters maps the regex limit to an input error)
if run regex-catastrophic-counters 3 "regex gave up" counters --match '(a+)+$' "$T/aaaa.csv"; then ok regex-catastrophic-counters "$info"; fi

# ---- 11. names built to break outputs ----
# HTML/JS, gnuplot command syntax, ../ in an instance, terminal escapes. (A CR or LF cannot be
# inside a capture's name: a line is a record, and a CR before the first LF makes a CR-only
# file; so CR/LF comes through a vmkernel.log device name instead.)
{ printf '%s' "$HDR"
  printf ',"\\\\h</script><script>alert(1)</script>\\Physical Disk SCSI Device(naa.1)\\Average Driver MilliSec/Command"'
  printf ',"\\\\h\\Physical Disk SCSI Device(naa.1%s; system(""touch PWNED""); %s`touch PWNED`)\\Commands/sec"' "'" "'"
  printf ',"\\\\h\\Physical Disk SCSI Device(../../../../tmp/evil)\\Commands/sec"'
  printf ',"\\\\h\\Physical Disk SCSI Device(\033[2J\033]0;owned\007)\\Commands/sec",\n'
  for s in 00 05 10 15 20 25 30 35; do printf '"07/27/2026 13:10:%s","40","900","900","900",\n' $s; done; } >"$T/evil.csv"
printf '2026-07-27T13:10:05Z cpu1:1)ScsiDeviceIO: Cmd 0x2a to dev "naa.1\rX-Injected: 1" failed H:0x0 D:0x28 P:0x0\n' >"$T/evil-vmkernel.log"
if run evil-counters 0 "" counters "$T/evil.csv"; then
	if has_byte "$out" 015 || has_byte "$out" 033 || has_byte "$out" 007; then bad evil-counters "raw control byte in text output"
	else ok evil-counters "$info"; fi
fi
if run evil-counters-json 0 "" counters --json "$T/evil.csv"; then
	if grep -q '[<>&]' "$out" || has_byte "$out" 015 || has_byte "$out" 033 || ! json_ok "$out"; then bad evil-counters-json "JSON not inert"
	else ok evil-counters-json "$info"; fi
fi
if run evil-analyze 0 "" analyze --vmkernel-log "$T/evil-vmkernel.log" --json "$T/evil.json" --text "$T/evil.txt" "$T/evil.csv"; then
	if grep -q '[<>&]' "$T/evil.json" || has_byte "$T/evil.json" 015 || ! json_ok "$T/evil.json"; then bad evil-analyze "JSON not inert"
	elif has_byte "$T/evil.txt" 015 || has_byte "$T/evil.txt" 033; then bad evil-analyze "raw control byte in the text report"
	else ok evil-analyze "$info"; fi
fi
if run evil-extract 0 "" extract "$T/evil.csv" --match . -o "$T/evil-out.csv"; then
	# CSV keeps names verbatim inside quotes (a spreadsheet shows them as text), one record per row
	if [ "$(wc -l <"$T/evil-out.csv")" -ge 9 ] && [ ! -e PWNED ] && [ ! -e "$T/PWNED" ]; then ok evil-extract "$info"
	else bad evil-extract "unexpected output"; fi
fi
if "$BIN" analyze --help 2>/dev/null | grep -q -e '--html'; then
	if run evil-html 0 "" analyze --vmkernel-log "$T/evil-vmkernel.log" --html "$T/evil.html" --gnuplot-dir "$T/gp" "$T/evil.csv"; then
		# the names are in the Explore section's data too: JSON (control bytes as \u escapes), read as text
		vdata=$(sed -n 's/.*<script type="application\/json" id="iopsy-view-data">\(.*\)/\1/p' "$T/evil.html" | sed 's#</script>.*##')
		if grep -q '<script>alert' "$T/evil.html" || has_byte "$T/evil.html" 015 || has_byte "$T/evil.html" 033; then
			bad evil-html "HTML not inert"
		elif ! printf '%s' "$vdata" | grep -qF '"i":"\u001b[2J\u001b]0;owned\u0007"' ||
			! printf '%s' "$vdata" | grep -qF '"i":"naa.1'"'"'; system(\"touch PWNED\"); '"'"'`touch PWNED`"'; then
			bad evil-html "the Explore section's data lacks the hostile name, escaped"
		else ok evil-html "$info"; fi
	fi
fi
if [ -n "${HOSTILE_ONLY:-}" ]; then :
elif [ -e /tmp/evil ] || [ -e PWNED ] || [ -n "$(find "$T" -name PWNED)" ]; then bad evil-files "a name created a file"
else ok evil-files; fi

# ---- 12. nothing lost: signals, a full disk, an unwritable directory ----
# A capture that arrives slowly: the header and some rows, then a pause while iopsy has its
# temporary output open, then the rest.
awk 'BEGIN { printf "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Memory\\Free MBytes\",\n"
	for (i = 0; i < 60000; i++) printf "\"07/27/2026 %02d:%02d:%02d\",\"%d\",\n", i / 3600 % 24, i / 60 % 60, i % 60, i }' >"$T/slow.csv"
for sig in INT TERM; do
	name=signal-$sig
	[ -n "${HOSTILE_ONLY:-}" ] && [ "$HOSTILE_ONLY" != "$name" ] && continue
	mkdir -p "$T/sig"
	rm -f "$T/sig/"*
	echo "old report" >"$T/sig/kept.csv"
	{ cat "$T/slow.csv"; sleep 4; cat "$T/slow.csv"; } | "$BIN" extract -q - --match . -o "$T/sig/new.csv" 2>"$T/sig.err" &
	pid=$!
	{ cat "$T/slow.csv"; sleep 4; cat "$T/slow.csv"; } | "$BIN" extract -q - --match . -o "$T/sig/kept.csv" 2>>"$T/sig.err" &
	pid2=$!
	sleep 2
	ntmp=$(ls "$T/sig" | grep -c '\.tmp\.')
	kill -"$sig" $pid $pid2
	wait $pid; rc=$?
	wait $pid2; rc2=$?
	left=$(ls "$T/sig")
	if [ "$ntmp" != 2 ]; then bad $name "no temporary output was open when the signal came ($ntmp)"
	elif [ "$left" != "kept.csv" ] || [ "$(cat "$T/sig/kept.csv")" != "old report" ]; then bad $name "left: $left"
	elif [ $rc -lt 128 ] || [ $rc2 -lt 128 ]; then bad $name "exit $rc/$rc2, expected death by signal"
	else ok $name "exit $rc, temporary removed, existing output intact"; fi
done

name=disk-full
if [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ]; then
	mkdir -p "$T/mnt"
	if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=1m iopsy-hostile "$T/mnt" 2>/dev/null; then
		echo "old report" >"$T/mnt/out.csv"
		"$BIN" extract -q "$T/slow.csv" --match . -o "$T/mnt/out.csv" >/dev/null 2>"$T/full.err"
		rc=$?
		if [ $rc != 4 ] || ! grep -q 'No space left on device' "$T/full.err"; then bad disk-full "exit $rc: $(cat "$T/full.err")"
		elif [ "$(ls "$T/mnt")" != out.csv ] || [ "$(cat "$T/mnt/out.csv")" != "old report" ]; then bad disk-full "left: $(ls "$T/mnt")"
		else ok disk-full "exit 4, 1 MiB tmpfs, existing output intact, no temporary left"; fi
		mount -o remount,ro "$T/mnt" 2>/dev/null
		"$BIN" extract -q "$T/slow.csv" --match . -o "$T/mnt/out.csv" >/dev/null 2>"$T/ro.err"
		rc=$?
		if [ $rc != 4 ] || ! grep -q 'cannot create' "$T/ro.err" || [ "$(cat "$T/mnt/out.csv")" != "old report" ]; then
			bad unwritable-dir "exit $rc: $(cat "$T/ro.err")"
		else ok unwritable-dir "exit 4, read-only file system, existing output intact"; fi
		umount "$T/mnt"
	else
		echo "hostile: note: cannot mount a tmpfs here; disk-full runs with ulimit -f only"
		mkdir -p "$T/ro" && echo "old report" >"$T/ro/out.csv" && chmod 555 "$T/ro"
		if [ "$(id -u)" != 0 ]; then
			"$BIN" extract -q "$T/slow.csv" --match . -o "$T/ro/out.csv" >/dev/null 2>"$T/ro.err"
			rc=$?
			if [ $rc != 4 ] || [ "$(cat "$T/ro/out.csv")" != "old report" ]; then bad unwritable-dir "exit $rc"
			else ok unwritable-dir "exit 4, existing output intact"; fi
		fi
		chmod 755 "$T/ro"
	fi
	# ulimit -f: writes past the limit raise SIGXFSZ; iopsy ignores it and reports the write error
	mkdir -p "$T/lim" && echo "old report" >"$T/lim/out.csv"
	(ulimit -f 100 && exec "$BIN" extract -q "$T/slow.csv" --match . -o "$T/lim/out.csv") >/dev/null 2>"$T/lim.err"
	rc=$?
	if [ "$(cat "$T/lim/out.csv")" != "old report" ]; then bad file-size-limit "existing output changed"
	elif [ $rc = 4 ] && [ "$(ls "$T/lim")" = out.csv ]; then ok file-size-limit "exit 4, no temporary left"
	elif [ $rc -gt 128 ]; then
		bad file-size-limit "killed by a signal (exit $rc; SIGXFSZ not ignored?), left $(ls "$T/lim" | grep -c tmp) temporary file"
	else bad file-size-limit "exit $rc: $(cat "$T/lim.err")"; fi
fi

# ---- 13. batch: where it runs PCRE2 ----
# `iopsy batch` takes no user regex (no --match): its only PCRE2 work is the fixed vmkernel.log
# patterns, one match per pattern per line, a line cut at 1 MiB. Lines built to make the lazy
# `to dev "..." .*? failed` pattern backtrack (45,000 starts, 45,000 near-misses each) stay
# linear: a set with 18 MB of them is analysed in bounded time and memory.
name=batch-vmklog
if [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ]; then
	mkdir -p "$T/vb/in/set"
	"$BIN" simulate --scenario healthy --out "$T/vb/sim" --duration 120 --interval 5 >/dev/null 2>&1
	cp "$T/vb/sim/esxtop.csv" "$T/vb/in/set/"
	awk 'BEGIN { for (i = 0; i < 20; i++) { printf "2026-07-27T13:10:05Z cpu1:1)ScsiDeviceIO: Cmd 0x2a "
		for (k = 0; k < 30000; k++) printf "to dev \"a\" Failed H:0x1 D:0xZ "; printf "\n" } }' >"$T/vb/in/set/vmkernel.log"
fi
if run batch-vmklog 0 "" batch "$T/vb/in" --out "$T/vb/out" --quiet; then
	if [ "$secs" -le 30 ] && grep -q '"role": "vmkernel-log"' "$T/vb/out/summary.json"; then ok batch-vmklog "$info, $(wc -c <"$T/vb/in/set/vmkernel.log") bytes of vmkernel.log"
	else bad batch-vmklog "took $secs s or the log was not read"; fi
fi

# ---- 14. a host of 3,000 busy devices, every one with a finding ----
# Each analysed series keeps a quantile sketch and a downsampled series; a busy one (non-zero
# samples) used to cost 5 KiB of sketch counters and 2 KiB of buckets whatever its values: 3,000
# copies of the simulator's saturated device took 493 MB. The sketch keeps only the buckets its
# values use, and its first 64 values in 2 bytes each when they are short decimals (doc/limits.md,
# "Busy devices"): 169 MB (186 MB with 8-byte values), bounded here at 180 MB.
name=analyze-busy-devices
BUSY_BOUND_KB=${BUSY_BOUND_KB:-180000}
MEMCASE=1
if [ -n "$SAN" ]; then
	skip "$name" "a memory bound, not measured under the sanitizers"
elif [ "${HOSTILE_TIER:-}" = fast ]; then
	skip "$name" "a memory bound of a large input: HOSTILE_TIER=mem (make check) runs it"
elif { [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ] || [ "$HOSTILE_ONLY" = __mem__ ]; } &&
	command -v python3 >/dev/null 2>&1; then
	"$BIN" simulate --scenario backend-saturated --only esxtop --duration 600 --out "$T/busy" >/dev/null 2>&1
	python3 bench/busy_host.py "$T/busy/esxtop.csv" 3000 "$T/busy3000.csv"
	if run analyze-busy-devices 0 "3000 findings" analyze "$T/busy3000.csv"; then
		if [ "$rss" -le "$BUSY_BOUND_KB" ]; then ok analyze-busy-devices "$info, $(wc -c <"$T/busy3000.csv") bytes"
		else bad analyze-busy-devices "peak RSS ${rss} KB over ${BUSY_BOUND_KB} KB"; fi
	fi
	rm -f "$T/busy3000.csv"
fi

# ---- 15. a batch of two sets of 100,000 empty files each ----
# The run lists every file of every set in index.html and summary.json: they used to be built
# whole in memory (200 MB of JSON for 1,000,000 files, in a buffer of twice that), now they are
# written a few hundred KB at a time. 200,000 files: 83 MB before, 44 MB now, bounded at 64 MB.
name=batch-many-files
MANY_BOUND_KB=${MANY_BOUND_KB:-32000}
MEMCASE=1
if [ -n "$SAN" ]; then
	skip "$name" "a memory bound, not measured under the sanitizers"
elif [ "${HOSTILE_TIER:-}" = fast ]; then
	skip "$name" "a memory bound of a large input: HOSTILE_TIER=mem (make check) runs it"
elif { [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ] || [ "$HOSTILE_ONLY" = __mem__ ]; } &&
	command -v python3 >/dev/null 2>&1; then
	python3 -c '
import os, sys
for s in "ab":
    d = os.path.join(sys.argv[1], s)
    os.makedirs(d)
    for i in range(100000):
        open(os.path.join(d, "f%06d.csv" % i), "w").close()
' "$T/many/in"
	if run batch-many-files 3 "no capture file" batch "$T/many/in" --out "$T/many/out" --quiet -j 1; then
		nf=$(grep -c '"path": ' "$T/many/out/summary.json")
		if [ "$rss" -gt "$MANY_BOUND_KB" ]; then bad batch-many-files "peak RSS ${rss} KB over ${MANY_BOUND_KB} KB"
		elif [ "$nf" != 200000 ] || ! json_ok "$T/many/out/summary.json"; then bad batch-many-files "summary.json lists $nf files"
		else ok batch-many-files "$info, $nf files listed"; fi
	fi
	rm -rf "$T/many"
fi

MEMCASE=

# ---- 16. past the entity cap (MODEL_MAX_ENTITIES = 20,000 per capture) ----
# esxtop writes its paths and per-world IO before the virtual disks. 20,001 paths inserted before
# the noisy neighbour's per-world columns used to push out its per-world IO: the first action
# flipped from "Separate SQL01 from APP03" to "Raise the queue depth". Paths now come after every
# other entity: the advice holds, the paths are said to be past the cap (stderr, captures,
# coverage, inputs) and none is judged. 20,001 extra per-world columns (worlds past the cap):
# no neighbour and no queue-depth advice from a partial set of worlds.
# gen_cap SRC N KIND: N columns of KIND (path, world) before the first per-world column
gen_cap() {
	awk -v n="$2" -v kind="$3" 'BEGIN { FS = "," }
	NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /Per-Device-Per-World/) { at = i; break }
		for (i = 1; i < at; i++) printf "%s,", $i
		for (k = 0; k < n; k++)
			if (kind == "path") printf "\"\\\\esx01.lab.local\\Physical Disk Path(vmhba9:C%d:T%d:L%d)\\Commands/sec\",", k % 4, int(k / 256) % 256, k % 256
			else printf "\"\\\\esx01.lab.local\\Physical Disk Per-Device-Per-World(naa.624a93708c1f4e2b1102000067bf1af7-%d)\\Commands/sec\",", 3000000 + k
		for (i = at; i < NF; i++) printf "%s,", $i
		print $NF; next }
	{ for (i = 1; i < at; i++) printf "%s,", $i
		for (k = 0; k < n; k++) printf "\"0\","
		for (i = at; i < NF; i++) printf "%s,", $i
		print $NF }' "$1"
}
name=entity-cap
if [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ] || [ "$HOSTILE_ONLY" = "$name-worlds" ]; then
	"$BIN" simulate --scenario noisy-neighbour --out "$T/cap" --duration 120 >/dev/null 2>&1
	gen_cap "$T/cap/esxtop.csv" 20001 path >"$T/cap/paths.csv"
	gen_cap "$T/cap/esxtop.csv" 20001 world >"$T/cap/worlds.csv"
fi
if run entity-cap 0 "columns of paths not read" analyze "$T/cap/paths.csv" "$T/cap/perfmon.csv" \
	--map "$T/cap/disks.map" --json "$T/cap/p.json" --report md="$T/cap/p.md"; then
	if ! sed -n '/RECOMMENDED ACTIONS/,/^$/p' "$out" | grep -q "1\. Separate SQL01 from APP03"; then
		bad entity-cap "the first action is not the neighbour's: $(grep -m1 ' 1\. ' "$out")"
	elif ! grep -q 'adapter  partly assessed.*more than 20000 entities' "$out" ||
		! tr '\n' ' ' <"$out" | tr -s ' ' | grep -q 'has more than 20000 entities of one kind: [0-9]* columns of paths not read' ||
		! grep -q 'CAPTURE; given: .*paths.csv:1; what the captures said: more than$' "$out"; then
		bad entity-cap "the cap is not said in coverage, captures and inputs"
	elif grep -q 'vmhba9:' "$out" || ! grep -q 'paths: past the entity cap' "$out"; then
		bad entity-cap "paths judged from a partial set"
	elif ! tr -d ' \n' <"$T/cap/p.json" | grep -q '"over_cap_layers":\["path"\]' || ! grep -q '"reason": "over_cap"' "$T/cap/p.json" ||
		! grep -q 'more than 20000 entities of one kind' "$T/cap/p.md"; then
		bad entity-cap "the JSON or Markdown does not say it"
	else ok entity-cap "$info"; fi
fi
if run entity-cap-worlds 0 "columns of per-world IO, paths not read" analyze "$T/cap/worlds.csv" "$T/cap/perfmon.csv" \
	--map "$T/cap/disks.map"; then
	a1=$(sed -n '/RECOMMENDED ACTIONS/,/^$/p' "$out" | grep -m1 ' 1\. ')
	case $a1 in
	*"Find which VMs fill LUN"*)
		if grep -q 'world    not assessed.*more than 20000' "$out" && ! grep -qi 'APP03 issues' "$out"; then
			ok entity-cap-worlds "$info"
		else bad entity-cap-worlds "the world layer is not said to be past the cap, or a neighbour is named"; fi ;;
	*) bad entity-cap-worlds "first action from a partial set of worlds: $a1" ;;
	esac
fi
[ -n "${HOSTILE_KEEP:-}" ] || rm -rf "$T/cap"

# ---- 17. an output on an input (issue 38) ----
# standard input is compared by fstat(0) when it is a regular file: `analyze - --json cap.csv <
# cap.csv` used to replace the capture and exit 0. Two reports to one file: one was lost.
name=stdin-overwrite
if [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ]; then
	"$BIN" simulate --scenario healthy --only esxtop --duration 60 --out "$T/ow" >/dev/null 2>&1
	cp "$T/ow/esxtop.csv" "$T/ow/keep.csv"
	"$BIN" analyze - --json "$T/ow/esxtop.csv" <"$T/ow/esxtop.csv" >"$T/ow/out" 2>"$T/ow/err"; rc=$?
	if [ $rc = 2 ] && grep -q "never overwrites an input" "$T/ow/err" && cmp -s "$T/ow/esxtop.csv" "$T/ow/keep.csv"; then
		ok "$name" "exit $rc"
	else bad "$name" "exit $rc, capture changed or no message: $(head -c 200 "$T/ow/err")"; fi
	"$BIN" analyze "$T/ow/esxtop.csv" --json "$T/ow/o1" --text "$T/ow/o1" >/dev/null 2>"$T/ow/err"; rc=$?
	if [ $rc = 2 ] && grep -q "both write to" "$T/ow/err" && [ ! -e "$T/ow/o1" ]; then ok two-reports-one-file "exit $rc"
	else bad two-reports-one-file "exit $rc: $(head -c 200 "$T/ow/err")"; fi
	rm -rf "$T/ow"
fi

# ---- 18. impossible values (issue 38) ----
# Per-world Commands/s of 1e200 printed "APP03 -nan% of its commands", 1e20 a plausible wrong
# share; a VHDX Latency of 1e300 "nan ms" and "inf ms"; a negative one two critical
# queue.guest_hidden findings. Values outside a counter's range are glitches (file:line:col,
# counted) and read as missing; no writer prints nan or inf.
# poke FILE REGEX ROW0 ROW1 VALUE: VALUE in the columns whose header matches REGEX, rows ROW0..ROW1
poke() {
	awk -v re="$2" -v r0="$3" -v r1="$4" -v val="$5" 'BEGIN { FS = ","; OFS = "," }
	NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ re) hit[i] = 1; print; next }
	{ if (NR - 1 >= r0 && NR - 1 <= r1) for (i in hit) $i = "\"" val "\""; print }' "$1"
}
nan_in() { # FILES...: the reports that print nan or inf (as a word); an HTML report's inline scripts
	# (uPlot and the explorer of its Explore section: code, whose Infinity is no figure) are not read
	for f in "$@"; do sed '/<script>/,/<\/script>/d' "$f" | grep -Eiwq -- '-?nan|-?inf|infinity' && echo "$f"; done
}
name=impossible-values
if [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ]; then
	I=$T/imp
	"$BIN" simulate --scenario noisy-neighbour --out "$I/nn" --duration 300 >/dev/null 2>&1
	poke "$I/nn/esxtop.csv" 'Per-Device-Per-World.*Commands/sec' 20 40 1e200 >"$I/a.csv"
	poke "$I/a.csv" 'Per-Device-Per-World.*Commands/sec' 60 80 1e20 >"$I/esx.csv"
	"$BIN" simulate --scenario hyperv-noisy-neighbour --out "$I/hv" --duration 1800 >/dev/null 2>&1
	poke "$I/hv/hyperv.csv" 'Virtual Storage Device.*SQL01_D.vhdx.\\\\Latency"' 10 12 1e300 >"$I/b.csv"
	poke "$I/b.csv" 'Virtual Storage Device.*SQL01_D.vhdx.\\\\Latency"' 40 100 -5 >"$I/hv.csv"
	rc1=0 rc2=0
	"$BIN" analyze "$I/esx.csv" "$I/nn/perfmon.csv" --map "$I/nn/disks.map" --max-warnings -1 --text "$I/e.txt" \
		--json "$I/e.json" --html "$I/e.html" --report md="$I/e.md" 2>"$I/e.err" || rc1=$?
	"$BIN" analyze "$I/hv.csv" "$I/hv/perfmon.csv" --max-warnings -1 --text "$I/h.txt" --json "$I/h.json" \
		--html "$I/h.html" --report md="$I/h.md" 2>"$I/h.err" || rc2=$?
	nw=$(grep -c 'impossible value 1e+200 in .*Per-Device-Per-World.*: above 1e+08 IO/s' "$I/e.err")
	nw20=$(grep -c 'impossible value 1e+20 in' "$I/e.err")
	nh=$(grep -c '/hv.csv:[0-9]*:[0-9]*: warning: impossible value \(1e+300\|-5\) in' "$I/h.err")
	bad_files=$(nan_in "$I"/e.txt "$I"/e.json "$I"/e.html "$I"/e.md "$I"/h.txt "$I"/h.json "$I"/h.html "$I"/h.md)
	if [ $rc1 -gt 1 ] || [ $rc2 -gt 1 ]; then bad "$name" "exit $rc1 / $rc2: $(head -c 300 "$I/e.err" "$I/h.err")"
	elif [ "$nw" -lt 21 ] || [ "$nw20" -lt 21 ] || [ "$nh" -lt 64 ]; then bad "$name" "glitches not warned at file:line:col: $nw, $nw20, $nh"
	elif [ -n "$bad_files" ]; then bad "$name" "nan or inf printed in: $bad_files"
	elif grep -q 'guest_hidden' "$I/h.json"; then bad "$name" "a finding from negative latencies"
	elif ! sed -n '/RECOMMENDED ACTIONS/,/^$/p' "$I/e.txt" | grep -q "1\. Separate SQL01 from APP03"; then
		bad "$name" "the neighbour's advice changed: $(grep -m1 ' 1\. ' "$I/e.txt")"
	elif ! tr '\n' ' ' <"$I/e.txt" | tr -s ' ' | grep -q 'impossible values read as missing' || ! grep -q '"impossible_values"' "$I/h.json"; then
		bad "$name" "the count of glitches is not in the captures"
	else ok "$name" "$nw + $nw20 + $nh glitches warned"; fi
	[ -n "${HOSTILE_KEEP:-}" ] || rm -rf "$I"
fi

# ---- 19. duplicate column names, two VMs of one name (issue 38) ----
# Two VMs may share a display name (different folders): APP03 renamed SQL01 in the noisy
# neighbour's capture. Its virtual disks' columns repeat SQL01's names and were dropped without a
# word, its worlds merged into SQL01's, and the first action flipped to "Raise the queue depth".
# Now: each repeated name warned at file:1:COL and listed in the inputs, the worlds told apart by
# group id, and no queue advice from the merged name.
name=twin-vms
if [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ]; then
	"$BIN" simulate --scenario noisy-neighbour --out "$T/twin" --duration 120 >/dev/null 2>&1
	sed 's/APP03/SQL01/g' "$T/twin/esxtop.csv" >"$T/twin/twin.csv"
fi
if run twin-vms 0 "twin.csv:1:2555: warning: column 2555 has the name of column 2520" analyze "$T/twin/twin.csv" \
	"$T/twin/perfmon.csv" --map "$T/twin/disks.map"; then
	a1=$(sed -n '/RECOMMENDED ACTIONS/,/^$/p' "$out" | grep -m1 ' 1\. ')
	if ! grep -q 'CAPTURE; given: .*twin.csv:1; what the captures said: 21 columns$' "$out"; then
		bad twin-vms "the repeated names are not in the inputs"
	elif ! grep -q 'SQL01 (group [0-9]*) 98% of its commands' "$out"; then bad twin-vms "the two VMs' worlds merged"
	else case $a1 in *"Find which VMs fill LUN"*) ok twin-vms "$info" ;; *) bad twin-vms "advice from a merged VM: $a1" ;; esac
	fi
fi
[ -n "${HOSTILE_KEEP:-}" ] || rm -rf "$T/twin"

# ---- 20. SIGTERM to analyze --pdf (issue 38) ----
# The browser (here a stand-in that waits, with a helper of its own) used to be left running and
# $TMPDIR/iopsy-pdf.* left behind: the signal now kills its process group and removes the folder.
name=pdf-sigterm
if [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ]; then
	P=$T/pdfsig
	mkdir -p "$P/tmp"
	"$BIN" simulate --scenario healthy --only esxtop --duration 60 --out "$P" >/dev/null 2>&1
	printf '#!/bin/sh\nsleep 61.3705 &\nexec sleep 61.3706\n' >"$P/chromium"
	chmod +x "$P/chromium"
	TMPDIR=$P/tmp IOPSY_CHROMIUM=$P/chromium "$BIN" analyze "$P/esxtop.csv" --pdf "$P/r.pdf" >/dev/null 2>&1 &
	pid=$!
	i=0; while [ -z "$(ls "$P/tmp")" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
	sleep 0.3
	kill -TERM "$pid"; wait "$pid"; rc=$?
	sleep 0.2
	left=$(ps -eo args | grep -c '^sleep 61.370[56]')
	if [ $rc = 143 ] && [ -z "$(ls "$P/tmp")" ] && [ "$left" = 0 ] && [ ! -e "$P/r.pdf" ]; then ok "$name" "exit $rc"
	else bad "$name" "exit $rc, left in TMPDIR: $(ls "$P/tmp"), browser processes left: $left"; fi
	rm -rf "$P"
fi

# ---- 21. bidi controls from capture names; a TMPDIR that is not there (issue 38, Low) ----
# A VM named with U+202E (RIGHT-TO-LEFT OVERRIDE) reached text, Markdown and HTML raw, reordering
# what a reader sees: now U+FFFD everywhere, with a warning. A missing TMPDIR gave an HTML without
# charts and no word: now said, and /tmp used.
name=bidi-names
if [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ]; then
	"$BIN" simulate --scenario noisy-neighbour --out "$T/bidi" --duration 120 >/dev/null 2>&1
	sed "s/APP03/APP$(printf '\342\200\256')03/g" "$T/bidi/esxtop.csv" >"$T/bidi/rlo.csv"
	TMPDIR=$T/no-such-folder "$BIN" analyze "$T/bidi/rlo.csv" --text "$T/bidi/r.txt" --json "$T/bidi/r.json" \
		--html "$T/bidi/r.html" --report md="$T/bidi/r.md" >/dev/null 2>"$T/bidi/err"; rc=$?
	raw=$(grep -l "$(printf '\342\200\256')" "$T/bidi"/r.* 2>/dev/null)
	if [ $rc -gt 1 ] || [ -n "$raw" ]; then bad "$name" "exit $rc, U+202E raw in: $raw"
	elif ! grep -q "APP$(printf '\357\277\275')03" "$T/bidi/r.txt" || ! grep -q 'bidirectional control characters' "$T/bidi/err"; then
		bad "$name" "not shown as U+FFFD or not warned"
	elif ! grep -q 'TMPDIR=.*no-such-folder is not a writable folder' "$T/bidi/err" || ! grep -q '<svg' "$T/bidi/r.html"; then
		bad tmpdir-missing "no word of the missing TMPDIR, or no charts"
	else ok "$name" "exit $rc; TMPDIR missing: said, charts drawn"; fi
	rm -rf "$T/bidi"
fi

# ---- 22. a disk map of 200,000 lines (issue 38, Low) ----
# Each line naming nothing printed two warnings whatever --max-warnings said, and every line went
# into the JSON's disk_map: now the first few are said, the rest counted, and the lines naming
# nothing either capture has are left out of the map the reports list.
name=map-lines
if [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ] || [ "$HOSTILE_ONLY" = map-bad-lines ]; then
	"$BIN" simulate --scenario healthy --out "$T/map" --duration 120 >/dev/null 2>&1
	awk 'BEGIN { for (i = 0; i < 200000; i++) printf "SQL01\\Disk %d = VM%d:scsi0:%d\n", i + 10, i, i % 16 }' >"$T/map/big.map"
	awk 'BEGIN { for (i = 0; i < 200000; i++) printf "SQL01:Z%d = VM%d:scsi0:0\n", i, i }' >"$T/map/bad.map"
fi
if run map-lines 0 "399995 more warnings of this map suppressed" analyze "$T/map/esxtop.csv" "$T/map/perfmon.csv" \
	--map "$T/map/big.map" --max-warnings 5 --json "$T/map/m.json"; then
	n=$(wc -l <"$err")
	if [ "$n" -gt 8 ] || [ "$(wc -c <"$T/map/m.json")" -gt 2000000 ]; then
		bad map-lines "$n lines on stderr, $(wc -c <"$T/map/m.json") bytes of JSON"
	else ok map-lines "$info, $n lines on stderr, $(wc -c <"$T/map/m.json") bytes of JSON"; fi
fi
if run map-bad-lines 2 "199995 more messages suppressed" analyze "$T/map/esxtop.csv" --map "$T/map/bad.map" --max-warnings 5; then
	if [ "$(wc -l <"$err")" -le 8 ]; then ok map-bad-lines "$info"; else bad map-bad-lines "$(wc -l <"$err") lines on stderr"; fi
fi
rm -rf "$T/map"

# ---- 23. --from in a DST gap (issue 38, Low) ----
# 02:30 on 8 March 2026 does not exist in New York: the warning said the moment of the jump (07:00Z)
# is used, the window began at 07:30Z.
name=from-dst-gap
if [ -z "${HOSTILE_ONLY:-}" ] || [ "$HOSTILE_ONLY" = "$name" ]; then
	"$BIN" simulate --scenario healthy --only esxtop --out "$T/dst" --start 2026-03-08T06:00:00Z --duration 7200 \
		--interval 60 >/dev/null 2>&1
fi
if run from-dst-gap 0 "the moment of the jump is used" analyze "$T/dst/esxtop.csv" --tz America/New_York \
	--from 2026-03-08T02:30 --json "$T/dst/w.json"; then
	if grep -q '"from": "2026-03-08T07:00:00Z"' "$T/dst/w.json"; then ok from-dst-gap "$info"
	else bad from-dst-gap "window: $(grep -m1 '"from":' "$T/dst/w.json")"; fi
fi
rm -rf "$T/dst"

if [ "$skipped" -gt 0 ]; then echo "hostile: $pass passed, $fail failed, $skipped skipped"
else echo "hostile: $pass passed, $fail failed"; fi
[ $fail = 0 ]
