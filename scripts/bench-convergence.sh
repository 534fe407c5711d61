#!/usr/bin/env bash
# Convergence figures, in one run on a local 3-node cluster of its own (ports 8180-8182):
#  1. hinted handoff: node 3 is stopped, HINTS keys are written at 2/3 through node 1 (one hint
#     each for node 3), node 3 is started, and the time until node 1 has no hint left is taken;
#  2. read throughput at 2/3 through node 1 on keys all replicas agree on, against keys that
#     node 3 missed (written while it was down, hints dropped), where nearly every read
#     triggers a read repair; rounds interleaved, with the repairs counted.
# Needs wrk (apt-get install wrk).
#
#   scripts/bench-convergence.sh            # HINTS=10000 KEYS=200000 DURATION=5
set -euo pipefail
cd "$(dirname "$0")/.."

HINTS=${HINTS:-10000}
KEYS=${KEYS:-200000}
DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-64}
export VALUE=${VALUE:-100}

source scripts/bench-lib.sh
require_wrk
mvn -q -B -DskipTests package
work=$(mktemp -d)
cleanup() {
  stop_pids
  rm -rf "$work"
}
trap cleanup EXIT

conf() { # index windowMs
  local port=$((8180 + $1)) hz=$((5801 + $1))
  cat > "$work/node-$1.json" <<CONF
{ "url": "http://127.0.0.1:$port",
  "cluster": ["http://127.0.0.1:8180", "http://127.0.0.1:8181", "http://127.0.0.1:8182"],
  "dataDir": "$work/data-$1", "eventLoops": 2,
  "hints": { "windowMs": $2, "retryMs": 1000 },
  "hazelcast": { "port": $hz, "members": ["127.0.0.1:5801", "127.0.0.1:5802", "127.0.0.1:5803"],
                 "clusterName": "quorumkv-bench-$$" } }
CONF
}
start() { # index
  java -Xmx256m -jar target/quorumkv.jar --config "$work/node-$1.json" 2>> "$work/node-$1.log" &
  pids[$1]=$!
  await_ready "http://127.0.0.1:$((8180 + $1))" "$work/node-$1.log"
}
stop() { kill "${pids[$1]}"; wait "${pids[$1]}" 2>/dev/null || true; }
pending_for_node3() {
  curl -s http://127.0.0.1:8180/v0/cluster | tr -d ' \n' | grep -o '"http://127.0.0.1:8182":[0-9]*' | cut -d: -f4 || true
}
cluster_json() { curl -s http://127.0.0.1:8180/v0/cluster | tr -d ' \n'; }
await_no_hints_for_node3() { # gives up after 300 s
  for _ in $(seq 6000); do [ "$(pending_for_node3)" = "0" ] && return; sleep 0.05; done
  echo "hints for node 3 still pending: $(pending_for_node3)" >&2; exit 1
}
fill() { java -cp target/quorumkv.jar io.quorumkv.bench.Fill http://127.0.0.1:8180 "$1" "$VALUE" "$CONNECTIONS" "$2" "$3"; }

# Part 1: 10,000 hints to a returning node (hint window: default 3 h).
for i in 0 1 2; do conf $i 10800000; start $i & done; wait
for i in 0 1 2; do pids[$i]=$(pgrep -f "$work/node-$i.json"); done
stop 2
echo "writing $HINTS keys at 2/3 with node 3 down..."
fill "$HINTS" "&ack=2&from=3" h
echo "pending hints for node 3 on node 1: $(pending_for_node3)"
t0=$(date +%s.%N)
start 2
await_no_hints_for_node3
t1=$(date +%s.%N)
printf 'hinted handoff: %s hints delivered %.2f s after the returning node was launched (its start-up included)\n' \
  "$HINTS" "$(echo "$t1 - $t0" | bc -l)"
echo "  node 1 hints: $(cluster_json | grep -o '"hints":{[^}]*}[^}]*}')"

# Part 2: read throughput with and without read repair. Node 3 misses the 's' keys; the
# hint window is cut to 1 ms on node 1 so their hints are dropped, not delivered.
for i in 0 1 2; do stop $i; done
conf 0 1
for i in 0 1 2; do start $i & done; wait
for i in 0 1 2; do pids[$i]=$(pgrep -f "$work/node-$i.json"); done
echo "writing $KEYS consistent keys (3/3)..."
fill "$KEYS" "&ack=3&from=3" c
stop 2
echo "writing $KEYS keys node 3 misses (2/3)..."
fill "$KEYS" "&ack=2&from=3" s
start 2
await_no_hints_for_node3

repairs() { cluster_json | grep -o '"readRepairs":{"sent":[0-9]*' | grep -o '[0-9]*$'; }
rate() { # prefix
  PREFIX=$1 KEYS=$KEYS QUORUM="&ack=2&from=3" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s scripts/wrk/get.lua http://127.0.0.1:8180 \
    | awk '/Requests\/sec/ {print $2}'
}
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
