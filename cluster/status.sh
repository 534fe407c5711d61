#!/usr/bin/env bash
# Shows which nodes of the local cluster are up, each one's state in the topology, and which nodes
# each one's membership sees alive. Exits 1 when a running node cannot be read: its line says why
# (the node's answer, such as 401 for a wrong token, or curl's reason, such as a TLS error);
# otherwise 0, down and starting nodes included. Then the admin command's table of every node's
# load, keys, hints and alarms (java -jar target/quorumkv.jar admin status).
set -uo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
require python3 "status.sh reads the nodes' /v0/cluster JSON with it"
# CLUSTER_INFO_PY: its own state in the topology (joining, normal, leaving; "-" once it has left),
# then who it sees alive.
CLUSTER_INFO_PY='
import json, sys
j = json.load(sys.stdin)
state = next((n["state"] for n in j["nodes"] if n["self"]), "-")
print(state + ", sees alive: " + " ".join(n["url"].split("://")[-1] for n in j["nodes"] if n["alive"]))
'
# why_unreadable: HTTP_ERROR, with what the scripts sent when the node refused it.
why_unreadable() {
  case $HTTP_STATUS in
    401 | 403) echo "$HTTP_ERROR (sent $TOKEN_FROM; QKV_TOKEN=TOKEN sends another)" ;;
    000) echo "$HTTP_ERROR${CURL_TLS[1]:+ (CA ${CURL_TLS[1]})}" ;;
    *) echo "${HTTP_ERROR:-its answer is not the JSON of /v0/cluster}" ;;
  esac
}
unreadable=0
up=()
for port in "${PORTS[@]}"; do
  url="$QKV_SCHEME://127.0.0.1:$port"
  if ! pid=$(node_pid "node-$port"); then
    echo "node $port DOWN"
  elif ! http_get "$url/v0/status"; then
    if [[ $HTTP_STATUS != 000 || $HTTP_ERROR =~ ^curl:\ \((7|28)\) ]]; then
      echo "node $port STARTING (pid $pid)" # not listening yet, or not ready
    else
      echo "node $port CANNOT BE READ (pid $pid): GET $url/v0/status: $(why_unreadable)"
      unreadable=1
    fi
  elif http_get "$url/v0/cluster" && info=$(python3 -c "$CLUSTER_INFO_PY" <<< "$HTTP_BODY"); then
    echo "node $port UP       (pid $pid) $info"
    up+=("$url")
  else
    echo "node $port CANNOT BE READ (pid $pid): GET $url/v0/cluster: $(why_unreadable)"
    unreadable=1
  fi
done
# What `nodetool status` shows, from the admin command: every node's load, keys, hints and alarms.
if [ "${#up[@]}" -gt 0 ]; then
  echo
  (IFS=,; qadmin status --url "${up[*]}") || unreadable=1
fi
exit "$unreadable"
