#!/usr/bin/env bash
# Installs Claude Code (npm `@anthropic-ai/claude-code`, a pinned version)
# into target/harness/claude-code, once, and prints the path of its
# `claude` binary on standard output. Nothing goes to the user's home or
# a global prefix: npm's cache and configuration are temporary folders.
# Exits non-zero, saying why, when it cannot install.
#
#     claude="$(bash tests/harness/claude-code.sh)"
#     HOME="$(mktemp -d)" "$claude" plugin validate --strict PATH
set -euo pipefail

version=2.1.332
root="$(cd "$(dirname "$0")/../.." && pwd)"
prefix="$root/target/harness/claude-code/$version"
claude="$prefix/node_modules/.bin/claude"

works() {
    local home
    home="$(mktemp -d)"
    HOME="$home" XDG_CONFIG_HOME="$home/.config" CLAUDE_CONFIG_DIR="$home/.claude" \
        DISABLE_AUTOUPDATER=1 "$claude" --version >/dev/null 2>&1
    local status=$?
    rm -rf "$home"
    return "$status"
}

if [ -x "$claude" ] && works; then
    echo "$claude"
    exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
    echo "error: npm not found: cannot install @anthropic-ai/claude-code@$version" >&2
    exit 1
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$prefix"
if ! HOME="$scratch" npm_config_cache="$scratch/cache" npm_config_userconfig="$scratch/npmrc" \
    npm install --prefix "$prefix" --no-audit --no-fund --silent \
    "@anthropic-ai/claude-code@$version" >&2; then
    echo "error: npm could not install @anthropic-ai/claude-code@$version into $prefix" >&2
    exit 1
fi
if ! [ -x "$claude" ] || ! works; then
    echo "error: @anthropic-ai/claude-code@$version installed, but \`$claude --version\` does not run" >&2
    exit 1
fi
echo "$claude"
