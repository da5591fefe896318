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
# shellcheck source=tests/contrib-bin.sh
source "$root/tests/contrib-bin.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$contrib" build "$root"/examples/*.contrib -o "$work/bundles" >/dev/null 2>&1
# The examples' conversation on each provider's models: Claude on
# Anthropic; on OpenAI's Responses, GPT-5.6 (explicit breakpoints, 24-hour
# retention); on Chat Completions, GPT-5.5 then GPT-5.4 (automatic caching,
# the retention gpt-5.5 requires).
conversation() { # WIRE FIRST-MODEL SWITCHED-MODEL
    sed "s/claude-sonnet-4-5/$2/" "$root/examples/runtime/session.toml" >"$work/$1.session.toml"
    sed "s/claude-opus-4-1/$3/" "$root/examples/runtime/turns.toml" >"$work/$1.turns.toml"
    "$contrib" compose --bundles "$work/bundles" \
        --session "$work/$1.session.toml" \
        --turns "$work/$1.turns.toml" \
        --tools "$root/examples/runtime/tools.json" \
        --wire "$1" >"$work/$1.jsonl"
    args+=("$1=$work/$1.jsonl")
}
args=()
conversation anthropic claude-sonnet-4-5 claude-opus-4-1
conversation openai-responses gpt-5.6-terra gpt-5.6-sol
conversation openai-chat gpt-5.5 gpt-5.4

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
"$work/venv/bin/python" "$here/check_bodies.py" "${args[@]}"

# The TypeScript SDKs, from the committed lock, into a copy of the folder
# so the repository gets no node_modules.
cp "$here/node/package.json" "$here/node/package-lock.json" "$here/node/send.mjs" "$work/"
(cd "$work" && npm ci --no-audit --no-fund --silent && node send.mjs "${args[@]}")
