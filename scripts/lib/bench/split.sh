#!/usr/bin/env bash
# Where a request's CPU goes in quorumkv, the peer and the limit of BENCH (default ../shared/bench),
# side by side: each server fresh and alone, 300,000 keys pre-filled by compare.py (PREFILL), WARMUP s
# (default 10) of wrk -t2 -c64 with the yardstick's Lua script of the op, then DURATION s (default 15)
# profiled with async-profiler (CPU, 1 ms samples, kernel frames included, from Maven Central).
#
#   scripts/bench split OUT_DIR [put|get ...]      # default: put get
#
# Writes OUT_DIR/split.md (microseconds of server CPU a request, by layer; the total from /proc)
# and a flame graph per server and op (OUT_DIR/SERVER-OP-cpu.html). quorumkv runs at -Xms and
# -Xmx HEAP (default 128m), the reference servers at 1g as the yardstick has them. Data lives in a
# temporary directory deleted at the end. Run it alone: another job's CPU lands in no profile but
# slows every server.
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ $# -ge 1 ] || { sed -n '2,13p' "$0"; exit 2; }
OUT=$1; shift
if [ $# -ge 1 ]; then OPS=("$@"); else OPS=(put get); fi
BENCH=$(realpath "${BENCH:-../shared/bench}")
PREFILL=${PREFILL:-300000}
WARMUP=${WARMUP:-10}
DURATION=${DURATION:-15}
HEAP=${HEAP:-128m}
PROFILER_VERSION=${PROFILER_VERSION:-4.1}
PORT=18290

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run wrk unzip python3 curl
results_dir split "$OUT"
for server in limit peer-onenio; do
  [ -f "$BENCH/$server/target/$server.jar" ] || mvn -q -B -f "$BENCH/$server/pom.xml" -DskipTests package
done
mvn -q -B dependency:get -Dartifact="tools.profiler:async-profiler:$PROFILER_VERSION"
unzip -q -o "$HOME/.m2/repository/tools/profiler/async-profiler/$PROFILER_VERSION/async-profiler-$PROFILER_VERSION.jar" \
  'linux-x64/*' -d "$work"
agent="$work/linux-x64/libasyncProfiler.so"
REF_JVM="-Xms1g -Xmx1g -XX:+UseG1GC"

# start_server NAME: starts it on $PORT in the background (its data in $work/NAME-data); sets server_pid.
start_server() {
  case $1 in
    quorumkv) write_conf "$work/quorumkv.json" "$PORT" "$work/quorumkv-data"
      java "-Xms$HEAP" "-Xmx$HEAP" -XX:+UseG1GC -jar "$NODE_JAR" --config "$work/quorumkv.json" > "$work/$1.log" 2>&1 & ;;
    peer) java $REF_JVM -jar "$BENCH/peer-onenio/target/peer-onenio.jar" "$PORT" "$work/peer-data" > "$work/$1.log" 2>&1 & ;;
    limit) java $REF_JVM -jar "$BENCH/limit/target/limit.jar" "$PORT" > "$work/$1.log" 2>&1 & ;;
  esac
  server_pid=$!
  until curl -sf -m 2 "http://127.0.0.1:$PORT/v0/status" > /dev/null; do sleep 0.2; done
}
# prefill: compare.py's own pre-fill, so that get.lua finds every key it asks for.
prefill() {
  (cd "$BENCH" && python3 -c "
import compare
args = compare.parse_args(['-t', 'name=a url=http://127.0.0.1:$PORT', '-t', 'name=b url=http://127.0.0.1:1', '--prefill', '$PREFILL'])
compare.prefill([compare.Target('name=server url=http://127.0.0.1:$PORT', args)], args)" 2>&1 | tail -n 1)
}
profiler() { jcmd "$server_pid" JVMTI.agent_load "$agent" "\"$1\"" > /dev/null; }

declare -A split
for op in "${OPS[@]}"; do
  for server in quorumkv peer limit; do
    start_server "$server"
    [ "$server" = limit ] || prefill
    KEY_COUNT=$PREFILL KEY_PREFIX=w wrk -t2 -c64 -d"${WARMUP}s" -s "$BENCH/lua/$op.lua" "http://127.0.0.1:$PORT" > /dev/null
    profiler "start,event=cpu,interval=1ms,threads"
    before=$(cpu_ticks "$server_pid")
    KEY_COUNT=$PREFILL KEY_PREFIX=m wrk -t2 -c64 -d"${DURATION}s" -s "$BENCH/lua/$op.lua" "http://127.0.0.1:$PORT" > "$work/$server-$op.wrk"
    after=$(cpu_ticks "$server_pid")
    profiler "stop,file=$work/$server-$op.collapsed,collapsed"
    kill "$server_pid"; wait "$server_pid" 2> /dev/null || true
    rm -rf "${work:?}/$server-data" "${work:?}/quorumkv-data"
    requests=$(awk '/requests in/ {print $1}' "$work/$server-$op.wrk")
    rate=$(awk '/Requests\/sec/ {printf "%d", $2}' "$work/$server-$op.wrk")
    cpu=$(python3 -c "print(round(($after - $before) * 1e6 / $(getconf CLK_TCK) / $requests, 1))")
    echo "$op $server: $rate req/s under the profiler, $cpu us of CPU a request (/proc)"
    split[$server-$op]=$(printf 'req/s under the profiler\t%s\nCPU a request, from /proc\t%s\n' "$rate" "$cpu"; \
      python3 scripts/lib/cpu_split.py "$requests" "$work/$server-$op.collapsed")
    java -cp "$NODE_JAR" one.convert.Main --title "$server, $op at 64 connections (CPU, async-profiler)" \
      "$work/$server-$op.collapsed" "$OUT/$server-$op-cpu.html" > /dev/null
  done
done
{
  echo "# Where a request's CPU goes: quorumkv, the peer and the limit"
  echo
  echo "µs of server CPU a request (1 ms samples ÷ requests), wrk -t2 -c64, $DURATION s after $WARMUP s of warm-up;"
  echo "quorumkv at -Xmx$HEAP, the peer and the limit at 1g. Flame graphs: SERVER-OP-cpu.html."
  for op in "${OPS[@]}"; do
    echo
    echo "## ${op^^}"
    echo
    echo "| µs a request | quorumkv | peer | limit |"
    echo "| --- | ---: | ---: | ---: |"
    paste <(echo "${split[quorumkv-$op]}") <(echo "${split[peer-$op]}" | cut -f2) <(echo "${split[limit-$op]}" | cut -f2) \
      | awk -F'\t' '$2 + $3 + $4 > 0 || NR <= 3 { printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }'
  done
} > "$OUT/split.md"
cat "$OUT/split.md"
