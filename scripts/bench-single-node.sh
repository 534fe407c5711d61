#!/usr/bin/env bash
# Single-node throughput, measured side by side in one run: GET and PUT of /v0/entity
# against GET /v0/status (the HTTP stack with no storage), interleaved rounds, medians
# and the entity/status ratios at the end. Needs wrk (apt-get install wrk).
#
#   scripts/bench-single-node.sh            # 100,000 keys, 3 rounds of 10 s, 64 connections
#   KEYS=1000000 ROUNDS=5 DURATION=20 CONNECTIONS=64 scripts/bench-single-node.sh
set -euo pipefail
cd "$(dirname "$0")/.."

KEYS=${KEYS:-100000}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
PORT=${PORT:-8090}
export KEYS VALUE=${VALUE:-100}

source scripts/bench-lib.sh
require_wrk
mvn -q -B -DskipTests package

work=$(mktemp -d)
cat > "$work/node.json" <<CONF
{ "url": "http://127.0.0.1:$PORT", "dataDir": "$work/data", "eventLoops": 2 }
CONF
java -jar target/quorumkv.jar --config "$work/node.json" 2> "$work/node.log" &
node=$!
cleanup() {
  kill "$node" 2>/dev/null || true
  wait "$node" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
await_ready "http://127.0.0.1:$PORT" "$work/node.log"

url="http://127.0.0.1:$PORT"
echo "filling $KEYS keys of $VALUE bytes..."
java -cp target/quorumkv.jar io.quorumkv.bench.Fill "$url" "$KEYS" "$VALUE" "$CONNECTIONS"

rate() { # script -> requests/s
  wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "scripts/wrk/$1.lua" "$url" > "$work/$1.txt"
  if grep -q "Non-2xx" "$work/$1.txt"; then echo "  $1: non-2xx answers!" >&2; fi
  awk '/Requests\/sec/ {print $2}' "$work/$1.txt"
}

declare -A results
for round in $(seq "$ROUNDS"); do
  for workload in status get put; do
    r=$(rate "$workload")
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
