#!/usr/bin/env bash
# What tests/it/claude_validator.rs needs: Claude Code's own validator
# (`claude plugin validate`), the pinned npm package installed by
# tests/harness/claude-code.sh into target/harness/claude-code (seconds;
# reused when it already runs). The test finds it there.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tests/harness/claude-code.sh >/dev/null
