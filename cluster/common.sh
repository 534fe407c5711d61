# shellcheck shell=bash
# Shared by the cluster scripts. The cluster is the node-PORT.json confs of cluster/ (nodes on
# 127.0.0.1:8080-8082, data in data/node-PORT); the nodes' pids and logs go to data/run.
# CLUSTER_HOME=DIR runs the cluster of DIR/node-PORT.json instead, pids and logs in DIR/run: the
# default cluster's files are then neither read nor touched. TLS=1 runs the TLS cluster made from
# those confs (make_tls_cluster): in data/tls, or DIR/tls with CLUSTER_HOME. Nodes start with -Xms
# and -Xmx both HEAP (default 256m, scripts/lib/node.sh) and the options of JAVA_OPTS.
# The scripts reach the nodes as the first node's conf says (read_cluster_access): its url's
# scheme, its tls.caFile, and its strongest API token; QKV_TOKEN overrides that token.
# shellcheck source=../scripts/lib/node.sh
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/lib/node.sh"
CLUSTER_DIR="$QKV_ROOT/cluster"
if [ -n "${CLUSTER_HOME:-}" ]; then
  [ -d "$CLUSTER_HOME" ] || { echo "CLUSTER_HOME=$CLUSTER_HOME is not a directory" >&2; exit 2; }
  SOURCE_DIR=$(realpath "$CLUSTER_HOME")
  TLS_HOME="$SOURCE_DIR/tls"
else
  SOURCE_DIR=$CLUSTER_DIR
  TLS_HOME="$QKV_ROOT/data/tls"
fi
if [ "${TLS:-0}" = 1 ]; then
  CONF_DIR=$TLS_HOME
  NODE_RUN_DIR="$TLS_HOME/run"
elif [ -n "${CLUSTER_HOME:-}" ]; then
  CONF_DIR=$SOURCE_DIR
  NODE_RUN_DIR="$CONF_DIR/run"
else
  CONF_DIR=$CLUSTER_DIR
  NODE_RUN_DIR="$QKV_ROOT/data/run"
fi

# make_tls_cluster: the TLS cluster of the plain confs of SOURCE_DIR (and SOURCE_DIR/extra), in
# TLS_HOME: certs/ (scripts/make-certs.sh), cluster-secret and tokens.json (one token per role,
# printed once, when made), and a conf per plain one on https with a tls section, the secret, the
# tokens file and its data in TLS_HOME/data/node-PORT. What is there already is kept: a conf that
# lacks the secret or the tokens (made before they were) gets them, one missing is made.
make_tls_cluster() {
  require openssl "TLS=1 makes the cluster's certificates, secret and tokens with it"
  require python3 "TLS=1 writes the TLS confs with it"
  mkdir -p "$TLS_HOME"
  [ -s "$TLS_HOME/certs/ca.pem" ] || bash "$QKV_ROOT/scripts/make-certs.sh" "$TLS_HOME/certs" 127.0.0.1 > /dev/null
  if [ ! -s "$TLS_HOME/cluster-secret" ]; then
    (umask 077 && random_token > "$TLS_HOME/cluster-secret")
  fi
  if [ ! -s "$TLS_HOME/tokens.json" ]; then
    (umask 077 && printf '[\n  {"name": "read", "role": "read", "token": "%s"},\n  {"name": "write", "role": "write", "token": "%s"},\n  {"name": "admin", "role": "admin", "token": "%s"}\n]\n' \
      "$(random_token)" "$(random_token)" "$(random_token)" > "$TLS_HOME/tokens.json")
    {
      echo "made the TLS cluster's API tokens, shown this once (they are kept in $TLS_HOME/tokens.json, mode 600):"
      python3 -c 'import json, sys; [print("  %-5s  %s" % (t["role"], t["token"])) for t in json.load(open(sys.argv[1]))]' "$TLS_HOME/tokens.json"
      echo "the cluster scripts send the admin token themselves; curl: -H \"Authorization: Bearer TOKEN\""
    } >&2
  fi
  local conf target
  for conf in "$SOURCE_DIR"/node-*.json "$SOURCE_DIR"/extra/node-*.json; do
    [ -e "$conf" ] || continue
    target="$TLS_HOME/${conf#"$SOURCE_DIR"/}"
    mkdir -p "$(dirname "$target")"
    (umask 077 && python3 -c "$TLS_CONF_PY" "$conf" "$TLS_HOME" "$target") || exit 1
  done
}
# random_token: 32 random bytes, base64url without padding (printable, no space: a valid token).
random_token() { openssl rand -base64 32 | tr '+/' '-_' | tr -d '=\n'; echo; }
TLS_CONF_PY='
import json, os, sys
source, home, target = sys.argv[1:]

def read(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError) as e:
        sys.exit("cannot read %s: %s" % (path, e))

if os.path.exists(target):
    conf = read(target)
    before = dict(conf)
else:
    conf, before = read(source), None
    port = os.path.basename(target)[len("node-"):-len(".json")]
    https = lambda url: url.replace("http://", "https://", 1)
    conf["url"] = https(conf["url"])
    conf["cluster"] = [https(url) for url in conf.get("cluster", [])]
    conf["dataDir"] = home + "/data/node-" + port
    if "hazelcast" in conf:
        conf["hazelcast"]["clusterName"] = conf["hazelcast"].get("clusterName", "quorumkv") + "-tls"
    certs = home + "/certs/"
    conf["tls"] = {"certFile": certs + "node-127.0.0.1.pem", "keyFile": certs + "node-127.0.0.1-key.pem",
                   "caFile": certs + "ca.pem"}
conf.setdefault("clusterSecret", open(home + "/cluster-secret").read().strip())
conf.setdefault("auth", {"tokensFile": home + "/tokens.json"})
if conf != before:
    with open(target, "w") as out:
        json.dump(conf, out, indent=2)
    os.chmod(target, 0o600)
'
if [ "${TLS:-0}" = 1 ]; then
  compgen -G "$TLS_HOME/node-*.json" > /dev/null && tls_confs_before=yes || tls_confs_before=no
  make_tls_cluster
  [ "$tls_confs_before" = yes ] || echo "made the TLS cluster's confs and certificates in $TLS_HOME: curl --cacert $TLS_HOME/certs/ca.pem https://127.0.0.1:PORT/..." >&2
fi

# read_cluster_access CONF: sets QKV_SCHEME, CURL_TLS and CURL_TOKEN (unless QKV_TOKEN is set) as
# the node conf CONF says: its url's scheme, its tls.caFile, and its strongest token (adminToken,
# auth.tokens, the list in auth.tokensFile); TOKEN_FROM says where the token came from. Relative
# paths are from the repository's root, the nodes' working directory.
read_cluster_access() {
  local scheme="" ca="" token="" from="no token"
  if command -v python3 > /dev/null; then # stop.sh and the like run without it
    IFS=$'\x1f' read -r scheme ca token from < <(python3 -c "$CLUSTER_ACCESS_PY" "$1" "$QKV_ROOT") || true
  fi
  QKV_SCHEME=${scheme:-http}
  CURL_TLS=()
  [ -z "$ca" ] || CURL_TLS=(--cacert "$ca")
  if [ -n "${QKV_TOKEN:-}" ]; then
    CURL_TOKEN=$QKV_TOKEN TOKEN_FROM="the token of QKV_TOKEN"
  elif [ -n "${QKV_ADMIN_TOKEN:-}" ]; then
    CURL_TOKEN=$QKV_ADMIN_TOKEN TOKEN_FROM="the token of QKV_ADMIN_TOKEN"
  else
    CURL_TOKEN=$token TOKEN_FROM=$from
  fi
}
CLUSTER_ACCESS_PY='
import json, os, sys
conf_file, root = sys.argv[1:]
try:
    conf = json.load(open(conf_file))
except (OSError, ValueError) as e:
    sys.exit("cannot read %s: %s" % (conf_file, e))
path = lambda p: p if os.path.isabs(p) else os.path.join(root, p)
tokens = []
if conf.get("adminToken"):
    tokens.append(("admin", conf["adminToken"], "the adminToken of " + conf_file))
auth = conf.get("auth") or {}
tokens += [(t.get("role"), t.get("token"), "a token of auth.tokens in " + conf_file) for t in auth.get("tokens") or []]
if auth.get("tokensFile"):
    listed = path(auth["tokensFile"])
    try:
        tokens += [(t.get("role"), t.get("token"), "the %s token of %s" % (t.get("role"), listed)) for t in json.load(open(listed))]
    except (OSError, ValueError) as e:
        print("cannot read the tokens file %s: %s" % (listed, e), file=sys.stderr)
rank = {"read": 1, "write": 2, "admin": 3}
role, token, source = max(tokens, key=lambda t: rank.get(t[0], 0), default=("", "", "no token"))
ca = (conf.get("tls") or {}).get("caFile")
print(conf.get("url", "http://").split("://")[0], path(ca) if ca else "", token or "", source, sep="\x1f")
'
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
read_cluster_access "$CONF_DIR/node-${PORTS[0]}.json"
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

# api_get URL: prints what GET URL answers (qcurl: with the cluster's token); fails, with
# HTTP_ERROR saying why, unless it is a 200.
api_get() {
  http_get "$1" && printf '%s\n' "$HTTP_BODY"
}

# admin_post URL: POST URL (qcurl: with the cluster's token); sets POST_STATUS (000 when the node
# does not answer) and POST_BODY, and succeeds on 202.
# shellcheck disable=SC2034
admin_post() {
  local answer
  answer=$(qcurl -s -m 30 -X POST -w '\n%{http_code}' "$1") || true
  POST_STATUS=${answer##*$'\n'} POST_BODY=${answer%$'\n'*}
  [ "$POST_STATUS" = 202 ]
}

# curl_hint: "curl" with the options a person needs to reach the cluster as the scripts do (the CA,
# the token's header with TOKEN in place of the token itself), for the commands the scripts suggest.
curl_hint() {
  echo "curl${CURL_TLS[1]:+ --cacert ${CURL_TLS[1]}}${CURL_TOKEN:+ -H 'Authorization: Bearer TOKEN'}"
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

# answering_port PORT...: prints the first PORT whose node answers GET /v0/cluster; fails if none
# does: with 3, saying why (refused_token), as soon as one refuses the token, as all would.
answering_port() {
  local port
  for port in "$@"; do
    if http_get "$QKV_SCHEME://127.0.0.1:$port/v0/cluster"; then echo "$port"; return 0; fi
    if [[ $HTTP_STATUS == 40[13] ]]; then refused_token "node-$port"; return 3; fi
  done
  return 1
}

# refused_token NAME: one line on standard error: NAME refused the token sent (HTTP_ERROR), and
# where that token came from.
refused_token() {
  echo "$1 refuses the scripts' token: $HTTP_ERROR (sent $TOKEN_FROM; QKV_TOKEN=TOKEN sends another)" >&2
}

# log_tail NAME: the last lines of node NAME's log, for a failure message.
log_tail() {
  tail -n 8 "$(node_log "$1")" 2> /dev/null | sed 's/^/  | /'
}

# qadmin SUBCOMMAND [ARG...]: the admin command (java -jar quorumkv.jar admin) with the scripts' CA and
# token; the token travels in QKV_TOKEN, out of sight of ps.
qadmin() {
  QKV_TOKEN=${CURL_TOKEN:-} java -XX:TieredStopAtLevel=1 -Xmx128m -jar "$NODE_JAR" admin "$@" "${CURL_TLS[@]}"
}
