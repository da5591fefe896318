#!/usr/bin/env bash
# Builds the npm package's native module for this machine, in release:
# the cdylib of this crate, stripped and copied beside index.js as
# contrib-runtime.<platform>.node (the name index.js loads). The module is
# git-ignored. Prints the module's size and how long the build took. Works
# from any directory.
#
# Plain cargo rather than napi-rs's CLI: the CLI always passes `--target`,
# which builds every dependency again under target/<triple>/, and a
# Node-API module is the cdylib renamed. Built together with the `contrib`
# package, so the library's features are those of `cargo build --release`
# and the two share one build. The release workflow builds each platform's
# module with the CLI (`npm run build`), which cross-compiles.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
started=$SECONDS
cargo build --release --quiet --manifest-path "$root/Cargo.toml" -p contrib -p contrib-node
target="${CARGO_TARGET_DIR:-$root/target}/release"

# napi-rs's name for this platform, as index.js computes it.
suffix=$(node -e '
const { platform, arch } = process;
if (platform === "linux") {
  const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
  console.log(`linux-${arch}-${glibc ? "gnu" : "musl"}`);
} else if (platform === "win32") {
  console.log(`win32-${arch}-msvc`);
} else {
  console.log(`${platform}-${arch}`);
}')
case "$(uname -s)" in
    Darwin) library="$target/libcontrib_node.dylib" ;;
    MINGW* | MSYS* | CYGWIN*) library="$target/contrib_node.dll" ;;
    *) library="$target/libcontrib_node.so" ;;
esac
module="$here/contrib-runtime.$suffix.node"
# Stripped, as the release workflow's modules are (napi's `--strip`): the
# release profile keeps line tables, which a published module does not.
if command -v strip >/dev/null 2>&1 && [ "$(uname -s)" = Linux ]; then
    strip -o "$module.tmp" "$library"
else
    cp "$library" "$module.tmp"
fi
mv "$module.tmp" "$module"
echo "contrib-runtime.$suffix.node: $(stat -c %s "$module" 2>/dev/null || stat -f %z "$module") bytes, built in $((SECONDS - started)) s"
