#!/usr/bin/env bash
# The README's pictures of the pages `--html` writes, made from the
# examples: an update's approval screen (`contrib install --html`) and a
# simulation (`contrib simulate --html`), screenshotted in headless
# Chromium into docs/images/. Run from anywhere:
#
#     docs/screenshots.sh            # needs chromium (or CONTRIB_CHROMIUM)
#
# The pages are deterministic (SOURCE_DATE_EPOCH, a fixed seed), so the
# pictures change only when the pages do.
set -euo pipefail

cd "$(dirname "$0")/.."
browser=${CONTRIB_CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}
if [ -z "$browser" ]; then
    echo "no Chromium found: install chromium or set CONTRIB_CHROMIUM" >&2
    exit 2
fi
cargo build -q
contrib="$PWD/target/debug/contrib"
images="$PWD/docs/images"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1772409600 NO_COLOR=1

shoot() { # PAGE PNG HEIGHT
    "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
        --user-data-dir="$work/profile" --window-size=1000,"$3" \
        --screenshot="$2" "file://$1" >/dev/null 2>&1
    echo "wrote $2"
}

# An update that asks for more: version 2.1.0 of the clock runs a tool
# that reaches a host, which the workspace approved 2.0.0 without.
mkdir -p "$work/workspace"
cp examples/contrib.toml "$work/workspace/contrib.toml"
"$contrib" publish --catalog "$work/catalog" --config examples/contrib.toml examples/conversation-clock.contrib >/dev/null 2>&1
(cd "$work" && "$contrib" install acme/clock@2.0.0 --catalog catalog --workspace workspace --as operator --yes >/dev/null)
sed -e 's/acme\/clock 2.0.0/acme\/clock 2.1.0/' \
    -e 's/budget 40 tokens/budget 60 tokens/' \
    -e 's/when date-crossed/when date-crossed\n        reach with-person/' \
    examples/conversation-clock.contrib > "$work/clock.contrib"
"$contrib" publish --catalog "$work/catalog" --config examples/contrib.toml "$work/clock.contrib" >/dev/null 2>&1
# From inside the work folder, so the page names the catalog `catalog`
# rather than a temporary path. It needs approval, so it exits 3.
(cd "$work" && "$contrib" install acme/clock@2.1.0 --catalog catalog --workspace workspace --as operator \
    --html approval.html >/dev/null 2>&1) || true
shoot "$work/approval.html" "$images/approval.png" 1600

"$contrib" build examples/*.contrib -o "$work/bundles" >/dev/null 2>&1
"$contrib" simulate --bundles "$work/bundles" --agents 3 --persons 8 --conversations 4 --turns 20 --seed 1 \
    --html "$work/simulation.html" >/dev/null 2>&1
shoot "$work/simulation.html" "$images/simulation.png" 2000
