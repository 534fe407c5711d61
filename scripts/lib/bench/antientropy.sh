#!/usr/bin/env bash
# Anti-entropy figures, in one run on a 3-node cluster of its own (ports BASE_PORT to BASE_PORT+2,
# default 8190-8192, Hazelcast from HZ_PORT, default 5811; data in a temporary directory deleted
# at the end; hints expire at once, so only anti-entropy can repair):
#  1. idle cost: RECORDS keys (default 1,000,000) written at 3/3, then the CPU time each node
#     process uses over IDLE seconds (default 60) while nothing but its timers, membership and
#     anti-entropy exchanges run, as a percentage of one core;
#  2. convergence: node 3 is stopped, STALE_PERCENT (default 1) of the keys are overwritten at 2/3,
#     node 3 is started again, and the time is taken until every pair's exchange finds its trees
#     equal, with no client read; then SAMPLE keys are compared replica by replica.
# Needs python3.
#
#   scripts/bench antientropy             # RECORDS=1000000 STALE_PERCENT=1 IDLE=60
set -euo pipefail
cd "$(dirname "$0")/../../.."

RECORDS=${RECORDS:-1000000}
STALE_PERCENT=${STALE_PERCENT:-1}
IDLE=${IDLE:-60}
SAMPLE=${SAMPLE:-200}
BASE_PORT=${BASE_PORT:-8190}
HZ_PORT=${HZ_PORT:-5811}
INTERVAL_MS=${INTERVAL_MS:-10000}
export VALUE=${VALUE:-100}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run python3 curl

ports=("$BASE_PORT" $((BASE_PORT + 1)) $((BASE_PORT + 2)))
urls=("${ports[@]/#/http://127.0.0.1:}")
stale=$((RECORDS * STALE_PERCENT / 100))

start_cluster "$work" "$HZ_PORT" "\"hints\": { \"windowMs\": 1, \"retryMs\": 1000 }, \"antiEntropy\": { \"intervalMs\": $INTERVAL_MS }" "${ports[@]}"
echo "writing $RECORDS keys at 3/3..."
fill "${urls[0]}" "$RECORDS" "&ack=3&from=3" k

echo "waiting one interval for the exchanges after the fill, then measuring $IDLE s of idle..."
sleep $((INTERVAL_MS / 1000 + 1))
declare -A before
for port in "${ports[@]}"; do before[$port]=$(cpu_ticks "$(node_pid "node-$port")"); done
sleep "$IDLE"
hz=$(getconf CLK_TCK)
for port in "${ports[@]}"; do
  used=$(( $(cpu_ticks "$(node_pid "node-$port")") - before[$port] ))
  python3 -c "print('idle cost: node $port used %.2f %% of one core over $IDLE s, $RECORDS records held' % ($used * 100.0 / $hz / $IDLE))"
done
json_at "${urls[0]}/v0/cluster" 'json.dumps(j["antiEntropy"]["peers"], indent=1)' | head -40

echo "stopping node 3 and overwriting $stale keys ($STALE_PERCENT %) at 2/3..."
node_stop TERM "node-${ports[2]}"
VALUE=$((VALUE + 1)) fill "${urls[0]}" "$stale" "&ack=2&from=3" k
launched=$(date +%s.%N)
start_nodes "$work" "${ports[2]}"
ready=$(date +%s.%N)
since=$(python3 -c 'import time; print(int(time.time() * 1000))')
# in_sync URL: every exchange that node starts began after $since and found no differing key.
in_sync() {
  json_at "$1/v0/cluster" "all(p['lastStartedAt'] and p['lastStartedAt'] > $since and p['last'] and p['last']['keysDiffering'] == 0 and p['lastCompletedAt'] >= p['lastStartedAt'] for p in j['antiEntropy']['peers'].values() if p['initiator'])"
}
deadline=$((SECONDS + 600))
until [ "$(in_sync "${urls[0]}")" = True ] && [ "$(in_sync "${urls[1]}")" = True ]; do
  [ "$SECONDS" -lt "$deadline" ] || { echo "not converged after 600 s" >&2; exit 1; }
  sleep 0.5
done
converged=$(date +%s.%N)
python3 -c "print('convergence: $stale stale keys on node 3 repaired; trees equal %.1f s after node 3 was ready (%.1f s after its launch, its start-up included)' % ($converged - $ready, $converged - $launched))"
for url in "${urls[@]}"; do
  echo "  $url: $(json_at "$url/v0/cluster" "', '.join(peer + ': repaired ' + str(p['keysRepaired']) for peer, p in j['antiEntropy']['peers'].items())")"
done
for url in "${urls[@]}"; do
  echo "  $url read repairs: $(json_at "$url/v0/cluster" 'j["readRepairs"]["written"]')"
done

differing=0
for i in $(seq 0 $((stale / SAMPLE)) $((stale - 1))); do
  versions=$(for url in "${urls[@]}"; do curl -s -D - -o /dev/null "$url/internal/v0/record?id=k$i" | tr -d '\r' | grep -i '^x-qkv-version'; done)
  [ "$(wc -l <<< "$versions")" = 3 ] && [ "$(sort -u <<< "$versions" | wc -l)" = 1 ] || differing=$((differing + 1))
done
echo "sampled $SAMPLE of the stale keys on every replica: $differing differ"
[ "$differing" = 0 ]
