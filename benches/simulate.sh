#!/usr/bin/env bash
# The cache simulation's figures are owned by benches/cache_table.sh (and
# quoted in docs/cache.md): every layout `contrib simulate` compares, on
# three fleets, under each provider profile. This name is kept so that
# older instructions still work; it runs that script.
#
#     benches/simulate.sh                       # builds the release binary
#     CONTRIB=target/debug/contrib benches/simulate.sh
set -euo pipefail
exec "$(dirname "$0")/cache_table.sh" "$@"
