#!/usr/bin/env bash
# contrib against its peers on real collections of native plugins (issue
# 29: ≥ 10× less CPU than skillsaw, ≥ 5× less than claude-code-lint, at
# equal work):
#
#   benches/peers.sh [COLLECTION...]   # folders of ../shared/corpus,
#                                      # default: claude-plugins-official
#                                      # obra-superpowers anthropics-skills
#
# skillsaw (PyPI) and claude-code-lint (npm, the `claudelint` command) are
# installed at fixed versions into a temporary folder, removed afterwards.
# Each collection is copied into that folder first (the peers may write
# caches where they run), and then one hyperfine run per collection
# measures, side by side, `skillsaw lint`, `claudelint check-all` (its
# cache off, every rule on: `--preset all`) and `contrib check` on the
# same folder (SKILL.md, plugin.json, agents, commands, hooks, AGENTS.md
# read in place, no cache). Reported: wall and CPU (user + system) time,
# contrib's CPU advantage over each, and what each ran: skillsaw's rule
# count and the types it detected, the validators claudelint ran and
# what they found, the files contrib read and the rules that reported.
# Without the corpus, Python's venv or npm, the script says so and stops
# (under CI=true, fails). RUNS sets hyperfine's runs (default 5).
set -euo pipefail

# PROFILE=dev measures a debug build (this crate unoptimized, its
# dependencies and the token counter optimized): slower than release, so
# contrib's figures from it are bounds, for a machine where a release
# build does not fit.
PROFILE="${PROFILE:-release}"
TARGET_FOLDER=release
[ "$PROFILE" = dev ] && TARGET_FOLDER=debug

SKILLSAW=0.22.0
CLAUDELINT=0.5.0
RUNS="${RUNS:-5}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CORPUS="${CORPUS:-$ROOT/../shared/corpus}"
say() { printf '\n== %s\n' "$*" >&2; }
cannot_run() {
    echo "cannot run: $*" >&2
    [ "${CI:-}" = true ] && exit 1
    exit 0
}

[ -d "$CORPUS" ] || cannot_run "no corpus at $CORPUS (set CORPUS=DIR)"
command -v npm >/dev/null || cannot_run "npm not found"
if ! command -v hyperfine >/dev/null; then
    say "installing hyperfine (Debian)"
    (apt-get update -qq && apt-get install -y -qq hyperfine) >/dev/null 2>&1 || { echo "hyperfine is required" >&2; exit 2; }
fi
collections=("$@")
[ ${#collections[@]} -gt 0 ] || collections=(claude-plugins-official obra-superpowers anthropics-skills)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
say "installing skillsaw $SKILLSAW (pip) and claude-code-lint $CLAUDELINT (npm) into $WORK"
python3 -m venv "$WORK/venv" >/dev/null 2>&1 || cannot_run "python3 cannot make a virtual environment"
"$WORK/venv/bin/pip" install -q --disable-pip-version-check "skillsaw==$SKILLSAW" >"$WORK/pip.log" 2>&1 \
    || cannot_run "skillsaw could not be installed: $(tail -1 "$WORK/pip.log")"
mkdir -p "$WORK/npm"
(cd "$WORK/npm" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund "claude-code-lint@$CLAUDELINT" >"$WORK/npm.log" 2>&1) \
    || cannot_run "claude-code-lint could not be installed: $(tail -1 "$WORK/npm.log")"
skillsaw="$WORK/venv/bin/skillsaw"
claudelint="$WORK/npm/node_modules/.bin/claudelint"

say "building contrib ($PROFILE)"
cargo build --quiet --profile "$PROFILE" --manifest-path "$ROOT/Cargo.toml" --bin contrib
contrib="$ROOT/target/$TARGET_FOLDER/contrib"

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) cores); $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "contrib $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown) ($PROFILE build), skillsaw $SKILLSAW, claude-code-lint $CLAUDELINT"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"

for name in "${collections[@]}"; do
    [ -d "$CORPUS/$name" ] || { echo "no collection $CORPUS/$name" >&2; exit 2; }
    folder="$WORK/$name"
    cp -r "$CORPUS/$name" "$folder"
    files=$(find "$folder" -type f | wc -l)
    bytes=$(du -sb "$folder" | cut -f1)
    say "measuring $name ($files files)"
    hyperfine --warmup 1 --runs "$RUNS" -i --export-json "$WORK/$name.json" \
        --command-name skillsaw "$skillsaw lint --no-progress --format json $folder > /dev/null" \
        --command-name claudelint "$claudelint check-all --cwd $folder --no-cache --no-config --preset all --format json > /dev/null" \
        --command-name contrib "$contrib check --no-cache --format json $folder > /dev/null" >&2
    # What each ran, from one more run of each.
    "$skillsaw" lint --no-progress --format json "$folder" > "$WORK/skillsaw.out" 2>/dev/null || true
    "$claudelint" check-all --cwd "$folder" --no-cache --no-config --preset all --format json > "$WORK/claudelint.out" 2>/dev/null || true
    "$contrib" check --no-cache --format json "$folder" > "$WORK/contrib.out" 2>/dev/null || true
    python3 - "$name" "$files" "$bytes" "$WORK" <<'PY'
import collections, json, sys
name, files, size, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
r = {x["command"]: x for x in json.load(open(f"{work}/{name}.json"))["results"]}
cpu = {k: x["user"] + x["system"] for k, x in r.items()}
print(f"\n### {name}: {files} files, {size / 1e6:.1f} MB\n")
print("| tool | wall | CPU (user + sys) | contrib's CPU advantage | goal |")
print("|---|---:|---:|---:|---|")
goals = {"skillsaw": 10, "claudelint": 5}
for tool, x in r.items():
    advantage = cpu[tool] / cpu["contrib"]
    goal = f"≥ {goals[tool]}×: {'met' if advantage >= goals[tool] else 'MISSED'}" if tool in goals else ""
    print(f"| {tool} | {x['mean'] * 1e3:,.0f} ms | {cpu[tool] * 1e3:,.0f} ms | {advantage:.1f}× | {goal} |")
def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError):
        return None
print()
s = load(f"{work}/skillsaw.out")
if s:
    found = collections.Counter(v["rule_id"] for v in s.get("violations", []))
    stats = s.get("stats", {})
    print(f"- skillsaw: {stats.get('rules_run', '?')} rules run, detected {', '.join(stats.get('repo_types', []))}; "
          f"{stats.get('plugins', '?')} plugins, {stats.get('skills', '?')} skills; findings: "
          + (", ".join(f"{k} {n}" for k, n in found.most_common()) or "none"))
c = load(f"{work}/claudelint.out")
if c:
    ran = [f"{v['name']} ({len(v.get('errors', [])) + len(v.get('warnings', []))})" for v in c.get("validators", [])]
    print(f"- claudelint: validators run (findings): {', '.join(ran)}")
k = load(f"{work}/contrib.out")
if k:
    diagnostics = k.get("diagnostics", [])
    found = collections.Counter(d["name"] for d in diagnostics)
    print(f"- contrib: {k.get('files', '?')} files read, {len(diagnostics)} diagnostics; by rule: "
          + (", ".join(f"{k} {n}" for k, n in found.most_common()) or "none"))
PY
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
