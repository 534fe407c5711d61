#!/usr/bin/env bash
# Cluster throughput against the single node, measured side by side in one run: a single
# node (port BASE_PORT, default 8090) and a 3-node cluster of this script's own (the next three
# ports, Hazelcast from HZ_PORT, default 5711; all load sent to its first node), PUT and GET at
# ack/from 1/1, 2/3 and 3/3, interleaved rounds, medians and ratios to the single node. Every node
# runs at -Xms and -Xmx HEAP (default 256m), with its data in a temporary directory deleted at
# the end. Needs wrk (apt-get install wrk).
#
#   scripts/bench cluster                 # 100,000 keys, 3 rounds of 8 s, 64 connections
#   KEYS=1000000 ROUNDS=5 DURATION=15 scripts/bench cluster
set -euo pipefail
cd "$(dirname "$0")/../../.."

KEYS=${KEYS:-100000}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-8}
CONNECTIONS=${CONNECTIONS:-64}
BASE_PORT=${BASE_PORT:-8090}
HZ_PORT=${HZ_PORT:-5711}
export KEYS VALUE=${VALUE:-100}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run wrk bc

single="http://127.0.0.1:$BASE_PORT"
entry="http://127.0.0.1:$((BASE_PORT + 1))"
ports=($((BASE_PORT + 1)) $((BASE_PORT + 2)) $((BASE_PORT + 3)))
start_single single "$BASE_PORT" "$work/single"
start_cluster "$work" "$HZ_PORT" "" "${ports[@]}"

echo "filling the single node and the cluster (ack=3&from=3) with $KEYS keys..."
fill "$single" "$KEYS"
fill "$entry" "$KEYS" "&ack=3&from=3"

workloads=("single-put $single put" "single-get $single get"
           "put-1/1 $entry put &ack=1&from=1" "get-1/1 $entry get &ack=1&from=1"
           "put-2/3 $entry put &ack=2&from=3" "get-2/3 $entry get &ack=2&from=3"
           "put-3/3 $entry put &ack=3&from=3" "get-3/3 $entry get &ack=3&from=3")
declare -A results
for round in $(seq "$ROUNDS"); do
  for w in "${workloads[@]}"; do
    read -r name url workload quorum <<< "$w"
    r=$(QUORUM="${quorum:-}" wrk_rate "$work/${name//\//-}.txt" "$url" "$workload")
    results[$name]+="$r "
    printf 'round %d  %-11s %10.0f req/s\n' "$round" "$name" "$r"
  done
done

echo
single_put=$(echo "${results[single-put]}" | median)
single_get=$(echo "${results[single-get]}" | median)
printf '%-12s %12s %18s\n' workload "median req/s" "ratio to single"
for w in "${workloads[@]}"; do
  read -r name _ workload _ <<< "$w"
  m=$(echo "${results[$name]}" | median)
  base=$([ "$workload" = put ] && echo "$single_put" || echo "$single_get")
  printf '%-12s %12.0f %18.2f\n' "$name" "$m" "$(echo "$m / $base" | bc -l)"
done
