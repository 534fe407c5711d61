# shellcheck shell=bash
# Shared by the cluster scripts. The cluster is the node-PORT.json confs of cluster/ (nodes on
# 127.0.0.1:8080-8082, data in data/node-PORT); the nodes' pids and logs go to data/run.
# CLUSTER_HOME=DIR runs the cluster of DIR/node-PORT.json instead, pids and logs in DIR/run: the
# default cluster's files are then neither read nor touched. Nodes start with -Xms and -Xmx both
# HEAP (default 256m, scripts/lib/node.sh) and the options of JAVA_OPTS.
# shellcheck source=../scripts/lib/node.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/node.sh"
CLUSTER_DIR="$QKV_ROOT/cluster"
TLS_HOME="$QKV_ROOT/data/tls"
if [ "${TLS:-0}" = 1 ]; then
  # The TLS cluster: the same nodes on https, made under data/tls on first use (make_tls_cluster below).
  CONF_DIR=$TLS_HOME
  NODE_RUN_DIR="$TLS_HOME/run"
  QKV_SCHEME=https
  CURL_TLS=(--cacert "$TLS_HOME/certs/ca.pem")
elif [ -n "${CLUSTER_HOME:-}" ]; then
  CONF_DIR=$(realpath "$CLUSTER_HOME")
  NODE_RUN_DIR="$CONF_DIR/run"
else
  CONF_DIR=$CLUSTER_DIR
  NODE_RUN_DIR="$QKV_ROOT/data/run"
fi
# make_tls_cluster: data/tls/node-PORT.json for every node-PORT.json of cluster/, on https with a
# tls section, its data in data/tls/data, and the certificates (scripts/make-certs.sh) in data/tls/certs.
make_tls_cluster() {
  require openssl "TLS=1 makes the cluster's certificates with it"
  require python3 "TLS=1 writes the TLS confs with it"
  bash "$QKV_ROOT/scripts/make-certs.sh" "$TLS_HOME/certs" 127.0.0.1 > /dev/null
  local conf
  for conf in "$CLUSTER_DIR"/node-*.json "$CLUSTER_DIR"/extra/node-*.json; do
    [ -e "$conf" ] || continue
    mkdir -p "$TLS_HOME/$(realpath --relative-to="$CLUSTER_DIR" "$(dirname "$conf")")"
    python3 - "$conf" "$TLS_HOME" "$TLS_HOME/${conf#"$CLUSTER_DIR"/}" <<'PY'
import json, sys
source, home, target = sys.argv[1:]
conf = json.load(open(source))
https = lambda url: url.replace("http://", "https://", 1)
conf["url"] = https(conf["url"])
conf["cluster"] = [https(url) for url in conf.get("cluster", [])]
conf["dataDir"] = home + "/" + conf["dataDir"]
conf["hazelcast"]["clusterName"] = conf["hazelcast"]["clusterName"] + "-tls"
certs = home + "/certs/"
conf["tls"] = {"certFile": certs + "node-127.0.0.1.pem", "keyFile": certs + "node-127.0.0.1-key.pem",
               "caFile": certs + "ca.pem"}
json.dump(conf, open(target, "w"), indent=2)
PY
  done
}
if [ "${TLS:-0}" = 1 ] && ! compgen -G "$TLS_HOME/node-*.json" > /dev/null; then
  make_tls_cluster
  echo "made the TLS cluster's confs and certificates in $TLS_HOME: curl --cacert $TLS_HOME/certs/ca.pem https://127.0.0.1:PORT/..." >&2
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

# Topology changes: what add-node.sh and remove-node.sh share to follow one (docs/operations.md).
# shellcheck disable=SC2034 # these and CHANGE_TIMEOUT are read by the scripts that source this file
CHANGE_POLL_SECONDS=2     # one progress line this often
# shellcheck disable=SC2034
CHANGE_SILENCE_SECONDS=60 # give up when no node has answered for this long

# parse_change_args ARG...: reads "PORT [--timeout SECONDS]" into CHANGE_PORT and CHANGE_TIMEOUT
# (default 1800, the longest the script follows the change); exits 2 on anything else. With
# CHANGE_PORT_OPTIONAL=1 the PORT may be left out (CHANGE_PORT is then empty).
# shellcheck disable=SC2034
parse_change_args() {
  local usage="usage: $0 PORT [--timeout SECONDS]"
  [ "${CHANGE_PORT_OPTIONAL:-0}" = 1 ] && usage="usage: $0 [PORT] [--timeout SECONDS]"
  CHANGE_PORT="" CHANGE_TIMEOUT=1800
  while [ $# -gt 0 ]; do
    case $1 in
      --timeout) [[ ${2:-} =~ ^[0-9]+$ ]] || { echo "$usage" >&2; exit 2; }; CHANGE_TIMEOUT=$2; shift 2 ;;
      *) [[ $1 =~ ^[0-9]+$ && -z $CHANGE_PORT ]] || { echo "$usage" >&2; exit 2; }; CHANGE_PORT=$1; shift ;;
    esac
  done
  [ -n "$CHANGE_PORT" ] || [ "${CHANGE_PORT_OPTIONAL:-0}" = 1 ] || { echo "$usage" >&2; exit 2; }
}

# api_get URL: GET with `Authorization: Bearer $QKV_ADMIN_TOKEN` when that is set (a node whose conf
# has an `auth` section wants a token to read /v0/cluster); the token goes to curl on its standard
# input, not on its command line, where ps would show it.
api_get() {
  if [ -n "${QKV_ADMIN_TOKEN:-}" ]; then
    printf 'Authorization: Bearer %s\n' "$QKV_ADMIN_TOKEN" | qcurl -sf -m 5 -H @- "$1"
  else
    qcurl -sf -m 5 "$1"
  fi
}

# admin_post URL: POST with the token as api_get sends it; sets POST_STATUS (000 when the node does
# not answer) and POST_BODY, and succeeds on 202.
# shellcheck disable=SC2034
admin_post() {
  local post=(qcurl -s -m 30 -X POST -w '\n%{http_code}' "$1") answer
  if [ -n "${QKV_ADMIN_TOKEN:-}" ]; then
    answer=$(printf 'Authorization: Bearer %s\n' "$QKV_ADMIN_TOKEN" | "${post[@]}" -H @-) || true
  else
    answer=$("${post[@]}") || true
  fi
  POST_STATUS=${answer##*$'\n'} POST_BODY=${answer%$'\n'*}
  [ "$POST_STATUS" = 202 ]
}

# follow_change STEP TIMEOUT_MESSAGE SILENCE_MESSAGE: runs the function STEP every
# CHANGE_POLL_SECONDS until it returns 0 (done); it returns 1 when a node answered and the change
# goes on, 2 when none answered. Exits 1 saying SILENCE_MESSAGE when no node answered for
# CHANGE_SILENCE_SECONDS, TIMEOUT_MESSAGE after CHANGE_TIMEOUT seconds.
follow_change() {
  local deadline=$((SECONDS + CHANGE_TIMEOUT)) last_answer=$SECONDS outcome
  while :; do
    outcome=0
    "$1" || outcome=$?
    if [ "$outcome" = 0 ]; then return 0; fi
    if [ "$outcome" = 1 ]; then last_answer=$SECONDS
    elif [ $((SECONDS - last_answer)) -ge "$CHANGE_SILENCE_SECONDS" ]; then echo "$3" >&2; exit 1; fi
    if [ "$SECONDS" -ge "$deadline" ]; then echo "$2" >&2; exit 1; fi
    sleep "$CHANGE_POLL_SECONDS"
  done
}

# cluster_view URL NODE_URL: reads GET URL/v0/cluster and prints four tab-separated fields: the
# state of NODE_URL in the topology (absent when it is not a member), the stage, the epoch, and a
# line of progress: the records and bytes the change's transfers have sent, of their total.
# Fails when URL does not answer.
cluster_view() {
  local body
  body=$(api_get "$1/v0/cluster") || return 1
  python3 -c "$CLUSTER_VIEW_PY" "$2" <<< "$body"
}
CLUSTER_VIEW_PY='
import json, sys
j = json.load(sys.stdin)
node = sys.argv[1].rstrip("/")
topology = j.get("topology") or {}
state = next((n.get("state") for n in j.get("nodes", []) if n.get("url", "").rstrip("/") == node), "absent")
stage, epoch = topology.get("stage", "?"), topology.get("epoch", "?")
transfers = j.get("transfers") or []

def total(key):
    return sum(t.get(key) or 0 for t in transfers)

def size(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return "%d %s" % (n, unit) if unit == "B" else "%.1f %s" % (n, unit)
        n /= 1024

line = "epoch %s  stage %s  %s %s" % (epoch, stage, node.split("://")[-1], state)
if transfers:
    sent, remaining = total("recordsSent"), total("recordsRemaining")
    bytes_sent, bytes_remaining = total("bytesSent"), total("bytesRemaining")
    done = sum(1 for t in transfers if t.get("state") == "done")
    failed = [t for t in transfers if t.get("state") == "failed"]
    if any((t.get("recordsRemaining") or 0) < 0 for t in transfers):
        # A source that has not counted yet says -1: no total to show.
        line += "  records %d of a total still being counted  bytes %s  transfers %d/%d done" % (
            sent, size(bytes_sent), done, len(transfers))
    else:
        percent = 100.0 * sent / (sent + remaining) if sent + remaining else 100.0
        line += "  records %d/%d (%.1f%%)  bytes %s/%s  transfers %d/%d done" % (
            sent, sent + remaining, percent, size(bytes_sent), size(bytes_sent + bytes_remaining), done, len(transfers))
    if failed:
        line += ", %d failed (%s)" % (len(failed), failed[0].get("lastError"))
else:
    line += "  no transfer"
change = topology.get("change") or {}
if change.get("wayOut"):
    # The change waits for down nodes: if they are gone for good, only this way out ends it.
    line += "  WAITS FOR DOWN %s: if gone for good, %s" % (", ".join(change.get("downNodes") or []),
        "cluster/abort-change.sh, then remove each" if change["wayOut"] == "abort" else "remove it")
print(state, stage, epoch, line, sep="\t")
'

# answering_port PORT...: prints the first PORT whose node answers GET /v0/cluster; fails if none does.
answering_port() {
  local port
  for port in "$@"; do
    if api_get "$QKV_SCHEME://127.0.0.1:$port/v0/cluster" > /dev/null; then echo "$port"; return 0; fi
  done
  return 1
}

# log_tail NAME: the last lines of node NAME's log, for a failure message.
log_tail() {
  tail -n 8 "$(node_log "$1")" 2> /dev/null | sed 's/^/  | /'
}
