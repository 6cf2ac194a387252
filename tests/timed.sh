#!/bin/sh
# timed.sh NAME COMMAND [ARG...] — runs COMMAND, then says on stderr how long it took:
# "time: NAME N s (exit S)". Exits with COMMAND's status. The Makefile's test targets run through
# it, so a tier's log (CI's too) shows each job's wall time for scheduling the shards.
name=$1
shift
start=$(date +%s)
"$@"
rc=$?
echo "time: $name $(($(date +%s) - start)) s (exit $rc)" >&2
exit $rc
