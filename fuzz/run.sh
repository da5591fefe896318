#!/usr/bin/env bash
# Runs one fuzz target for a while, its corpus seeded from examples/, the
# editor samples and the hostile seeds in fuzz/seeds/ (for bundle_load: the
# examples, built into bundles; for lsp_frames and frontmatter: their own
# seeds; for toktally: the files of ../shared/corpus, with the dictionary of
# the split patterns' hard cases). Usage: fuzz/run.sh TARGET SECONDS [more libFuzzer flags]
#
# SANITIZER=address (cargo-fuzz's default) catches memory errors in unsafe
# code; the crate has none of its own, so SANITIZER=none, several times
# faster, is the default here.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
target="$1"
seconds="$2"
shift 2
corpus="$here/corpus/$target"
mkdir -p "$corpus"
case "$target" in
bundle_load)
    # Bundles: the examples, built.
    built="$(mktemp -d)"
    cargo run -q --release --manifest-path "$here/../Cargo.toml" -- build "$here"/../examples/*.contrib -o "$built" 2>/dev/null
    find "$built" -name '*.bundle.json' -exec cp {} "$corpus/" \;
    rm -rf "$built"
    ;;
lsp_frames | frontmatter)
    cp "$here/seeds/$target"/* "$corpus/"
    ;;
toktally)
    # Real text, cut to 4 kB so that runs stay fast; without the shared
    # corpus, the examples.
    shared="$here/../../shared/corpus"
    [ -d "$shared" ] || shared="$here/../examples"
    find "$shared" -type f | while read -r file; do
        head -c 4096 "$file" > "$corpus/$(basename "$file")-$(printf '%s' "$file" | cksum | cut -d' ' -f1)"
    done
    ;;
*)
    find "$here/../examples" "$here/../editors/vscode/test" -name '*.contrib' -exec cp {} "$corpus/" \;
    cp "$here/seeds/manifests"/* "$corpus/"
    ;;
esac
dict="$here/contrib.dict"
if [ "$target" = toktally ]; then
    dict="$here/toktally.dict"
fi
cd "$here"
exec cargo +nightly fuzz run -s "${SANITIZER:-none}" "$target" "$corpus" -- \
    -dict="$dict" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 "$@"
