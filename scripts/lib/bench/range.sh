#!/usr/bin/env bash
# Cluster-wide range figures, in one run on a 3-node cluster of its own (ports BASE_PORT to
# BASE_PORT+2, default 18100-18102, Hazelcast from HZ_PORT, default 15800; data in a temporary
# directory deleted at the end):
#  1. RECORDS keys (default 100,000) of VALUE bytes (default 100) written at ack=1&from=1, a third
#     through each node, so each key has one copy and no node holds them all;
#  2. ROUNDS rounds (default 5), each timing, through the first node, its node-local range
#     (GET /v0/entities?start=) and then the cluster range (&scope=cluster), read by curl as fast
#     as it can: records/s and MB/s of each, and the medians at the end.
# Records are counted in the body (each record is one "key\nvalue" and neither holds a newline).
# Needs python3 and curl.
#
#   scripts/bench range                  # RECORDS=100000 VALUE=100 ROUNDS=5
#   JAR=target/quorumkv.jar scripts/bench range   # without building
set -euo pipefail
cd "$(dirname "$0")/../../.."

RECORDS=${RECORDS:-100000}
ROUNDS=${ROUNDS:-5}
BASE_PORT=${BASE_PORT:-18100}
HZ_PORT=${HZ_PORT:-15800}
export VALUE=${VALUE:-100}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run python3 curl

ports=("$BASE_PORT" $((BASE_PORT + 1)) $((BASE_PORT + 2)))
urls=("${ports[@]/#/http://127.0.0.1:}")

# A generous replica timeout: the fill must not fail on a machine busy with other work.
start_cluster "$work" "$HZ_PORT" "\"replicaTimeoutMs\": 10000" "${ports[@]}"
deadline=$((SECONDS + 120))
for url in "${urls[@]}"; do
  until [ "$(json_at "$url/v0/cluster" 'all(n["alive"] for n in j["nodes"])' 2> /dev/null)" = True ]; do
    [ "$SECONDS" -lt "$deadline" ] || { echo "$url does not see every node alive after 120 s" >&2; exit 1; }
    sleep 0.5
  done
done

echo "writing $RECORDS keys of $VALUE bytes at 1/1, a third through each node..."
third=$(((RECORDS + 2) / 3))
for i in 0 1 2; do
  fill "${urls[i]}" $((i < 2 ? third : RECORDS - 2 * third)) "&ack=1&from=1" "n$i-k"
done

# timed_range NAME QUERY: reads GET ${urls[0]}/v0/entities?QUERY into a file; prints
# "NAME records seconds records/s MB/s".
timed_range() {
  local name=$1 query=$2 stats records
  stats=$(curl -sf -o "$work/range.out" -w '%{size_download} %{time_total}' "${urls[0]}/v0/entities?$query")
  records=$(tr -cd '\n' < "$work/range.out" | wc -c)
  python3 -c "import sys; b, t = map(float, sys.argv[1].split()); r = int(sys.argv[2]); print('%s %d %.3f %.0f %.1f' % (sys.argv[3], r, t, r / t, b / t / 1e6))" \
    "$stats" "$records" "$name"
}

echo "timing the ranges through ${urls[0]}, $ROUNDS rounds (records, seconds, records/s, MB/s):"
: > "$work/rounds.txt"
for round in $(seq "$ROUNDS"); do
  for kind in node cluster; do
    line=$(timed_range "$kind" "start=n&scope=$kind")
    echo "  round $round: $line"
    echo "$line" >> "$work/rounds.txt"
  done
done
cluster_records=$(awk '$1 == "cluster" {print $2; exit}' "$work/rounds.txt")
[ "$cluster_records" = "$RECORDS" ] || { echo "the cluster range returned $cluster_records records, not $RECORDS" >&2; exit 1; }
for kind in node cluster; do
  echo "$kind range through ${urls[0]}: $(awk -v k=$kind '$1 == k {print $2; exit}' "$work/rounds.txt") records," \
    "median $(awk -v k=$kind '$1 == k {print $4}' "$work/rounds.txt" | median) records/s," \
    "$(awk -v k=$kind '$1 == k {print $5}' "$work/rounds.txt" | median) MB/s"
done
