# Shared by the cluster scripts: where the local 3-node cluster keeps its pids and logs.
CLUSTER_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$CLUSTER_DIR")"
RUN_DIR="$ROOT/data/run"
PORTS=(8080 8081 8082)
JAVA_OPTS=${JAVA_OPTS:-"-Xms256m -Xmx256m"} # the whole heap from the start: fewer, not longer, GC pauses
mkdir -p "$RUN_DIR"

pid_of() { cat "$RUN_DIR/node-$1.pid" 2>/dev/null; }
is_running() { local pid; pid=$(pid_of "$1"); [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }

start_node() {
  local port=$1
  if is_running "$port"; then echo "node $port already running (pid $(pid_of "$port"))"; return; fi
  (cd "$ROOT" || exit 1
   nohup java $JAVA_OPTS -jar target/quorumkv.jar --config "cluster/node-$port.json" > "$RUN_DIR/node-$port.log" 2>&1 &
   echo $! > "$RUN_DIR/node-$port.pid")
  echo "node $port starting (pid $(pid_of "$port"), log data/run/node-$port.log)"
}

stop_node() {
  local port=$1 signal=${2:-TERM}
  if ! is_running "$port"; then echo "node $port not running"; return; fi
  local pid; pid=$(pid_of "$port")
  kill "-$signal" "$pid"
  for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  rm -f "$RUN_DIR/node-$port.pid"
  echo "node $port stopped ($signal)"
}

await_ready() {
  local port=$1
  for _ in $(seq 300); do
    curl -sf "http://127.0.0.1:$port/v0/status" >/dev/null && { echo "node $port ready"; return 0; }
    is_running "$port" || { echo "node $port exited: $(tail -1 "$RUN_DIR/node-$port.log")"; return 1; }
    sleep 0.1
  done
  echo "node $port not ready after 30 s"; return 1
}
