#!/usr/bin/env bash
# Builds or settings of a single node side by side, one node at a time: every variant starts on
# its own copy of one data dir filled once, takes WARMUP s of wrk load, then DURATION s measured
# at 64 connections (the node's CPU per request read from /proc) and 5 s at 1 connection, and is
# stopped before the next one starts, so none shares the CPU with another's flushes and
# compactions. The rounds interleave the variants. Nodes at -Xms and -Xmx HEAP (default 128m);
# everything lives in a temporary directory deleted at the end.
#
#   scripts/bench ab VARIANT...      VARIANT: NAME=JAR[@JSON_KEYS[@JVM_OPTIONS]]
#   scripts/bench ab before=/tmp/before.jar after=target/quorumkv.jar
#   scripts/bench ab w4=target/quorumkv.jar@'"storage": {"workers": 4}' \
#                       w2=target/quorumkv.jar@'"storage": {"workers": 2}' \
#                       nio=target/quorumkv.jar@@-Dio.netty.transport.noNative=true
#   OPS=get,put ROUNDS=3 WARMUP=8 DURATION=12 KEYS=300000 PORT=18200 scripts/bench ab ...
#
# Prints a line per variant and round, then each variant's per-round ratios to the first one.
set -euo pipefail
cd "$(dirname "$0")/../../.."
HEAP=${HEAP:-128m}
# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh

OPS=${OPS:-get,put}
ROUNDS=${ROUNDS:-3}
WARMUP=${WARMUP:-8}
DURATION=${DURATION:-12}
KEYS=${KEYS:-300000}
PORT=${PORT:-18200}
[ $# -ge 2 ] || { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }

require wrk
require python3
use_work_dir
export KEYS VALUE=100
parse_variants "NAME=JAR[@JSON_KEYS[@JVM_OPTIONS]]" "$@"

# The data every variant starts from, written through the first variant's build.
NODE_JAR=${jars[0]}
start_single filler "$PORT" "$work/filled" > /dev/null
echo "filling $KEYS records: $(fill "http://127.0.0.1:$PORT" "$KEYS")"
node_stop TERM filler > /dev/null

# measure I OP ROUND: one variant's run; appends "NAME OP ROUND req/s CPU-us c1-latency" to results.
measure() {
  local i=$1 op=$2 round=$3 name=${names[$1]} url="http://127.0.0.1:$PORT" pid t0 t1 rate c1 conf jvm
  rm -rf "$work/data"
  cp -r "$work/filled" "$work/data"
  NODE_JAR=${jars[i]}
  IFS=@ read -r conf jvm <<< "${options[i]}"
  read -r -a JVM_OPTIONS <<< "$jvm"
  start_single "$name" "$PORT" "$work/data" "$conf" > /dev/null
  pid=$(node_pid "$name")
  wrk -t2 -c64 -d"${WARMUP}s" -s scripts/wrk/"$op".lua "$url" > /dev/null
  t0=$(cpu_ticks "$pid")
  rate=$(WRK_THREADS=2 CONNECTIONS=64 wrk_rate "$work/$name-$op-$round.txt" "$url" "$op")
  t1=$(cpu_ticks "$pid")
  c1=$(wrk -t1 -c1 -d5s -s scripts/wrk/"$op".lua "$url" | awk '/Latency/ {print $2}')
  node_stop TERM "$name" > /dev/null
  python3 -c "import sys; n, op, r, rate, ticks, hz, d, c1 = sys.argv[1:]; \
print(f'{n} {op} round {r}: {float(rate):,.0f} req/s, {int(ticks) / int(hz) / int(d) / float(rate) * 1e6:.1f} us CPU a request, 1 connection {c1}')" \
    "$name" "$op" "$round" "$rate" "$((t1 - t0))" "$(getconf CLK_TCK)" "$DURATION" "$c1" | tee -a "$work/results"
}

IFS=, read -r -a ops <<< "$OPS"
for op in "${ops[@]}"; do
  for round in $(seq "$ROUNDS"); do
    for i in "${!names[@]}"; do measure "$i" "$op" "$round"; done
  done
done

echo "per-round req/s against ${names[0]}:"
python3 - "$work/results" "${names[0]}" <<'EOF'
import re, sys
rates = {}
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) (\S+) round (\d+): ([\d,]+) req/s", line)
    rates[(m[1], m[2], m[3])] = float(m[4].replace(",", ""))
base = sys.argv[2]
for name, op in sorted({(n, o) for n, o, _ in rates if n != base}):
    ratios = [rates[(name, op, r)] / rates[(base, op, r)] for n, o, r in sorted(rates) if (n, o) == (name, op)]
    print(f"  {name} {op}: " + ", ".join(f"{x:.2f}" for x in ratios))
EOF
