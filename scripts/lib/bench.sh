# shellcheck shell=bash
# Sourced by the measuring scripts of scripts/: the node helpers of node.sh, and what measuring
# adds to them (the jar under test, filling, wrk runs, medians).
# shellcheck source=node.sh
source "$(dirname "${BASH_SOURCE[0]}")/node.sh"

# prepare_run [COMMAND...]: what every measuring script does first: checks that the COMMANDs are
# installed, makes its work directory (use_work_dir) and builds the jar it runs (build_jar).
prepare_run() {
  local command
  for command in "$@"; do require "$command"; done
  use_work_dir
  build_jar
}

# results_dir NAME [DIR]: sets OUT to DIR, or by default to bench/results/DATE-NAME (kept out of
# git by .gitignore), makes it (never deletes it) and writes OUT/COMMIT: the commit measured
# (BENCH_COMMIT from scripts/bench, else HEAD, "+uncommitted" with local changes) and the jar
# when JAR names one, so every report says what it measured.
results_dir() {
  OUT=${2:-$QKV_ROOT/bench/results/$(date +%F-%H%M)-$1}
  mkdir -p "$OUT"
  OUT=$(realpath "$OUT")
  local commit=${BENCH_COMMIT:-}
  if [ -z "$commit" ]; then
    commit=$(git -C "$QKV_ROOT" rev-parse --short HEAD 2> /dev/null || echo unknown)
    git -C "$QKV_ROOT" diff --quiet HEAD 2> /dev/null || commit="$commit+uncommitted"
  fi
  { echo "commit: $commit"; echo "date: $(date -u +%FT%TZ)"; [ -z "${JAR:-}" ] || echo "jar: $JAR"; } > "$OUT/COMMIT"
}

# build_jar: builds the node's jar and runs this script's nodes and tools from a copy of it in
# $work (a build during the run must not change the jar under a running node). JAR=FILE runs
# that jar instead, without building.
build_jar() {
  if [ -n "${JAR:-}" ]; then NODE_JAR=$(realpath "$JAR"); return; fi
  build_jar_if_stale
  cp "$QKV_ROOT/target/quorumkv.jar" "$work/quorumkv.jar"
  NODE_JAR="$work/quorumkv.jar"
}

# parse_variants FORMAT VARIANT...: splits each VARIANT (NAME=JAR[@...]) into the arrays names, jars
# (absolute paths) and options (what follows the jar's "@", empty without one). Exits 2 naming
# FORMAT on a malformed variant, or on a jar that does not exist.
parse_variants() {
  local format=$1 variant spec jar
  shift
  names=() jars=() options=()
  for variant in "$@"; do
    [[ $variant == *=* ]] || { echo "not $format: $variant" >&2; exit 2; }
    spec=${variant#*=}
    jar=${spec%%@*}
    [ -f "$jar" ] || { echo "no such jar: $jar" >&2; exit 2; }
    names+=("${variant%%=*}") jars+=("$(realpath "$jar")")
    if [[ $spec == *@* ]]; then options+=("${spec#*@}"); else options+=(""); fi
  done
}

# fill URL KEYS [QUERY [PREFIX]]: writes KEYS records of VALUE (default 100) bytes through the node
# at URL on 64 connections (QUERY: "&ack=3&from=3"; PREFIX of the keys: k); prints the tool's
# summary, or its error (the exception and causes, without the stack) to standard error.
fill() {
  local out
  if out=$(java -cp "$NODE_JAR" io.quorumkv.bench.Fill "$1" "$2" "${VALUE:-100}" 64 "${@:3}" 2>&1); then
    tr '\r' '\n' <<< "$out" | tail -n 1
  else
    echo "filling $1 failed:" >&2
    tr '\r' '\n' <<< "$out" | grep -v -e '^\s*at ' -e '^\s*\.\.\. [0-9]* more' >&2
    return 1
  fi
}

# load_percentile FILE P: the latency at percentile P ("99.000%") of a load tool report, in ms.
load_percentile() { awk -v p="$2" '$1 == p { sub(/ms$/, "", $2); print $2; exit }' "$1"; }

# wrk_rate OUT URL WORKLOAD: one wrk run of scripts/wrk/WORKLOAD.lua, DURATION s on CONNECTIONS
# connections from WRK_THREADS threads (default 1) (KEYS, VALUE, QUORUM and PREFIX reach the Lua
# script through the environment), its output kept in OUT; prints its requests/s and warns of
# non-2xx answers.
wrk_rate() {
  wrk -t"${WRK_THREADS:-1}" -c"$CONNECTIONS" -d"${DURATION}s" -s "$QKV_ROOT/scripts/wrk/$3.lua" "$2" > "$1"
  if grep -q "Non-2xx" "$1"; then echo "  $(basename "$1"): $(grep Non-2xx "$1")" >&2; fi
  awk '/Requests\/sec/ {print $2}' "$1"
}

# cpu_ticks PID: the CPU time (user + system) process PID has used, in clock ticks (getconf CLK_TCK a second).
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# The median of the numbers on standard input (separated by spaces or newlines).
median() {
  tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'
}
