#!/bin/sh
# run.sh — one weekly iopsy run on Kubernetes: the shards' Indexed Job, then (once it is
# complete or failed) the finish Job. Usage: sh run.sh [WEEK]   (default: this ISO week)
# Needs kubectl with access to the namespace (KUBECONFIG, the current context) and envsubst
# (gettext-base). The run id is unique per submission, so a run again of the same week never
# counts an earlier attempt's results.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
IOPSY_WEEK=${1:-$(date +%G-W%V)}
# lower case: it is part of the Jobs' names
IOPSY_RUN_ID=$(printf '%s-%s' "$(date -u +%Y%m%dt%H%M%S)" "$(od -An -N3 -tx1 /dev/urandom | tr -d ' \n')")
export IOPSY_WEEK IOPSY_RUN_ID
envsubst '${IOPSY_RUN_ID} ${IOPSY_WEEK}' <"$here/iopsy-shards.yaml" | kubectl apply -f -
job=job/iopsy-shards-$IOPSY_RUN_ID
echo "run $IOPSY_RUN_ID: waiting for $job"
while :; do
	state=$(kubectl get "$job" -o jsonpath='{range .status.conditions[?(@.status=="True")]}{.type} {end}')
	case " $state " in
	*" Complete "* | *" Failed "*) break ;;
	esac
	sleep 30
done
echo "run $IOPSY_RUN_ID: shards $state; starting the finish Job"
envsubst '${IOPSY_RUN_ID} ${IOPSY_WEEK}' <"$here/iopsy-finish.yaml" | kubectl apply -f -
