#!/usr/bin/env bash
# Memory check: a node at -Xms and -Xmx HEAP (default 128m) holding RECORDS records streams all
# of them, as one range, to a reader slowed to READ_RATE bytes/s. Samples the node's heap (GET
# /metrics) and resident memory while it does, and exits non-zero on a violation: the node dies
# or runs out of memory, the range is incomplete, or the old generation grows by more than
# OLD_GEN_GROWTH_MB during the range (what buffering the range in the heap instead of
# back-pressure would do). The node (PORT, default 8098) keeps its data in a temporary directory.
#
#   scripts/check-memory.sh                      # 1,000,000 records, reader at 4 MB/s
#   RECORDS=200000 READ_RATE=2M scripts/check-memory.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RECORDS=${RECORDS:-1000000}
VALUE=${VALUE:-100}
READ_RATE=${READ_RATE:-4M}
HEAP=${HEAP:-128m}
OLD_GEN_GROWTH_MB=${OLD_GEN_GROWTH_MB:-24}
PORT=${PORT:-8098}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run bc
sampler=""
trap '[ -z "$sampler" ] || kill "$sampler" 2> /dev/null; cleanup_work_dir' EXIT
url="http://127.0.0.1:$PORT"
start_single node "$PORT" "$work/data"
node=$(node_pid node)

echo "filling $RECORDS records of $VALUE bytes (node at -Xms$HEAP -Xmx$HEAP)..."
fill "$url" "$RECORDS"

# heap_mb POOL_REGEX: the summed used bytes of the heap pools matching the regex, in MB.
heap_mb() {
  curl -sf "$url/metrics" | awk -v re="$1" '/^jvm_memory_used_bytes[{]area="heap"/ && $0 ~ re {s += $NF} END {printf "%.1f", s / 1048576}'
}
rss_mb() { awk '/^VmRSS/ {printf "%.0f", $2 / 1024}' "/proc/$node/status"; }
old_before=$(heap_mb "Old Gen")
echo "before the range: heap $(heap_mb .) MB used (old generation $old_before MB), resident $(rss_mb) MB"

(while true; do echo "$(heap_mb .) $(heap_mb 'Old Gen') $(rss_mb)"; sleep 0.25; done) > "$work/samples.txt" 2>/dev/null &
sampler=$!
echo "reading the whole range at $READ_RATE/s..."
start=$(date +%s.%N)
received=$(curl -sf --limit-rate "$READ_RATE" "$url/v0/entities?start=k" | tr -cd '\n' | wc -c)
seconds=$(echo "$(date +%s.%N) - $start" | bc -l)
kill "$sampler"; sampler=""

read -r heap_peak old_peak rss_peak < <(awk '{if ($1 > h) h = $1; if ($2 > o) o = $2; if ($3 > r) r = $3} END {print h, o, r}' "$work/samples.txt")
printf 'range: %d records in %.1f s; %d samples: heap peak %s MB, old generation peak %s MB (before %s MB), resident peak %s MB\n' \
  "$received" "$seconds" "$(wc -l < "$work/samples.txt")" "$heap_peak" "$old_peak" "$old_before" "$rss_peak"

failed=0
if ! node_pid node > /dev/null; then echo "VIOLATION: the node died: $(tail -3 "$(node_log node)")"; failed=1; fi
if grep -q OutOfMemoryError "$(node_log node)"; then echo "VIOLATION: OutOfMemoryError in the node's log"; failed=1; fi
if [ "$received" -ne "$RECORDS" ]; then echo "VIOLATION: the range had $received records, not $RECORDS"; failed=1; fi
if (( $(echo "$old_peak - $old_before > $OLD_GEN_GROWTH_MB" | bc -l) )); then
  echo "VIOLATION: the old generation grew by more than $OLD_GEN_GROWTH_MB MB during the range"; failed=1
fi
[ "$failed" = 0 ] && echo "memory check passed"
exit "$failed"
