#!/usr/bin/env bash
# The runs behind the baseline report (bench/results/<date>-baseline; the whole 2026-11-22 one is in
# commit 41f6d35: git ls-tree -r --name-only 41f6d35 -- docs/reports/2026-11-22-baseline): a single node (PUT and GET on 1 and 64
# connections) and a 3-node cluster (PUT and GET at 1/1, 2/3 and 3/3), each a constant-rate load
# with a JFR session, through scripts/profile. Rates are set below the point where latency breaks
# on the 2-core machine the report was made on; pass others as SINGLE_GET, SINGLE_PUT, ONE_CONN,
# C11, C23, C33 (req/s). Nodes run on the ports of scripts/profile (BASE_PORT, default 8090, and
# the next three), at -Xms and -Xmx HEAP (default 256m; the 2026-11-22 report's single node ran
# at -Xmx512m), their data in a temporary directory deleted at the end.
set -euo pipefail
cd "$(dirname "$0")/../../.."
# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
export REPORT=baseline KEYS=${KEYS:-100000} KEEP_NODES=1
export BASE_PORT=${BASE_PORT:-8090} HZ_PORT=${HZ_PORT:-5711}
DURATION=${DURATION:-15s}
prepare_run
export JAR=$NODE_JAR # scripts/profile runs its load tool from the same jar, without building

start_single single "$BASE_PORT" "$work/single"
fill "http://127.0.0.1:$BASE_PORT" "$KEYS"
# The first run after a start warms the node's JIT and settles the fill's compactions longer.
WARMUP=20s scripts/profile single-put-64c put "${SINGLE_PUT:-15000}" 64 "$DURATION"
scripts/profile single-get-64c get "${SINGLE_GET:-20000}" 64 "$DURATION"
scripts/profile single-put-1c put "${ONE_CONN:-2000}" 1 "$DURATION"
scripts/profile single-get-1c get "${ONE_CONN:-2000}" 1 "$DURATION"
node_stop TERM single

ports=($((BASE_PORT + 1)) $((BASE_PORT + 2)) $((BASE_PORT + 3)))
start_cluster "$work" "$HZ_PORT" "" "${ports[@]}"
fill "http://127.0.0.1:${ports[0]}" "$KEYS" "&ack=3&from=3"
export CLUSTER=1
QUORUM="&ack=1&from=1" WARMUP=20s scripts/profile cluster-put-1of1 put "${C11:-5000}" 64 "$DURATION"
QUORUM="&ack=1&from=1" scripts/profile cluster-get-1of1 get "${C11:-5000}" 64 "$DURATION"
QUORUM="&ack=2&from=3" scripts/profile cluster-put-2of3 put "${C23:-4000}" 64 "$DURATION"
QUORUM="&ack=2&from=3" scripts/profile cluster-get-2of3 get "${C23:-4000}" 64 "$DURATION"
QUORUM="&ack=3&from=3" scripts/profile cluster-put-3of3 put "${C33:-4000}" 64 "$DURATION"
QUORUM="&ack=3&from=3" scripts/profile cluster-get-3of3 get "${C33:-4000}" 64 "$DURATION"
