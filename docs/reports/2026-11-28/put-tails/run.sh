#!/usr/bin/env bash
# Diagnostic: one node at 128m, 300k keys, PUT overwrites at a fixed rate; timeline of the node's answers.
set -u
JAR=${JAR:-/tmp/qkv-main.jar}; PORT=18401; D=/tmp/diag; RATE=${RATE:-31500}; TAG=${TAG:-main}
rm -rf $D/data-$TAG; mkdir -p $D/out-$TAG
echo "{\"url\":\"http://127.0.0.1:$PORT\",\"cluster\":[\"http://127.0.0.1:$PORT\"],\"dataDir\":\"$D/data-$TAG\"}" > $D/n.json
java -Xms128m -Xmx128m -XX:+UseG1GC -Xlog:gc:file=$D/out-$TAG/gc.log ${NODE_OPTS:-} -jar $JAR --config $D/n.json > $D/out-$TAG/node.log 2>&1 &
NODE=$!
until curl -sf -m 1 http://127.0.0.1:$PORT/v0/status >/dev/null; do sleep 0.2; done
java -cp $JAR io.quorumkv.bench.Fill http://127.0.0.1:$PORT 300000 100 64 > /dev/null 2>&1
java -jar $JAR bench --url http://127.0.0.1:$PORT --keys 300000 --tool-jit c2 --rate $RATE --connections 64 --workload put --duration 20s --warmup 20s --out $D/out-$TAG > $D/out-$TAG/load.txt 2>&1 &
LOAD=$!
: > $D/out-$TAG/timeline.txt
while kill -0 $LOAD 2>/dev/null; do
  t=$(date +%s.%N)
  curl -s -m 1 http://127.0.0.1:$PORT/metrics | awk -v t=$t '/^vertx_http_server_requests_total.*PUT/ {r+=$2} /^quorumkv_storage_queued/ {q=$2} /^quorumkv_rocksdb_stall_micros_total/ {s=$2} /^quorumkv_storage_seconds_count.*apply/ {a=$2} /^quorumkv_storage_seconds_sum.*apply/ {as=$2} END {printf "%s %d %s %s %d %s\n", t, r, q, s, a, as}' >> $D/out-$TAG/timeline.txt
  sleep 0.2
done
kill $NODE; wait $NODE 2>/dev/null
python3 - $D/out-$TAG/timeline.txt <<'PY'
import sys
rows=[l.split() for l in open(sys.argv[1]) if len(l.split())==6]
prev=None
for r in rows:
    t,req,q,s,a,asum=float(r[0]),int(r[1]),r[2],r[3],int(r[4]),float(r[5])
    if prev:
        dt=t-prev[0]; rate=(req-prev[1])/dt; n=a-prev[4]
        mean=(asum-prev[5])/n*1e3 if n else 0
        print(f"{t%1000:8.2f} {rate:8.0f}/s queued={q:>5} stall={s} apply_mean={mean:6.2f}ms")
    prev=(t,req,q,s,a,asum)
PY
grep -A12 "Latency Distribution" $D/out-$TAG/load.txt | head -10; grep "From sending" $D/out-$TAG/load.txt
