#!/usr/bin/env bash
# The TypeScript example host (host.ts) against the provider the Anthropic
# SDK's usual variables name (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY): the
# npm package built from the repository (crates/contrib-node/build.sh), a
# workspace installed with the `contrib` command line in a temporary
# folder (tests/conformance/setup.sh; $CONTRIB_BIN or a cargo build), then
# the host compiled with tsc and run from a copy there, so the repository
# gets no node_modules. Exits 0 when it ran. Works from any directory.
set -euo pipefail

root="$(cd "$(dirname "$0")/../../.." && pwd)"
here="$root/examples/hosts/typescript"
bash "$root/crates/contrib-node/build.sh"
if [ -z "${CONTRIB_BIN:-}" ]; then
    (cd "$root" && cargo build -q --bin contrib)
    export CONTRIB_BIN="$root/target/debug/contrib"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash "$root/tests/conformance/setup.sh" "$work/installed"
# The lock links the package as file:../../../crates/contrib-node: the
# same layout in the copy, the package folder linked to the repository's.
copy="$work/copy/examples/hosts/typescript"
mkdir -p "$copy" "$work/copy/crates"
ln -s "$root/crates/contrib-node" "$work/copy/crates/contrib-node"
cp -r "$here/host.ts" "$here/package.json" "$here/package-lock.json" "$here/tsconfig.json" "$here/skills" "$copy/"
(cd "$copy" && npm ci --no-audit --no-fund --silent && npx tsc)
node "$copy/dist/host.js" "$work/installed/workspace" "$root/examples/runtime"
