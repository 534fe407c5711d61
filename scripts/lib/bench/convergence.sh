#!/usr/bin/env bash
# Convergence figures, in one run on a 3-node cluster of its own (ports BASE_PORT to BASE_PORT+2,
# default 8180-8182, Hazelcast from HZ_PORT, default 5801; nodes at -Xms and -Xmx HEAP, default
# 256m; data in a temporary directory deleted at the end):
#  1. hinted handoff: node 3 is stopped, HINTS keys are written at 2/3 through node 1 (one hint
#     each for node 3), node 3 is started, and the time until node 1 has no hint left is taken;
#  2. read throughput at 2/3 through node 1 on keys all replicas agree on, against keys that
#     node 3 missed (written while it was down, hints dropped), where nearly every read
#     triggers a read repair; rounds interleaved, with the repairs counted.
# Needs wrk (apt-get install wrk) and python3.
#
#   scripts/bench convergence            # HINTS=10000 KEYS=200000 DURATION=5
set -euo pipefail
cd "$(dirname "$0")/../../.."

HINTS=${HINTS:-10000}
KEYS=${KEYS:-200000}
DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-64}
BASE_PORT=${BASE_PORT:-8180}
HZ_PORT=${HZ_PORT:-5801}
export KEYS VALUE=${VALUE:-100}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run wrk bc python3

ports=("$BASE_PORT" $((BASE_PORT + 1)) $((BASE_PORT + 2)))
node1="http://127.0.0.1:${ports[0]}"
node3="http://127.0.0.1:${ports[2]}"
all_nodes=("${ports[@]/#/node-}")

cluster() { json_at "$node1/v0/cluster" "$1"; } # EXPR on node 1's /v0/cluster
pending_for_node3() { cluster "j['hints']['pending'].get('$node3', 0)"; }
await_no_hints_for_node3() { # gives up after 300 s
  local deadline=$((SECONDS + 300))
  while [ "$(pending_for_node3)" != 0 ]; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "hints for node 3 still pending: $(pending_for_node3)" >&2; exit 1; }
    sleep 0.05
  done
}

# Part 1: HINTS hints to a returning node (hint window: default 3 h).
start_cluster "$work/part1" "$HZ_PORT" '"hints": { "windowMs": 10800000, "retryMs": 1000 }' "${ports[@]}"
node_stop TERM "node-${ports[2]}"
echo "writing $HINTS keys at 2/3 with node 3 down..."
fill "$node1" "$HINTS" "&ack=2&from=3" h
echo "pending hints for node 3 on node 1: $(pending_for_node3)"
t0=$(date +%s.%N)
start_nodes "$work/part1" "${ports[2]}"
await_no_hints_for_node3
t1=$(date +%s.%N)
printf 'hinted handoff: %s hints delivered %.2f s after the returning node was launched (its start-up included)\n' \
  "$HINTS" "$(echo "$t1 - $t0" | bc -l)"
echo "  node 1 hints: $(cluster 'json.dumps(j["hints"])')"

# Part 2: read throughput with and without read repair, on a fresh cluster. Node 3 misses the
# 's' keys; the hint window is cut to 1 ms so their hints are dropped, not delivered.
node_stop TERM "${all_nodes[@]}"
start_cluster "$work/part2" "$HZ_PORT" '"hints": { "windowMs": 1, "retryMs": 1000 }' "${ports[@]}"
echo "writing $KEYS consistent keys (3/3)..."
fill "$node1" "$KEYS" "&ack=3&from=3" c
node_stop TERM "node-${ports[2]}"
echo "writing $KEYS keys node 3 misses (2/3)..."
fill "$node1" "$KEYS" "&ack=2&from=3" s
start_nodes "$work/part2" "${ports[2]}"
await_no_hints_for_node3

repairs() { cluster 'j["readRepairs"]["written"]'; }
rate() { PREFIX=$1 QUORUM="&ack=2&from=3" wrk_rate "$work/get-$1.txt" "$node1" get; } # PREFIX
echo "warming up..."
rate c > /dev/null
declare -A results
for round in 1 2 3; do
  for prefix in c s; do
    sleep 1  # lets the previous run's background repairs finish before counting
    before=$(repairs)
    r=$(rate $prefix)
    after=$(repairs)
    results[$prefix]+="$r "
    label=$([ $prefix = c ] && echo "replicas agree  " || echo "node 3 stale    ")
    printf 'round %d  GET 2/3, %s %10.0f req/s   read repairs by node 1: %d\n' "$round" "$label" "$r" "$((after - before))"
  done
done
agree=$(echo "${results[c]}" | median)
stale=$(echo "${results[s]}" | median)
printf '\nmedian GET 2/3: replicas agree %.0f req/s, read repair triggering %.0f req/s, ratio %.2f\n' \
  "$agree" "$stale" "$(echo "$stale / $agree" | bc -l)"
