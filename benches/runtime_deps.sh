#!/usr/bin/env bash
# What a host compiles: the crates in contrib-runtime's normal dependency
# tree on this platform (itself included), against the language's
# (`contrib`, without its command line) as the baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
count() {
    cargo tree --locked -e normal --prefix none "$@" 2>/dev/null \
        | sed 's/ (\*)//; s/ (proc-macro)//' | awk '{print $1}' | sort -u | wc -l
}
runtime=$(count -p contrib-runtime)
language=$(count -p contrib --no-default-features)
echo "contrib-runtime: $runtime crates; contrib (no command line): $language crates"
