#!/usr/bin/env bash
# The README's quick start, timed on a fresh clone: this checkout's HEAD
# cloned into a temporary folder, built into a target folder inside it
# (nothing reused from this checkout's build; crates already downloaded to
# CARGO_HOME are reused, so the network is not timed), then the two
# commands as the README gives them:
#
#   cargo run -- check examples/
#   cargo test
#
# `cargo test` is timed in two parts, building (`cargo test --no-run`) and
# running. Both builds are verbose (CARGO_TERM_VERBOSE, the same commands)
# so that each rustc invocation is in the logs; the script then sorts what
# `cargo test` compiles of a crate `cargo run` also compiled: the same
# crate with the same features and options compiled again (a rebuild: its
# dependencies differ) or with other features (a second copy). Both are 0
# when the two builds agree on every dependency's features (Cargo.toml,
# the lines after `hashbrown` and `[build-dependencies]`).
# It prints the load averages before and after: on a machine shared with
# other builds the wall times are longer than on an idle one. Needs python3
# (to read rustc's command lines).
#
#   benches/quickstart.sh            # prints the figures the README quotes
#   KEEP=1 benches/quickstart.sh     # keeps the clone and its logs
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
if [ -z "${KEEP:-}" ]; then
    trap 'rm -rf "$work"' EXIT
fi
# The clone's target folder: never this checkout's, nor a shared one.
unset CARGO_TARGET_DIR CARGO_BUILD_TARGET_DIR
export CARGO_TARGET_DIR="$work/contrib/target" CARGO_TERM_COLOR=never CARGO_TERM_VERBOSE=true

git clone --quiet --no-local "$root" "$work/contrib"
cd "$work/contrib"
cargo fetch --locked --quiet

echo "machine: $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# Runs a command with its output in a log; prints its wall time in seconds.
timed() {
    local log="$1" started=$SECONDS
    shift
    "$@" >"$log" 2>&1 || { tail -30 "$log" >&2; exit 1; }
    echo $((SECONDS - started))
}

run=$(timed "$work/run.log" cargo run -- check examples/)
build=$(timed "$work/test-build.log" cargo test --no-run)
tests=$(timed "$work/test-run.log" cargo test)

# The crates each build compiled (`Compiling` lines: name and version).
compiled() { grep -E '^ +Compiling [^ ]+ v[0-9][^ ]*$' "$1" | awk '{print $2, $3}' | sort -u; }
compiled "$work/run.log" >"$work/run.crates"
compiled "$work/test-build.log" >"$work/test.crates"

# What `cargo test` compiled of the crates `cargo run` compiled, from
# rustc's command lines: a unit is its source file, crate type, features,
# optimisation level; test harnesses, which `cargo run` never builds, are
# left out.
units() {
    python3 - "$1" <<'PY'
import shlex, sys
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if "Running `" not in line or "--crate-name" not in line:
        continue
    words = shlex.split(line.split("Running `", 1)[1].rsplit("`", 1)[0])
    if "--test" in words:
        continue
    name = words[words.index("--crate-name") + 1]
    source = next(w for w in words if w.endswith(".rs") and not w.startswith("-"))
    features = sorted(w for w in words if w.startswith('feature="'))
    options = [w for w in words if w.startswith("opt-level=")]
    kinds = [words[i + 1] for i, w in enumerate(words) if w == "--crate-type"]
    print(f"{source}\t{name} {' '.join(kinds + options)} {','.join(features)}")
PY
}
units "$work/run.log" | sort -u >"$work/run.units"
units "$work/test-build.log" | sort -u >"$work/test.units"
again=$(comm -12 "$work/run.units" "$work/test.units" | cut -f1)
copies=$(comm -13 "$work/run.units" "$work/test.units" | cut -f1 | sort -u \
    | comm -12 - <(cut -f1 "$work/run.units" | sort -u))

minutes() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }
echo "cargo run -- check examples/: $(minutes "$run") ($(wc -l <"$work/run.crates") crates compiled)"
echo "cargo test: $(minutes $((build + tests))) ($(minutes "$build") building, $(wc -l <"$work/test.crates") crates compiled; $(minutes "$tests") running)"
echo "compiled again by cargo test, same features: $(printf '%s' "$again" | grep -c . || true)"
[ -z "$again" ] || printf '%s\n' "$again" | sed 's#.*/registry/src/[^/]*/##; s/^/  /'
echo "compiled again by cargo test, other features: $(printf '%s' "$copies" | grep -c . || true)"
[ -z "$copies" ] || printf '%s\n' "$copies" | sed 's#.*/registry/src/[^/]*/##; s/^/  /'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "${KEEP:-}" ] || echo "kept: $work"
