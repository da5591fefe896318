#!/usr/bin/env bash
# The example host, as a platform runs one: plugins published to a
# catalog and installed into a workspace with the `contrib` command line,
# in a temporary folder; then the host (examples/host/main.rs, on the
# contrib-runtime crate) opens the workspace and runs its conversations.
# Works from any directory; uses $CONTRIB_BIN or builds the CLI.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
contrib="${CONTRIB_BIN:-}"
if [ -z "$contrib" ]; then
    cargo build -q --bin contrib
    contrib="$root/target/debug/contrib"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cp -r examples/workspace "$work/workspace"
for plugin in session-facts retrieved-content-hygiene workspace-memory conversation-clock eager-tools; do
    "$contrib" publish "examples/$plugin.contrib" --catalog "$work/catalog" >/dev/null 2>&1
done
for plugin in acme/session-facts@2.0.0 acme/retrieved-content-hygiene@1.0.0 \
    acme/workspace-memory@1.2.0 acme/clock@2.0.0 acme/research-kit@0.9.0; do
    "$contrib" install --catalog "$work/catalog" "$plugin" \
        --workspace "$work/workspace" --as operator --yes >/dev/null
done
# Without `-p`, the default members' features unify: the library the CLI
# built is reused rather than built again without its `cli` feature.
cargo run -q --example host -- "$work/workspace"
