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
# running, and the script counts the crates that `cargo test` compiles
# again after `cargo run` built them: 0 when the two builds agree on every
# dependency's features (Cargo.toml, the lines after `regex-automata`).
# It prints the load averages before and after: on a machine shared with
# other builds the wall times are longer than on an idle one.
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
export CARGO_TARGET_DIR="$work/contrib/target" CARGO_TERM_COLOR=never

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

# Registry crates (name and version) each build compiled.
compiled() { grep -E '^ +Compiling [^ ]+ v[0-9][^ ]*$' "$1" | awk '{print $2, $3}' | sort -u; }
compiled "$work/run.log" >"$work/run.crates"
compiled "$work/test-build.log" >"$work/test.crates"
again=$(comm -12 "$work/run.crates" "$work/test.crates" | grep -v "^contrib \|^toktally \|^contrib-runtime " || true)

minutes() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }
echo "cargo run -- check examples/: $(minutes "$run") ($(wc -l <"$work/run.crates") crates compiled)"
echo "cargo test: $(minutes $((build + tests))) ($(minutes "$build") building, $(wc -l <"$work/test.crates") crates compiled; $(minutes "$tests") running)"
# By name: a crate listed here may be a second build of it with other
# features for a test-only crate (either for itertools, miniz_oxide for
# flate2, serde_core for bpe's build script), not a rebuild of cargo run's.
echo "crates both compiled: $(printf '%s' "$again" | grep -c . || true)"
[ -z "$again" ] || printf '%s\n' "$again" | sed 's/^/  /'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
[ -z "${KEEP:-}" ] || echo "kept: $work"
