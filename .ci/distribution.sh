#!/usr/bin/env bash
# The distribution, as a user gets it, from the release build `.ci/run`
# has just made (target/release): the Python wheel installed into a fresh
# virtual environment, the pre-commit hooks run by the real pre-commit over
# a copy of the examples, and the GitHub Action's script run with the
# wheel's binary. Needs python3 with venv, and PyPI for maturin and
# pre-commit. Each step prints how long it took.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

step() {
    local started=$SECONDS
    printf '\n==> %s\n' "$*"
    "$@"
    printf '    (%d s)\n' $((SECONDS - started))
}

# The tools, in a virtual environment of their own.
step python3 -m venv "$work/tools"
step "$work/tools/bin/pip" install --quiet --disable-pip-version-check maturin pre-commit

# action.yml: every input is used, and every variable the script reads is
# set by the step that runs it (pyyaml comes with pre-commit).
step "$work/tools/bin/python" - <<'PY'
import re, yaml
action = yaml.safe_load(open("action.yml"))
text = open("action.yml").read()
for name in action["inputs"]:
    assert f"inputs.{name}" in text, f"input `{name}` is never used"
run = next(step for step in action["runs"]["steps"] if step.get("id") == "run")
script = open("action/contrib-action.sh").read()
read = set(re.findall(r"\$\{?(CONTRIB_[A-Z_]+)", script))
assert read <= set(run["env"]), f"not set by action.yml: {read - set(run['env'])}"
hooks = yaml.safe_load(open(".pre-commit-hooks.yaml"))
assert {hook["id"] for hook in hooks} == {"contrib-check", "contrib-fmt", "contrib-fmt-check"}
print(f"action.yml: {len(action['inputs'])} inputs, all used; {len(read)} variables, all set")
PY

# The wheel, from the release build CI already made: maturin runs
# `cargo rustc --profile release --bin contrib`, which finds every
# dependency and the library fresh and only links the stripped binary.
step "$work/tools/bin/maturin" build --release --quiet --out "$work/wheels"

# A fresh environment gets a working `contrib` from the wheel alone.
step python3 -m venv "$work/user"
step "$work/user/bin/pip" install --quiet --disable-pip-version-check --no-index "$work"/wheels/*.whl
step "$work/user/bin/contrib" --version
step "$work/user/bin/contrib" check --no-cache examples/

# The Action's script with the wheel's binary on the PATH, against a copy
# of the examples, writing SARIF (tests/it/distribution.rs validates the same
# script's SARIF against the schema with format checks on).
mkdir -p "$work/action"
cp -R examples "$work/action/examples"
(
    cd "$work/action"
    export PATH="$work/user/bin:$PATH" GITHUB_OUTPUT="$work/action/outputs"
    export CONTRIB_COMMAND=check CONTRIB_PATHS="examples/code-review.contrib examples/contrib.toml"
    step bash "$root/action/contrib-action.sh"
    grep -q '"version": "2.1.0"' contrib.sarif
    grep -q 'sarif-file=contrib.sarif' outputs
)

# The hooks, as a user's repository runs them: a git repository holding the
# examples (not the broken ones), whose .pre-commit-config.yaml points at
# this checkout at HEAD. pre-commit installs the hook's environment with
# pip, which builds the wheel with maturin; CARGO_TARGET_DIR shares this
# checkout's build, so only the crate itself is compiled again.
repo="$work/hooks"
mkdir -p "$repo"
cp examples/*.contrib examples/contrib.toml "$repo/"
cat >"$repo/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $root
    rev: $(git rev-parse HEAD)
    hooks:
      - id: contrib-check
      - id: contrib-fmt-check
YAML
(
    cd "$repo"
    git init --quiet
    git add -A
    export PRE_COMMIT_HOME="$work/pre-commit-cache" CARGO_TARGET_DIR="$root/target"
    step "$work/tools/bin/pre-commit" run --all-files
)
