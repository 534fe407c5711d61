#!/usr/bin/env bash
# Stops one node: cluster/stop-node.sh PORT [--kill]   (--kill sends SIGKILL instead of SIGTERM)
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
[ $# -ge 1 ] || { echo "usage: $0 PORT [--kill]" >&2; exit 2; }
node_stop "$([ "${2:-}" = "--kill" ] && echo KILL || echo TERM)" "node-$1"
