#!/usr/bin/env bash
# The token counter's figures (issue 16), in one run on this machine:
#
#   benches/tokenizer.sh                 # all of it
#   BASE_REV=<commit> benches/tokenizer.sh   # and the same figures for an
#                                        # earlier commit, built beside it
#   BASE_BIN=<contrib binary> benches/tokenizer.sh  # the same, with an
#                                        # earlier build already at hand
#   SKIP_THROUGHPUT=1 benches/tokenizer.sh   # sizes and start-up only
#
# 1. Throughput: `cargo bench -p toktally --bench count` (criterion), then
#    each text's toktally throughput as a ratio to bpe-openai's count in
#    the same run (crates/toktally/benches/count.rs says what is measured).
# 2. The release binary: its size, stripped size, and the sections that
#    hold it (`.rodata` holds the vocabularies).
# 3. Start-up: `contrib check` of one small manifest with a budget to
#    measure (the tokenizer loads) and of one with nothing to measure (it
#    does not), with hyperfine.
# With BASE_REV, the commit is checked out in a temporary worktree and
# built in target/tokenizer-baseline, and sizes and start-up are measured
# side by side with it (hyperfine runs both in one invocation).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/target/tokenizer-bench"
mkdir -p "$WORK"
say() { printf '\n== %s\n' "$*"; }

if ! command -v hyperfine >/dev/null; then
    echo "installing hyperfine (Debian)" >&2
    (apt-get update -qq && apt-get install -y -qq hyperfine) >/dev/null 2>&1 || { echo "hyperfine is required" >&2; exit 2; }
fi

say "machine"
echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit: $(git -C "$ROOT" rev-parse --short HEAD)"

if [ -z "${SKIP_THROUGHPUT:-}" ]; then
    say "throughput: toktally against bpe-openai's count (criterion)"
    (cd "$ROOT" && cargo bench -q -p toktally --bench count 2>&1 | grep -E '^[a-z]+/|time:|thrpt:' ) >&2 || true
    python3 - "$ROOT/target/criterion" <<'PY'
import json, os, sys
root = sys.argv[1]
def mean(group, name):
    path = os.path.join(root, group, name, "new", "estimates.json")
    if not os.path.exists(path):
        return None
    return json.load(open(path))["mean"]["point_estimate"]
print(f"{'text':<9} {'encoding':<8} {'reference':>10} {'toktally':>10} {'ratio':>6} {'cold':>10} {'ratio':>6}")
for text in ["corpus", "prose", "unicode"]:
    for encoding in ["o200k", "cl100k"]:
        group = f"{text}_{encoding}"
        ref, warm, cold = (mean(group, n) for n in ["reference", "toktally", "toktally-cold"])
        if ref is None:
            continue
        ms = lambda ns: f"{ns / 1e6:.1f} ms"
        print(f"{text:<9} {encoding:<8} {ms(ref):>10} {ms(warm):>10} {ref / warm:>5.1f}x {ms(cold):>10} {ref / cold:>5.1f}x")
PY
fi

say "building contrib (release)"
cargo build -q --release --manifest-path "$ROOT/Cargo.toml" --bin contrib
cp "$ROOT/target/release/contrib" "$WORK/contrib"
binaries=("$WORK/contrib")
if [ -n "${BASE_BIN:-}" ]; then
    cp "$BASE_BIN" "$WORK/contrib-base"
    binaries=("$WORK/contrib-base" "$WORK/contrib")
elif [ -n "${BASE_REV:-}" ]; then
    say "building $BASE_REV (release) in target/tokenizer-baseline"
    base="$ROOT/target/tokenizer-baseline"
    rm -rf "$base/src"
    git -C "$ROOT" worktree add -f --detach "$base/src" "$BASE_REV" >/dev/null 2>&1
    CARGO_TARGET_DIR="$base/target" cargo build -q --release --manifest-path "$base/src/Cargo.toml" --bin contrib
    cp "$base/target/release/contrib" "$WORK/contrib-base"
    git -C "$ROOT" worktree remove --force "$base/src"
    binaries=("$WORK/contrib-base" "$WORK/contrib")
fi

say "binary sizes (bytes)"
for binary in "${binaries[@]}"; do
    strip -o "$binary.stripped" "$binary"
    sections=$(size -A "$binary" | awk '$1 ~ /^\.(text|rodata|data\.rel\.ro|eh_frame)$/ { printf "%s %s, ", $1, $2 }')
    debug=$(size -A "$binary" | awk '$1 ~ /^\.debug/ { total += $2 } END { print total + 0 }')
    echo "$(basename "$binary"): $(stat -c %s "$binary") (stripped $(stat -c %s "$binary.stripped")); ${sections}debug info $debug"
done

say "start-up: one small manifest (hyperfine)"
cat > "$WORK/measure.contrib" <<'MANIFEST'
plugin acme/voice 1.0.0 {
    owner agent-author

    text voice {
        placement agent
        budget 60 tokens
        body """
            Challenge premises; do not call a design good when it is merely
            fine. Say what you would change and why, in plain words.
            """
    }
}
MANIFEST
cat > "$WORK/nothing.contrib" <<'MANIFEST'
plugin acme/clock 1.0.0 {
    owner agent-author

    eager-run started-at {
        placement conversation
        budget 50 tokens
        call get_current_time {}
    }
}
MANIFEST
commands=()
for binary in "${binaries[@]}"; do
    commands+=("$binary check --no-cache $WORK/measure.contrib" "$binary check --no-cache $WORK/nothing.contrib")
done
hyperfine -N --warmup 5 --runs "${RUNS:-50}" --export-json "$WORK/startup.json" "${commands[@]}" >/dev/null 2>&1
python3 - "$WORK/startup.json" <<'PY'
import json, sys
for result in json.load(open(sys.argv[1]))["results"]:
    binary, _, _, manifest = result["command"].split()[:4]
    what = "budget to measure" if "measure" in manifest else "nothing to measure"
    print(f"{binary.rsplit('/', 1)[-1]:<14} {what:<19} mean {result['mean'] * 1e3:6.1f} ms  median {result['median'] * 1e3:6.1f} ms  min {result['min'] * 1e3:6.1f} ms  (user {result['user'] * 1e3:.1f} ms, system {result['system'] * 1e3:.1f} ms)")
PY
