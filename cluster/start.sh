#!/usr/bin/env bash
# Starts the local 3-node cluster (ports 8080-8082) in the background, building the jar first when
# src/ or pom.xml changed since it was built (BUILD=1: always; BUILD=0: never). TLS=1: the cluster
# on https with a cluster secret and a token per role, made on first use (docs/operations.md#tls).
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
build_jar_if_stale
start_nodes "$CONF_DIR" "${PORTS[@]}"
"$CLUSTER_DIR/status.sh"
