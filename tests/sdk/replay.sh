#!/usr/bin/env bash
# The simulator checked end to end: a simulated fleet's requests (contrib's
# layout and the pre-warmed one) sent through the official SDKs (pinned in
# requirements.txt, in a throw-away virtual environment) to the provider
# double (double.py, 127.0.0.1 only) on the simulated clock; the usage the
# double reports must equal the simulator's accounting on every request,
# under each profile: `anthropic` (Messages API, explicit breakpoints),
# `openai` (Chat Completions, automatic caching, gpt-5.5's 24-hour
# retention) and `openai-explicit` (Responses API, GPT-5.6's breakpoints).
#
#   tests/sdk/replay.sh                      # CI: a small fleet, each profile
#   FLEET="--agents 3 --persons 100 --conversations 3 --turns 20 --days 1" \
#       tests/sdk/replay.sh                  # the busy day (benches/replay_busy_day.sh)
#
# CI replays a smaller fleet of the busy day's shape (3 agents × 4 persons ×
# 3 conversations of 1 to 20 turns over one day, the examples' bundles and
# usage file, seed 1) so the step stays within a couple of minutes; the
# busy day itself (about 17,000 requests per profile) is the bench.
# Uses $CONTRIB_BIN, or target/release/contrib, or target/debug/contrib.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
# shellcheck source=tests/contrib-bin.sh
source "$root/tests/contrib-bin.sh"
fleet="${FLEET:---agents 3 --persons 4 --conversations 3 --turns 20 --days 1}"
profiles="${PROFILES:-anthropic openai openai-explicit}"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$contrib" build "$root"/examples/*.contrib -o "$work/bundles" >/dev/null 2>&1
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check -r "$here/requirements.txt"
for profile in $profiles; do
    # shellcheck disable=SC2086 # the fleet's arguments are words
    "$contrib" simulate --bundles "$work/bundles" \
        --usage "$root/examples/usage/support-turns.jsonl" \
        --profile "$profile" --seed 1 $fleet \
        --requests "$work/$profile.jsonl" --format json >/dev/null 2>"$work/simulate.log" ||
        { cat "$work/simulate.log" >&2; exit 1; }
    (cd "$here" && "$work/venv/bin/python" replay.py "$profile" "$work/$profile.jsonl")
done

# The comparison can fail: the first 100 requests with one expected read off
# by 128 tokens must be reported as a disagreement.
if [ -f "$work/anthropic.jsonl" ]; then
    head -100 "$work/anthropic.jsonl" | "$work/venv/bin/python" -c '
import json, sys
for number, line in enumerate(sys.stdin):
    record = json.loads(line)
    if number == 60:
        record["expected"]["read"] += 128
    print(json.dumps(record))' >"$work/tampered.jsonl"
    if (cd "$here" && "$work/venv/bin/python" replay.py anthropic "$work/tampered.jsonl" >/dev/null); then
        echo "replay.py accepted a request whose accounting was tampered with" >&2
        exit 1
    fi
    echo "a tampered accounting is reported, as it must be"
fi
