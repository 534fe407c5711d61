#!/usr/bin/env bash
# Shows which nodes of the local cluster are up, each one's state in the topology, and which nodes
# each one's membership sees alive.
set -uo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
require python3 "status.sh reads the nodes' /v0/cluster JSON with it"
for port in "${PORTS[@]}"; do
  url="$QKV_SCHEME://127.0.0.1:$port"
  if pid=$(node_pid "node-$port") && qcurl -sf "$url/v0/status" > /dev/null; then
    # Its own state in the topology (joining, normal, leaving; "-" once it has left), and who it sees alive.
    info=$(json_at "$url/v0/cluster" 'next((n["state"] for n in j["nodes"] if n["self"]), "-") + "|" + " ".join(n["url"].split("://")[-1] for n in j["nodes"] if n["alive"])')
    echo "node $port UP       (pid $pid) ${info%%|*}, sees alive: ${info#*|}"
  elif [ -n "${pid:-}" ]; then
    echo "node $port STARTING (pid $pid)"
  else
    echo "node $port DOWN"
  fi
done
