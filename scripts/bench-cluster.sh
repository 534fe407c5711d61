#!/usr/bin/env bash
# Cluster throughput against the single node, measured side by side in one run: a single
# node (port 8090) and the local 3-node cluster of cluster/ (8080-8082, all load sent to
# 8080), PUT and GET at ack/from 1/1, 2/3 and 3/3, interleaved rounds, medians and ratios to
# the single node. Needs wrk (apt-get install wrk). Stops the local cluster at the end.
#
#   scripts/bench-cluster.sh                 # 100,000 keys, 3 rounds of 8 s, 64 connections
#   KEYS=1000000 ROUNDS=5 DURATION=15 scripts/bench-cluster.sh
set -euo pipefail
cd "$(dirname "$0")/.."

KEYS=${KEYS:-100000}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-8}
CONNECTIONS=${CONNECTIONS:-64}
SINGLE_PORT=8090
export KEYS VALUE=${VALUE:-100}

source scripts/bench-lib.sh
require_wrk
mvn -q -B -DskipTests package

work=$(mktemp -d)
cat > "$work/single.json" <<CONF
{ "url": "http://127.0.0.1:$SINGLE_PORT", "dataDir": "$work/single", "eventLoops": 2 }
CONF
java -Xmx256m -jar target/quorumkv.jar --config "$work/single.json" 2> "$work/single.log" &
single=$!
cleanup() {
  kill "$single" 2>/dev/null || true
  wait "$single" 2>/dev/null || true
  cluster/stop.sh >/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
rm -rf data/node-8080 data/node-8081 data/node-8082
cluster/start.sh

fill() { java -cp target/quorumkv.jar io.quorumkv.bench.Fill "$1" "$KEYS" "$VALUE" "$CONNECTIONS" "${2:-}"; }
echo "filling the single node and the cluster (ack=3&from=3) with $KEYS keys..."
fill "http://127.0.0.1:$SINGLE_PORT"
fill "http://127.0.0.1:8080" "&ack=3&from=3"

rate() { # name port script quorum -> requests/s
  QUORUM="$4" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "scripts/wrk/$3.lua" "http://127.0.0.1:$2" > "$work/$1.txt"
  if grep -q "Non-2xx" "$work/$1.txt"; then echo "  $1: $(grep Non-2xx "$work/$1.txt")" >&2; fi
  awk '/Requests\/sec/ {print $2}' "$work/$1.txt"
}

workloads=("single-put $SINGLE_PORT put" "single-get $SINGLE_PORT get"
           "put-1/1 8080 put &ack=1&from=1" "get-1/1 8080 get &ack=1&from=1"
           "put-2/3 8080 put &ack=2&from=3" "get-2/3 8080 get &ack=2&from=3"
           "put-3/3 8080 put &ack=3&from=3" "get-3/3 8080 get &ack=3&from=3")
declare -A results
for round in $(seq "$ROUNDS"); do
  for w in "${workloads[@]}"; do
    read -r name port script quorum <<< "$w"
    r=$(rate "${name//\//-}" "$port" "$script" "${quorum:-}")
    results[$name]+="$r "
    printf 'round %d  %-11s %10.0f req/s\n' "$round" "$name" "$r"
  done
done

echo
single_put=$(echo "${results[single-put]}" | median)
single_get=$(echo "${results[single-get]}" | median)
printf '%-12s %12s %18s\n' workload "median req/s" "ratio to single"
for w in "${workloads[@]}"; do
  read -r name _ script _ <<< "$w"
  m=$(echo "${results[$name]}" | median)
  base=$([ "$script" = put ] && echo "$single_put" || echo "$single_get")
  printf '%-12s %12.0f %18.2f\n' "$name" "$m" "$(echo "$m / $base" | bc -l)"
done
