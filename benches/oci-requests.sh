#!/usr/bin/env bash
# Where one registry publish goes (issue 27): after N versions published
# (default 20, 10 plugins), publishes one more against a local
# docker-registry with its access log on, and counts the requests it made
# by kind, beside the time of `contrib build` alone and of process start.
#
#   benches/oci-requests.sh [N]        # CONTRIB_BIN: the binary (default: the release one)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${CONTRIB_BIN:-$ROOT/target/release/contrib}"
N=${1:-20}
W=$(mktemp -d)
export XDG_CACHE_HOME=$W/cache HOME=$W
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat > $W/r.yml <<EOC
version: 0.1
log:
  level: info
  accesslog:
    disabled: false
storage:
  filesystem:
    rootdirectory: $W/data
http:
  addr: 127.0.0.1:$PORT
EOC
docker-registry serve $W/r.yml > $W/access.log 2>&1 &
RP=$!
trap 'kill $RP; wait $RP 2>/dev/null; rm -rf $W' EXIT
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT))" 2>/dev/null; do sleep 0.1; done
C=oci://127.0.0.1:$PORT/bench
mk() { printf 'plugin bench/p%d 1.0.%d {\n    owner workspace\n\n    text rule-%d {\n        placement agent\n        budget 30 tokens\n        body "Rule %d, version %d."\n    }\n}\n' $1 $2 $1 $1 $2 > $W/p$1-$2.contrib; }
for i in $(seq 1 $N); do p=$(( (i-1) % 10 + 1 )); v=$(( (i-1) / 10 + 1 )); mk $p $v; $BIN publish $W/p$p-$v.contrib --catalog $C >/dev/null 2>&1; done
mk 99 1
before=$(wc -l < $W/access.log)
s=$(date +%s.%N); $BIN publish $W/p99-1.contrib --catalog $C >/dev/null 2>&1; e=$(date +%s.%N)
after=$(wc -l < $W/access.log)
echo "after $N versions: one publish $(python3 -c "print(round(($e-$s)*1000))") ms, $((after-before)) log lines"
sed -n "$((before+1)),\$p" $W/access.log | grep -o '"[A-Z]* /v2[^ ]*' | sed 's/sha256:[0-9a-f]*/DIGEST/; s/e[0-9]\{12\}\.[0-9.a-f]*/EVENT/' | sort | uniq -c | sort -rn
s=$(date +%s.%N); $BIN build $W/p99-1.contrib -o $W/x.bundle.json >/dev/null 2>&1 || true; e=$(date +%s.%N)
echo "build alone: $(python3 -c "print(round(($e-$s)*1000))") ms"
s=$(date +%s.%N); $BIN --version >/dev/null; e=$(date +%s.%N)
echo "process start: $(python3 -c "print(round(($e-$s)*1000))") ms"
