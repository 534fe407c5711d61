#!/usr/bin/env bash
# Builds the jar and starts the local 3-node cluster (ports 8080-8082) in the background.
set -euo pipefail
source "$(dirname "$0")/common.sh"
(cd "$QKV_ROOT" && mvn -q -B -DskipTests package)
for port in "${PORTS[@]}"; do start_node "$port"; done
for port in "${PORTS[@]}"; do await_ready "node-$port" "$(url_of "$port")"; done
"$CLUSTER_DIR/status.sh"
