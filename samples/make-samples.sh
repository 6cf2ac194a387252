#!/bin/sh
# Rebuilds samples/ from the simulator (deterministic: same binary, same bytes).
# Usage: sh samples/make-samples.sh [path/to/iopsy]
set -eu
IOPSY=${1:-./iopsy}
cd "$(dirname "$0")/.."
for s in healthy lsi-guest-queue-cap adaptive-queue-depth misaligned-partition migration; do
	rm -rf "samples/$s"
	"$IOPSY" simulate --scenario "$s" --out "samples/$s" --seed 7 --duration 1200 --interval 5 --gzip
done
rm -rf samples/hyperv-noisy-neighbour
"$IOPSY" simulate --scenario hyperv-noisy-neighbour --out samples/hyperv-noisy-neighbour --seed 7 --duration 1200 --interval 5 --gzip
echo "samples rebuilt with $("$IOPSY" --version)"
