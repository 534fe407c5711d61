#!/usr/bin/env bash
# The runs behind docs/reports/<date>-baseline: a single node (PUT and GET on 1 and 64
# connections) and the local 3-node cluster (PUT and GET at 1/1, 2/3 and 3/3), each a
# constant-rate load with a JFR session, through scripts/profile. Rates are set below the
# point where latency breaks on the 2-core machine the report was made on; pass others as
# SINGLE_GET, SINGLE_PUT, ONE_CONN, C11, C23, C33 (req/s).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/bench-lib.sh
export REPORT=baseline KEYS=${KEYS:-100000} KEEP_NODES=1
DURATION=${DURATION:-15s}
mvn -q -B -DskipTests package

work=$(mktemp -d)
printf '{ "url": "http://127.0.0.1:8090", "dataDir": "%s/data", "eventLoops": 2 }\n' "$work" > "$work/node.json"
java -Xmx512m -jar target/quorumkv.jar --config "$work/node.json" 2> "$work/node.log" &
node=$!
cleanup() { kill "$node" 2>/dev/null || true; wait "$node" 2>/dev/null || true; cluster/stop.sh >/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
await_ready http://127.0.0.1:8090 "$work/node.log"
java -cp target/quorumkv.jar io.quorumkv.bench.Fill http://127.0.0.1:8090 "$KEYS" 100 64 2>&1 | tr '\r' '\n' | tail -n 1

# The first run after a start warms the node's JIT and settles the fill's compactions longer.
WARMUP=20s scripts/profile single-put-64c put "${SINGLE_PUT:-15000}" 64 "$DURATION"
scripts/profile single-get-64c get "${SINGLE_GET:-20000}" 64 "$DURATION"
scripts/profile single-put-1c put "${ONE_CONN:-2000}" 1 "$DURATION"
scripts/profile single-get-1c get "${ONE_CONN:-2000}" 1 "$DURATION"
kill "$node"; wait "$node" 2>/dev/null || true

rm -rf data/node-8080 data/node-8081 data/node-8082
cluster/start.sh > /dev/null
java -cp target/quorumkv.jar io.quorumkv.bench.Fill http://127.0.0.1:8080 "$KEYS" 100 64 "&ack=3&from=3" 2>&1 | tr '\r' '\n' | tail -n 1
export CLUSTER=1
QUORUM="&ack=1&from=1" WARMUP=20s scripts/profile cluster-put-1of1 put "${C11:-5000}" 64 "$DURATION"
QUORUM="&ack=1&from=1" scripts/profile cluster-get-1of1 get "${C11:-5000}" 64 "$DURATION"
QUORUM="&ack=2&from=3" scripts/profile cluster-put-2of3 put "${C23:-4000}" 64 "$DURATION"
QUORUM="&ack=2&from=3" scripts/profile cluster-get-2of3 get "${C23:-4000}" 64 "$DURATION"
QUORUM="&ack=3&from=3" scripts/profile cluster-put-3of3 put "${C33:-4000}" 64 "$DURATION"
QUORUM="&ack=3&from=3" scripts/profile cluster-get-3of3 get "${C33:-4000}" 64 "$DURATION"
