#!/usr/bin/env bash
# Adds a node to the running local cluster: cluster/add-node.sh PORT [--timeout SECONDS]
# Starts the node of cluster/extra/node-PORT.json (CLUSTER_HOME/extra with CLUSTER_HOME; or of
# cluster/node-PORT.json, to add back a node that left, its data directory emptied) in the
# background, like start-node.sh, then prints the join's progress every 2 s as the new node sees
# it, until the node is `normal` and the topology `stable` (exit 0). Exits 1 if the node exits, if
# it does not answer for 60 s (120 s while it starts), or after SECONDS (default 1800).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
parse_change_args "$@"
require python3 "add-node.sh reads the nodes' /v0/cluster JSON with it"
port=$CHANGE_PORT name="node-$CHANGE_PORT" url="$QKV_SCHEME://127.0.0.1:$CHANGE_PORT"
conf=$(node_conf "$port") || { echo "write the new node's conf first, as $EXTRA_CONF_DIR/node-$port.json (docs/operations.md)" >&2; exit 2; }

# A node that has not yet joined may show a topology from before its join, stable: only a later
# epoch than the cluster's now counts, unless the node is a member already (started again).
epoch_before=-1 member_before=no
others=()
for p in "${PORTS[@]}" "${EXTRA_PORTS[@]}"; do [ "$p" = "$port" ] || others+=("$p"); done
peer=$(answering_port "${others[@]}") && peer_found=0 || peer_found=$?
[ "$peer_found" != 3 ] || exit 1 # a token the cluster refuses; the node would refuse it too
if [ "$peer_found" = 0 ] && view=$(cluster_view "$QKV_SCHEME://127.0.0.1:$peer" "$url"); then
  IFS=$'\t' read -r state _ epoch_before line <<< "$view"
  echo "cluster now (seen by $peer): $line"
  [ "$state" = normal ] && member_before=yes
else
  echo "no other node of the cluster answers: $name will most likely refuse to join" >&2
fi

node_start "$name" "$conf"
pid=$(cat "$NODE_RUN_DIR/$name.pid")
deadline=$((SECONDS + CHANGE_TIMEOUT))
silent_limit=$NODE_READY_SECONDS # a JVM starts slowly on a busy machine; once it has answered, 60 s
last_answer=$SECONDS
while :; do
  if ! alive "$pid"; then
    node_failure "$name" "exited (pid $pid)" >&2
    rm -f "$NODE_RUN_DIR/$name.pid"
    exit 1
  fi
  if view=$(cluster_view "$url" "$url"); then
    last_answer=$SECONDS silent_limit=$CHANGE_SILENCE_SECONDS
    IFS=$'\t' read -r state stage epoch line <<< "$view"
    echo "$(date +%T) $line"
    if [ "$state" = normal ] && [ "$stage" = stable ] && { [ "$member_before" = yes ] || [ "$epoch" -gt "$epoch_before" ] 2> /dev/null; }; then
      echo "$name is a normal member of the cluster (epoch $epoch)"
      exit 0
    fi
  elif [ $((SECONDS - last_answer)) -ge "$silent_limit" ]; then
    echo "$name (pid $pid) has not answered GET $url/v0/cluster for $silent_limit s; it still runs (cluster/stop-node.sh $port stops it), log $(node_log "$name"):" >&2
    log_tail "$name" >&2
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "$name is not a normal member after $CHANGE_TIMEOUT s; it still runs, the join goes on (docs/operations.md, when a transfer stalls)" >&2
    exit 1
  fi
  sleep "$CHANGE_POLL_SECONDS"
done
