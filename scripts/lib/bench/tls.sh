#!/usr/bin/env bash
# What TLS costs, side by side (issue 44): one compare.py run per stage, wrk -t2 -c64 saturation
# and 1-connection runs of PUT and GET, ROUNDS interleaved rounds:
#   single   a quorumkv node on plain HTTP against one on https (the same jar, -Xms1g -Xmx1g each,
#            PREFILL keys each; server CPU per request as compare.py measures it)
#   cluster  a 3-node cluster at its default 2/3 on plain HTTP against one on https with mutual TLS
#            between its nodes (HEAP per node, default 256m), both up for the whole stage
# Certificates come from scripts/make-certs.sh. compare.py (BENCH, default ../shared/bench) speaks
# plain HTTP only: this script runs a copy of it, patched to take https urls (wrk speaks TLS
# itself; the pre-fill connects with TLS and trusts the CA through SSL_CERT_FILE). The patch is
# three lines and the script stops if compare.py no longer has them.
#   scripts/bench tls [OUT_DIR]       # about 20 min
#   STAGES=single scripts/bench tls   # one stage
set -euo pipefail
cd "$(dirname "$0")/../../.."
BENCH=$(realpath "${BENCH:-../shared/bench}")
STAGES=${STAGES:-single,cluster}
ROUNDS=${ROUNDS:-2}
DURATION=${DURATION:-15}
WARMUP=${WARMUP:-5}
CLUSTER_WARMUP=${CLUSTER_WARMUP:-20}
PREFILL=${PREFILL:-200000}
OUT=${1:-}

# shellcheck source=lib/bench.sh
source scripts/lib/bench.sh
prepare_run wrk python3 curl openssl
results_dir tls "$OUT"
[ -f "$BENCH/compare.py" ] || { echo "no compare.py in $BENCH (set BENCH)" >&2; exit 1; }
bash scripts/make-certs.sh "$work/certs" 127.0.0.1 > /dev/null
export SSL_CERT_FILE="$work/certs/ca.pem"

# The patched copy of compare.py, beside its Lua scripts.
cp -r "$BENCH" "$work/bench"
python3 - "$work/bench/compare.py" <<'EOF'
import sys
path = sys.argv[1]
text = open(path).read()
patches = [
    ('if parsed.scheme != "http" or not parsed.hostname:',
     'if parsed.scheme not in ("http", "https") or not parsed.hostname:'),
    ('self.host, self.port = parsed.hostname, parsed.port or 80',
     'self.host, self.port = parsed.hostname, parsed.port or 80\n        self.tls = parsed.scheme == "https"'),
    ('reader, writer = await asyncio.open_connection(target.host, target.port)',
     'reader, writer = await asyncio.open_connection(target.host, target.port,'
     ' ssl=__import__("ssl").create_default_context() if target.tls else None)'),
]
for old, new in patches:
    if old not in text:
        sys.exit("compare.py changed: cannot find " + repr(old))
    text = text.replace(old, new)
open(path, "w").write(text)
EOF

# tls_conf FILE: turns the conf in FILE to https with the node certificate of 127.0.0.1.
tls_conf() {
  python3 - "$1" "$work/certs" <<'EOF'
import json, sys
path, certs = sys.argv[1:]
conf = json.load(open(path))
https = lambda url: url.replace("http://", "https://", 1)
conf["url"] = https(conf["url"])
if "cluster" in conf:
    conf["cluster"] = [https(url) for url in conf["cluster"]]
conf["tls"] = {"certFile": certs + "/node-127.0.0.1.pem", "keyFile": certs + "/node-127.0.0.1-key.pem",
               "caFile": certs + "/ca.pem"}
json.dump(conf, open(path, "w"), indent=2)
EOF
}

stage() { [[ ",$STAGES," == *",$1,"* ]]; }

# compare OUT_NAME ARGS...: one run of the patched compare.py, its tables copied to OUT/OUT_NAME.md.
compare() {
  local name=$1
  shift
  (cd "$work/bench" && python3 compare.py --no-rate --rounds "$ROUNDS" --warmup "${RUN_WARMUP:-$WARMUP}" \
    --duration "$DURATION" --out "$work/$name" "$@")
  cp "$work/$name/results.md" "$OUT/$name.md"
}

QKV_JVM="-Xms1g -Xmx1g -XX:+UseG1GC"
if stage single; then
  echo "== a single node: plain HTTP and https"
  write_conf "$work/plain.json" 18290 "$work/plain-data"
  write_conf "$work/tls.json" 18291 "$work/tls-data"
  tls_conf "$work/tls.json"
  compare single --baseline plain --prefill "$PREFILL" \
    -t "name=plain url=http://127.0.0.1:18290 start='exec java $QKV_JVM -jar $NODE_JAR --config $work/plain.json'" \
    -t "name=tls url=https://127.0.0.1:18291 start='exec java $QKV_JVM -jar $NODE_JAR --config $work/tls.json'"
fi

if stage cluster; then
  echo "== 3 nodes at 2/3: plain HTTP and mutual TLS"
  write_cluster_confs "$work/plain-cluster" 18711 "" 18280 18281 18282
  write_cluster_confs "$work/tls-cluster" 18721 "" 18283 18284 18285
  for conf in "$work"/tls-cluster/node-*.json; do tls_conf "$conf"; done
  start_nodes "$work/plain-cluster" 18280 18281 18282 > /dev/null
  QKV_SCHEME=https CURL_TLS=(--cacert "$work/certs/ca.pem")
  start_nodes "$work/tls-cluster" 18283 18284 18285 > /dev/null
  RUN_WARMUP=$CLUSTER_WARMUP compare cluster --baseline plain3 --prefill "$PREFILL" \
    -t "name=plain3 url=http://127.0.0.1:18280" -t "name=tls3 url=https://127.0.0.1:18283"
fi
echo "tables in $OUT"
