# Shared by the bench-*.sh scripts.

require_wrk() {
  command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install wrk" >&2; exit 1; }
  command -v bc >/dev/null || { echo "bc is not installed: apt-get install bc" >&2; exit 1; }
}

# The median of the numbers on standard input (separated by spaces or newlines).
median() {
  tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'
}

# Background processes of a script: add each pid to pids; stop_pids (in an EXIT trap) stops them all.
pids=()
stop_pids() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
}

# await_ready URL LOG: waits up to 30 s for the node at URL to answer GET /v0/status; otherwise
# stops the script with the last lines of the node's LOG.
await_ready() {
  for _ in $(seq 300); do curl -sf "$1/v0/status" > /dev/null && return 0; sleep 0.1; done
  echo "the node at $1 did not start: $(tail -3 "$2" 2>/dev/null)" >&2
  exit 1
}
