#!/usr/bin/env bash
# The example host, as a platform runs one: plugins published to a
# catalog and installed into a workspace with the `contrib` command line,
# in a temporary folder (tests/conformance/setup.sh, which the conformance
# corpus uses too); then the host (examples/host/main.rs, on the
# contrib-runtime crate) opens the workspace and runs its conversations.
# Works from any directory; uses $CONTRIB_BIN or builds the CLI.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
if [ -z "${CONTRIB_BIN:-}" ]; then
    cargo build -q --bin contrib
    export CONTRIB_BIN="$root/target/debug/contrib"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash tests/conformance/setup.sh "$work"
# Without `-p`, the default members' features unify: the library the CLI
# built is reused rather than built again without its `cli` feature.
cargo run -q --example host -- "$work/workspace"
