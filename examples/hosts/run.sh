#!/usr/bin/env bash
# The example hosts, against the providers in the SDKs' usual environment
# (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, OPENAI_BASE_URL, OPENAI_API_KEY):
# a workspace installed with the command line in a temporary folder
# (tests/conformance/setup.sh), the Python package built into a fresh
# virtual environment with the pinned SDKs, the Python hosts run, then the
# TypeScript host (examples/hosts/typescript/run.sh WORKSPACE). Exits 0
# when all ran.
#
#     bash examples/hosts/run.sh
#
# Uses $CONTRIB_BIN (or builds the CLI) and $CONTRIB_PYTHON_WHEEL (a wheel
# built before; else maturin builds one, release). examples/hosts/ci.sh
# runs it against a local provider.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

bash "$root/tests/conformance/setup.sh" "$work"

python3 -m venv "$work/venv"
pip=("$work/venv/bin/pip" install --quiet --disable-pip-version-check)
"${pip[@]}" -r "$root/tests/sdk/requirements.txt"
wheel="${CONTRIB_PYTHON_WHEEL:-}"
if [ -z "$wheel" ]; then
    "${pip[@]}" "maturin>=1.5,<2.0"
    "$work/venv/bin/maturin" build --quiet --release \
        -m "$root/crates/contrib-python/Cargo.toml" --out "$work/wheels"
    wheel=$(ls "$work"/wheels/contrib_runtime-*.whl)
fi
"${pip[@]}" "$wheel"

"$work/venv/bin/python" "$here/python/anthropic_host.py" "$work/workspace"
"$work/venv/bin/python" "$here/python/openai_host.py" "$work/workspace"

if [ -f "$here/typescript/run.sh" ]; then
    bash "$here/typescript/run.sh" "$work/workspace"
elif [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ]; then
    echo "error: examples/hosts/typescript/run.sh is missing, and CI=true" >&2
    exit 1
else
    echo "note: examples/hosts/typescript/run.sh is missing: the TypeScript host did not run" >&2
fi
