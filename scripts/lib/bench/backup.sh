#!/usr/bin/env bash
# Backup and restore, measured (docs/operations.md, "Backup and restore"): a 3-node cluster of this
# script's own (HTTP ports BASE_PORT..+2, default 8110; Hazelcast from HZ_PORT, default 5811)
# takes KEYS records (default 1,000,000) of VALUE bytes (default 100) at the default quorum (2 of 3),
# then a cluster backup: its time on each node and what it adds to the disk at once (du of the
# data directory with and without the backup; hard links count once). A second 3-node cluster
# (ports +3..+5) is restored from the three node backups at RESTORE_RATE records a second (default:
# the tool's default throttle) while the load
# tool sends it a mixed load (10% PUT) of LOAD_RATE req/s (default 2000); then the same load alone,
# for the p99 beside it; then the second cluster is emptied and restored once more without a throttle.
# Every node runs at -Xms and -Xmx HEAP (default 256m), its data in a temporary directory deleted
# at the end. Writes OUT/results.md (default bench/results/DATE-TIME-backup) and the load tool's
# latency pictures. Run it alone: a build or test beside it decides the figures.
#
#   scripts/bench backup
#   KEYS=200000 scripts/bench backup
set -euo pipefail
cd "$(dirname "$0")/../../.."

KEYS=${KEYS:-1000000}
VALUE=${VALUE:-100}
LOAD_RATE=${LOAD_RATE:-2000}
RESTORE_RATE=${RESTORE_RATE:-}
BASE_PORT=${BASE_PORT:-8110}
HZ_PORT=${HZ_PORT:-5811}
OUT=${OUT:-}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run curl python3
results_dir backup "$OUT"

source_ports=("$BASE_PORT" $((BASE_PORT + 1)) $((BASE_PORT + 2)))
target_ports=($((BASE_PORT + 3)) $((BASE_PORT + 4)) $((BASE_PORT + 5)))
start_cluster "$work/source" "$HZ_PORT" "" "${source_ports[@]}"
start_cluster "$work/target" $((HZ_PORT + 10)) "" "${target_ports[@]}"
source_url="http://127.0.0.1:${source_ports[0]}"
target_url="http://127.0.0.1:${target_ports[0]}"

echo "filling the source cluster with $KEYS keys of $VALUE bytes at the default quorum..."
fill "$source_url" "$KEYS"

disk() { du -sb "$@" | awk '{s += $1} END {print s}'; }
data_dirs=() backup_dirs=()
for port in "${source_ports[@]}"; do
  data_dirs+=("$work/source/data/node-$port")
  backup_dirs+=("$work/source/data/node-$port/backups/bench")
done
echo "taking a cluster backup..."
started=$(date +%s.%N)
curl -sf -X POST "$source_url/admin/backup?scope=cluster&name=bench" > "$OUT/backup.json"
backup_seconds=$(echo "$(date +%s.%N) - $started" | bc -l)
# One du over the live store and its backup counts a hard-linked file once: the difference to the
# live store alone is what the backup adds now. Its own du is the most it can come to cost, once the
# live store's compactions have replaced every file they share.
live=$(du -sb --exclude=backups "${data_dirs[@]}" | awk '{s += $1} END {print s}')
both=$(disk "${data_dirs[@]}")
alone=$(for dir in "${backup_dirs[@]}"; do du -sb "$dir"; done | awk '{s += $1} END {print s}')

restore() {
  java -jar "$NODE_JAR" restore --from "${backup_dirs[0]}" --from "${backup_dirs[1]}" --from "${backup_dirs[2]}" \
    --url "$target_url" --progress "$work/progress.json" "$@"
}

echo "restoring into the second cluster at ${RESTORE_RATE:-the default} records/s, with $LOAD_RATE req/s of mixed load beside it..."
restore ${RESTORE_RATE:+--rate "$RESTORE_RATE"} > "$OUT/restore-throttled.txt" 2>&1 &
restoring=$!
sleep 2
java -jar "$NODE_JAR" bench --url "$target_url" --rate "$LOAD_RATE" --workload mixed --keys "$KEYS" \
  --duration 60s --out "$OUT/load-during-restore" > "$OUT/load-during-restore.txt" 2>&1 || true
wait "$restoring"
tail -n 1 "$OUT/restore-throttled.txt"
echo "the same load alone..."
java -jar "$NODE_JAR" bench --url "$target_url" --rate "$LOAD_RATE" --workload mixed --keys "$KEYS" \
  --duration 60s --out "$OUT/load-alone" > "$OUT/load-alone.txt" 2>&1 || true

echo "emptying the second cluster and restoring without a throttle..."
node_stop TERM "${target_ports[@]/#/node-}" > /dev/null
rm -rf "$work/target/data"
start_nodes "$work/target" "${target_ports[@]}"
restore --rate 1000000000 > "$OUT/restore-unthrottled.txt" 2>&1
tail -n 1 "$OUT/restore-unthrottled.txt"

python3 - "$OUT" "$KEYS" "$VALUE" "$LOAD_RATE" "$backup_seconds" "$live" "$both" "$alone" "${RESTORE_RATE:-default}" <<'PY'
import json, re, sys
out, keys, value, rate, backup_s, live, both, alone, throttle = sys.argv[1:]
backup = json.load(open(f"{out}/backup.json"))

def done(name):
    text = open(f"{out}/{name}.txt").read()
    m = re.search(r"done in ([\d.]+) s: (\d+) records sent, (\d+) already newer", text)
    return (float(m.group(1)), int(m.group(2)) + int(m.group(3))) if m else (None, None)

def p(name, q):
    for line in open(f"{out}/{name}.txt"):
        parts = line.split()
        if parts and parts[0] == q:
            return parts[1]
    return "?"

mb = lambda b: f"{int(b) / 1e6:,.0f} MB"
lines = [f"# Backup and restore, {int(keys):,} keys of {value} bytes, 3 nodes at 2/3", "",
         "Made by `scripts/bench backup` on this machine (2 cores, every node and tool on them).", "",
         "## Backup", "",
         "| node | records | on disk (manifest) | took |", "| --- | ---: | ---: | ---: |"]
for node in backup["nodes"]:
    m = node["backup"]
    lines.append(f"| {node['node']} | {m['records']:,} | {mb(m['diskBytes'])} | {m['tookMs']:,} ms |")
lines += ["", f"The cluster backup answered in {float(backup_s):.1f} s (all three nodes at once).",
          f"Right after it, the three live stores took {mb(live)} and the backups added {mb(int(both) - int(live))}"
          " beside them, as their table files are hard links to the live ones."
          f" Alone the backups hold {mb(alone)}: the most they can come to cost, once compactions have replaced every file they share.", "",
          "## Restore into a second 3-node cluster", ""]
throttled, sent = done("restore-throttled")
free, sent_free = done("restore-unthrottled")
lines += ["| throttle | records (sent and already newer) | took | records/s |", "| --- | ---: | ---: | ---: |"]
for label, (secs, n) in ((f"--rate {throttle}", (throttled, sent)), ("none", (free, sent_free))):
    if secs:
        lines.append(f"| {label} | {n:,} | {secs:.1f} s | {n / secs:,.0f} |")
lines += ["", f"Client latency of a mixed load (10% PUT) at {rate} req/s to the restored cluster's first node,"
          " during the throttled restore and alone (the load tool's HdrHistogram):", "",
          "| | p50 | p99 | p99.9 |", "| --- | ---: | ---: | ---: |"]
for label, name in (("during the restore", "load-during-restore"), ("alone", "load-alone")):
    lines.append(f"| {label} | {p(name, '50.000%')} | {p(name, '99.000%')} | {p(name, '99.900%')} |")
lines += ["", "Pictures: `load-during-restore/latency.png`, `load-alone/latency.png`."]
open(f"{out}/results.md", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
