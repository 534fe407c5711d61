#!/usr/bin/env bash
# Aborts the topology change in progress: cluster/abort-change.sh [PORT] [--timeout SECONDS]
# The way out of a change that waits for a node down for good (GET /v0/cluster shows
# "wayOut": "abort" and the "downNodes"; docs/operations.md, when a transfer stalls). Asks node
# PORT (default: the first node that answers) to abort (POST /admin/cluster/abort, with
# `Authorization: Bearer $QKV_ADMIN_TOKEN` when that is set): the cluster goes back to its members
# from before the change. Prints the progress every 2 s until the topology is `stable`, then the
# down nodes to remove. Exits 1 if the node refuses (no change in progress, or it reached its
# cutover: its answer is printed), if the node does not answer for 60 s, or after SECONDS (default 1800).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
require python3 "abort-change.sh reads the nodes' /v0/cluster JSON with it"
CHANGE_PORT_OPTIONAL=1 parse_change_args "$@"
port=$CHANGE_PORT
if [ -z "$port" ]; then
  port=$(answering_port "${PORTS[@]}" "${EXTRA_PORTS[@]}") || { echo "no node of the cluster answers" >&2; exit 1; }
fi
url="$QKV_SCHEME://127.0.0.1:$port"
down=$(api_get "$url/v0/cluster" | python3 -c 'import json, sys; c = json.load(sys.stdin)["topology"].get("change") or {}; print(" ".join(c.get("downNodes") or []))') || down=""

answer=$(api_post "$url/admin/cluster/abort")
status=${answer##*$'\n'} body=${answer%$'\n'*}
if [ "$status" = 000 ]; then
  echo "node-$port does not answer at $url: abort through another node (cluster/abort-change.sh OTHER_PORT)" >&2
  exit 1
elif [ "$status" != 202 ]; then
  echo "node-$port refused to abort: $status $body" >&2
  exit 1
fi
echo "the change is aborted: $body"

deadline=$((SECONDS + CHANGE_TIMEOUT))
last_answer=$SECONDS
while :; do
  if view=$(cluster_view "$url" "$url"); then
    last_answer=$SECONDS
    IFS=$'\t' read -r _ stage epoch line <<< "$view"
    echo "$(date +%T) $line"
    if [ "$stage" = stable ]; then break; fi
  elif [ $((SECONDS - last_answer)) -ge "$CHANGE_SILENCE_SECONDS" ]; then
    echo "node-$port has not answered GET /v0/cluster for $CHANGE_SILENCE_SECONDS s" >&2
    exit 1
  fi
  if [ "$SECONDS" -ge "$deadline" ]; then
    echo "the topology is not stable after $CHANGE_TIMEOUT s" >&2
    exit 1
  fi
  sleep "$CHANGE_POLL_SECONDS"
done
echo "back to the members from before the change (epoch $epoch)"
for node in $down; do
  echo "remove $node if it is gone for good: curl -X POST '$url/admin/cluster/remove?url=$node'"
done
