#!/usr/bin/env bash
# What trust costs at run time (issue 13): composing what a workspace
# approved, against composing the same bundles unapproved.
#
#   benches/trust.sh
#
# Publishes every example into a catalog under target/bench-trust, installs
# each into a workspace (examples/workspace/contrib.toml) with the
# authority its owner needs, then measures with hyperfine, in one run:
#   compose --bundles    the catalog's newest bundles, nothing re-checked
#                        (the baseline: what loading cost before issue 13)
#   compose --workspace  exactly what contrib.lock pins: digests checked,
#                        each bundle read back and re-checked under the
#                        workspace's policy, the policy and locks read
#                        again before every turn
#   install              one plugin: fetch, verify, re-check, preview, lock
# and prints each one's ratio to the baseline.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/target/bench-trust"
say() { printf '\n== %s\n' "$*" >&2; }

command -v hyperfine >/dev/null || { echo "hyperfine is required (apt-get install hyperfine)" >&2; exit 2; }

say "building contrib (release)"
cargo build --quiet --release --manifest-path "$ROOT/Cargo.toml" --bin contrib
CONTRIB="$ROOT/target/release/contrib"

rm -rf "$WORK"
mkdir -p "$WORK/ws"
cp "$ROOT/examples/workspace/contrib.toml" "$WORK/ws/contrib.toml"
cd "$WORK"
export SOURCE_DATE_EPOCH=1772442000
for manifest in "$ROOT"/examples/*.contrib; do
    "$CONTRIB" publish "$manifest" --catalog catalog >/dev/null
    plugin=$(awk '/^plugin /{print $2 "@" $3; exit}' "$manifest")
    owner=$(awk '$1 == "owner" {print $2; exit}' "$manifest")
    "$CONTRIB" install --catalog catalog "$plugin" --workspace ws --as "$owner" --yes >/dev/null
done
PLUGINS=$(grep -c '^\[\[installed\]\]' ws/contrib.lock)
SESSION="$ROOT/examples/runtime/session.toml"
TURNS="$ROOT/examples/runtime/turns.toml"

say "measuring ($PLUGINS plugins installed)"
hyperfine --warmup 2 --runs "${RUNS:-20}" --export-json "$WORK/results.json" \
    --command-name "compose --bundles (unapproved)" \
    "$CONTRIB compose --bundles catalog --session $SESSION --turns $TURNS --format json > /dev/null" \
    --command-name "compose --workspace (approved, re-checked)" \
    "$CONTRIB compose --workspace ws --session $SESSION --turns $TURNS --format json > /dev/null" \
    --command-name "install one plugin" \
    "$CONTRIB install --catalog catalog acme/code-review@1.4.0 --workspace ws --as agent-author --yes > /dev/null" >&2

python3 - "$WORK/results.json" "$PLUGINS" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
base = results[0]["mean"]
print(f"\n{sys.argv[2]} example plugins installed, examples/runtime/turns.toml\n")
print(f"| {'command':<44} | {'time':>8} | {'× unapproved':>12} |")
print(f"|{'-' * 46}|{'-' * 10}|{'-' * 14}|")
for r in results:
    print(f"| {r['command']:<44} | {r['mean'] * 1000:>6.1f}ms | {r['mean'] / base:>12.2f} |")
PY
