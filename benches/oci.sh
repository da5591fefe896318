#!/usr/bin/env bash
# Registry catalogs at scale (issue 27), against a local registry.
#
#   benches/oci.sh [PLUGINS] [VERSIONS]   # default 100 plugins × 10 versions
#
# Starts Debian's docker-registry on 127.0.0.1 at a free port with
# temporary storage, publishes PLUGINS × VERSIONS plugin versions with
# `contrib publish` (one process each, as CI runners would), installs the
# newest version of each plugin into one workspace, then runs
# `catalog check` and `catalog pull` over the whole catalog. Prints the
# wall time per operation and the bytes the registry stored. Uses the
# release binary (CONTRIB_BIN to choose another).
set -euo pipefail

PLUGINS="${1:-100}"
VERSIONS="${2:-10}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${CONTRIB_BIN:-$ROOT/target/release/contrib}"
command -v docker-registry >/dev/null || { echo "docker-registry is not installed (apt-get install docker-registry)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "build the release binary first (cargo build --release), or set CONTRIB_BIN" >&2; exit 2; }

WORK="$(mktemp -d)"
# A cache of its own: cold at the start, warm as the run goes, as on one
# CI runner (docs/catalogs.md); the user's cache is left alone.
export XDG_CACHE_HOME="$WORK/cache"
REGISTRY_PID=
cleanup() {
    if [ -n "$REGISTRY_PID" ]; then
        kill "$REGISTRY_PID" 2>/dev/null || true
        wait "$REGISTRY_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
cat >"$WORK/registry.yml" <<EOF
version: 0.1
log:
  level: error
  accesslog:
    disabled: true
storage:
  filesystem:
    rootdirectory: $WORK/data
http:
  addr: 127.0.0.1:$PORT
EOF
docker-registry serve "$WORK/registry.yml" >/dev/null 2>&1 &
REGISTRY_PID=$!
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT))" 2>/dev/null; do sleep 0.1; done
CATALOG="oci://127.0.0.1:$PORT/bench"

mkdir -p "$WORK/authors" "$WORK/ws"
printf '[trust]\nas = "workspace"\n' >"$WORK/ws/contrib.toml"
for p in $(seq 1 "$PLUGINS"); do
    for v in $(seq 1 "$VERSIONS"); do
        printf 'plugin bench/p%d 1.0.%d {\n    owner workspace\n\n    text rule-%d {\n        placement agent\n        budget 30 tokens\n        body "Rule %d, version %d."\n    }\n}\n' \
            "$p" "$v" "$p" "$p" "$v" >"$WORK/authors/p$p-$v.contrib"
    done
done

now() { date +%s.%N; }
per() { python3 -c "import sys; t=float(sys.argv[2])-float(sys.argv[1]); n=int(sys.argv[3]); print(f'{t:.1f} s total, {1000*t/n:.0f} ms each')" "$@"; }

echo "machine: $(nproc) cores, $(uname -sr); $(date -u +%Y-%m-%dT%H:%MZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "catalog: $PLUGINS plugins × $VERSIONS versions = $((PLUGINS * VERSIONS)) versions"

start=$(now)
for v in $(seq 1 "$VERSIONS"); do
    for p in $(seq 1 "$PLUGINS"); do
        "$BIN" publish "$WORK/authors/p$p-$v.contrib" --catalog "$CATALOG" >/dev/null 2>&1 \
            || { echo "publish p$p-$v failed" >&2; "$BIN" publish "$WORK/authors/p$p-$v.contrib" --catalog "$CATALOG"; exit 1; }
    done
done
echo "publish:       $(per "$start" "$(now)" $((PLUGINS * VERSIONS)))"
echo "stored:        $(du -sb "$WORK/data" | cut -f1) bytes in the registry"

start=$(now)
for p in $(seq 1 "$PLUGINS"); do
    "$BIN" install "bench/p$p@1.0.$VERSIONS" --catalog "$CATALOG" --workspace "$WORK/ws" --yes >/dev/null
done
echo "install:       $(per "$start" "$(now)" "$PLUGINS")"

start=$(now)
"$BIN" catalog check "$CATALOG" >/dev/null 2>&1 || true
echo "catalog check: $(per "$start" "$(now)" 1)"

start=$(now)
"$BIN" catalog pull "$CATALOG" "$WORK/mirror" >/dev/null
echo "catalog pull:  $(per "$start" "$(now)" 1) ($(du -sb "$WORK/mirror" | cut -f1) bytes written)"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
