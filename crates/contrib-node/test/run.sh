#!/usr/bin/env bash
# The npm package as CI checks it: its native module built (../build.sh),
# and its tests with node's test runner: the API over a bare
# workspace, and the conformance corpus (tests/conformance), whose
# workspace is installed with $CONTRIB_BIN (or target/{release,debug}/contrib).
set -euo pipefail

cd "$(dirname "$0")/.."
bash build.sh
node --test test/runtime.test.mjs test/conformance.test.mjs
