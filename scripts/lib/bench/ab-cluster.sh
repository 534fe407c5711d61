#!/usr/bin/env bash
# Builds or settings of a 3-node cluster side by side: one cluster per variant (the confs of
# cluster/start.sh, default 2/3), all running at once, and ../shared/bench/compare.py interleaving
# them round by round (wrk -t2 at CONNECTIONS, default 64, and 1). Then each variant's cluster
# alone, one after the other: CPU_WARMUP s of PUT load, DURATION s more with every node's CPU read
# from /proc, printed per PUT. ENTITY_PATH (compare.py's Lua scripts read it) sets the quorum:
# ENTITY_PATH='/v0/entity?ack=1&from=1&id=' measures 1/1 through a node that owns a third.
# Nodes at -Xms and -Xmx HEAP (default 128m); everything lives in a temporary directory deleted
# at the end, compare.py's tables in OUT.
#
#   scripts/bench ab-cluster OUT VARIANT...     VARIANT: NAME=JAR[@JVM_OPTIONS]
#   scripts/bench ab-cluster /tmp/ab before=/tmp/before.jar after=target/quorumkv.jar
#   BENCH=../shared/bench OPS=put,get ROUNDS=4 WARMUP=15 DURATION=15 PREFILL=100000 \
#     CONNECTIONS=64 CPU_WARMUP=40 scripts/bench ab-cluster ...
set -euo pipefail
cd "$(dirname "$0")/../../.."
HEAP=${HEAP:-128m}
# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh

BENCH=${BENCH:-$QKV_ROOT/../shared/bench}
OPS=${OPS:-put,get}
ROUNDS=${ROUNDS:-4}
WARMUP=${WARMUP:-15}
DURATION=${DURATION:-15}
PREFILL=${PREFILL:-100000}
CONNECTIONS=${CONNECTIONS:-64}
CPU_WARMUP=${CPU_WARMUP:-40}
[ $# -ge 3 ] || { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
OUT=$1
shift
[ -f "$BENCH/compare.py" ] || { echo "no compare.py in $BENCH (set BENCH)" >&2; exit 1; }

require wrk
require python3
use_work_dir
results_dir ab-cluster "$OUT"
parse_variants "NAME=JAR[@JVM_OPTIONS]" "$@"

# cluster_ports I: the HTTP ports of variant I's cluster.
cluster_ports() { local base=$((18200 + 10 * $1)); echo "$base $((base + 1)) $((base + 2))"; }

# start_variant I: starts variant I's cluster (nodes named node-PORT) and waits until every node serves.
start_variant() {
  local i=$1 ports
  read -ra ports <<< "$(cluster_ports "$i")"
  NODE_JAR=${jars[i]}
  read -ra JVM_OPTIONS <<< "${options[i]}"
  start_cluster "$work/${names[i]}" $((18800 + 10 * i)) "" "${ports[@]}" > /dev/null
}

# stop_variant I: stops variant I's cluster and deletes its data.
stop_variant() {
  local i=$1 port nodes=()
  for port in $(cluster_ports "$i"); do nodes+=("node-$port"); done
  node_stop TERM "${nodes[@]}" > /dev/null
  rm -rf "${work:?}/${names[i]}"
}

echo "== side by side: every variant's cluster running, compare.py interleaving them"
targets=()
for i in "${!names[@]}"; do
  start_variant "$i"
  read -ra ports <<< "$(cluster_ports "$i")"
  targets+=(-t "name=${names[i]} url=http://127.0.0.1:${ports[0]}")
done
(cd "$BENCH" && python3 compare.py --no-rate --rounds "$ROUNDS" --warmup "$WARMUP" --duration "$DURATION" \
  --connections "$CONNECTIONS" --ops "$OPS" --prefill "$PREFILL" --out "$OUT" "${targets[@]}") | sed -n '/^### Saturation/,$p'
for i in "${!names[@]}"; do stop_variant "$i"; done

echo "== one cluster at a time: node CPU per PUT at $CONNECTIONS connections"
for i in "${!names[@]}"; do
  start_variant "$i"
  read -ra ports <<< "$(cluster_ports "$i")"
  url="http://127.0.0.1:${ports[0]}"
  wrk -t2 -c"$CONNECTIONS" -d"${CPU_WARMUP}s" -s "$BENCH/lua/put.lua" "$url" > /dev/null
  pids=()
  for port in "${ports[@]}"; do pids+=("$(node_pid "node-$port")"); done
  before=$(for pid in "${pids[@]}"; do cpu_ticks "$pid"; done)
  start=$(date +%s.%N)
  wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" -s "$BENCH/lua/put.lua" "$url" > "$work/cpu-${names[i]}.txt"
  end=$(date +%s.%N)
  after=$(for pid in "${pids[@]}"; do cpu_ticks "$pid"; done)
  rate=$(awk '/Requests\/sec/ {print $2}' "$work/cpu-${names[i]}.txt")
  python3 - "${names[i]}" "$rate" "$start" "$end" "$before" "$after" "${ports[*]}" <<'EOF'
import os, sys
name, rate, start, end, before, after, ports = sys.argv[1:]
ticks, seconds, rate = os.sysconf("SC_CLK_TCK"), float(end) - float(start), float(rate)
per_node = [(int(a) - int(b)) / ticks / seconds / rate * 1e6 for b, a in zip(before.split(), after.split())]
nodes = ", ".join(f"{port} {us:.1f}" for port, us in zip(ports.split(), per_node))
print(f"{name}: {rate:,.0f} PUT/s, node CPU per PUT {sum(per_node):.1f} us ({nodes})")
EOF
  stop_variant "$i"
done
