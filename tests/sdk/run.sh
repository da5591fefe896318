#!/usr/bin/env bash
# The request bodies of the examples' conversation (examples/runtime), for
# each wire, checked by the providers' official SDKs: validated against the
# Python SDKs' request types, and sent through the Python and TypeScript
# clients to a local provider on 127.0.0.1; what arrives must equal what
# `contrib compose --wire` printed. Nothing leaves the loopback.
#
# Needs python3 with venv and PyPI, node with npm and the npm registry;
# uses $CONTRIB_BIN, or target/release/contrib, or target/debug/contrib.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
contrib="${CONTRIB_BIN:-}"
if [ -z "$contrib" ]; then
    for candidate in "$root/target/release/contrib" "$root/target/debug/contrib"; do
        if [ -x "$candidate" ]; then contrib=$candidate; break; fi
    done
fi
[ -n "$contrib" ] || { echo "no contrib binary: build it first (cargo build)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$contrib" build "$root"/examples/*.contrib -o "$work/bundles" >/dev/null
args=()
for wire in anthropic openai-responses openai-chat; do
    "$contrib" compose --bundles "$work/bundles" \
        --session "$root/examples/runtime/session.toml" \
        --turns "$root/examples/runtime/turns.toml" \
        --tools "$root/examples/runtime/tools.json" \
        --wire "$wire" >"$work/$wire.jsonl"
    args+=("$wire=$work/$wire.jsonl")
done

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$work/venv/bin/python" "$here/check_bodies.py" "${args[@]}"

# The TypeScript SDKs, from the committed lock, into a copy of the folder
# so the repository gets no node_modules.
cp "$here/node/package.json" "$here/node/package-lock.json" "$here/node/send.mjs" "$work/"
(cd "$work" && npm ci --no-audit --no-fund --silent && node send.mjs "${args[@]}")
