#!/usr/bin/env bash
# Aborts the topology change in progress: cluster/abort-change.sh [PORT] [--timeout SECONDS]
# The way out of a change that waits for a node down for good (GET /v0/cluster shows
# "wayOut": "abort" and the "downNodes"; docs/operations.md, when a transfer stalls). Asks node
# PORT (default: the first node that answers) to abort (POST /admin/cluster/abort, with the
# cluster's token: cluster/common.sh): the cluster goes back to its members from before the
# change. Prints the progress every 2 s until the topology is `stable`, then the down nodes to
# remove. Exits 1 if the node refuses (no change in progress, or it reached its
# cutover: its answer is printed), if the node does not answer for 60 s, or after SECONDS (default 1800).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
require python3 "abort-change.sh reads the nodes' /v0/cluster JSON with it"
CHANGE_PORT_OPTIONAL=1 parse_change_args "$@"
port=$CHANGE_PORT
if [ -z "$port" ]; then
  port=$(answering_port "${PORTS[@]}" "${EXTRA_PORTS[@]}") || { [ $? = 3 ] || echo "no node of the cluster answers" >&2; exit 1; }
fi
url="$QKV_SCHEME://127.0.0.1:$port"
down=""
if body=$(api_get "$url/v0/cluster"); then
  down=$(python3 -c 'import json, sys; c = json.load(sys.stdin)["topology"].get("change") or {}; print(" ".join(c.get("downNodes") or []))' <<< "$body") || down=""
fi

if ! admin_post "$url/admin/cluster/abort"; then
  if [ "$POST_STATUS" = 000 ]; then
    echo "node-$port does not answer at $url: abort through another node (cluster/abort-change.sh OTHER_PORT)" >&2
  elif [[ $POST_STATUS == 40[13] ]]; then
    HTTP_ERROR="$POST_STATUS ${POST_BODY%%$'\n'*}" refused_token "node-$port"
  else
    echo "node-$port refused to abort: $POST_STATUS $POST_BODY" >&2
  fi
  exit 1
fi
echo "the change is aborted: $POST_BODY"

abort_step() {
  view=$(cluster_view "$url" "$url") || return 2
  IFS=$'\t' read -r _ stage epoch line <<< "$view"
  echo "$(date +%T) $line"
  [ "$stage" = stable ]
}
follow_change abort_step "the topology is not stable after $CHANGE_TIMEOUT s" \
  "node-$port has not answered GET /v0/cluster for $CHANGE_SILENCE_SECONDS s"
echo "back to the members from before the change (epoch $epoch)"
for node in $down; do
  echo "remove $node if it is gone for good: $(curl_hint) -X POST '$url/admin/cluster/remove?url=$node'"
done
