#!/usr/bin/env bash
# The Python module in CI, its wheel built once: maturin builds it
# (release, on the release build of the library) into a fresh virtual
# environment in a temporary folder; pytest runs its tests
# (crates/contrib-python/tests: the conformance corpus, a
# conversation started in Rust resumed in Python, the API's errors and
# callables); mypy checks the tests and the example hosts against the
# stubs; then the example hosts run against a local provider
# (examples/hosts/ci.sh) with the same wheel. Prints the wheel's size and
# build time. Needs python3 with venv and PyPI; uses $CONTRIB_BIN.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Not a default member (building it needs Python): linted here, with the
# runtime as the wheel has it.
(cd "$root" && cargo clippy -q -p contrib-python -- -D warnings)

python3 -m venv "$work/venv"
pip=("$work/venv/bin/pip" install --quiet --disable-pip-version-check)
"${pip[@]}" "maturin>=1.5,<2.0" "pytest>=8,<9" "mypy>=1.10,<2" -r "$root/tests/sdk/requirements.txt"

# The runtime crate and the layers below it (no language, no command
# line), as the release build .ci/run has just made them, so only PyO3 and
# the module are compiled.
started=$SECONDS
"$work/venv/bin/maturin" build --quiet --release -m "$here/Cargo.toml" --out "$work/wheels"
wheel=$(ls "$work"/wheels/contrib_runtime-*.whl)
echo "wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB, built in $((SECONDS - started)) s"
"${pip[@]}" "$wheel"

(cd "$here/tests" && "$work/venv/bin/python" -m pytest -q -p no:cacheprovider)
"$work/venv/bin/mypy" --strict --no-incremental --cache-dir=/dev/null \
    "$here/python/contrib_runtime" >/dev/null
(cd "$root/examples/hosts/python" && "$work/venv/bin/mypy" --no-incremental --cache-dir=/dev/null .)

CONTRIB_PYTHON_WHEEL="$wheel" bash "$root/examples/hosts/ci.sh"
