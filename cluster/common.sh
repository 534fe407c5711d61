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
# The nodes added to the cluster later (cluster/add-node.sh) have their confs in CONF_DIR/extra, out
# of the way of start.sh; while one runs, PORTS counts it too, so status.sh and stop.sh cover it.
EXTRA_CONF_DIR="$CONF_DIR/extra"
EXTRA_PORTS=()
for conf in "$EXTRA_CONF_DIR"/node-*.json; do
  [ -e "$conf" ] || continue
  port=${conf##*/node-}
  EXTRA_PORTS+=("${port%.json}")
  if [ ! -e "$CONF_DIR/node-${port%.json}.json" ] && node_pid "node-${port%.json}" > /dev/null; then PORTS+=("${port%.json}"); fi
done
read -ra JVM_OPTIONS <<< "${JAVA_OPTS:-}"

# node_conf PORT: prints the conf file of node PORT, from CONF_DIR or else EXTRA_CONF_DIR.
node_conf() {
  local conf
  for conf in "$CONF_DIR/node-$1.json" "$EXTRA_CONF_DIR/node-$1.json"; do
    if [ -f "$conf" ]; then echo "$conf"; return 0; fi
  done
  echo "no conf node-$1.json in $CONF_DIR or $EXTRA_CONF_DIR" >&2
  return 1
}

