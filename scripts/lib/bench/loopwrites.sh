#!/usr/bin/env bash
# How long writes on the event loop (storage.writesOnLoop) hold it: one node with them on takes
# PUTs of new keys at a fixed rate, and the histogram quorumkv_storage_loop_write_seconds between two
# scrapes of /metrics gives each stage's quantiles and the share of tries over 100 us (the bar a
# write on an event loop must pass at p99.9).
#
#   scripts/bench loopwrites [OUT_DIR]           # default bench/results/DATE-TIME-loopwrites
#   RATE64=29000 RATE1=5400 DURATION=30 scripts/bench loopwrites
#
# Stages: RATE64 PUT/s on 64 connections, then RATE1 on one (defaults: half of the peer's
# saturation in the 2026-11-29 compare.py runs), each DURATION s (default 30) after a 10 s warm-up
# at its rate, outside the window; the load tool is a JVM beside the node, heavier than wrk2 on two
# cores, so its shares run higher than docs/performance.md's (measured with wrk2); the node (PORT, default 8097, -Xms and -Xmx HEAP, default 1g) is filled with KEYS
# records first (default 300,000) and its keys are drawn from 100 times as many, so nearly every
# PUT is of a new key, as compare.py's are. NODE_KEYS adds keys to the node's conf. Writes
# OUT_DIR/STAGE-before.txt and -after.txt (the scrapes) and OUT_DIR/loopwrites.md; the node's data
# lives in a temporary directory deleted at the end.
set -euo pipefail
cd "$(dirname "$0")/../../.."
OUT=${1:-}
RATE64=${RATE64:-29000}
RATE1=${RATE1:-5400}
DURATION=${DURATION:-30}
KEYS=${KEYS:-300000}
PORT=${PORT:-8097}
HEAP=${HEAP:-1g}
NODE_KEYS=${NODE_KEYS:-}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run curl python3
results_dir loopwrites "$OUT"
NODE_JVM="-Xms$HEAP -Xmx$HEAP -XX:+UseG1GC"
url="http://127.0.0.1:$PORT"
start_single node "$PORT" "$work/data" "\"storage\": {\"writesOnLoop\": true}${NODE_KEYS:+, $NODE_KEYS}" > /dev/null
echo "filling $KEYS records..."
fill "$url" "$KEYS" > /dev/null

table="$OUT/loopwrites.md"
echo "# Loop-write tries under fixed-rate PUTs ($(date -u +%F), commit $(git rev-parse --short HEAD))" > "$table"
# handed_off COUNTS_FILE: the writes tried on the loop and handed to a worker, so far.
handed_off() { awk -F' ' '/^quorumkv_storage_loop_writes_total\{outcome="handed_off"/ { print $2 }' "$1"; }
for stage in "64 $RATE64" "1 $RATE1"; do
  read -r connections rate <<< "$stage"
  name="c$connections"
  # The warm-up run (the tool's JIT and the node's at this rate) stays out of the scrapes' window.
  java -jar "$NODE_JAR" bench --url "$url" --rate "$rate" --connections "$connections" --workload put \
    --keys $((KEYS * 100)) --duration 10s --warmup 0s > /dev/null 2>&1 || true
  curl -sf "$url/metrics" > "$OUT/$name-before.txt"
  java -jar "$NODE_JAR" bench --url "$url" --rate "$rate" --connections "$connections" --workload put \
    --keys $((KEYS * 100)) --duration "${DURATION}s" --warmup 2s > "$OUT/$name-load.txt" 2>&1 || true
  curl -sf "$url/metrics" > "$OUT/$name-after.txt"
  {
    echo
    echo "## $rate PUT/s on $connections connection(s), $DURATION s"
    echo
    echo '```'
    grep -E "^Requests/sec|^ +99\.[09]00%|COULD NOT KEEP" "$OUT/$name-load.txt" || true
    python3 scripts/lib/bench/histogram_delta.py "$OUT/$name-before.txt" "$OUT/$name-after.txt" \
      quorumkv_storage_loop_write_seconds --over 0.0001
    echo "writes handed to a worker: $(python3 -c "print(int(float('$(handed_off "$OUT/$name-after.txt")') - float('$(handed_off "$OUT/$name-before.txt")')))")"
    echo '```'
  } | tee -a "$table"
done
node_stop TERM node > /dev/null
echo "wrote $table"
