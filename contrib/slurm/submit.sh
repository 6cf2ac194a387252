#!/bin/sh
# submit.sh — submits one weekly iopsy run to Slurm: the shards as a job array, then the finish
# job that runs once every shard has ended (afterany: also after a shard failed or was
# cancelled — its sets are then listed as failed: no result).
#   submit.sh [-n SHARDS] INPUT OUT [iopsy batch options...]
# The options (history, mail, --fail-on, ...) go to the shards and the finish job alike: a
# shard uses what it needs (-j, --history for the trends, --set-timeout, ...) and ignores the
# mail. Environment: IOPSY (the iopsy binary, default iopsy in PATH), IOPSY_RUN_ID (default: a
# new one per submission: UTC time and a random suffix), IOPSY_SBATCH_ARGS (more sbatch options
# for both jobs, e.g. "--partition=batch --account=storage"; split on spaces),
# IOPSY_SHARD_SBATCH_ARGS (for the array only, e.g. "--hold").
# Prints "run RUN_ID: shards job JOB, finish job JOB".
set -eu
here=$(cd "$(dirname "$0")" && pwd)
n=4
while getopts n: opt; do
	case $opt in
	n) n=$OPTARG ;;
	*) echo "usage: submit.sh [-n SHARDS] INPUT OUT [iopsy batch options...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
	echo "usage: submit.sh [-n SHARDS] INPUT OUT [iopsy batch options...]" >&2
	exit 2
fi
case $n in
'' | *[!0-9]* | 0) echo "submit.sh: -n takes a number of shards from 1" >&2; exit 2 ;;
esac
input=$1 out=$2
shift 2
run=${IOPSY_RUN_ID:-$(date -u +%Y%m%dT%H%M%SZ)-$(od -An -N4 -tx1 /dev/urandom | tr -d ' \n')}
# shellcheck disable=SC2086
jid=$(sbatch --parsable ${IOPSY_SBATCH_ARGS:-} ${IOPSY_SHARD_SBATCH_ARGS:-} --array=0-$((n - 1)) \
	"$here/iopsy-shard.sbatch" "$input" "$out" "$run" "$n" "$@")
jid=${jid%%;*}
# shellcheck disable=SC2086
fid=$(sbatch --parsable ${IOPSY_SBATCH_ARGS:-} --dependency=afterany:"$jid" \
	"$here/iopsy-finish.sbatch" "$input" "$out" "$run" "$@")
fid=${fid%%;*}
echo "run $run: shards job $jid, finish job $fid"
