#!/usr/bin/env bash
# CPU flame graphs of a single node under saturation, with async-profiler (native agent from
# Maven Central, tools.profiler:async-profiler): unlike JFR's sampler it sees native code and
# the kernel (RocksDB, socket syscalls, futexes), where most of a node's time goes.
#
#   scripts/flame.sh OUT_DIR [WORKLOAD...]      # default workloads: status get put
#   KEYS=1000000 DURATION=15 scripts/flame.sh docs/reports/2026-11-23-performance/flame
#
# For each workload: starts a fresh node (-Xms128m -Xmx128m) with the agent, fills KEYS records (once,
# then copies the data dir), warms up, profiles DURATION s of saturation with the load tool, and
# writes OUT_DIR/WORKLOAD-cpu.html (a per-thread flame graph).
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { sed -n '2,11p' "$0"; exit 2; }
OUT=$1; shift
if [ $# -ge 1 ]; then WORKLOADS=("$@"); else WORKLOADS=(status get put); fi
KEYS=${KEYS:-1000000}
DURATION=${DURATION:-15}
PROFILER_VERSION=${PROFILER_VERSION:-4.1}
PORT=${PORT:-8096}

source scripts/bench-lib.sh
mvn -q -B -DskipTests package
mvn -q -B dependency:get -Dartifact="tools.profiler:async-profiler:$PROFILER_VERSION"
mkdir -p "$OUT"
work=$(mktemp -d)
cleanup() {
  stop_pids
  rm -rf "$work"
}
trap cleanup EXIT
cp target/quorumkv.jar "$work/quorumkv.jar"
unzip -q -o "$HOME/.m2/repository/tools/profiler/async-profiler/$PROFILER_VERSION/async-profiler-$PROFILER_VERSION.jar" \
  'linux-x64/*' -d "$work"
agent="$work/linux-x64/libasyncProfiler.so"
url="http://127.0.0.1:$PORT"
echo "{ \"url\": \"$url\", \"dataDir\": \"$work/data\", \"eventLoops\": 2 }" > "$work/node.json"

node() {
  java -Xms128m -Xmx128m -jar "$work/quorumkv.jar" --config "$work/node.json" > "$work/node.out" 2> "$work/node.log" &
  pids=($!)
  await_ready "$url" "$work/node.log"
}
# profiler OPTIONS: loads or drives the agent in the running node (jcmd's parser needs the options quoted).
profiler() { jcmd "${pids[0]}" JVMTI.agent_load "$agent" "\"$1\"" > /dev/null; }
load() { java -jar "$work/quorumkv.jar" bench --url "$url" --rate max --keys "$KEYS" --workload "$@" 2> /dev/null; }

node
echo "filling $KEYS records..."
java -cp "$work/quorumkv.jar" io.quorumkv.bench.Fill "$url" "$KEYS" 100 64 > /dev/null
stop_pids
cp -r "$work/data" "$work/filled"

for w in "${WORKLOADS[@]}"; do
  rm -rf "$work/data"; cp -r "$work/filled" "$work/data"
  node
  load "$w" --duration 8s --warmup 0s > /dev/null # warms the JIT of the node and the tool, not profiled
  profiler "start,event=cpu,interval=1ms,threads"
  load "$w" --duration "${DURATION}s" --warmup 0s | grep "Requests/sec" | sed "s/^/$w: /"
  profiler "stop,file=$work/$w.collapsed,collapsed"
  stop_pids
  # jfr-converter is one of the node's dependencies, so the jar carries it (version from pom.xml).
  java -cp "$work/quorumkv.jar" one.convert.Main \
    --title "quorumkv $w at saturation (CPU, async-profiler)" "$work/$w.collapsed" "$OUT/$w-cpu.html" > /dev/null
  echo "wrote $OUT/$w-cpu.html"
done
