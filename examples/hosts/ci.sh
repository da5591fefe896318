#!/usr/bin/env bash
# The example hosts in CI: a local provider on 127.0.0.1
# (examples/hosts/provider.py) answers like Anthropic and OpenAI, with one
# tool call per conversation, and records what arrives; run.sh runs every
# host against it; check_recording.py then checks the requests (the same
# cached system blocks for both persons of the agent, at most four
# breakpoints, every tool call answered, a resumed conversation telling
# only what changed). Nothing leaves the loopback.
#
#     bash examples/hosts/ci.sh
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
# The checker first: it must refuse recordings that break its rules.
python3 -m unittest -q "$here/test_check_recording.py"
work=$(mktemp -d)
python3 "$here/provider.py" "$work/recording.jsonl" "$work/url" &
provider=$!
trap 'kill "$provider" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do
    [ -s "$work/url" ] && break
    sleep 0.1
done
url=$(cat "$work/url")

ANTHROPIC_BASE_URL="$url" ANTHROPIC_API_KEY=local-test-key \
    OPENAI_BASE_URL="$url/v1" OPENAI_API_KEY=local-test-key \
    bash "$here/run.sh"
# The Python hosts label their conversations sam, priya, sam-resumed; the
# TypeScript host ts:sam, ts:priya, ts:sam-resumed.
python3 "$here/check_recording.py" "$work/recording.jsonl" sam-resumed ts:sam-resumed
