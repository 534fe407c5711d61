#!/usr/bin/env bash
# Builds the jar and starts the local 3-node cluster (ports 8080-8082) in the background.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
(cd "$QKV_ROOT" && mvn -q -B -DskipTests package)
start_nodes "$CONF_DIR" "${PORTS[@]}"
"$CLUSTER_DIR/status.sh"
