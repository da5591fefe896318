#!/usr/bin/env bash
# Precision of `contrib check` on real plugin collections nobody here
# wrote: every finding on the sources of tests/data/precision/ (public
# Claude Code marketplaces and Copilot collections, each at a recorded
# commit, under its own licence) is looked up in the labelled set
# (labels.tsv: true when the plugin's author would fix it, false when not,
# each with a one-line reason), and precision is printed per rule and
# overall, for the tuning part and, separately, for the held-out part that
# no rule was tuned on. Opt-in rules are turned on for the run and shown
# apart from the default set.
#
#   benches/precision.sh            # the tables
#   benches/precision.sh --check    # also fails on an unlabelled finding, or
#                                   # a default rule with 10 or more findings
#                                   # (or the whole default set) under 0.9
#
# Uses $CONTRIB_BIN, else target/release/contrib (built when missing).
# Needs python3.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
data="$root/tests/data/precision"
bin="${CONTRIB_BIN:-$root/target/release/contrib}"
if [ ! -x "$bin" ]; then
    (cd "$root" && cargo build --release --quiet)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tail -n +2 "$data/sources.tsv" | while IFS=$'\t' read -r source _; do
    tree="$work/$source"
    mkdir -p "$tree"
    tar -xzf "$data/sources/$source.tar.gz" -C "$tree"
    # The repository's other files (scripts, images), as empty files: what
    # links and references resolve against.
    while IFS= read -r path; do
        [ -n "$path" ] || continue
        mkdir -p "$tree/$(dirname "$path")"
        : >"$tree/$path"
    done <"$tree/PATHS"
    rm "$tree/PATHS"
    cp "$data/contrib.toml" "$tree/contrib.toml"
    status=0
    "$bin" check --no-cache --format json "$tree" >"$work/$source.json" 2>"$work/$source.err" || status=$?
    if [ "$status" -gt 1 ]; then
        echo "error: contrib check failed on $source (exit $status):" >&2
        cat "$work/$source.err" >&2
        exit 1
    fi
done

python3 "$root/benches/support/precision.py" "$data" "$work" "$@"
