#!/bin/sh
# Build contrib-lang-<version>.vsix in this directory.
#   ./package.sh            # then: code --install-extension contrib-lang-*.vsix
set -eu
cd "$(dirname "$0")"
if [ ! -d node_modules ]; then
    npm ci
fi
# The project has no public repository URL to put in package.json yet.
exec npx --no-install vsce package --allow-missing-repository "$@"
