#!/usr/bin/env bash
# What Hazelcast membership costs as a cluster grows: starts N node processes on this machine
# (small heaps, one event loop each), waits until every node sees every other alive, measures each
# node's idle CPU and memory, then kill -9s one node and times until the others see it down.
#
#   scripts/membership-scale.sh [N]        (default 16; JAR=path/to/quorumkv.jar, HEAP=128m, IDLE_S=30,
#                                           CONF='"antiEntropy": {"intervalMs": 86400000}' adds conf keys)
#
# Every node's data and conf go in a directory this script makes and deletes at the end.
set -euo pipefail
N=${1:-16}
JAR=${JAR:-target/quorumkv.jar}
HEAP=${HEAP:-128m}
IDLE_S=${IDLE_S:-30}
CONF=${CONF:+, $CONF}
HTTP_BASE=${HTTP_BASE:-8300}
HZ_BASE=${HZ_BASE:-5900}
[ -f "$JAR" ] || { echo "no $JAR: build it with mvn -q -B -DskipTests package, or set JAR" >&2; exit 2; }
work=$(mktemp -d -t quorumkv-membership-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

urls=() members=()
for ((i = 0; i < N; i++)); do
  urls+=("\"http://127.0.0.1:$((HTTP_BASE + i))\"")
  members+=("\"127.0.0.1:$((HZ_BASE + i))\"")
done
cluster=$(IFS=,; echo "${urls[*]}")
hazelcast=$(IFS=,; echo "${members[*]}")
name="membership-scale-$$"
started=$(date +%s.%N)
for ((i = 0; i < N; i++)); do
  cat > "$work/node-$i.json" <<EOF
{"url": "http://127.0.0.1:$((HTTP_BASE + i))", "cluster": [$cluster], "dataDir": "$work/node-$i",
 "eventLoops": 1, "storage": {"workers": 1},
 "hazelcast": {"port": $((HZ_BASE + i)), "members": [$hazelcast], "clusterName": "$name"}$CONF}
EOF
  java "-Xms$HEAP" "-Xmx$HEAP" -jar "$JAR" --config "$work/node-$i.json" > "$work/node-$i.log" 2>&1 &
  pids+=($!)
done
echo "started $N nodes (heap $HEAP each); waiting until every node sees all $N alive"

alive_seen_by() { # how many nodes node $1 sees alive
  curl -s --max-time 2 "http://127.0.0.1:$((HTTP_BASE + $1))/v0/cluster" | grep -c '"alive" : true' || true
}
deadline=$(( $(date +%s) + 600 ))
while true; do
  full=0
  for ((i = 0; i < N; i++)); do [ "$(alive_seen_by "$i")" = "$N" ] && full=$((full + 1)); done
  echo "  $full of $N nodes see all $N alive"
  [ "$full" = "$N" ] && break
  [ "$(date +%s)" -lt "$deadline" ] || { echo "not every node saw every other within 600 s" >&2; exit 1; }
  sleep 5
done
formed=$(echo "$(date +%s.%N) - $started" | bc)
printf 'all %d nodes see each other alive %.1f s after the first start\n' "$N" "$formed"

ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
declare -a before
for ((i = 0; i < N; i++)); do before[i]=$(ticks "${pids[i]}"); done
echo "measuring idle CPU for $IDLE_S s"
sleep "$IDLE_S"
total=0 max=0
for ((i = 0; i < N; i++)); do
  used=$(( $(ticks "${pids[i]}") - before[i] ))
  total=$((total + used))
  [ "$used" -gt "$max" ] && max=$used
done
rss_total=0 rss_max=0
for ((i = 0; i < N; i++)); do
  rss=$(awk '/VmRSS/ {print $2}' "/proc/${pids[i]}/status")
  rss_total=$((rss_total + rss))
  [ "$rss" -gt "$rss_max" ] && rss_max=$rss
done
echo "idle CPU: $(echo "scale=4; $total / $hz / $IDLE_S" | bc) cores for all $N nodes," \
  "mean $(echo "scale=4; $total / $hz / $IDLE_S / $N" | bc), most $(echo "scale=4; $max / $hz / $IDLE_S" | bc) cores a node"
echo "resident memory: mean $((rss_total / N / 1024)) MiB, most $((rss_max / 1024)) MiB a node"

victim=$((N - 1))
kill -9 "${pids[victim]}"
killed=$(date +%s.%N)
wait "${pids[victim]}" 2>/dev/null || true
echo "killed node $victim (kill -9); waiting until node 0 sees it down"
while [ "$(alive_seen_by 0)" = "$N" ]; do sleep 0.2; done
printf 'node 0 saw node %d down %.1f s after its kill\n' "$victim" "$(echo "$(date +%s.%N) - $killed" | bc)"
