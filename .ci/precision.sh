#!/usr/bin/env bash
# The labelled precision set checked against the release build: every
# finding on the public collections of tests/data/precision/ has a label,
# and the default rules keep a precision of 0.9 or more, overall and per
# rule with 10 findings or more, in the tuning and the held-out part
# (benches/precision.sh --check).
set -euo pipefail
cd "$(dirname "$0")/.."
CONTRIB_BIN="${CONTRIB_BIN:-$PWD/target/release/contrib}" bash benches/precision.sh --check
