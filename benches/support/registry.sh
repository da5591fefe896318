# Sourced by the registry benchmarks, with ROOT set to the repository:
# finds the release binary (BIN; CONTRIB_BIN to choose another), makes a
# temporary WORK folder with a cache of its own (cold at the start, warm
# as the run goes, as on one CI runner; the user's cache is left alone),
# starts Debian's docker-registry on 127.0.0.1 at a free port, storing in
# "$WORK/data", and stops it (and removes "$WORK") on exit. Sets PORT and
# CATALOG (oci://127.0.0.1:PORT/bench).
BIN="${CONTRIB_BIN:-$ROOT/target/release/contrib}"
command -v docker-registry >/dev/null || { echo "docker-registry is not installed (apt-get install docker-registry)" >&2; exit 2; }
[ -x "$BIN" ] || { echo "build the release binary first (cargo build --release), or set CONTRIB_BIN" >&2; exit 2; }

WORK="$(mktemp -d)"
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
cat >"$WORK/registry.yml" <<EOC
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
EOC
docker-registry serve "$WORK/registry.yml" >/dev/null 2>&1 &
REGISTRY_PID=$!
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT))" 2>/dev/null; do sleep 0.1; done
CATALOG="oci://127.0.0.1:$PORT/bench"
