#!/usr/bin/env bash
# Every package `contrib export` writes, checked by an independent
# validator: skillsaw 0.22.0 (PyPI), in a throw-away virtual environment.
# Each example manifest (examples/*.contrib) and the export fixture
# (tests/data/export/, which has a command, a subagent and a hook) is
# exported as an Agent Plugins package and as a Claude Code plugin; then
#
# - skillsaw's rules for the formats written report nothing at all, at any
#   severity: Agent Plugins' plugin.json and mcp.json, Agent Skills'
#   frontmatter and names, Claude Code's plugin.json, commands, agents and
#   hooks;
# - a full `skillsaw lint` of each package finds no error (its style
#   warnings, such as a missing README, are printed, not failed on).
#
# Needs python3 with venv and PyPI (a few seconds once the wheel is
# cached); uses $CONTRIB_BIN, or target/release/contrib, or
# target/debug/contrib. Where it cannot run it says so and passes, except
# under CI=true, where that fails.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
version=0.22.0

cannot_run() {
    if [ "${CI:-}" = true ] || [ "${CI:-}" = 1 ]; then
        echo "error: $* (and CI=true: the exported packages must be validated)" >&2
        exit 1
    fi
    echo "skipping the skillsaw check of exported packages: $*"
    exit 0
}

# shellcheck source=tests/contrib-bin.sh
source "$root/tests/contrib-bin.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v python3 >/dev/null 2>&1 || cannot_run "python3 not found"
python3 -m venv "$work/venv" >/dev/null 2>&1 || cannot_run "python3 cannot make a virtual environment"
"$work/venv/bin/pip" install -q --disable-pip-version-check "skillsaw==$version" >"$work/pip.log" 2>&1 \
    || cannot_run "skillsaw $version could not be installed from PyPI: $(tail -1 "$work/pip.log")"
skillsaw="$work/venv/bin/skillsaw"

rules=(
    agent-plugin-json-valid agent-plugin-mcp-valid
    agentskill-valid agentskill-name
    claude-plugin-json-valid claude-plugin-naming
    claude-command-frontmatter claude-agent-frontmatter claude-hooks-valid
)

failed=0
packages=0
for manifest in "$root"/examples/*.contrib "$root"/tests/data/export/*.contrib; do
    name=$(basename "$manifest" .contrib)
    for format in agent-plugin claude-plugin; do
        out="$work/packages/$format/$name"
        "$contrib" export --format "$format" "$manifest" -o "$out" >/dev/null 2>"$work/export.log" || {
            echo "FAIL: contrib export --format $format $manifest:" >&2
            cat "$work/export.log" >&2
            failed=1
            continue
        }
        packages=$((packages + 1))
        # One run of every rule: the format's own rules report nothing,
        # and no rule reports an error.
        "$skillsaw" lint --no-progress --format json "$out" >"$work/lint.json" 2>"$work/lint.log" || true
        found=$(python3 - "$work/lint.json" "${rules[@]}" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
format_rules = set(sys.argv[2:])
for v in report.get("violations", []):
    if v.get("rule_id") in format_rules or v.get("severity") == "error":
        print("%s (%s) %s: %s" % (v.get("rule_id"), v.get("severity"), v.get("file_path"), v.get("message")))
PY
) || { echo "FAIL: skillsaw gave no report for the $format package of $name:" >&2; cat "$work/lint.log" >&2; failed=1; continue; }
        if [ -n "$found" ]; then
            echo "FAIL: $format package of $name:" >&2
            echo "$found" >&2
            failed=1
        fi
    done
done
[ "$failed" = 0 ] || exit 1
echo "skillsaw $version: $packages exported packages pass (${#rules[@]} format rules, no error from any rule)"
