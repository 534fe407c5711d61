# shellcheck shell=bash
# Shared by the cluster scripts. The cluster is the node-PORT.json confs of cluster/ (nodes on
# 127.0.0.1:8080-8082, data in data/node-PORT); the nodes' pids and logs go to data/run.
# CLUSTER_HOME=DIR runs the cluster of DIR/node-PORT.json instead, pids and logs in DIR/run: the
# default cluster's files are then neither read nor touched. Nodes start with -Xms and -Xmx both
# HEAP (default 256m, scripts/lib/node.sh) and the options of JAVA_OPTS.
# shellcheck source=../scripts/lib/node.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/node.sh"
CLUSTER_DIR="$QKV_ROOT/cluster"
if [ -n "${CLUSTER_HOME:-}" ]; then
  CONF_DIR=$(realpath "$CLUSTER_HOME")
  NODE_RUN_DIR="$CONF_DIR/run"
else
  CONF_DIR=$CLUSTER_DIR
  NODE_RUN_DIR="$QKV_ROOT/data/run"
fi
PORTS=()
for conf in "$CONF_DIR"/node-*.json; do
  [ -e "$conf" ] || { echo "no node-PORT.json conf in $CONF_DIR" >&2; exit 1; }
  port=${conf##*/node-}
  PORTS+=("${port%.json}")
done
read -ra JVM_OPTIONS <<< "${JAVA_OPTS:-}"
