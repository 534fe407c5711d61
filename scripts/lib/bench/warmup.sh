#!/usr/bin/env bash
# How fast a node warms up under load: a fresh single node (1/1) or 3-node cluster (2/3 through
# its first node) per variant, filled with KEYS records, then WINDOWS consecutive wrk runs of 10 s
# at 64 connections; for each window the requests/s, the nodes' CPU per request and the part of
# it their C2 compiler threads took. Variants run one after the other, each on its own data.
#
#   scripts/bench warmup single|cluster put|get VARIANT...    VARIANT: NAME=JAR[@JVM_OPTIONS]
#   scripts/bench warmup cluster put default=target/quorumkv.jar \
#     less-inlining=target/quorumkv.jar@'-XX:MaxInlineLevel=9 -XX:InlineSmallCode=1000'
#   KEYS=50000 WINDOWS=9 scripts/bench warmup ...
set -euo pipefail
cd "$(dirname "$0")/../../.."
HEAP=${HEAP:-128m}
# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh

[ $# -ge 3 ] || { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
SHAPE=$1 OP=$2
shift 2
case "$SHAPE" in single) KEYS=${KEYS:-300000} ;; cluster) KEYS=${KEYS:-50000} ;; *) echo "not single or cluster: $SHAPE" >&2; exit 2 ;; esac
case "$OP" in put|get) ;; *) echo "not put or get: $OP" >&2; exit 2 ;; esac
WINDOWS=${WINDOWS:-9}
CONNECTIONS=64 DURATION=10 WRK_THREADS=2   # each window's wrk run (wrk_rate)
export KEYS VALUE=${VALUE:-100}
require wrk
use_work_dir

# c2_ticks PID...: the CPU ticks the C2 compiler threads of the processes have used (the JVM starts
# and ends compiler threads as its queue grows and shrinks, so one may be gone before it is read).
c2_ticks() {
  local pid task
  for pid in "$@"; do
    for task in /proc/"$pid"/task/*; do
      if grep -q '^C2 Compi' "$task/comm" 2> /dev/null; then awk '{print $14 + $15}' "$task/stat" 2> /dev/null || true; fi
    done
  done | awk '{s += $1} END {print s + 0}'
}

# cpu_ticks_of PID...: the CPU ticks the processes have used together.
cpu_ticks_of() {
  local pid
  for pid in "$@"; do cpu_ticks "$pid"; done | awk '{s += $1} END {print s + 0}'
}

parse_variants "NAME=JAR[@JVM_OPTIONS]" "$@"
for i in "${!names[@]}"; do
  name=${names[i]} NODE_JAR=${jars[i]}
  read -ra JVM_OPTIONS <<< "${options[i]}"
  NODE_RUN_DIR="$work/$name"
  mkdir -p "$NODE_RUN_DIR"
  if [ "$SHAPE" = single ]; then
    start_single node 18090 "$work/$name/data" > /dev/null
    nodes=(node) url=http://127.0.0.1:18090 QUORUM="" query=""
  else
    start_cluster "$work/$name" 18701 "" 18601 18602 18603 > /dev/null
    nodes=(node-18601 node-18602 node-18603) url=http://127.0.0.1:18601 QUORUM="&ack=2&from=3" query="&ack=3&from=3"
  fi
  export QUORUM
  echo "== $name: $SHAPE, $OP, ${JVM_OPTIONS[*]:-no extra JVM options}; $(fill "$url" "$KEYS" "$query")"
  pids=()
  for node in "${nodes[@]}"; do pids+=("$(node_pid "$node")"); done
  for window in $(seq "$WINDOWS"); do
    c2_before=$(c2_ticks "${pids[@]}") cpu_before=$(cpu_ticks_of "${pids[@]}")
    # PUTs write new keys in every window, so that no window overwrites another's; GETs read the filled ones.
    prefix=k
    [ "$OP" = get ] || prefix="w$window"
    rate=$(PREFIX=$prefix wrk_rate "$work/$name-$window.txt" "$url" "$OP")
    c2_after=$(c2_ticks "${pids[@]}") cpu_after=$(cpu_ticks_of "${pids[@]}")
    [ -n "$rate" ] || { echo "wrk measured nothing in window $window:" >&2; cat "$work/$name-$window.txt" >&2; exit 1; }
    python3 - "$window" "$rate" \
      $((cpu_after - cpu_before)) $((c2_after - c2_before)) <<'EOF'
import os, sys
window, rate, cpu, c2 = int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
per_request = 1e6 / os.sysconf("SC_CLK_TCK") / (rate * 10)
print(f"  {10 * (window - 1):3d}-{10 * window:3d} s: {rate:9,.0f} req/s, nodes {cpu * per_request:6.1f} us CPU a request, "
      f"of which C2 {c2 * per_request:5.1f} us")
EOF
  done
  node_stop TERM "${nodes[@]}" > /dev/null
  rm -rf "${work:?}/$name"
done
