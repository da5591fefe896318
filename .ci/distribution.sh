#!/usr/bin/env bash
# The distribution, as a user gets it, from the release build `.ci/run`
# has just made (target/release):
#
# - the wheel (pypi/pyproject.toml), built by maturin from that release
#   build (only the binary is linked again, by zig against glibc 2.17),
#   tagged manylinux2014 as the release's Linux wheels are
#   (.github/workflows/release.yml, job `wheels`), installed into a fresh
#   virtual environment with no index, and run;
# - a release archive and its .sha256 in the release workflow's layout,
#   served from a local folder, installed by the Action's own install
#   script (action/install.sh), and refused when the checksum does not
#   match; then the Action's check script run with the installed binary;
# - the pre-commit hooks, run by the real pre-commit over a copy of the
#   examples, installing this repository as a user's pre-commit would,
#   with the wheel above standing in for PyPI's: nothing compiled.
#
# Needs python3 with venv, and PyPI for maturin, ziglang, pre-commit and
# setuptools. Each step prints how long it took.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)

step() {
    local started=$SECONDS
    printf '\n==> %s\n' "$*"
    "$@"
    printf '    (%d s)\n' $((SECONDS - started))
}

# The tools, in a virtual environment of their own; setuptools as a wheel
# for the hooks' package, installed below with no index.
step python3 -m venv "$work/tools"
step "$work/tools/bin/pip" install --quiet --disable-pip-version-check maturin ziglang pre-commit
step "$work/tools/bin/pip" download --quiet --disable-pip-version-check --only-binary :all: \
    --dest "$work/wheels" setuptools

# action.yml: every input is used, and every variable the script reads is
# set by the step that runs it; the hooks and the release workflow hold
# what the README promises (pyyaml comes with pre-commit).
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
install = action["runs"]["steps"][0]
assert "install.sh" in install["run"] and "pip" not in install["run"], install
hooks = yaml.safe_load(open(".pre-commit-hooks.yaml"))
assert {hook["id"] for hook in hooks} == {"contrib-check", "contrib-fmt", "contrib-fmt-check"}
assert {hook["language"] for hook in hooks} == {"python"}
release = yaml.safe_load(open(".github/workflows/release.yml"))
jobs = release["jobs"]
wheels = {row["name"] for row in jobs["wheels"]["strategy"]["matrix"]["include"]}
assert wheels >= {"manylinux2014-x86_64", "manylinux2014-aarch64", "musllinux-x86_64",
                  "musllinux-aarch64", "macos-x86_64", "macos-aarch64", "windows-x86_64"}, wheels
archives = {row["target"] for row in jobs["archives"]["strategy"]["matrix"]["include"]}
for target in ["x86_64-unknown-linux-musl", "aarch64-unknown-linux-musl", "x86_64-apple-darwin",
               "aarch64-apple-darwin", "x86_64-pc-windows-msvc"]:
    assert target in archives, f"action/install.sh downloads {target}, which no job builds"
steps = [step.get("uses", "") for step in jobs["github-release"]["steps"]]
assert any(uses.startswith("actions/attest-build-provenance@") for uses in steps), steps
for job in ["pypi", "crates-io"]:
    assert jobs[job]["permissions"] == {"id-token": "write"}, f"{job}: trusted publishing"
    assert "github-release" in jobs[job]["needs"], job
print(f"action.yml: {len(action['inputs'])} inputs, all used; {len(read)} variables, all set")
print(f"release.yml: {len(wheels)} wheels, {len(archives)} archives, provenance, trusted publishing")
PY

# The wheel, from the release build CI already made: maturin runs `cargo
# rustc --profile release --bin contrib`, which finds every dependency and
# the library fresh and only links the stripped binary. The link is zig's,
# against glibc 2.17's symbols (maturin's own `zig cc` wrapper, with zig
# from the ziglang wheel), given to that one rustc call: a manylinux2014
# binary, which maturin audits before it tags the wheel. Not `--zig`:
# maturin then passes `--target` (and zig as the C compiler), which is a
# second, whole release build in target/<triple>. The C in the
# dependencies (ring, blake3), compiled by this machine's C compiler,
# calls nothing newer than glibc 2.17: the link would fail if it did.
cat >"$work/zig-cc" <<SH
#!/bin/sh
PATH="$work/tools/bin:\$PATH" exec maturin zig cc -- -target $(uname -m)-linux-gnu.2.17 "\$@"
SH
chmod +x "$work/zig-cc"
(
    cd pypi
    step "$work/tools/bin/maturin" build --release --quiet --compatibility manylinux2014 \
        --out "$work/wheels" -- -C linker="$work/zig-cc"
)
wheel=$(ls "$work"/wheels/contrib_lang-*.whl)
echo "wheel: ${wheel##*/}"
# The tag the wheel's metadata gives pip, as well as its file name.
"$work/tools/bin/python" - "$wheel" <<'PY'
import sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
name = next(n for n in wheel.namelist() if n.endswith(".dist-info/WHEEL"))
tags = [l.split(": ", 1)[1] for l in wheel.read(name).decode().splitlines() if l.startswith("Tag: ")]
assert any("-manylinux2014_" in tag or "-manylinux_2_17_" in tag for tag in tags), tags
print("WHEEL tags:", ", ".join(tags))
PY

# A fresh environment gets a working `contrib` from the wheel alone.
step python3 -m venv "$work/user"
step "$work/user/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
step "$work/user/bin/contrib" --version
step "$work/user/bin/contrib" check --no-cache examples/

# A release as the workflow publishes it (job `archives`), from the
# wheel's binary: contrib-<target>.tar.xz holding contrib-<target>/contrib,
# and its .sha256. On this machine the Action's install script asks for
# the Linux x86-64 archive, the static musl one in a release; here it holds
# the manylinux binary, which runs the same.
target=x86_64-unknown-linux-musl
release="$work/releases/v$version"
mkdir -p "$release/contrib-$target"
cp "$work/user/bin/contrib" README.md CHANGELOG.md LICENSE-MIT LICENSE-APACHE "$release/contrib-$target/"
(cd "$release" && tar -cJf "contrib-$target.tar.xz" "contrib-$target" &&
    sha256sum "contrib-$target.tar.xz" >"contrib-$target.tar.xz.sha256" && rm -r "contrib-$target")

install_action() {
    env RUNNER_OS=Linux RUNNER_ARCH=X64 CONTRIB_VERSION="$version" \
        CONTRIB_RELEASES="file://$1" CONTRIB_INSTALL_DIR="$2" GITHUB_PATH="$work/github-path" \
        bash action/install.sh
}
step install_action "$work/releases" "$work/installed"
grep -qx "$work/installed" "$work/github-path"
"$work/installed/contrib" --version | grep -q "$version"

# The same archive with a checksum that does not match is refused, and
# nothing is installed.
cp -R "$work/releases" "$work/tampered"
echo "0000000000000000000000000000000000000000000000000000000000000000  contrib-$target.tar.xz" \
    >"$work/tampered/v$version/contrib-$target.tar.xz.sha256"
if install_action "$work/tampered" "$work/refused" 2>"$work/refusal"; then
    echo "error: the install script installed an archive whose checksum does not match" >&2
    exit 1
fi
grep -q "does not match its published SHA-256" "$work/refusal"
[ ! -e "$work/refused/contrib" ]
echo "a checksum mismatch is refused: $(sed 's/^::error[^:]*:://' "$work/refusal")"

# The Action's script with the installed binary on the PATH, against a
# copy of the examples, writing SARIF (tests/it/distribution.rs validates
# the same script's SARIF against the schema with format checks on).
mkdir -p "$work/action"
cp -R examples "$work/action/examples"
(
    cd "$work/action"
    export PATH="$work/installed:$PATH" GITHUB_OUTPUT="$work/action/outputs"
    export CONTRIB_COMMAND=check CONTRIB_PATHS="examples/code-review.contrib examples/contrib.toml"
    step bash "$root/action/contrib-action.sh"
    grep -q '"version": "2.1.0"' contrib.sarif
    grep -q 'sarif-file=contrib.sarif' outputs
)

# The hooks, as a user's repository runs them: a git repository holding the
# examples (not the broken ones), whose .pre-commit-config.yaml points at
# this checkout at HEAD. pre-commit installs the checkout with pip: its
# pyproject.toml is the `contrib-lang` wheel of this version, found here
# in the folder of wheels (no index: nothing from PyPI, nothing compiled).
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
    export PRE_COMMIT_HOME="$work/pre-commit-cache" PIP_NO_INDEX=1 PIP_FIND_LINKS="$work/wheels"
    step "$work/tools/bin/pre-commit" run --all-files
)
