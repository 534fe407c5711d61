#!/usr/bin/env bash
# The earlier performance targets (against GET /v0/status; the history of docs/performance.md),
# measured side by side in one run with the project's own load tool (java -jar
# target/quorumkv.jar bench), every node at -Xms and -Xmx HEAP (default 128m, the size of the
# targets), their data in a temporary directory deleted at the end:
#
#   single   one node holding KEYS records: saturation of GET and PUT /v0/entity against
#            GET /v0/status (no storage), 64 and 1 connections, interleaved rounds, medians
#   tails    p99 and p99.9 at half of each saturation (1 and 64 connections, TAIL_WARMUP s of warm-up), entity against
#            status driven at the same rate and connections, interleaved rounds, medians; then again
#            with the node and the load tool pinned to separate CPUs (PIN_TAILS=no skips this pass)
#   cluster  a 3-node cluster of its own: PUT and GET at 2/3 against 1/1, and 1/1 sent to a node
#            that is not the key's owner against 1/1 sent to the owner
#   gc       GC pauses of every node during the run, against the p99s above
#
# Prints a markdown table per stage and writes them, with every tool output and GC log, to OUT.
#
#   scripts/bench performance                         # everything, ~35 min
#   STAGES=single,tails ROUNDS=3 DURATION=10 scripts/bench performance
#   NODE_OPTS="-XX:+UseParallelGC" scripts/bench performance   # extra JVM options of the nodes
#   NODE_CONF='"storage": {"workers": 2}' scripts/bench performance  # extra conf keys of the nodes
#   JAR=/tmp/before.jar SINGLE_DATA=/tmp/filled scripts/bench performance
#       # another build of the node, and a copy of a data dir filled before (skips the fill)
#   BASE_PORT=8090 HZ_PORT=5711 scripts/bench performance  # single node's port, the cluster's
#       # three are the next ones; the cluster's first Hazelcast port
set -euo pipefail
cd "$(dirname "$0")/../../.."

STAGES=${STAGES:-single,tails,cluster}
KEYS=${KEYS:-1000000}
CLUSTER_KEYS=${CLUSTER_KEYS:-100000}
VALUE=${VALUE:-100}
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-3}
# Each run is a fresh load-tool JVM; at a fixed rate, the backlog it builds while its JIT warms
# up must have drained before recording starts, or it is charged to the node.
TAIL_WARMUP=${TAIL_WARMUP:-10}
# Repeats the tails stage with the node and the load tool on separate CPUs (needs 2 or more).
PIN_TAILS=${PIN_TAILS:-$([ "$(nproc)" -ge 2 ] && echo yes || echo no)}
HEAP=${HEAP:-128m}
NODE_OPTS=${NODE_OPTS:-}
NODE_CONF=${NODE_CONF:-}
SINGLE_DATA=${SINGLE_DATA:-}
OUT=${OUT:-}
BASE_PORT=${BASE_PORT:-8090}
HZ_PORT=${HZ_PORT:-5711}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
results_dir performance "$OUT"
prepare_run bc
# Every node with GC logging; node and GC logs kept in OUT.
read -ra JVM_OPTIONS <<< "$NODE_OPTS"
NODE_LOG_DIR=$OUT
NODE_GC_LOG_DIR=$OUT
tables="$OUT/tables.md"
: > "$tables"
say() { echo "$@" | tee -a "$tables"; }
# table TITLE COLUMN...: a section of the tables and the head of its table.
table() {
  local title=$1 head="|" rule="|" column
  shift
  for column in "$@"; do head+=" $column |"; rule+=" --- |"; done
  say ""
  say "## $title"
  say ""
  say "$head"
  say "$rule"
}
say "# quorumkv performance run $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD)"
say ""
say "Nodes: -Xms$HEAP -Xmx$HEAP $NODE_OPTS $NODE_CONF; jar ${JAR:-built from the commit}; load tool: bench, ${ROUNDS} interleaved rounds of ${DURATION} s after ${WARMUP} s warm-up; medians."
echo "outputs in $OUT"

# bench NAME URL ARGS...: one load-tool run (started through the tool_prefix command, if any);
# its output goes to OUT/NAME.txt. Both JIT compilers, as the figures in docs/performance.md
# were measured (TOOL_JIT=c1 for the tool's paced default).
tool_prefix=()
bench() {
  local name=$1 url=$2
  shift 2
  "${tool_prefix[@]}" java -jar "$NODE_JAR" bench --url "$url" --duration "${DURATION}s" --warmup "${WARMUP}s" \
    --tool-jit "${TOOL_JIT:-c2}" "$@" \
    > "$OUT/$name.txt" 2> /dev/null || echo "  $name: the load tool reported errors, see $OUT/$name.txt" >&2
  if grep -q "Non-2xx" "$OUT/$name.txt"; then echo "  $name: $(grep Non-2xx "$OUT/$name.txt")" >&2; fi
}
throughput() { awk '/^Requests\/sec/ {print $2}' "$OUT/$1.txt"; }
percentile() { load_percentile "$OUT/$1.txt" "$2"; }
ratio() { echo "scale=2; $1 / $2" | bc -l | sed 's/^\./0./'; }

declare -A results
# record KEY VALUE: appends a round's figure; med KEY: the median of the rounds.
record() { results[$1]+="$2 "; }
med() { echo "${results[$1]}" | median; }
# half_saturation WORKLOAD CONNECTIONS: the rate of the tail runs, half the median saturation.
half_saturation() { printf '%.0f' "$(echo "$(med "sat-$1-c$2") / 2" | bc -l)"; }

single_url="http://127.0.0.1:$BASE_PORT"
start_filled_single() {
  if [ -n "$SINGLE_DATA" ]; then
    cp -r "$SINGLE_DATA" "$work/single"
    start_single single "$BASE_PORT" "$work/single" "$NODE_CONF"
  else
    start_single single "$BASE_PORT" "$work/single" "$NODE_CONF"
    echo "filling the single node with $KEYS records of $VALUE bytes..."
    fill "$single_url" "$KEYS" > /dev/null
  fi
  # Warms the JIT of the node and of the tool before anything is recorded.
  for w in status get put; do bench "warm-$w" "$single_url" --rate max --workload "$w" --keys "$KEYS"; done
}

if [[ $STAGES == *single* || $STAGES == *tails* ]]; then
  start_filled_single
  for round in $(seq "$ROUNDS"); do
    for c in 64 1; do
      for w in status get put; do
        bench "sat-$w-c$c-r$round" "$single_url" --rate max --connections "$c" --workload "$w" --keys "$KEYS"
        record "sat-$w-c$c" "$(throughput "sat-$w-c$c-r$round")"
        printf 'round %d  saturation %-6s %2d connections %10.0f req/s\n' "$round" "$w" "$c" "$(throughput "sat-$w-c$c-r$round")"
      done
    done
  done
  table "Single node, $KEYS records, saturation" \
    connections "GET /v0/status" "GET /v0/entity" "PUT /v0/entity" "GET / status" "PUT / status"
  for c in 64 1; do
    s=$(med "sat-status-c$c"); g=$(med "sat-get-c$c"); p=$(med "sat-put-c$c")
    say "| $c | $(printf '%.0f' "$s") | $(printf '%.0f' "$g") | $(printf '%.0f' "$p") | **$(ratio "$g" "$s")** | **$(ratio "$p" "$s")** |"
  done
fi

# tails PASS TITLE [PREFIX...]: the tail-latency runs of one pass, the load tool started through
# PREFIX, and their table.
tails() {
  local pass=$1 title=$2
  shift 2
  tool_prefix=("$@")
  for round in $(seq "$ROUNDS"); do
    for c in 64 1; do
      for w in get put; do
        rate=$(half_saturation "$w" "$c")
        for target in "$w" status; do
          name="tail$pass-$w-c$c-$target-r$round"
          bench "$name" "$single_url" --rate "$rate" --connections "$c" --workload "$target" --keys "$KEYS" \
            --warmup "${TAIL_WARMUP}s"
          record "p99$pass-$w-c$c-$target" "$(percentile "$name" 99.000%)"
          record "p999$pass-$w-c$c-$target" "$(percentile "$name" 99.900%)"
          printf 'round %d %s %-6s at %6d req/s %2d connections: p99 %s ms, p99.9 %s ms\n' "$round" "$pass" "$target" \
            "$rate" "$c" "$(percentile "$name" 99.000%)" "$(percentile "$name" 99.900%)"
        done
      done
    done
  done
  table "Single node, tail latency at half of saturation (ms, entity against status at the same rate)$title" \
    workload connections rate "entity p99" "status p99" ratio "entity p99.9" "status p99.9" ratio
  for w in get put; do
    for c in 64 1; do
      rate=$(half_saturation "$w" "$c")
      e99=$(med "p99$pass-$w-c$c-$w"); s99=$(med "p99$pass-$w-c$c-status")
      e999=$(med "p999$pass-$w-c$c-$w"); s999=$(med "p999$pass-$w-c$c-status")
      say "| ${w^^} | $c | $rate | $e99 | $s99 | **$(ratio "$e99" "$s99")** | $e999 | $s999 | **$(ratio "$e999" "$s999")** |"
    done
  done
  tool_prefix=()
}

if [[ $STAGES == *tails* ]]; then
  tails "" ""
  if [ "$PIN_TAILS" = yes ]; then
    # The same runs with the node's threads on the last CPU and the load tool's on the others: no
    # thread of one waits for a core behind a thread of the other ("The tails" in the history of docs/performance.md: git show 161a477:docs/performance.md).
    last=$(( $(nproc) - 1 ))
    taskset -a -cp "$last" "$(node_pid single)" > /dev/null
    tails "-pinned" ", node pinned to CPU $last, load tool to CPUs 0-$((last - 1))" taskset -c "0-$((last - 1))"
    taskset -a -cp "0-$last" "$(node_pid single)" > /dev/null
  fi
fi

if [[ $STAGES == *cluster* ]]; then
  start_cluster "$work/cluster" "$HZ_PORT" "$NODE_CONF" $((BASE_PORT + 1)) $((BASE_PORT + 2)) $((BASE_PORT + 3))
  entry="http://127.0.0.1:$((BASE_PORT + 1))"
  echo "filling the cluster with $CLUSTER_KEYS records (3 copies each)..."
  fill "$entry" "$CLUSTER_KEYS" "&ack=3&from=3" > /dev/null
  runs=("put-1/1 put 1 1 any" "get-1/1 get 1 1 any" "put-2/3 put 2 3 any" "get-2/3 get 2 3 any"
        "put-owner put 1 1 owner" "put-other put 1 1 other" "get-owner get 1 1 owner" "get-other get 1 1 other")
  # A freshly started cluster needs a long warm-up: four JVMs compile on two cores.
  for r in "${runs[@]}"; do
    read -r name w ack from placement <<< "$r"
    bench "warm-${name//\//-}" "$entry" --rate max --workload "$w" --keys "$CLUSTER_KEYS" --ack "$ack" --from "$from" --placement "$placement"
  done
  for round in $(seq "$ROUNDS"); do
    for r in "${runs[@]}"; do
      read -r name w ack from placement <<< "$r"
      file="cluster-${name//\//-}-r$round"
      bench "$file" "$entry" --rate max --workload "$w" --keys "$CLUSTER_KEYS" --ack "$ack" --from "$from" --placement "$placement"
      record "$name" "$(throughput "$file")"
      printf 'round %d  cluster %-9s %10.0f req/s\n' "$round" "$name" "$(throughput "$file")"
    done
  done
  table "Local 3-node cluster, $CLUSTER_KEYS records, saturation through one node (64 connections)" \
    workload baseline req/s compared req/s ratio
  for w in put get; do
    b=$(med "$w-1/1"); x=$(med "$w-2/3")
    say "| ${w^^} | 1/1 | $(printf '%.0f' "$b") | 2/3 | $(printf '%.0f' "$x") | **$(ratio "$x" "$b")** |"
  done
  for w in put get; do
    b=$(med "$w-owner"); x=$(med "$w-other")
    say "| ${w^^} 1/1 | owner | $(printf '%.0f' "$b") | non-owner | $(printf '%.0f' "$x") | **$(ratio "$x" "$b")** |"
  done
fi

table "GC pauses (every node, whole run)" node pauses "max ms" "total ms" OutOfMemoryError
for log in "$OUT"/gc-*.log; do
  name=$(basename "$log" .log); name=${name#gc-}
  stats=$(grep 'Pause' "$log" | grep -o '[0-9.]*ms$' | tr -d 'ms' \
    | awk '{n++; t+=$1; if ($1 > m) m = $1} END {printf "%d | %.1f | %.0f", n, m, t}')
  oom=$(grep -c OutOfMemoryError "$OUT/$name.log" || true)
  say "| $name | $stats | $oom |"
done
echo
echo "tables: $tables"
