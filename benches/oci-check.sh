#!/usr/bin/env bash
# `catalog check` over a registry catalog of 10,000 versions, from its
# index, cold and warm.
#
#   benches/oci-check.sh [PLUGINS] [VERSIONS]   # default 1000 plugins × 10 versions
#
# Starts Debian's docker-registry on 127.0.0.1 with temporary storage,
# publishes one template version with `contrib publish` into a folder
# catalog, then fills the registry with PLUGINS × VERSIONS versions of it
# with `benches/oci_fill.rs` (the same artifacts and index events `contrib
# publish` writes, pushed many at once from one process: one publishing
# process per version would take over an hour here). Then it times
# `contrib catalog check oci://…` with an empty cache (cold: every event
# read from the registry) and again (warm: events from the cache), and
# one more `contrib publish` into the catalog, warm. For each: wall time,
# peak resident memory, and CPU time.
# Uses the release binary (CONTRIB_BIN to choose another).
set -euo pipefail

PLUGINS="${1:-1000}"
VERSIONS="${2:-10}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
. "$ROOT/benches/support/registry.sh"

# Runs a command; prints its wall time, peak memory and CPU time.
measure() {
    python3 - "$@" <<'PY'
import os, subprocess, sys, time
start = time.monotonic()
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
child.stderr.read()
_, status, usage = os.wait4(child.pid, 0)
wall = time.monotonic() - start
print(f"{wall:.2f} s, peak RSS {usage.ru_maxrss / 1024:.1f} MB, "
      f"user {usage.ru_utime:.2f} s, system {usage.ru_stime:.2f} s, exit {os.waitstatus_to_exitcode(status)}")
PY
}

mkdir -p "$WORK/template"
printf 'plugin bench/template 1.0.0 {\n    owner workspace\n\n    text rule {\n        placement agent\n        budget 30 tokens\n        body "A rule of the bench catalog."\n    }\n}\n' \
    >"$WORK/template/plugin.contrib"
"$BIN" publish "$WORK/template/plugin.contrib" --catalog "$WORK/template/catalog" >/dev/null 2>&1
TEMPLATE="$WORK/template/catalog/bench/template/1.0.0.bundle.json"

echo "machine: $(nproc) cores, $(uname -sr); $(date -u +%Y-%m-%dT%H:%MZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "catalog: $PLUGINS plugins × $VERSIONS versions = $((PLUGINS * VERSIONS)) versions"
(cd "$ROOT" && cargo bench -q --bench oci-fill --no-run 2>/dev/null)
start=$(date +%s.%N)
(cd "$ROOT" && cargo bench -q --bench oci-fill -- "127.0.0.1:$PORT" bench "$PLUGINS" "$VERSIONS" "$TEMPLATE")
echo "fill:          $(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" "$start" "$(date +%s.%N)")"
echo "stored:        $(du -sb "$WORK/data" | cut -f1) bytes in the registry"

echo "check, cold:   $(measure "$BIN" catalog check "$CATALOG")"
echo "check, warm:   $(measure "$BIN" catalog check "$CATALOG")"
echo "events cached: $(du -sb "$XDG_CACHE_HOME/contrib/registries" | cut -f1) bytes"
sed -e 's/1\.0\.0/2.0.0/' -e 's/template/p1/' "$WORK/template/plugin.contrib" >"$WORK/template/next.contrib"
echo "publish, warm: $(measure "$BIN" publish "$WORK/template/next.contrib" --catalog "$CATALOG")"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
