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
