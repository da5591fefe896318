#!/usr/bin/env bash
# The benchmark suite against peers and the machine's limit (issue 8).
#
#   benches/compare.sh [N]        # N plugins, default 10000
#
# Generates a deterministic catalog of N plugins (benches/support/generate.rs)
# as .contrib manifests, the same content as JSON (with a JSON Schema) and as
# TOML, then measures in one run, with hyperfine, on the same content:
#   cat and sha256sum of the manifests      (the machine's limit)
#   contrib check, cold (--no-cache) and warm (cache primed, nothing changed)
#   taplo lint on the TOML form             (syntax only)
#   check-jsonschema and jsonschema-cli on the JSON form (schema checks only)
# and prints MB/s, files/s and each one's ratio to cat. Missing tools are
# installed under target/bench-tools (hyperfine from Debian, taplo-cli and
# jsonschema-cli with cargo, check-jsonschema with pip) or skipped with a
# message when they cannot be.
set -euo pipefail

N="${1:-10000}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/target/bench-catalog-$N"
TOOLS="$ROOT/target/bench-tools"
export PATH="$TOOLS/bin:$TOOLS/venv/bin:$PATH"
mkdir -p "$TOOLS"

say() { printf '\n== %s\n' "$*" >&2; }

if ! command -v hyperfine >/dev/null; then
    say "installing hyperfine (Debian)"
    (apt-get update -qq && apt-get install -y -qq hyperfine) >/dev/null 2>&1 || { echo "hyperfine is required" >&2; exit 2; }
fi
if ! command -v taplo >/dev/null; then
    say "installing taplo-cli (cargo)"
    cargo install --quiet --locked --root "$TOOLS" taplo-cli >/dev/null 2>&1 || echo "taplo could not be installed; skipping it" >&2
fi
if ! command -v jsonschema-cli >/dev/null; then
    say "installing jsonschema-cli (cargo)"
    cargo install --quiet --locked --root "$TOOLS" jsonschema-cli >/dev/null 2>&1 || echo "jsonschema-cli could not be installed; skipping it" >&2
fi
if ! command -v check-jsonschema >/dev/null; then
    say "installing check-jsonschema (pip)"
    (python3 -m venv "$TOOLS/venv" && "$TOOLS/venv/bin/pip" install -q check-jsonschema) >/dev/null 2>&1 || echo "check-jsonschema could not be installed; skipping it" >&2
fi

say "building contrib and the generator (release)"
cargo build --quiet --release --manifest-path "$ROOT/Cargo.toml" --bin contrib
cargo build --quiet --release --manifest-path "$ROOT/Cargo.toml" --features bench-tools --bin gen-catalog
CONTRIB="$ROOT/target/release/contrib"

if [ ! -d "$WORK/contrib" ]; then
    say "generating $N plugins into $WORK"
    "$ROOT/target/release/gen-catalog" "$N" "$WORK"
fi

cd "$WORK"
FILES=$(find contrib -name '*.contrib' | wc -l)
BYTES=$(find contrib -name '*.contrib' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
CACHE="$WORK/cache"
rm -rf "$CACHE"
# The cache's key lives in the cache root: keep it here too, never in the
# user's cache folder.
export CONTRIB_CACHE_DIR="$WORK/cache-root"
"$CONTRIB" check contrib --cache-dir "$CACHE" >/dev/null 2>&1 || true   # prime the warm cache

cmds=(
    "cat:find contrib -name '*.contrib' -print0 | xargs -0 cat > /dev/null"
    "sha256sum:find contrib -name '*.contrib' -print0 | xargs -0 sha256sum > /dev/null"
    "contrib check (cold):$CONTRIB check contrib --no-cache --format json > /dev/null || true"
    "contrib check (warm):$CONTRIB check contrib --cache-dir $CACHE --format json > /dev/null || true"
)
command -v taplo >/dev/null && cmds+=("taplo lint (TOML):find toml -name '*.toml' -print0 | xargs -0 taplo lint --no-schema > /dev/null 2>&1 || true")
command -v check-jsonschema >/dev/null && cmds+=("check-jsonschema (JSON):find json -name '*.json' -print0 | xargs -0 check-jsonschema --schemafile schema.json > /dev/null 2>&1 || true")
command -v jsonschema-cli >/dev/null && cmds+=("jsonschema-cli (JSON):find json -name '*.json' -printf '--instance=%p\0' | xargs -0 jsonschema-cli validate schema.json > /dev/null 2>&1 || true")

args=()
for entry in "${cmds[@]}"; do
    args+=(--command-name "${entry%%:*}" "${entry#*:}")
done
say "measuring ($FILES files, $BYTES bytes of manifests)"
hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json "$WORK/results.json" "${args[@]}" >&2

python3 - "$WORK/results.json" "$FILES" "$BYTES" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
files, size = int(sys.argv[2]), int(sys.argv[3])
cat = next(r["mean"] for r in results if r["command"] == "cat")
print(f"\n{files} files, {size / 1e6:.1f} MB of manifests\n")
print(f"| {'tool':<26} | {'time':>9} | {'MB/s':>7} | {'files/s':>9} | {'× cat':>6} |")
print(f"|{'-' * 28}|{'-' * 11}|{'-' * 9}|{'-' * 11}|{'-' * 8}|")
for r in results:
    mean = r["mean"]
    print(f"| {r['command']:<26} | {mean * 1000:>7.0f}ms | {size / mean / 1e6:>7.1f} | {files / mean:>9.0f} | {cat / mean:>6.2f} |")
PY
