#!/usr/bin/env bash
# Starts (or restarts, with --restart) one node of the local cluster: cluster/start-node.sh PORT [--restart]
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
[ $# -ge 1 ] || { echo "usage: $0 PORT [--restart]" >&2; exit 2; }
conf=$(node_conf "$1") || exit 2 # a node of extra/ too, once add-node.sh has added it
if [ "${2:-}" = "--restart" ]; then node_stop TERM "node-$1"; fi
start_nodes "$(dirname "$conf")" "$1"
