#!/usr/bin/env bash
# The cache simulation docs/runtime.md quotes: the examples built into
# bundles, then `contrib simulate` over 3 agents × 8 persons × 4
# conversations × 20 turns (seed 1) under each shipped cache profile. The
# figures are counts, not timings, so any build gives the same ones.
#
#     benches/simulate.sh                       # builds the release binary
#     CONTRIB=target/debug/contrib benches/simulate.sh
set -euo pipefail
cd "$(dirname "$0")/.."

CONTRIB=${CONTRIB:-target/release/contrib}
if [ ! -x "$CONTRIB" ]; then
    cargo build -q --release
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$CONTRIB" build examples/*.contrib -o "$work/bundles" > /dev/null 2>&1
for profile in anthropic openai none; do
    echo "== profile $profile"
    "$CONTRIB" simulate --bundles "$work/bundles" --agents 3 --persons 8 \
        --conversations 4 --turns 20 --seed 1 --profile "$profile" 2>&1
    echo
done
