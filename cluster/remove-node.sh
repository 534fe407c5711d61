#!/usr/bin/env bash
# Removes a running node from the local cluster: cluster/remove-node.sh PORT [--timeout SECONDS]
# Asks the node to leave (POST /admin/cluster/leave, with the cluster's token: cluster/common.sh),
# then prints the change's progress every 2 s as another node sees it, until the node is out of
# the topology and it is `stable`; then waits up to 60 s for the node's process to exit on its own
# (exit 0). Exits 1 if the node refuses (its answer is printed), if it exits
# before it has left, if the leave is aborted (cluster/abort-change.sh), if no other node answers
# for 60 s, or after SECONDS (default 1800).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
parse_change_args "$@"
require python3 "remove-node.sh reads the nodes' /v0/cluster JSON with it"
port=$CHANGE_PORT name="node-$CHANGE_PORT" url="$QKV_SCHEME://127.0.0.1:$CHANGE_PORT"
conf=$(node_conf "$port") || exit 2
others=()
for p in "${PORTS[@]}" "${EXTRA_PORTS[@]}"; do [ "$p" = "$port" ] || others+=("$p"); done
pid=$(node_pid "$name") || pid="" # empty when the node was not started by these scripts

if ! admin_post "$url/admin/cluster/leave"; then
  if [ "$POST_STATUS" = 000 ]; then
    echo "$name does not answer at $url. If it is down for good, remove it through any other node:" >&2
    echo "  $(curl_hint) -X POST '$QKV_SCHEME://127.0.0.1:${others[0]:-OTHER_PORT}/admin/cluster/remove?url=$url'" >&2
  elif [[ $POST_STATUS == 40[13] ]]; then
    HTTP_ERROR="$POST_STATUS ${POST_BODY%%$'\n'*}" refused_token "$name"
  else
    echo "$name refused to leave: $POST_STATUS $POST_BODY" >&2
  fi
  exit 1
fi
echo "$name leaves: $POST_BODY"

# One look through another node: done once the node is out of the topology and it is stable.
watcher=""
leave_step() {
  if [ -n "$watcher" ] && view=$(cluster_view "$QKV_SCHEME://127.0.0.1:$watcher" "$url"); then :
  elif watcher=$(answering_port "${others[@]}") && view=$(cluster_view "$QKV_SCHEME://127.0.0.1:$watcher" "$url"); then :
  else watcher=""; return 2; fi
  IFS=$'\t' read -r state stage epoch line <<< "$view"
  echo "$(date +%T) $line (seen by $watcher)"
  if [ "$state" = absent ] && [ "$stage" = stable ]; then return 0; fi
  if [ "$state" = normal ] && [ "$stage" = stable ]; then
    echo "the leave of $name was aborted (epoch $epoch): it is a member again; ask it to leave again once every node is up" >&2
    exit 1
  fi
  # The node stops itself only once it is out of the topology: gone before, it crashed or was stopped.
  if [ -n "$pid" ] && ! alive "$pid" && view=$(cluster_view "$QKV_SCHEME://127.0.0.1:$watcher" "$url") && [ "${view%%$'\t'*}" != absent ]; then
    node_failure "$name" "exited (pid $pid) before it had left" >&2
    echo "Start it again (cluster/start-node.sh $port, or with its conf) and its transfers resume; if it is gone for good:" >&2
    echo "  $(curl_hint) -X POST '$QKV_SCHEME://127.0.0.1:$watcher/admin/cluster/remove?url=$url'" >&2
    exit 1
  fi
  return 1
}
follow_change leave_step "$name has not left after $CHANGE_TIMEOUT s; the change goes on (docs/operations.md, when a transfer stalls)" \
  "no node other than $name has answered GET /v0/cluster for $CHANGE_SILENCE_SECONDS s (tried ${others[*]})"

echo "$name has left the cluster (epoch $epoch); waiting for it to stop"
stop_deadline=$((SECONDS + CHANGE_SILENCE_SECONDS))
while if [ -n "$pid" ]; then alive "$pid"; else qcurl -sf -m 2 "$url/v0/status" > /dev/null; fi; do
  if [ "$SECONDS" -ge "$stop_deadline" ]; then
    echo "$name still runs ${CHANGE_SILENCE_SECONDS} s after leaving${pid:+ (pid $pid)}: stop it with cluster/stop-node.sh $port" >&2
    exit 1
  fi
  sleep 0.5
done
rm -f "$NODE_RUN_DIR/$name.pid"
data_dir=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("dataDir", "?"))' "$conf")
echo "$name stopped; its data directory $data_dir is kept (start it empty to add it again)"
