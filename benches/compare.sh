#!/usr/bin/env bash
# The benchmark suite against peers and the machine's limit (issues 8, 16).
#
#   benches/compare.sh [N]        # N plugins per catalog, default 10000
#
# Three catalogs of N plugins, each measured in one hyperfine run beside
# `cat` and `sha256sum` of its own manifests (the machine's limit), so every
# figure is a ratio taken side by side:
#
# 1. generated (benches/support/generate.rs): deterministic plugins shaped
#    like the corpus, 5% with a planted mistake, also written as JSON (with
#    a JSON Schema) and TOML for the peers. Measured: contrib check cold
#    (--no-cache) and warm (cache primed, nothing changed); taplo lint on
#    the TOML form (syntax only); check-jsonschema and jsonschema-cli on
#    the JSON form (schema checks only).
# 2. noisy: the generated plugins with a warning each (a budget eight times
#    what a text needs), so a check reports N diagnostics. Measured: the
#    warm check in every output format (human, json, sarif, github) and the
#    cold check as JSON and human. Goals: human ≤ 2× JSON; warm ≥ 1×
#    sha256sum in every format.
# 3. real text (benches/support/corpus.rs): the instruction files of
#    ../shared/corpus/ (skills, agents, commands, rules, AGENTS.md), bodies
#    as they are, two per plugin, budgets near their real counts. Skipped
#    with a message when the corpus is absent (CORPUS=DIR to point
#    elsewhere). Measured: contrib check cold and warm, taplo lint on the
#    same content as TOML.
#
# After each hyperfine run, every contrib command runs once more under
# /usr/bin/time for its peak memory (max RSS). Prints the machine and the
# date first, then one table per catalog. Missing peers are installed under
# target/bench-tools (hyperfine from Debian, taplo-cli and jsonschema-cli
# with cargo, check-jsonschema with pip) or skipped with a message;
# PEERS=0 skips them all. RUNS sets hyperfine's runs (default 5).
set -euo pipefail

N="${1:-10000}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TOOLS="$ROOT/target/bench-tools"
CORPUS="${CORPUS:-$ROOT/../shared/corpus}"
export PATH="$TOOLS/bin:$TOOLS/venv/bin:$PATH"
mkdir -p "$TOOLS"

say() { printf '\n== %s\n' "$*" >&2; }

if ! command -v hyperfine >/dev/null; then
    say "installing hyperfine (Debian)"
    (apt-get update -qq && apt-get install -y -qq hyperfine) >/dev/null 2>&1 || { echo "hyperfine is required" >&2; exit 2; }
fi
if [ "${PEERS:-1}" != 0 ]; then
    if ! command -v taplo >/dev/null; then
        say "installing taplo-cli (cargo)"
        cargo install --quiet --locked --root "$TOOLS" taplo-cli >/dev/null 2>&1 || echo "taplo could not be installed; skipping it" >&2
    fi
    if ! command -v jsonschema-cli >/dev/null; then
        say "installing jsonschema-cli (cargo)"
        cargo install --quiet --locked --root "$TOOLS" jsonschema-cli >/dev/null 2>&1 || echo "jsonschema-cli could not be installed; skipping it" >&2
    fi
    if ! command -v check-jsonschema >/dev/null; then
        say "installing check-jsonschema (pip)"
        (python3 -m venv "$TOOLS/venv" && "$TOOLS/venv/bin/pip" install -q check-jsonschema) >/dev/null 2>&1 || echo "check-jsonschema could not be installed; skipping it" >&2
    fi
fi
peer() { [ "${PEERS:-1}" != 0 ] && command -v "$1" >/dev/null; }

say "building contrib and the generator (release)"
# One build for both (the feature only makes the generator buildable), so
# the crate compiles once.
cargo build --quiet --release --manifest-path "$ROOT/Cargo.toml" --features bench-tools --bin contrib --bin gen-catalog
CONTRIB="$ROOT/target/release/contrib"
# The cache's key lives in the cache root: keep it inside the benchmark's
# folders, never in the user's cache folder.
export CONTRIB_CACHE_DIR="$ROOT/target/bench-cache-root"

# The machine and the date, first, so that every table below is read
# against them.
echo "machine: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//') ($(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo 2>/dev/null)), $(uname -sr)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "contrib: $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown), N = $N"

# generate NAME [GENERATOR FLAGS...]: the catalog's folder, generated once.
generate() {
    local name="$1"; shift
    local work="$ROOT/target/bench-$name-$N"
    if [ ! -d "$work/contrib" ]; then
        say "generating the $name catalog ($N plugins) into $work"
        "$ROOT/target/release/gen-catalog" "$@" "$N" "$work" >&2
    fi
    echo "$work"
}

# measure TITLE WORK "name:command"...: one hyperfine run in WORK with cat
# and sha256sum of its manifests first, the peak memory of every contrib
# command, and a table of the figures.
measure() {
    local title="$1" work="$2"; shift 2
    cd "$work"
    local files bytes
    files=$(find contrib -name '*.contrib' | wc -l)
    bytes=$(find contrib -name '*.contrib' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
    rm -rf cache && "$CONTRIB" check contrib --cache-dir cache >/dev/null 2>&1 || true   # prime the warm cache
    local cmds=(
        "cat:find contrib -name '*.contrib' -print0 | xargs -0 cat > /dev/null"
        "sha256sum:find contrib -name '*.contrib' -print0 | xargs -0 sha256sum > /dev/null"
        "$@"
    )
    local args=() entry
    for entry in "${cmds[@]}"; do
        args+=(--command-name "${entry%%:*}" "${entry#*:}")
    done
    say "measuring the $title catalog ($files files, $bytes bytes of manifests)"
    hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json "$work/results.json" "${args[@]}" >&2
    say "peak memory of each contrib command"
    : > "$work/rss.tsv"
    for entry in "${cmds[@]}"; do
        case "${entry#*:}" in
            *"$CONTRIB"*)
                /usr/bin/time -f '%M' -o "$work/rss.one" bash -c "${entry#*:}" >/dev/null 2>&1 || true
                printf '%s\t%s\n' "${entry%%:*}" "$(tail -1 "$work/rss.one")" >> "$work/rss.tsv" ;;
        esac
    done
    python3 - "$title" "$work" "$files" "$bytes" <<'PY'
import json, sys
title, work, files, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
results = json.load(open(f"{work}/results.json"))["results"]
rss = dict(line.rstrip("\n").split("\t") for line in open(f"{work}/rss.tsv") if "\t" in line)
mean = {r["command"]: r["mean"] for r in results}
cat, sha = mean["cat"], mean["sha256sum"]
print(f"\n### {title}: {files} files, {size / 1e6:.1f} MB of manifests\n")
# Wall time is what a person waits for; CPU time (user + system) is less
# disturbed by other work on a shared machine, so both are shown.
cpu = {r["command"]: r["user"] + r["system"] for r in results}
print("| tool | time | CPU | MB/s | files/s | × cat | × sha256sum | max RSS |")
print("|---|---:|---:|---:|---:|---:|---:|---:|")
for r in results:
    m = r["mean"]
    kb = rss.get(r["command"], "")
    memory = f"{int(kb) / 1024:.1f} MB" if kb.isdigit() else ""
    print(f"| {r['command']} | {m * 1000:,.0f} ms | {cpu[r['command']] * 1000:,.0f} ms | {size / m / 1e6:.1f} | {files / m:,.0f} | {cat / m:.2f} | {sha / m:.2f} | {memory} |")
for command in mean:
    if command.endswith("human") and command[: -len("human")] + "json" in mean:
        other = command[: -len("human")] + "json"
        print(f"\n{command[: -len('human')].strip()}: human ÷ JSON = {mean[command] / mean[other]:.2f} wall, "
              f"{cpu[command] / cpu[other]:.2f} CPU (goal ≤ 2)")
PY
    cd "$ROOT"
}

CATALOG=$(generate catalog)
generated=(
    "contrib check (cold):$CONTRIB check contrib --no-cache --format json > /dev/null || true"
    "contrib check (warm):$CONTRIB check contrib --cache-dir cache --format json > /dev/null || true"
)
peer taplo && generated+=("taplo lint (TOML):find toml -name '*.toml' -print0 | xargs -0 taplo lint --no-schema > /dev/null 2>&1 || true")
peer check-jsonschema && generated+=("check-jsonschema (JSON):find json -name '*.json' -print0 | xargs -0 check-jsonschema --schemafile schema.json > /dev/null 2>&1 || true")
peer jsonschema-cli && generated+=("jsonschema-cli (JSON):find json -name '*.json' -printf '--instance=%p\0' | xargs -0 jsonschema-cli validate schema.json > /dev/null 2>&1 || true")
measure generated "$CATALOG" "${generated[@]}"

NOISY=$(generate noisy --noisy)
noisy=()
for format in human json sarif github; do
    noisy+=("warm $format:$CONTRIB check contrib --cache-dir cache --format $format > /dev/null || true")
done
noisy+=(
    "cold json:$CONTRIB check contrib --no-cache --format json > /dev/null || true"
    "cold human:$CONTRIB check contrib --no-cache --format human > /dev/null || true"
)
measure "noisy (a warning per plugin)" "$NOISY" "${noisy[@]}"
echo
echo "diagnostics in the noisy catalog: $({ "$CONTRIB" check "$NOISY/contrib" --no-cache --format json 2>/dev/null || true; } | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["diagnostics"]))')"

if [ -d "$CORPUS" ]; then
    REAL=$(generate real --corpus "$CORPUS")
    real=(
        "contrib check (cold):$CONTRIB check contrib --no-cache --format json > /dev/null || true"
        "contrib check (warm):$CONTRIB check contrib --cache-dir cache --format json > /dev/null || true"
    )
    peer taplo && real+=("taplo lint (TOML):find toml -name '*.toml' -print0 | xargs -0 taplo lint --no-schema > /dev/null 2>&1 || true")
    measure "real text (shared/corpus)" "$REAL" "${real[@]}"
else
    echo
    echo "real-text catalog skipped: no corpus at $CORPUS (set CORPUS=DIR to the instruction files of shared/corpus)"
fi
