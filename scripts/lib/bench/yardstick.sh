#!/usr/bin/env bash
# The performance issue's yardstick in one run: quorumkv measured side by side with the reference
# servers of BENCH (default ../shared/bench: compare.py, a bare Vert.x server as the limit, the
# classic one-nio + RocksDB store as the peer, etcd), every quorumkv node at -Xms128m -Xmx128m.
#
#   scripts/bench yardstick [OUT_DIR]               # every stage, about 45 min
#   STAGES=single BEFORE_JAR=old.jar scripts/bench yardstick    # one stage, another build beside
#   NODE_KEYS='"storage": {"writesOnLoop": true}' STAGES=cluster scripts/bench yardstick   # keys added to every node's conf
#
# Stages (STAGES, comma-separated, default single,latency,cluster):
#   single   wrk -t2 -c64 saturation and 1-connection runs of GET and PUT: quorumkv (and BEFORE_JAR
#            when set), the peer and the limit, PREFILL keys (default 300,000) each
#   latency  the project's load tool at half of the peer's saturation (measured first, per
#            connection count), 64 and 1 connections, GET and PUT: p99 and p99.9 of quorumkv
#            against the peer's at the same rate (both filled with PREFILL keys), ROUNDS
#            interleaved rounds, each run after
#            LATENCY_WARMUP s (default 30) at that rate: the load tool's JVM and the node compile
#            on the same 2 cores, and 10 s left a backlog in the measured window (2026-11-26)
#   cluster  a 3-node cluster (the confs of cluster/start.sh, in a temporary directory) at its
#            default 2/3, a single node at 1/1 and a 3-member etcd cluster, 200,000 keys each;
#            each saturation run after CLUSTER_WARMUP s (default 30): a fresh cluster's C2
#            compilers take a third to a half of its CPU for the first 30-40 s of load (2026-11-26)
# Each stage writes its tables (markdown) into OUT_DIR (default
# bench/results/DATE-TIME-yardstick, kept), beside a COMMIT file naming the commit measured.
# Nodes, their data and etcd's live in a temporary directory deleted at the end.
set -euo pipefail
cd "$(dirname "$0")/../../.."
BENCH=$(realpath "${BENCH:-../shared/bench}")
STAGES=${STAGES:-single,latency,cluster}
ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-15}
WARMUP=${WARMUP:-5}
CLUSTER_WARMUP=${CLUSTER_WARMUP:-30}
LATENCY_WARMUP=${LATENCY_WARMUP:-30}
PREFILL=${PREFILL:-300000}
NODE_KEYS=${NODE_KEYS:-}
HEAP=128m
OUT=${1:-}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run wrk python3 curl
results_dir yardstick "$OUT"
[ -f "$BENCH/compare.py" ] || { echo "no compare.py in $BENCH (set BENCH)" >&2; exit 1; }
for server in limit peer-onenio; do
  [ -f "$BENCH/$server/target/$server.jar" ] || mvn -q -B -f "$BENCH/$server/pom.xml" -DskipTests package
done
REF_JVM="-Xms1g -Xmx1g -XX:+UseG1GC"
QKV_JVM="-Xms$HEAP -Xmx$HEAP -XX:+UseG1GC -Xlog:gc:file=$work/gc-%p.log"
NODE_GC_LOG_DIR=$work
LIMIT_PORT=18190 PEER_PORT=18191 QKV_PORT=18192 BEFORE_PORT=18193 SINGLE_PORT=18194 ETCD_PORT=18379
CLUSTER_PORTS=(18180 18181 18182)

stage() { [[ ",$STAGES," == *",$1,"* ]]; }

# qkv_target NAME PORT JAR: a compare.py target that starts a single quorumkv node of JAR.
qkv_target() {
  write_conf "$work/$1.json" "$2" "$work/$1-data" "$NODE_KEYS"
  echo "name=$1 url=http://127.0.0.1:$2 start='exec java $QKV_JVM -jar $3 --config $work/$1.json'"
}
limit_target() { echo "name=limit url=http://127.0.0.1:$LIMIT_PORT prefill=0 start='exec java $REF_JVM -jar $BENCH/limit/target/limit.jar $LIMIT_PORT'"; }

# compare OUT_NAME ARGS...: one compare.py run, each saturation run after RUN_WARMUP s (default
# WARMUP), its tables copied to OUT/OUT_NAME.md.
compare() {
  local name=$1
  shift
  (cd "$BENCH" && python3 compare.py --no-rate --rounds "$ROUNDS" --warmup "${RUN_WARMUP:-$WARMUP}" --duration "$DURATION" \
    --out "$work/$name" "$@")
  cp "$work/$name/results.md" "$OUT/$name.md"
}

if stage single; then
  echo "== single node: quorumkv, the peer and the limit"
  # The other build goes first: a PUT run measured right after another target's shares the CPU
  # with that target's compactions, so this order does not flatter the build under test.
  targets=()
  [ -z "${BEFORE_JAR:-}" ] || targets+=(-t "$(qkv_target before "$BEFORE_PORT" "$(realpath "$BEFORE_JAR")")")
  targets+=(-t "$(qkv_target quorumkv "$QKV_PORT" "$NODE_JAR")")
  compare single --baseline limit --prefill "$PREFILL" "${targets[@]}" \
    -t "name=peer url=http://127.0.0.1:$PEER_PORT start='exec java $REF_JVM -jar $BENCH/peer-onenio/target/peer-onenio.jar $PEER_PORT $work/peer-data'" \
    -t "$(limit_target)"
fi

# load NAME URL ARGS...: one load-tool run into $work/latency/NAME.txt; with both JIT compilers,
# as the tails in docs/performance.md were measured (TOOL_JIT=c1 for the tool's paced default).
load() {
  local name=$1 url=$2
  shift 2
  java -jar "$NODE_JAR" bench --url "$url" --keys "$PREFILL" --tool-jit "${TOOL_JIT:-c2}" "$@" \
    > "$work/latency/$name.txt" 2> /dev/null || true
}
rate_of() { awk '/^Requests\/sec:/ { printf "%d", $2 }' "$1"; }

if stage latency; then
  echo "== latency at half of the peer's saturation"
  mkdir -p "$work/latency"
  (exec java $REF_JVM -jar "$BENCH/peer-onenio/target/peer-onenio.jar" "$PEER_PORT" "$work/peer-latency-data" \
    > "$work/peer.log" 2>&1) &
  peer_pid=$!
  trap 'kill "$peer_pid" 2> /dev/null || true; cleanup_work_dir' EXIT
  start_single quorumkv "$QKV_PORT" "$work/latency-data" "$NODE_KEYS" > /dev/null
  fill "http://127.0.0.1:$QKV_PORT" "$PREFILL" > /dev/null
  until curl -sf -m 2 "http://127.0.0.1:$PEER_PORT/v0/status" > /dev/null; do sleep 0.2; done
  fill "http://127.0.0.1:$PEER_PORT" "$PREFILL" > /dev/null
  table="$OUT/latency.md"
  {
    echo "| op | connections | rate (half of the peer's saturation) | round | quorumkv p99 / p99.9 ms | peer p99 / p99.9 ms | p99 ratio | p99.9 ratio |"
    echo "| --- | ---: | ---: | ---: | --- | --- | ---: | ---: |"
  } > "$table"
  for op in get put; do
    for connections in 64 1; do
      load "sat-$op-$connections" "http://127.0.0.1:$PEER_PORT" --rate max --connections "$connections" \
        --workload "$op" --duration 10s --warmup 5s
      rate=$(( $(rate_of "$work/latency/sat-$op-$connections.txt") / 2 ))
      for round in $(seq "$ROUNDS"); do
        for target in quorumkv peer; do
          port=$QKV_PORT; [ "$target" = peer ] && port=$PEER_PORT
          load "$target-$op-$connections-$round" "http://127.0.0.1:$port" --rate "$rate" \
            --connections "$connections" --workload "$op" --duration "${DURATION}s" --warmup "${LATENCY_WARMUP}s"
        done
        q="$work/latency/quorumkv-$op-$connections-$round.txt" r="$work/latency/peer-$op-$connections-$round.txt"
        python3 - "$op" "$connections" "$rate" "$round" "$(load_percentile "$q" 99.000%)" "$(load_percentile "$q" 99.900%)" \
          "$(load_percentile "$r" 99.000%)" "$(load_percentile "$r" 99.900%)" >> "$table" <<'EOF'
import sys
op, conns, rate, rnd, q99, q999, r99, r999 = sys.argv[1:]
ratio = lambda a, b: f"{float(a) / float(b):.2f}x" if a and b and float(b) > 0 else "n/a"
print(f"| {op.upper()} | {conns} | {int(rate):,} | {rnd} | {q99} / {q999} | {r99} / {r999} | {ratio(q99, r99)} | {ratio(q999, r999)} |")
EOF
        echo "$op, $connections connections, round $round: $(tail -n 1 "$table")"
      done
    done
  done
  cp -r "$work/latency" "$OUT/latency-raw"
  node_stop TERM quorumkv > /dev/null
  kill "$peer_pid"; wait "$peer_pid" 2> /dev/null || true
fi

if stage cluster; then
  command -v etcd > /dev/null && command -v etcdctl > /dev/null || {
    echo "the cluster stage compares with a 3-member etcd: apt-get install etcd-server etcd-client" >&2; exit 1; }
  echo "== 3-node cluster at 2/3, a single node at 1/1, 3-member etcd"
  start_cluster "$work/cluster" 18701 "$NODE_KEYS" "${CLUSTER_PORTS[@]}" > /dev/null
  RUN_WARMUP=$CLUSTER_WARMUP compare cluster --baseline etcd3 --prefill 200000 \
    -t "name=quorumkv3 url=http://127.0.0.1:${CLUSTER_PORTS[0]}" \
    -t "$(qkv_target single "$SINGLE_PORT" "$NODE_JAR")" \
    -t "name=etcd3 url=http://127.0.0.1:$ETCD_PORT scripts=etcd start='exec $BENCH/etcd/cluster.sh $ETCD_PORT $work/etcd'"
fi
# Memory: every quorumkv node's GC pauses (from its GC log) and any OutOfMemoryError in its output.
{
  echo "| GC log | pauses | total pause ms | longest pause ms | seconds logged |"
  echo "| --- | ---: | ---: | ---: | ---: |"
  for log in "$work"/gc-*.log; do
    [ -e "$log" ] || continue
    awk -v name="${log##*/}" '/Pause/ { n++; ms = $NF; sub("ms", "", ms); total += ms; if (ms > max) max = ms }
      { t = $1; gsub(/[][s]/, "", t) } END { printf "| %s | %d | %.0f | %.1f | %.0f |\n", name, n, total, max, t }' "$log"
  done
  echo
  echo "OutOfMemoryError in quorumkv output: $(grep -rl OutOfMemoryError "$work" --include='*.log' | grep -v '/gc-' | wc -l) files"
} > "$OUT/memory.md"
cat "$OUT/memory.md"
echo "tables in $OUT"
