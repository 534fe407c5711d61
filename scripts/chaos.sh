#!/usr/bin/env bash
# Chaos run: ChaosTest for ten minutes instead of the one round of faults `mvn test` runs. Three
# nodes as processes, each on a loopback address (127.x.y.1-3) and a libfaketime clock of its own,
# take PUTs and DELETEs through every node at the default quorum while a nemesis kills -9 and
# restarts them (every other step: 20-35 kills in ten minutes), pauses them (SIGSTOP/SIGCONT),
# partitions them (iptables: one node cut off, or one link cut) and moves their clocks by up to
# 3 s. Then everything is healed and, once membership is whole and every hint delivered, every
# key is read at ack=3&from=3 through every node: no acknowledged write lost, no deleted key back,
# identical replica copies. Prints the report ("chaos report:" lines: writes acknowledged, faults
# by kind, writes lost, keys resurrected, divergent keys, time to converge after the heal) and
# exits non-zero if a check failed; node logs of a failed run are kept under target/chaos-logs/.
#
# Partitions need iptables and root, skews libfaketime (Debian: apt-get install -y iptables
# faketime); without them those faults are left out, with a "skipped: <why>" line. Every rule the
# run adds carries a comment of its own and is removed at the end, also when the run fails or is
# interrupted.
#
#   scripts/chaos.sh                              # 600 s of faults
#   CHAOS_SECONDS=120 scripts/chaos.sh            # shorter
#   CHAOS_SEED=-6614469340880259220 scripts/chaos.sh   # replay a run's fault schedule
#   CHAOS_SKEW=false scripts/chaos.sh             # kills, pauses and partitions only
#   CHAOS_PARTITIONS=false scripts/chaos.sh       # no iptables
#   CHAOS_FAULTS=PAUSE,SKEW scripts/chaos.sh      # only these kinds (KILL,PAUSE,ISOLATE,CUT_LINK,SKEW)
#   CHAOS_KILL_EVERY=3 scripts/chaos.sh           # a kill every third step instead of every other
#   CHAOS_RATE=300 scripts/chaos.sh               # writes per second (default 150)
#   MVN_OFFLINE= scripts/chaos.sh                 # let Maven download what ~/.m2 lacks
set -euo pipefail
cd "$(dirname "$0")/.."

properties=(-Dtest=ChaosTest "-Dchaos.seconds=${CHAOS_SECONDS:-600}" "-Dchaos.killEvery=${CHAOS_KILL_EVERY:-2}")
[ -n "${CHAOS_SEED:-}" ] && properties+=("-Dchaos.seed=$CHAOS_SEED")
[ -n "${CHAOS_SKEW:-}" ] && properties+=("-Dchaos.skew=$CHAOS_SKEW")
[ -n "${CHAOS_PARTITIONS:-}" ] && properties+=("-Dchaos.partitions=$CHAOS_PARTITIONS")
[ -n "${CHAOS_FAULTS:-}" ] && properties+=("-Dchaos.faults=$CHAOS_FAULTS")
[ -n "${CHAOS_RATE:-}" ] && properties+=("-Dchaos.rate=$CHAOS_RATE")

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
# `mvn test` compiles what changed first, so this builds if needed.
mvn -B ${MVN_OFFLINE--o} test "${properties[@]}" 2>&1 | tee "$log" || status=$?
echo
echo "=== chaos report ==="
grep -E '^chaos( report)?:' "$log" | awk '!seen[$0]++' || true
exit "$status"
