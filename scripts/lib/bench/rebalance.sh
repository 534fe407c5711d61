#!/usr/bin/env bash
# Client latency while a fourth node joins, at several transfer paces, side by side. For each
# pace P of PACES (records/s, default "1000 2000 4000 10000"): a fresh 3-node cluster of this script's
# own (ports BASE_PORT.., default 8095; Hazelcast from HZ_PORT, default 5721; every node with
# transfer.recordsPerSecond = P), KEYS keys (default 100,000) written at ack=2&from=3, then the load
# tool at RATE req/s (default 300, mixed: 10% PUT) through the first node for DURATION s (default
# 15) before the join (after a first such run that lets the fill's compactions settle), and again
# once the new node's transfers stream. Prints p99 and p99.9 before
# and during, their ratio, and how long the transfers took. Every node runs at -Xms and -Xmx HEAP
# (default 256m), its data in a temporary directory deleted at the end.
#
#   scripts/bench rebalance
#   PACES="500 2000" KEYS=200000 scripts/bench rebalance
set -euo pipefail
cd "$(dirname "$0")/../../.."

PACES=${PACES:-"1000 2000 4000 10000"}
KEYS=${KEYS:-100000}
RATE=${RATE:-300}
DURATION=${DURATION:-15}
BASE_PORT=${BASE_PORT:-8095}
HZ_PORT=${HZ_PORT:-5721}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run python3 curl bc

entry="http://127.0.0.1:$BASE_PORT"
ports=("$BASE_PORT" $((BASE_PORT + 1)) $((BASE_PORT + 2)))
joiner=$((BASE_PORT + 3))

# load LABEL: the load tool's p99 and p99.9 (ms) at RATE through the first node, as "P99 P999".
load() {
  local out
  out=$(java -jar "$NODE_JAR" bench --url "$entry" --rate "$RATE" --connections 16 --duration "${DURATION}s" \
    --warmup 2s --workload mixed --put-share 0.1 --keys "$KEYS" 2>&1) || true
  awk '$1 == "99.000%" { p99 = $2 } $1 == "99.900%" { p999 = $2 } END { print p99, p999 }' <<< "$out" | tr -d 'ms'
}

# cluster_name CONF: the Hazelcast cluster name of a node's conf.
cluster_name() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hazelcast"]["clusterName"])' "$1"; }

# stage: the stage of the topology as the first node sees it.
stage() { json_at "$entry/v0/cluster" 'j["topology"]["stage"]'; }

# streaming: whether a transfer to the joiner has sent records.
streaming() {
  json_at "$entry/v0/cluster" 'any(t["recordsSent"] > 0 for t in j["transfers"])' 2> /dev/null | grep -q True
}

printf '%-8s %12s %12s %8s %12s %12s %8s %12s\n' "pace/s" "p99 before" "p99 during" "x" "p99.9 before" \
  "p99.9 during" "x" "transfer s"
for pace in $PACES; do
  round="$work/pace-$pace"
  keys="\"transfer\": { \"recordsPerSecond\": $pace }"
  start_cluster "$round" "$HZ_PORT" "$keys" "${ports[@]}" > /dev/null
  fill "$entry" "$KEYS" "&ack=2&from=3" > /dev/null
  load > /dev/null # the fill's flushes and compactions settle under this first run, not measured
  read -r before99 before999 <<< "$(load)"
  # The fourth node's conf: the three nodes and itself, joining through the first one's Hazelcast port.
  write_conf "$round/node-$joiner.json" "$joiner" "$round/data/node-$joiner" \
    "\"cluster\": [\"$entry\", \"http://127.0.0.1:${ports[1]}\", \"http://127.0.0.1:${ports[2]}\", \"http://127.0.0.1:$joiner\"], \"hazelcast\": { \"port\": $((HZ_PORT + 3)), \"members\": [\"127.0.0.1:$HZ_PORT\"], \"clusterName\": \"$(cluster_name "$round/node-$BASE_PORT.json")\" }, $keys"
  node_start "node-$joiner" "$round/node-$joiner.json"
  until streaming; do sleep 0.5; done
  started=$SECONDS
  read -r during99 during999 <<< "$(load)"
  until [ "$(stage)" = stable ]; do sleep 0.5; done
  took=$((SECONDS - started))
  printf '%-8s %12s %12s %8s %12s %12s %8s %12s\n' "$pace" "$before99" "$during99" \
    "$(bc -l <<< "scale=2; $during99 / $before99")" "$before999" "$during999" \
    "$(bc -l <<< "scale=2; $during999 / $before999")" "$took"
  stop_all_nodes > /dev/null
done
