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
. "$ROOT/benches/support/registry.sh"

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
