#!/usr/bin/env bash
# Stops every node of the local cluster gracefully (SIGTERM).
set -uo pipefail
source "$(dirname "$0")/common.sh"
for port in "${PORTS[@]}"; do stop_node "$port" & done
wait
