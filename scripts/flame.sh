#!/usr/bin/env bash
# CPU flame graphs of a single node under saturation, with async-profiler (native agent from
# Maven Central, tools.profiler:async-profiler): unlike JFR's sampler it sees native code and
# the kernel (RocksDB, socket syscalls, futexes), where most of a node's time goes.
#
#   scripts/flame.sh OUT_DIR [WORKLOAD...]      # default workloads: status get put
#   KEYS=1000000 DURATION=15 scripts/flame.sh docs/reports/2026-11-23-performance/flame
#
# For each workload: starts a fresh node (PORT, default 8096; -Xms and -Xmx HEAP, default 128m) with
# the agent, fills KEYS records (once, then copies the data dir), warms up, profiles DURATION s of
# saturation with the load tool, and writes OUT_DIR/WORKLOAD-cpu.html (a per-thread flame graph).
# Its nodes' data lives in a temporary directory deleted at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,12p' "$0"; exit 2; }
OUT=$1; shift
if [ $# -ge 1 ]; then WORKLOADS=("$@"); else WORKLOADS=(status get put); fi
KEYS=${KEYS:-1000000}
DURATION=${DURATION:-15}
PROFILER_VERSION=${PROFILER_VERSION:-4.1}
PORT=${PORT:-8096}
HEAP=${HEAP:-128m}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
mvn -q -B dependency:get -Dartifact="tools.profiler:async-profiler:$PROFILER_VERSION"
mkdir -p "$OUT"
prepare_run unzip
unzip -q -o "$HOME/.m2/repository/tools/profiler/async-profiler/$PROFILER_VERSION/async-profiler-$PROFILER_VERSION.jar" \
  'linux-x64/*' -d "$work"
agent="$work/linux-x64/libasyncProfiler.so"
url="http://127.0.0.1:$PORT"

# profiler OPTIONS: loads or drives the agent in the running node (jcmd's parser needs the options quoted).
profiler() { jcmd "$(node_pid node)" JVMTI.agent_load "$agent" "\"$1\"" > /dev/null; }
load() { java -jar "$NODE_JAR" bench --url "$url" --rate max --keys "$KEYS" --workload "$@" 2> /dev/null; }

start_single node "$PORT" "$work/filled" > /dev/null
echo "filling $KEYS records..."
fill "$url" "$KEYS" > /dev/null
node_stop TERM node > /dev/null

for w in "${WORKLOADS[@]}"; do
  cp -r "$work/filled" "$work/$w"
  start_single node "$PORT" "$work/$w" > /dev/null
  load "$w" --duration 8s --warmup 0s > /dev/null # warms the JIT of the node and the tool, not profiled
  profiler "start,event=cpu,interval=1ms,threads"
  load "$w" --duration "${DURATION}s" --warmup 0s | grep "Requests/sec" | sed "s/^/$w: /"
  profiler "stop,file=$work/$w.collapsed,collapsed"
  node_stop TERM node > /dev/null
  rm -rf "${work:?}/$w"
  # jfr-converter is one of the node's dependencies, so the jar carries it (version from pom.xml).
  java -cp "$NODE_JAR" one.convert.Main \
    --title "quorumkv $w at saturation (CPU, async-profiler)" "$work/$w.collapsed" "$OUT/$w-cpu.html" > /dev/null
  echo "wrote $OUT/$w-cpu.html"
done
