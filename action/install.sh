#!/usr/bin/env bash
# Installs the `contrib` release binary for the runner's platform, as the
# GitHub Action does (action.yml, step "Install contrib"): the archive the
# release workflow published for this exact version, verified against the
# SHA-256 published beside it before anything is unpacked. Needs bash,
# curl, tar (unzip on Windows) and sha256sum or shasum: no Python, no
# Rust. Reads:
#
#   CONTRIB_VERSION      the version, such as 0.1.0 (required: the Action
#                        pins its own unless told otherwise)
#   CONTRIB_RELEASES     where releases are downloaded from (default
#                        https://github.com/contrib-lang/contrib/releases/download);
#                        CI points it at a local server (.ci/distribution.sh)
#   CONTRIB_INSTALL_DIR  where `contrib` goes (default $RUNNER_TEMP/contrib)
#   RUNNER_OS, RUNNER_ARCH   the platform (set by the runner; the machine's
#                        own when unset)
#   GITHUB_PATH          the folder is appended to it (set by the runner)
#
# Exit status: 0 installed; 1 a download failed, the checksum did not
# match, or the platform has no release archive.
set -euo pipefail

fail() {
    echo "::error title=contrib install::$*" >&2
    exit 1
}

version=${CONTRIB_VERSION:-}
version=${version#v}
[ -n "$version" ] || fail "no version to install: set the action's \`version\` input"
case "$version" in
*[!0-9A-Za-z.+-]*) fail "\`$version\` is not a version" ;;
esac
releases=${CONTRIB_RELEASES:-https://github.com/contrib-lang/contrib/releases/download}
# HTTPS only, redirects included, unless CONTRIB_RELEASES names a mirror.
protocols='=https'
[ -z "${CONTRIB_RELEASES:-}" ] || protocols='=https,http,file'

os=${RUNNER_OS:-$(uname -s)}
arch=${RUNNER_ARCH:-$(uname -m)}
case "$os/$arch" in
Linux/X64 | Linux/x86_64) target=x86_64-unknown-linux-musl ;;
Linux/ARM64 | Linux/aarch64) target=aarch64-unknown-linux-musl ;;
macOS/X64 | Darwin/x86_64) target=x86_64-apple-darwin ;;
macOS/ARM64 | Darwin/arm64) target=aarch64-apple-darwin ;;
Windows/X64 | MINGW*/x86_64 | MSYS*/x86_64) target=x86_64-pc-windows-msvc ;;
*) fail "no contrib release archive for $os on $arch" ;;
esac
case "$target" in
*windows*) archive="contrib-$target.zip" binary=contrib.exe ;;
*) archive="contrib-$target.tar.xz" binary=contrib ;;
esac

folder=${CONTRIB_INSTALL_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/contrib}
download=$(mktemp -d)
trap 'rm -rf "$download"' EXIT

url="$releases/v$version/$archive"
echo "Downloading $url"
curl --fail --silent --show-error --location --retry 3 --proto "$protocols" \
    --proto-redir "$protocols" --output "$download/$archive" "$url" || fail "could not download $url"
curl --fail --silent --show-error --location --retry 3 --proto "$protocols" \
    --proto-redir "$protocols" --output "$download/$archive.sha256" "$url.sha256" || fail "could not download $url.sha256"

# The published line is `<hex>  <name>` (sha256sum's format) or the hex
# alone; only the hex is compared.
expected=$(tr -d '\r' <"$download/$archive.sha256" | awk 'NR == 1 { print tolower($1) }')
if command -v sha256sum >/dev/null 2>&1; then
    actual=$(sha256sum "$download/$archive" | awk '{ print $1 }')
else
    actual=$(shasum -a 256 "$download/$archive" | awk '{ print $1 }')
fi
[[ $expected =~ ^[0-9a-f]{64}$ ]] || fail "$url.sha256 holds no SHA-256"
[ "$actual" = "$expected" ] ||
    fail "$archive does not match its published SHA-256 (expected $expected, got $actual): not installed"
echo "SHA-256 verified: $actual"

# Each archive holds one folder, contrib-<target>/, with the binary, the
# README, the changelog and the licences.
case "$archive" in
*.zip) unzip -q "$download/$archive" -d "$download" ;;
*) tar -xJf "$download/$archive" -C "$download" ;;
esac
[ -f "$download/contrib-$target/$binary" ] || fail "$archive holds no contrib-$target/$binary"
mkdir -p "$folder"
cp "$download/contrib-$target/$binary" "$folder/$binary"
chmod +x "$folder/$binary"
if [ -n "${GITHUB_PATH:-}" ]; then
    echo "$folder" >>"$GITHUB_PATH"
fi
"$folder/$binary" --version
