#!/usr/bin/env bash
# Single-node throughput, measured side by side in one run: GET and PUT of /v0/entity
# against GET /v0/status (the HTTP stack with no storage), interleaved rounds, medians
# and the entity/status ratios at the end. Needs wrk (apt-get install wrk). The node runs on
# PORT (default 8090) at -Xms and -Xmx HEAP (default 256m), in a temporary directory.
#
#   scripts/bench single-node            # 100,000 keys, 3 rounds of 10 s, 64 connections
#   KEYS=1000000 ROUNDS=5 DURATION=20 CONNECTIONS=64 scripts/bench single-node
set -euo pipefail
cd "$(dirname "$0")/../../.."

KEYS=${KEYS:-100000}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
PORT=${PORT:-8090}
export KEYS VALUE=${VALUE:-100}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run wrk bc

url="http://127.0.0.1:$PORT"
start_single node "$PORT" "$work/data"
echo "filling $KEYS keys of $VALUE bytes..."
fill "$url" "$KEYS"

declare -A results
for round in $(seq "$ROUNDS"); do
  for workload in status get put; do
    r=$(wrk_rate "$work/$workload.txt" "$url" "$workload")
    results[$workload]+="$r "
    printf 'round %d  %-6s %10.0f req/s\n' "$round" "$workload" "$r"
  done
done

status=$(echo "${results[status]}" | median)
get=$(echo "${results[get]}" | median)
put=$(echo "${results[put]}" | median)
echo
printf 'median  GET /v0/status  %10.0f req/s\n' "$status"
printf 'median  GET /v0/entity  %10.0f req/s   ratio to status %.2f\n' "$get" "$(echo "$get / $status" | bc -l)"
printf 'median  PUT /v0/entity  %10.0f req/s   ratio to status %.2f\n' "$put" "$(echo "$put / $status" | bc -l)"
