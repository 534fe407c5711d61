#!/usr/bin/env bash
# Starts (or restarts, with --restart) one node of the local cluster: cluster/start-node.sh PORT [--restart]
set -euo pipefail
source "$(dirname "$0")/common.sh"
[ $# -ge 1 ] || { echo "usage: $0 PORT [--restart]" >&2; exit 2; }
if [ "${2:-}" = "--restart" ]; then node_stop TERM "node-$1"; fi
start_node "$1"
await_ready "node-$1" "$(url_of "$1")"
