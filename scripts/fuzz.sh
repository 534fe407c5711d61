#!/usr/bin/env bash
# Hostile input at scale: RequestFuzzTest for REQUESTS requests (1,000,000 by default) instead of
# CI's 15 seconds. Eight threads send valid requests of every endpoint (entities, ranges, status,
# cluster, metrics, /admin/jfr..., /internal/v0/record and /internal/v0/records), mutated or not,
# and random ones, to one node in its own process; the test fails on any 5xx but a 505 to a
# well-formed unsupported HTTP version, on an answer or close not within 5 s, on a 4xx that is not
# one short text/plain line, on the node's death, or when the node's directory passes MAX_DISK_MB.
# Prints progress every minute and the test's summary lines at the end (requests, req/s, answers
# by status, 5xx, hangs, node deaths).
# Exits non-zero when the test fails, including when MAX_MINUTES ends the run before REQUESTS.
#
#   scripts/fuzz.sh                                   # 1,000,000 requests, at most 8 hours
#   REQUESTS=100000 scripts/fuzz.sh
#   SEED=123456 THREADS=8 scripts/fuzz.sh             # replay a run's request sequences
#
# The full log (and, after a failure, target/fuzz-failures/*.bin with each failing request's
# bytes) is kept; the log's path is printed.
set -euo pipefail
cd "$(dirname "$0")/.."

REQUESTS=${REQUESTS:-1000000}
MAX_MINUTES=${MAX_MINUTES:-480}
THREADS=${THREADS:-8}
MAX_DISK_MB=${MAX_DISK_MB:-2048}

options=(-Dfuzz.requests="$REQUESTS" -Dfuzz.millis=$((MAX_MINUTES * 60 * 1000)) -Dfuzz.threads="$THREADS"
  -Dfuzz.maxDiskMb="$MAX_DISK_MB")
if [ -n "${SEED:-}" ]; then
  options+=(-Dfuzz.seed="$SEED")
fi
log=$(mktemp /tmp/quorumkv-fuzz.XXXXXX.log)
echo "fuzzing: $REQUESTS requests, $THREADS threads, at most $MAX_MINUTES minutes; log in $log"
# Progress every minute while it runs; the summary (the figures) at the end.
status=0
# The process tier's execution alone (docs/testing.md): compiles what changed, runs the one class.
mvn -B -o test-compile surefire:test@process-tier -Dtest=RequestFuzzTest "${options[@]}" 2>&1 | tee "$log" \
  | grep --line-buffered -E '^RequestFuzzTest (seed|progress)' || status=${PIPESTATUS[0]}
grep -E '^RequestFuzzTest summary' "$log" || true
if [ "$status" -ne 0 ]; then
  echo "RequestFuzzTest FAILED (exit $status); the failures:"
  sed -n '/FAILURE!/,/^\[INFO\] Results/p' "$log" | head -80
fi
exit "$status"
