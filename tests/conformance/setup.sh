#!/usr/bin/env bash
# Prepares the conformance corpus's workspace in WORKDIR, as a platform
# installs one: the example plugins published to a catalog
# (WORKDIR/catalog) and installed with the `contrib` command line into
# WORKDIR/workspace (a copy of examples/workspace). Every runner of
# tests/conformance (Rust, Python, TypeScript) opens WORKDIR/workspace.
#
#     bash tests/conformance/setup.sh WORKDIR
#
# Uses $CONTRIB_BIN, or builds the CLI with cargo. WORKDIR must be new or
# empty. Works from any directory.
set -euo pipefail

if [ $# -ne 1 ]; then
    echo "usage: setup.sh WORKDIR" >&2
    exit 2
fi
work="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
contrib="${CONTRIB_BIN:-}"
if [ -z "$contrib" ]; then
    (cd "$root" && cargo build -q --bin contrib)
    contrib="$root/target/debug/contrib"
fi
mkdir -p "$work"
work="$(cd "$work" && pwd)"

cp -r "$root/examples/workspace" "$work/workspace"
for plugin in session-facts retrieved-content-hygiene workspace-memory conversation-clock eager-tools; do
    "$contrib" publish "$root/examples/$plugin.contrib" --catalog "$work/catalog" >/dev/null 2>&1
done
for plugin in acme/session-facts@2.0.0 acme/retrieved-content-hygiene@1.0.0 \
    acme/workspace-memory@1.2.0 acme/clock@2.0.0 acme/research-kit@0.9.0; do
    "$contrib" install --catalog "$work/catalog" "$plugin" \
        --workspace "$work/workspace" --as operator --yes >/dev/null
done
