#!/usr/bin/env bash
# Issue 29's goals for the command line, each a ratio taken side by side in
# one invocation on this machine:
#
#   benches/goals.sh [N]      # N plugins per catalog, default 2000
#
# 1. Cold check of real text (N plugins, two bodies each, from the
#    instruction files of ../shared/corpus; CORPUS=DIR to point elsewhere):
#    one hyperfine run of `cat` over the manifests, the token counter alone
#    over the same bodies (the `count-tokens` example: read and count on as
#    many threads as there are cores, vocabulary loaded from nothing, cold
#    memo — the floor of an exact budget check) and `contrib check
#    --no-cache`. Goals: cold ≤ 1.5× the floor, ≥ 0.15× `cat`, CPU/wall ≥
#    1.7 on two cores; then the cold check's peak RSS against 2× the
#    largest manifest plus 32 MB.
# 2. Warm check with thousands of diagnostics (the noisy catalog: a warning
#    per plugin): one hyperfine run of `sha256sum` over the manifests and
#    the warm check in human, JSON, GitHub and SARIF output. Goal: each ≥ 1×
#    `sha256sum`.
# 3. Token counting against tiktoken, o200k and cl100k, on the real
#    catalog's bodies: each counter in a fresh process (toktally's memo
#    cold), counting alone timed (files read and vocabulary loaded first),
#    RUNS alternating runs, medians compared; every file's count must be
#    the same in both, or the script fails. tiktoken is installed with pip
#    into a temporary venv; its vocabulary is downloaded, or taken from
#    bpe-openai's copy in the cargo registry (the same files) when the
#    download is blocked. Goal: ≥ 5× tiktoken.
# 4. The override rule's phrase search against an aho-corasick scan for
#    every keyword a phrase can begin with, on the same bodies, one thread
#    (benches/override_cost.rs). Goal: no more than the literal scan.
#
# Prints the machine, the load average before and after (the figures are
# only as good as the machine is idle), then one table per part with CPU
# time beside wall time. RUNS sets the runs (default 5). Without the corpus
# the script stops, and under CI=true fails.
set -euo pipefail

# PROFILE=dev measures a debug build (this crate unoptimized, its
# dependencies and the token counter optimized): slower than release, so
# contrib's figures from it are bounds, for a machine where a release
# build does not fit.
PROFILE="${PROFILE:-release}"
TARGET_FOLDER=release
[ "$PROFILE" = dev ] && TARGET_FOLDER=debug

N="${1:-2000}"
RUNS="${RUNS:-5}"
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CORPUS="${CORPUS:-$ROOT/../shared/corpus}"
say() { printf '\n== %s\n' "$*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

if [ ! -d "$CORPUS" ]; then
    echo "cannot run: no corpus at $CORPUS (set CORPUS=DIR)" >&2
    [ "${CI:-}" = true ] && exit 1
    exit 0
fi
if ! command -v hyperfine >/dev/null; then
    say "installing hyperfine (Debian)"
    (apt-get update -qq && apt-get install -y -qq hyperfine) >/dev/null 2>&1 || { echo "hyperfine is required" >&2; exit 2; }
fi

say "building contrib, the generator and the counter ($PROFILE)"
cargo build --quiet --profile "$PROFILE" --manifest-path "$ROOT/Cargo.toml" --features bench-tools \
    --bin contrib --example gen-catalog --example count-tokens --example override-cost
BIN="$ROOT/target/$TARGET_FOLDER"
CONTRIB="$BIN/contrib"
export CONTRIB_CACHE_DIR="$ROOT/target/bench-cache-root"

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') ($(nproc) cores), $(uname -sr)"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC'); contrib $(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown) ($PROFILE build); N = $N"
echo "load average before: $(load)"

# catalog NAME FLAGS...: generated once into target/bench-goals-NAME-N.
catalog() {
    local name="$1"; shift
    local work="$ROOT/target/bench-goals-$name-$N"
    if [ ! -f "$work/text.list" ]; then
        say "generating the $name catalog ($N plugins)"
        rm -rf "$work"
        "$BIN/examples/gen-catalog" "$@" "$N" "$work" >&2
    fi
    echo "$work"
}

# table JSON BYTES: hyperfine's results, wall and CPU, as a table.
table() {
    python3 - "$@" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
size = int(sys.argv[2])
print("| command | wall | CPU (user + sys) | CPU ÷ wall | MB/s |")
print("|---|---:|---:|---:|---:|")
for r in results:
    cpu = r["user"] + r["system"]
    print(f"| {r['command']} | {r['mean'] * 1e3:,.0f} ms ± {r['stddev'] * 1e3:,.0f} | {cpu * 1e3:,.0f} ms | {cpu / r['mean']:.2f} | {size / r['mean'] / 1e6:,.1f} |")
PY
}

# ---- 1. cold check against the token counter alone and cat
REAL=$(catalog real --corpus "$CORPUS")
cd "$REAL"
bytes=$(find contrib -name '*.contrib' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
largest=$(find contrib -name '*.contrib' -printf '%s\n' | sort -n | tail -1)
say "cold check of real text: $(wc -l < text.list) bodies, $bytes bytes of manifests"
hyperfine --warmup 1 --runs "$RUNS" --export-json "$REAL/cold.json" \
    --command-name "cat" "find contrib -name '*.contrib' -print0 | xargs -0 cat > /dev/null" \
    --command-name "tokens alone ($(nproc) threads)" "$BIN/examples/count-tokens --threads $(nproc) text.list > /dev/null 2>&1" \
    --command-name "contrib check (cold)" "$CONTRIB check contrib --no-cache --format json > /dev/null || true" >&2
/usr/bin/time -f '%M' -o "$REAL/rss" "$CONTRIB" check contrib --no-cache --format json > /dev/null 2>&1 || true
echo
echo "### cold check: $N plugins of real text, $(awk "BEGIN { printf \"%.1f\", $bytes / 1e6 }") MB of manifests"
echo
table "$REAL/cold.json" "$bytes"
python3 - "$REAL/cold.json" "$(tail -1 "$REAL/rss")" "$largest" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
cat, cold = r["cat"], r["contrib check (cold)"]
floor = next(x for name, x in r.items() if name.startswith("tokens alone"))
cpu = lambda x: x["user"] + x["system"]
verdict = lambda ok: "met" if ok else "MISSED"
ratio = cold["mean"] / floor["mean"]
print(f"\ncold ÷ tokens alone: {ratio:.2f} wall, {cpu(cold) / cpu(floor):.2f} CPU (goal ≤ 1.5: {verdict(ratio <= 1.5)})")
ratio = cat["mean"] / cold["mean"]
print(f"cold: {ratio:.3f}× cat (goal ≥ 0.15: {verdict(ratio >= 0.15)})")
ratio = cpu(cold) / cold["mean"]
print(f"cold CPU ÷ wall: {ratio:.2f} (goal ≥ 1.7 on two cores: {verdict(ratio >= 1.7)})")
rss, largest = int(sys.argv[2]) * 1024, int(sys.argv[3])
bound = 2 * largest + 32 * 2**20
print(f"cold peak RSS: {rss / 2**20:.1f} MiB; bound 2 × {largest / 2**10:.0f} KiB + 32 MiB = {bound / 2**20:.1f} MiB ({verdict(rss <= bound)})")
PY

# ---- 2. warm check, every output format, against sha256sum
NOISY=$(catalog noisy --noisy)
cd "$NOISY"
bytes=$(find contrib -name '*.contrib' -print0 | du -cb --files0-from=- | tail -1 | cut -f1)
rm -rf cache && "$CONTRIB" check contrib --cache-dir cache > /dev/null 2>&1 || true
diagnostics=$({ "$CONTRIB" check contrib --cache-dir cache --format json 2>/dev/null || true; } | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["diagnostics"]))')
say "warm check, $diagnostics diagnostics"
formats=()
for format in human json github sarif; do
    formats+=(--command-name "warm $format" "$CONTRIB check contrib --cache-dir cache --format $format > /dev/null || true")
done
hyperfine --warmup 1 --runs "$RUNS" --export-json "$NOISY/warm.json" \
    --command-name sha256sum "find contrib -name '*.contrib' -print0 | xargs -0 sha256sum > /dev/null" \
    "${formats[@]}" >&2
echo
echo "### warm check: $N plugins, $diagnostics diagnostics, $(awk "BEGIN { printf \"%.1f\", $bytes / 1e6 }") MB of manifests"
echo
table "$NOISY/warm.json" "$bytes"
python3 - "$NOISY/warm.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
sha = r["sha256sum"]
print()
for name, x in r.items():
    if name.startswith("warm"):
        ratio = sha["mean"] / x["mean"]
        cpu = (sha["user"] + sha["system"]) / (x["user"] + x["system"])
        print(f"{name}: {ratio:.2f}× sha256sum wall, {cpu:.2f}× CPU (goal ≥ 1: {'met' if ratio >= 1 else 'MISSED'})")
PY

# ---- 3. token counting against tiktoken
say "installing tiktoken into a temporary venv"
VENV=$(mktemp -d)
trap 'rm -rf "$VENV"' EXIT
python3 -m venv "$VENV" && "$VENV/bin/pip" install -q tiktoken >&2
export TIKTOKEN_CACHE_DIR="$VENV/tiktoken-cache"
mkdir -p "$TIKTOKEN_CACHE_DIR"
for name in o200k_base cl100k_base; do
    url="https://openaipublic.blob.core.windows.net/encodings/$name.tiktoken"
    key=$(printf '%s' "$url" | sha1sum | cut -d' ' -f1)
    if ! curl -fsS --max-time 30 -o "$TIKTOKEN_CACHE_DIR/$key" "$url" 2>/dev/null; then
        cargo fetch --quiet --manifest-path "$ROOT/Cargo.toml" >/dev/null 2>&1 || true
        copy=$(find "${CARGO_HOME:-$HOME/.cargo}/registry/src" -path "*bpe-openai-*/data/$name.tiktoken.gz" 2>/dev/null | sort | tail -1)
        [ -n "$copy" ] || { echo "cannot run: no $name vocabulary (download blocked, no bpe-openai in the cargo registry)" >&2; exit 1; }
        echo "$name: download blocked; using $copy" >&2
        gunzip -c "$copy" > "$TIKTOKEN_CACHE_DIR/$key"
    fi
done
cat > "$VENV/count.py" <<'PY'
import sys, time, tiktoken
encoding = tiktoken.get_encoding(sys.argv[1])
paths = [line for line in open(sys.argv[2], encoding="utf-8").read().splitlines() if line]
texts = [open(path, encoding="utf-8", newline="").read() for path in paths]
encoding.encode_ordinary("load")
start = time.perf_counter()
counts = [len(encoding.encode_ordinary(text)) for text in texts]
seconds = time.perf_counter() - start
print("\n".join(map(str, counts)))
print(f"files={len(texts)} bytes={sum(len(t.encode()) for t in texts)} tokens={sum(counts)} count_seconds={seconds:.6f}", file=sys.stderr)
PY
echo
echo "### token counting: $(wc -l < "$REAL/text.list") bodies of real text, one thread, cold memo, $RUNS runs each"
echo
echo "| encoding | tiktoken | toktally | × tiktoken | counts |"
echo "|---|---:|---:|---:|---|"
seconds() { grep -o 'count_seconds=[0-9.]*' "$1" | cut -d= -f2; }
for encoding in o200k cl100k; do
    flag=""; [ "$encoding" = cl100k ] && flag=--cl100k
    : > "$VENV/ours.s"; : > "$VENV/theirs.s"
    for _ in $(seq "$RUNS"); do
        "$BIN/examples/count-tokens" $flag --each "$REAL/text.list" > "$VENV/ours" 2> "$VENV/ours.err"
        seconds "$VENV/ours.err" >> "$VENV/ours.s"
        "$VENV/bin/python" "$VENV/count.py" "${encoding}_base" "$REAL/text.list" > "$VENV/theirs" 2> "$VENV/theirs.err"
        seconds "$VENV/theirs.err" >> "$VENV/theirs.s"
    done
    same=identical
    cmp -s "$VENV/ours" "$VENV/theirs" || same="DIFFER"
    python3 - "$encoding" "$VENV/ours.s" "$VENV/theirs.s" "$same" <<'PY'
import statistics, sys
encoding, ours, theirs, same = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
median = lambda path: statistics.median(float(line) for line in open(path) if line.strip())
o, t = median(ours), median(theirs)
print(f"| {encoding} | {t * 1e3:,.0f} ms | {o * 1e3:,.0f} ms | {t / o:.1f}× (goal ≥ 5: {'met' if t / o >= 5 else 'MISSED'}) | {same} |")
PY
    [ "$same" = identical ] || { echo "the counts differ from tiktoken's ($encoding)" >&2; exit 1; }
done
echo
echo "### the override rule against a literal keyword scan"
echo
"$BIN/examples/override-cost" "$REAL/text.list" 15
echo
echo "load average after: $(load)"
