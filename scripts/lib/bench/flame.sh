#!/usr/bin/env bash
# CPU flame graphs of a single node under saturation, with async-profiler (native agent from
# Maven Central, tools.profiler:async-profiler): unlike JFR's sampler it sees native code and
# the kernel (RocksDB, socket syscalls, futexes), where most of a node's time goes.
#
#   scripts/bench flame OUT_DIR [WORKLOAD...]      # default workloads: status get put
#   KEYS=1000000 DURATION=15 scripts/bench flame bench/results/flame
#   CONNECTIONS=1 EVENT=itimer WARMUP=25 scripts/bench flame OUT_DIR status put   # a lone request's time
#
# For each workload: starts a fresh node (PORT, default 8096; -Xms and -Xmx HEAP, default 128m) with
# the agent, fills KEYS records (once, then copies the data dir), warms it up (WARMUP s at 64
# connections, default 8), profiles the load tool's 5 s warm-up and DURATION s of saturation at
# CONNECTIONS (default 64), and writes OUT_DIR/WORKLOAD-cpu.html (a per-thread flame graph) and prints each
# thread group's share of the samples. EVENT is the profiler's clock, cpu (perf events, the
# default) or itimer: perf events make each thread switch dearer, which at one connection (four
# switches a PUT) took a PUT to 251 us under the profiler, against 152 us with itimer and 140-180 us
# unprofiled. NODE_KEYS adds keys to the node's conf, e.g. NODE_KEYS='"storage": {"writesOnLoop": true}'.
# Its nodes' data lives in a temporary directory deleted at the end.
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ $# -ge 1 ] || { sed -n '2,18p' "$0"; exit 2; }
OUT=$1; shift
if [ $# -ge 1 ]; then WORKLOADS=("$@"); else WORKLOADS=(status get put); fi
KEYS=${KEYS:-1000000}
DURATION=${DURATION:-15}
CONNECTIONS=${CONNECTIONS:-64}
WARMUP=${WARMUP:-8}
EVENT=${EVENT:-cpu}
PROFILER_VERSION=${PROFILER_VERSION:-4.1}
PORT=${PORT:-8096}
HEAP=${HEAP:-128m}
NODE_KEYS=${NODE_KEYS:-}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
mvn -q -B dependency:get -Dartifact="tools.profiler:async-profiler:$PROFILER_VERSION"
results_dir flame "$OUT"
prepare_run unzip
unzip -q -o "$HOME/.m2/repository/tools/profiler/async-profiler/$PROFILER_VERSION/async-profiler-$PROFILER_VERSION.jar" \
  'linux-x64/*' -d "$work"
agent="$work/linux-x64/libasyncProfiler.so"
url="http://127.0.0.1:$PORT"

# profiler OPTIONS: loads or drives the agent in the running node (jcmd's parser needs the options quoted).
profiler() { jcmd "$(node_pid node)" JVMTI.agent_load "$agent" "\"$1\"" > /dev/null; }
# thread_shares FILE: each thread group's share of the CPU samples (threads named without their number).
thread_shares() {
  awk '{ n = $NF; t = $1; sub(/^\[/, "", t); sub(/(-[0-9]+)?$/, "", t); s[t] += n; total += n }
       END { for (t in s) if (s[t] >= total / 100) printf "%5.1f%% %s\n", 100 * s[t] / total, t }' "$1" | sort -rn
}
# load CONNECTIONS WORKLOAD OPTIONS...: the load tool at saturation.
load() {
  java -jar "$NODE_JAR" bench --url "$url" --rate max --connections "$1" --keys "$KEYS" --workload "${@:2}" 2> /dev/null
}

start_single node "$PORT" "$work/filled" > /dev/null
echo "filling $KEYS records..."
fill "$url" "$KEYS" > /dev/null
node_stop TERM node > /dev/null

for w in "${WORKLOADS[@]}"; do
  cp -r "$work/filled" "$work/$w"
  start_single node "$PORT" "$work/$w" "$NODE_KEYS" > /dev/null
  # Warms the node's JIT, not profiled; at 64 connections, since a few seconds at one leave it compiling.
  load 64 "$w" --duration "${WARMUP}s" --warmup 0s > /dev/null || true # a cold tool may say it fell behind
  profiler "start,event=$EVENT,interval=1ms,threads"
  # The tool's own warm-up, in the profiled JVM: a cold load tool sends fewer requests (at 1
  # connection a third as many), though each costs the warm node the same.
  load "$CONNECTIONS" "$w" --duration "${DURATION}s" --warmup 5s > "$work/$w.txt" || true
  grep -E "^Requests/sec|Non-2xx|Socket errors|COULD NOT KEEP" "$work/$w.txt" | sed "s/^/$w: /"
  profiler "stop,file=$work/$w.collapsed,collapsed"
  thread_shares "$work/$w.collapsed" | sed "s/^/$w: /"
  node_stop TERM node > /dev/null
  rm -rf "${work:?}/$w"
  # jfr-converter is one of the node's dependencies, so the jar carries it (version from pom.xml).
  java -cp "$NODE_JAR" one.convert.Main \
    --title "quorumkv $w at saturation, connections: $CONNECTIONS (CPU, async-profiler, $EVENT)" "$work/$w.collapsed" "$OUT/$w-cpu.html" > /dev/null
  echo "wrote $OUT/$w-cpu.html"
done
