#!/usr/bin/env bash
# Starts (or restarts, with --restart) one node of the local cluster: cluster/start-node.sh PORT [--restart]
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
[ $# -ge 1 ] || { echo "usage: $0 PORT [--restart]" >&2; exit 2; }
[ -f "$CONF_DIR/node-$1.json" ] || { echo "no conf $CONF_DIR/node-$1.json" >&2; exit 2; }
if [ "${2:-}" = "--restart" ]; then node_stop TERM "node-$1"; fi
start_nodes "$CONF_DIR" "$1"
