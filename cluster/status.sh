#!/usr/bin/env bash
# Shows which nodes of the local cluster are up, and what each one's membership sees.
set -uo pipefail
source "$(dirname "$0")/common.sh"
for port in "${PORTS[@]}"; do
  if is_running "$port" && curl -sf "http://127.0.0.1:$port/v0/status" >/dev/null; then
    seen=$(curl -sf "http://127.0.0.1:$port/v0/cluster" | tr -d ' \n' | grep -o '"url":"[^"]*","alive":true' | grep -o '127.0.0.1:[0-9]*' | tr '\n' ' ')
    echo "node $port UP    (pid $(pid_of "$port")) sees alive: $seen"
  elif is_running "$port"; then
    echo "node $port STARTING (pid $(pid_of "$port"))"
  else
    echo "node $port DOWN"
  fi
done
