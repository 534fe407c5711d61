#!/usr/bin/env bash
# Stops every node of the local cluster gracefully (SIGTERM), all at once.
set -uo pipefail
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh"
node_stop TERM "${PORTS[@]/#/node-}"
