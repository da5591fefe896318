#!/usr/bin/env bash
# Builds the npm package's native module for this platform, in release,
# with napi-rs's CLI (pinned in package-lock.json): the cargo build of this
# crate, copied beside index.js as contrib-runtime.<platform>.node. The
# build's node_modules and the module are git-ignored. Prints the module's
# size and how long the build took. Works from any directory.
set -euo pipefail

cd "$(dirname "$0")"
if [ ! -x node_modules/.bin/napi ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund --silent
fi
started=$SECONDS
npx napi build --platform --release --strip --no-js --dts native.d.ts >/dev/null
for module in contrib-runtime.*.node; do
    echo "$module: $(stat -c %s "$module" 2>/dev/null || stat -f %z "$module") bytes, built in $((SECONDS - started)) s"
done
