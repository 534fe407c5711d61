#!/usr/bin/env bash
# Overload: what a 3-node cluster does when offered more than it can serve (issue 42,
# docs/reliability.md "Overload"). Three nodes of this script's own at -Xms/-Xmx HEAP (default
# 128m), PUTs of VALUE (100) bytes at ack=2&from=3 from the load tool, its connections spread over
# the three nodes. Stages, each measured, in this order:
#   1. saturation: --rate max on 64 connections (the cluster's throughput X);
#   2. 50% load: X/2 for DURATION s (default 60) on 64 connections (the normal p99);
#   3. for each of 3x and 10x: that multiple of X for DURATION s, open loop, on OVER_CONNECTIONS
#      (default 1024) connections, then at once X/2 again for 15 s with no warm-up: the per-second
#      p99 shows how soon the cluster is back to normal.
# Rows of the summary: offered rate, admitted (non-503) answers per second and their share of X;
# the admitted requests' p99 from sending (the cluster's time: what admission control bounds),
# over the window and as the median of its per-second values after the first 10 s, and p99 from
# the schedule (wrk2's, which adds the wait of a request due while its connection is still busy:
# the load tool's own queue once a connection is offered more than it can carry); 503s, requests
# held back by Retry-After, socket errors, the nodes' largest heap in use, the slowest /v0/status
# seen during the stage, and the second of the run right after the overload from which every
# second's p99 stays within 2x the 50%-load p99.
# The load tool honours Retry-After (RETRY_AFTER=ignore: it resends at once, as a client that
# does not). ADMISSION=off runs the nodes without bounds, for contrast (maxRequestsPerLoop and
# maxQueuedStorage 0); MAX_IN_FLIGHT=N sets admission.maxRequestsPerLoop. Data in a temporary
# directory deleted at the end; OUT=DIR keeps the reports there.
#
#   scripts/bench overload                    # bounds at their defaults
#   ADMISSION=off scripts/bench overload      # no bounds
#   MULTIPLES="3" DURATION=30 scripts/bench overload
set -euo pipefail
cd "$(dirname "$0")/../../.."

export HEAP=${HEAP:-128m}
DURATION=${DURATION:-60}
VALUE=${VALUE:-100}
KEYS=${KEYS:-100000}
MULTIPLES=${MULTIPLES:-3 10}
OVER_CONNECTIONS=${OVER_CONNECTIONS:-1024}
RETRY_AFTER=${RETRY_AFTER:-honour}
ADMISSION=${ADMISSION:-on}
BASE_PORT=${BASE_PORT:-8290}
HZ_PORT=${HZ_PORT:-5911}
RECOVERY_SECONDS=15

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run curl
results_dir overload "${OUT:-}"
out=$OUT
ulimit -n 65536 2>/dev/null || true

ports=("$BASE_PORT" $((BASE_PORT + 1)) $((BASE_PORT + 2)))
urls=$(printf 'http://127.0.0.1:%s,' "${ports[@]}")
urls=${urls%,}
keys=""
if [ "$ADMISSION" = off ]; then
  keys='"admission": { "maxRequestsPerLoop": 0, "maxQueuedStorage": 0 }'
elif [ -n "${MAX_IN_FLIGHT:-}" ]; then
  keys="\"admission\": { \"maxRequestsPerLoop\": $MAX_IN_FLIGHT }"
fi
start_cluster "$work" "$HZ_PORT" "$keys" "${ports[@]}"
admission_text=$ADMISSION${MAX_IN_FLIGHT:+ (maxRequestsPerLoop $MAX_IN_FLIGHT)}
echo "3 nodes at -Xmx$HEAP, admission $admission_text, the load tool ${RETRY_AFTER}s Retry-After"

# bench NAME RATE CONNECTIONS DURATION_S WARMUP: one load tool run; its report in $out/NAME.txt,
# its per-second progress lines in $out/NAME.progress.
bench() {
  java -jar "$NODE_JAR" bench --url "$urls" --workload put --ack 2 --from 3 --keys "$KEYS" --value-size "$VALUE" \
    --rate "$2" --connections "$3" --duration "${4}s" --warmup "$5" --retry-after "$RETRY_AFTER" \
    > "$out/$1.txt" 2> >(tr '\r' '\n' > "$out/$1.progress") || true
}

# watch_nodes NAME: until killed, samples each node's heap in use (from its /metrics) and the time
# its /v0/status takes, every second, into $out/NAME.watch ("heap_bytes status_seconds" lines).
watch_nodes() {
  local port
  while true; do
    for port in "${ports[@]}"; do
      printf '%s %s\n' \
        "$(curl -s -m 5 "http://127.0.0.1:$port/metrics" | awk '/^jvm_memory_used_bytes\{area="heap"/ {s += $NF} END {printf "%.0f", s}')" \
        "$(curl -s -o /dev/null -m 5 -w '%{time_total}' "http://127.0.0.1:$port/v0/status" || echo 5)"
    done >> "$out/$1.watch"
    sleep 1
  done
}

# admitted_rate NAME: the admitted requests a second of a load tool report (all of them without 503s).
admitted_rate() { awk '/^Admitted requests\/sec:/ {print $3; f=1} /^Requests\/sec:/ {r=$2} END {if (!f) print r}' "$out/$1.txt"; }

stage() { # stage NAME RATE CONNECTIONS DURATION WARMUP
  watch_nodes "$1" & local watcher=$!
  bench "$@"
  kill "$watcher" 2>/dev/null; wait "$watcher" 2>/dev/null || true
}

echo "saturation (64 connections, 20 s)..."
stage saturation max 64 20 5s
x=$(awk '/^Requests\/sec:/ {printf "%d", $2}' "$out/saturation.txt")
echo "  X = $x PUT/s"
half=$((x / 2))
echo "50% load: $half PUT/s for $DURATION s..."
stage half "$half" 64 "$DURATION" 5s
normal_p99=$(load_percentile "$out/half.txt" "99.000%")

for m in $MULTIPLES; do
  echo "${m}x: $((x * m)) PUT/s for $DURATION s on $OVER_CONNECTIONS connections, then $half PUT/s..."
  stage "over-${m}x" $((x * m)) "$OVER_CONNECTIONS" "$DURATION" 5s
  stage "after-${m}x" "$half" 64 "$RECOVERY_SECONDS" 0s
done

# recovered NAME: in the run right after an overload, the second from which every second's p99 stays
# within 2x the 50%-load p99 ("never" if the last one does not).
recovered() {
  awk -v limit="$(echo "$normal_p99 * 2" | bc -l)" '
    match($0, /^\[ *[0-9.]+s\]/) && match($0, /p99 [0-9.]+ ms/) {
      t = $0; sub(/^\[ */, "", t); sub(/s\].*/, "", t); p = substr($0, RSTART + 4, RLENGTH - 7)
      if (p + 0 > limit) { bad = t; lastbad = 1 } else { lastbad = 0 } }
    END { if (lastbad) print "never"; else printf "%.0fs\n", bad }' "$out/$1.progress"
}

# sent_p99 NAME: the admitted requests' p99 from sending, over the window (ms).
sent_p99() { awk '/From sending/ { for (i = 1; i <= NF; i++) if ($i == "p99") { sub(/ms,?$/, "", $(i + 1)); print $(i + 1) } }' "$out/$1.txt"; }
# steady_p99 NAME: the median of the per-second p99 from sending after the first 10 s (ms).
steady_p99() {
  grep -o 'p99 from sending [0-9.]*' "$out/$1.progress" | awk 'NR > 10 { print $4 }' | sort -g |
    awk '{ a[NR] = $1 } END { print (NR ? a[int((NR + 1) / 2)] : "-") }'
}
worst() { awk -v c="$2" '{ if ($c + 0 > m) m = $c + 0 } END { printf "%.0f", m }' "$out/$1.watch"; }

echo
echo "overload, 3 nodes at -Xmx$HEAP, admission $admission_text, Retry-After: $RETRY_AFTER; X = $x PUT/s at ack=2&from=3"
printf '| %s |\n' "stage | offered/s | admitted/s | of X | p99 from sending, ms | per-second p99 from sending, median, ms | p99 from schedule, ms | 503 | held back | errors | max heap MB | slowest status | p99 normal again after"
printf '| %s |\n' "--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---:"
row() { # row NAME OFFERED [AFTER]
  local admitted shed held errors
  admitted=$(admitted_rate "$1")
  shed=$(awk '/Refused with 503:/ {gsub(/;/, "", $4); print $4; exit}' "$out/$1.txt")
  held=$(awk '/held back by Retry-After/ {print $(NF-1); exit}' "$out/$1.txt")
  errors=$(awk '/Socket errors or timeouts:/ {print $NF; exit}' "$out/$1.txt")
  printf '| %s | %s | %.0f | %.2f | %s | %s | %s | %s | %s | %s | %.0f | %.2f s | %s |\n' "$1" "$2" "$admitted" \
    "$(echo "$admitted / $x" | bc -l)" "$(sent_p99 "$1")" "$(steady_p99 "$1")" \
    "$(load_percentile "$out/$1.txt" "99.000%")" "${shed:-0}" "${held:-0}" "${errors:-0}" \
    "$(echo "$(worst "$1" 1) / 1048576" | bc -l)" "$(awk '{ if ($2 + 0 > m) m = $2 + 0 } END { print m + 0 }' "$out/$1.watch")" \
    "${3:--}"
}
row saturation max
row half "$half"
for m in $MULTIPLES; do row "over-${m}x" $((x * m)) "$(recovered "after-${m}x")"; done
for port in "${ports[@]}"; do
  curl -s "http://127.0.0.1:$port/metrics" | grep '^quorumkv_requests_shed_total' | sed "s/^/node $port: /"
done
echo "reports in $out"
