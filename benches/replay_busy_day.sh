#!/usr/bin/env bash
# The busy day of benches/cache_table.sh (3 agents × 100 persons × 3
# conversations of 1 to 20 turns over one day, seed 1), every request of
# contrib's layout and of the pre-warmed one, replayed through the official
# SDKs to the provider double (tests/sdk/replay.sh) under each profile.
# CI replays a smaller fleet of the same shape; this is the full day
# (about 17,000 requests per profile: minutes, not seconds). Not part of CI.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
FLEET="--agents 3 --persons 100 --conversations 3 --turns 20 --days 1" \
    exec bash "$ROOT/tests/sdk/replay.sh"
