# shellcheck shell=bash
# Sourced by every script of scripts/ and cluster/ that runs nodes: writes a node's conf, starts
# the node, waits until it serves, stops it. A node is known by a NAME; its pid and its log
# (stdout and stderr) are NODE_RUN_DIR/NAME.pid and NAME.log (NODE_LOG_DIR/NAME.log if set).
#
# JVM options: every node starts with -Xms equal to -Xmx, both HEAP (default 256m): the whole heap
# from the start makes G1 collect less often (docs/performance.md, "GC and memory"). A script
# that measures at another size sets HEAP before sourcing this file. A node that runs out of heap
# exits (-XX:+ExitOnOutOfMemoryError) rather than staying up wedged: restart it, under a supervisor
# in production (docs/operations.md). JVM_OPTIONS (an array) are added; with NODE_GC_LOG_DIR set, each node logs its GC pauses to NODE_GC_LOG_DIR/gc-NAME.log.

QKV_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HEAP=${HEAP:-256m}
NODE_JAR="$QKV_ROOT/target/quorumkv.jar"   # a script may point it at its own copy
NODE_READY_SECONDS=${NODE_READY_SECONDS:-120} # a JVM starts slowly on a busy machine
NODE_STOP_SECONDS=30
NODE_RUN_DIR=""
NODE_LOG_DIR=""
NODE_GC_LOG_DIR=""
JVM_OPTIONS=()
# How the scripts reach nodes: QKV_SCHEME (http or https), CURL_TLS (curl's options to trust their
# CA) and CURL_TOKEN (the API token every request carries; default $QKV_TOKEN). cluster/common.sh
# sets them from the cluster's confs.
QKV_SCHEME=http
CURL_TLS=()
CURL_TOKEN=${QKV_TOKEN:-}

# qcurl ARG...: curl with CURL_TLS, and `Authorization: Bearer CURL_TOKEN` when that is set. The
# header reaches curl through a pipe (-H @FILE), not its command line, where ps would show it.
qcurl() {
  if [ -n "$CURL_TOKEN" ]; then
    curl "${CURL_TLS[@]}" -H @<(printf 'Authorization: Bearer %s\n' "$CURL_TOKEN") "$@"
  else
    curl "${CURL_TLS[@]}" "$@"
  fi
}

# http_get URL [SECONDS]: GET URL with qcurl, for at most SECONDS (default 5). Sets HTTP_STATUS (000
# when no answer came), HTTP_BODY, and HTTP_ERROR, one line saying why it is not a 200: the status
# and the answer's first line, or curl's reason. Succeeds on 200.
http_get() {
  local answer last
  answer=$(qcurl -s -m "${2:-5}" -w '\n%{http_code} %{exitcode} %{errormsg}' "$1")
  last=${answer##*$'\n'} HTTP_BODY=${answer%$'\n'*}
  HTTP_STATUS=${last%% *} HTTP_ERROR=""
  [ "$HTTP_STATUS" = 200 ] && return 0
  if [ "$HTTP_STATUS" = 000 ]; then
    last=${last#* }
    HTTP_ERROR="curl: (${last%% *}) ${last#* }"
  else
    HTTP_ERROR="$HTTP_STATUS ${HTTP_BODY%%$'\n'*}"
  fi
  return 1
}

# require COMMAND [WHAT_FOR]: stops the script unless COMMAND (a Debian package of that name) is installed.
require() {
  command -v "$1" > /dev/null || { echo "$1 is not installed${2:+ ($2)}: apt-get install $1" >&2; exit 1; }
}

# write_conf FILE PORT DATA_DIR [JSON_KEYS]: the conf of a node on http://127.0.0.1:PORT with two
# event loops (the fastest on 2 cores), JSON_KEYS ('"hints": {...}, ...') appended to it.
write_conf() {
  printf '{ "url": "http://127.0.0.1:%s", "dataDir": "%s", "eventLoops": 2%s }\n' "$2" "$3" "${4:+, $4}" > "$1"
}

# write_cluster_confs DIR HZ_PORT JSON_KEYS PORT...: DIR/node-PORT.json for a cluster of the given
# HTTP ports, each node's data in DIR/data/node-PORT, Hazelcast ports from HZ_PORT up, a cluster
# name made from DIR (so it never joins another cluster), JSON_KEYS (may be empty) added to each.
write_cluster_confs() {
  local dir=$1 hz=$2 keys=$3
  shift 3
  local ports=("$@") urls=() members=() i name
  name="quorumkv-$(cksum <<< "$dir" | cut -d' ' -f1)"
  mkdir -p "$dir"
  for i in "${!ports[@]}"; do
    urls+=("\"http://127.0.0.1:${ports[i]}\"")
    members+=("\"127.0.0.1:$((hz + i))\"")
  done
  for i in "${!ports[@]}"; do
    write_conf "$dir/node-${ports[i]}.json" "${ports[i]}" "$dir/data/node-${ports[i]}" \
      "\"cluster\": [$(IFS=,; echo "${urls[*]}")], \"hazelcast\": { \"port\": $((hz + i)), \"members\": [$(IFS=,; echo "${members[*]}")], \"clusterName\": \"$name\" }${keys:+, $keys}"
  done
}

node_log() { echo "${NODE_LOG_DIR:-$NODE_RUN_DIR}/$1.log"; }

# alive PID: the process exists and is not a zombie waiting to be reaped.
alive() {
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
  [ -n "$state" ] && [ "$state" != Z ]
}

# node_pid NAME: prints the pid of NAME if it runs; fails if not (a pid file left behind whose
# pid now belongs to another program does not count). Any jar counts (JAR= may name one without
# "quorumkv" in its path), as long as it runs with a --config.
node_pid() {
  local pid command
  pid=$(cat "$NODE_RUN_DIR/$1.pid" 2> /dev/null) && [ -n "$pid" ] && alive "$pid" || return 1
  command=$(tr '\0' ' ' < "/proc/$pid/cmdline" 2> /dev/null) && [[ $command == *" -jar "*" --config "* ]] && echo "$pid"
}

# node_start NAME CONF: starts a node in the background, from the repository's root (relative
# paths in CONF are relative to it); does nothing if NAME already runs.
node_start() {
  local name=$1 conf=$2 options=(-Xms"$HEAP" -Xmx"$HEAP" -XX:+ExitOnOutOfMemoryError "${JVM_OPTIONS[@]}")
  : "${NODE_RUN_DIR:?set NODE_RUN_DIR before starting a node}"
  if node_pid "$name" > /dev/null; then echo "$name already running (pid $(node_pid "$name"))"; return 0; fi
  mkdir -p "$NODE_RUN_DIR" "${NODE_LOG_DIR:-$NODE_RUN_DIR}"
  [ -z "$NODE_GC_LOG_DIR" ] || options+=(-Xlog:gc:file="$NODE_GC_LOG_DIR/gc-$name.log")
  (cd "$QKV_ROOT" && exec nohup java "${options[@]}" -jar "$NODE_JAR" --config "$conf" \
    < /dev/null > "$(node_log "$name")" 2>&1) &
  local pid=$!
  echo "$pid" > "$NODE_RUN_DIR/$name.pid"
  # Until the subshell has become java, node_pid would not recognise it.
  for _ in $(seq 100); do
    if node_pid "$name" > /dev/null || ! alive "$pid"; then break; fi
    sleep 0.01
  done
  echo "$name starting (pid $pid, log $(node_log "$name"))"
}

# await_ready NAME URL: waits up to NODE_READY_SECONDS for the node NAME to answer GET URL/v0/status;
# fails, saying why (node_failure), if it exits first or does not answer in time.
await_ready() {
  local name=$1 url=$2 deadline=$((SECONDS + NODE_READY_SECONDS))
  while [ "$SECONDS" -lt "$deadline" ]; do
    qcurl -sf -m 2 "$url/v0/status" > /dev/null && { echo "$name ready ($url)"; return 0; }
    node_pid "$name" > /dev/null || { node_failure "$name" "exited" >&2; return 1; }
    sleep 0.1
  done
  node_failure "$name" "not ready after $NODE_READY_SECONDS s" >&2
  return 1
}

# node_failure NAME WHAT: "NAME WHAT: " and the node's own last word on it (its last line starting
# "quorumkv: ", such as "cannot join the cluster: ..."), then the other last lines of its log.
node_failure() {
  local log reason context
  log=$(node_log "$1")
  reason=$(grep '^quorumkv: ' "$log" 2> /dev/null | tail -n 1)
  echo "$1 $2: ${reason:-no reason in its log}"
  context=$(tail -n 6 "$log" 2> /dev/null | grep -vxF -- "$reason" | tail -n 5)
  [ -z "$context" ] || printf '  the end of %s:\n%s\n' "$log" "$(sed 's/^/  | /' <<< "$context")"
}

# build_jar_if_stale: builds target/quorumkv.jar with Maven when it is missing, when a file of
# src/ or pom.xml is newer than it, or when BUILD=1 (BUILD=0: never); says which.
build_jar_if_stale() {
  local jar="$QKV_ROOT/target/quorumkv.jar" why newer
  if [ "${BUILD:-}" = 0 ]; then
    echo "not building the jar (BUILD=0)"
    return 0
  elif [ "${BUILD:-}" = 1 ]; then
    why="BUILD=1"
  elif [ ! -f "$jar" ]; then
    why="there is no target/quorumkv.jar yet"
  else
    newer=$(cd "$QKV_ROOT" && find src pom.xml -newer "$jar" -type f -print -quit)
    if [ -z "$newer" ]; then
      echo "target/quorumkv.jar is up to date with src/ and pom.xml: not building it (BUILD=1 builds anyway)"
      return 0
    fi
    why="$newer is newer than target/quorumkv.jar"
  fi
  echo "building target/quorumkv.jar ($why)..."
  # MAVEN_OPTS: Maven's console library otherwise writes colour-reset codes even with -B.
  (cd "$QKV_ROOT" && MAVEN_OPTS="${MAVEN_OPTS:-} -Djansi.noreset=true" mvn -q -B -DskipTests package)
}

# start_nodes DIR PORT...: starts the nodes of DIR/node-PORT.json, named node-PORT, and waits until
# each serves on QKV_SCHEME://127.0.0.1:PORT.
start_nodes() {
  local dir=$1 port
  shift
  for port in "$@"; do node_start "node-$port" "$dir/node-$port.json"; done
  for port in "$@"; do await_ready "node-$port" "$QKV_SCHEME://127.0.0.1:$port"; done
}

# start_cluster DIR HZ_PORT JSON_KEYS PORT...: write_cluster_confs, then start_nodes.
start_cluster() {
  local dir=$1
  write_cluster_confs "$@"
  shift 3
  start_nodes "$dir" "$@"
}

# start_single NAME PORT DATA_DIR [JSON_KEYS]: writes NODE_RUN_DIR/NAME.json (write_conf), starts
# that node and waits until it serves.
start_single() {
  write_conf "$NODE_RUN_DIR/$1.json" "$2" "$3" "${4:-}"
  node_start "$1" "$NODE_RUN_DIR/$1.json"
  await_ready "$1" "$QKV_SCHEME://127.0.0.1:$2"
}

# node_stop SIGNAL NAME...: sends SIGNAL (TERM: a graceful stop) to every NAME that runs, then waits
# up to NODE_STOP_SECONDS for them to exit; fails if one is still running then.
node_stop() {
  local signal=$1 name pid deadline=$((SECONDS + NODE_STOP_SECONDS)) failed=0
  shift
  declare -A stopping=()
  for name in "$@"; do
    if pid=$(node_pid "$name"); then kill "-$signal" "$pid" || true; stopping[$name]=$pid; else echo "$name not running"; fi
  done
  for name in "${!stopping[@]}"; do
    pid=${stopping[$name]}
    while alive "$pid" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
    wait "$pid" 2> /dev/null || true # reaps it when this shell started it
    if alive "$pid"; then echo "$name still running after $NODE_STOP_SECONDS s (pid $pid)" >&2; failed=1; continue; fi
    rm -f "$NODE_RUN_DIR/$name.pid"
    echo "$name stopped ($signal)"
  done
  return "$failed"
}

# started_nodes: the names of the nodes with a pid file in NODE_RUN_DIR.
started_nodes() {
  local f
  for f in "$NODE_RUN_DIR"/*.pid; do [ -e "$f" ] && basename "$f" .pid; done
  return 0
}

# stop_all_nodes: stops every node started in NODE_RUN_DIR, killing those a graceful stop leaves.
stop_all_nodes() {
  local names
  mapfile -t names < <(started_nodes)
  [ ${#names[@]} -gt 0 ] || return 0
  node_stop TERM "${names[@]}" || node_stop KILL "${names[@]}"
}

# use_work_dir: makes $work, a fresh temporary directory for this script's confs, node data, pids
# and logs; when the script exits, every node started in it is stopped and the directory deleted.
# It is the only directory a script deletes: one it made itself.
use_work_dir() {
  work=$(mktemp -d "${TMPDIR:-/tmp}/quorumkv.XXXXXX")
  NODE_RUN_DIR=$work
  trap cleanup_work_dir EXIT
}
cleanup_work_dir() {
  stop_all_nodes > /dev/null || true
  rm -rf "${work:?}"
}

# json_at URL EXPR: prints the Python expression EXPR evaluated on the JSON that GET URL answers
# (bound to j), e.g. json_at http://127.0.0.1:8080/v0/cluster 'j["readRepairs"]["written"]'.
json_at() {
  require python3 "it reads the nodes' JSON"
  http_get "$1" 10 || { echo "GET $1: $HTTP_ERROR" >&2; return 1; }
  python3 -c 'import json, sys; j = json.load(sys.stdin); print(eval(sys.argv[1]))' "$2" <<< "$HTTP_BODY"
}
