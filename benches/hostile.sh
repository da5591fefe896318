#!/usr/bin/env bash
# Output and growth on hostile input (issues 16 and 20), measured with
# hyperfine in one run, as ratios:
#
#   benches/hostile.sh            # this build
#   BASELINE=/path/to/contrib benches/hostile.sh   # and another build beside it
#
# 1. Human output against JSON output of the same check, on inputs with
#    thousands of diagnostics: 400 KB of unknown fields in one file, one
#    80 KB line of 5,000 unknown fields (a one-line block; the language
#    before brackets and commas read it as one bad field), and a folder of
#    2,000 files with a warning each (checked warm: the cache answers, so what is measured
#    is reading, hashing and writing the report). Goal: human ≤ 2× JSON.
# 2. Growth: the time of `contrib check` (or `import`) on an input of size
#    N and 2N, for inputs whose quadratic loops allocate nothing and so
#    escape tests/it/linear_growth.rs: suppression comments of every kind
#    (3,500 and 7,000 contributors, five comments each), and frontmatter
#    with 40,000 and 80,000 keys. Linear: about 2×, less where start-up
#    (the tokenizer) weighs.
#
# Prints the machine, the date and both tables; raw results go to
# target/bench-hostile/*.json.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/target/bench-hostile"
RUNS="${RUNS:-5}"
mkdir -p "$WORK"
command -v hyperfine >/dev/null || { echo "hyperfine is required (apt-get install hyperfine)" >&2; exit 2; }

cargo build --quiet --release --manifest-path "$ROOT/Cargo.toml" --bin contrib
CONTRIB="$ROOT/target/release/contrib"
# Every run keeps its cache (and the cache's key) here, never in the
# user's cache folder.
export CONTRIB_CACHE_DIR="$WORK/cache"

python3 - "$WORK" <<'PY'
import os, sys
work = sys.argv[1]
def plugin(contents):
    return "plugin acme/hostile 1.0.0 {\n    owner agent-author\n" + contents + "}\n"
def write(name, text):
    os.makedirs(os.path.dirname(os.path.join(work, name)), exist_ok=True)
    with open(os.path.join(work, name), "w") as f:
        f.write(text)
fields = "".join(f"        colour{i} red\n" for i in range(20000))
write("fields.contrib", plugin(f'    text t {{\n        placement agent\n        budget 9 tokens\n        body "x"\n{fields}    }}\n'))
line = ", ".join(f"colour{i} red" for i in range(5000))
write("line.contrib", plugin(f'    text t {{ placement agent, budget 9 tokens, body "x", {line} }}\n'))
for i in range(2000):
    write(f"catalog/p{i}.contrib", f'plugin acme/p{i} 1.0.0 {{\n    owner agent-author\n\n    text t{i} {{\n        placement agent\n        budget 400 tokens\n        body "Be brief, {i}."\n    }}\n}}\n')
kinds = ["# contrib: allow(budget-unused) -- growth\n", "# contrib: allow(no-such-rule) -- typo\n",
         "# contrib: allow(budget-unused)\n", "# contrib: nonsense\n", ""]
def suppressions(count):
    parts = []
    for i in range(count):
        parts.append(
            f"    {kinds[i % len(kinds)]}    text t{i} {{\n"
            f"        # contrib: allow(placement-could-be-wider) -- reviewed\n        placement agent\n"
            f"        budget 900 tokens  # contrib: allow(budget-unused) -- field\n"
            f"        body \"x\"  # contrib: allow(over-budget) -- never\n    }}\n")
    return "# contrib: allow(budget-unused) -- whole file\n" + plugin("".join(parts))
write("suppressions-N.contrib", suppressions(3500))
write("suppressions-2N.contrib", suppressions(7000))
def frontmatter(count):
    keys = "".join(f"key{i}: value {i}\n" for i in range(count))
    return f"---\nname: big\ndescription: A skill.\n{keys}---\nBody.\n"
write("frontmatter-N/SKILL.md", frontmatter(40000))
write("frontmatter-2N/SKILL.md", frontmatter(80000))
PY

builds=("this:$CONTRIB")
if [ -n "${BASELINE:-}" ]; then builds+=("baseline:$BASELINE"); fi

cd "$WORK"
printf 'machine: %s, %s cores; %s\n' "$(uname -m)" "$(nproc)" "$(date -u +%Y-%m-%d)"

# 1. Human against JSON.
cmds=()
for build in "${builds[@]}"; do
    name="${build%%:*}"; bin="${build#*:}"
    "$bin" check catalog > /dev/null 2>&1 || true    # prime the warm cache
    for format in human json; do
        cmds+=(--command-name "$name $format fields" "$bin check --no-cache --format $format fields.contrib > /dev/null || true")
        cmds+=(--command-name "$name $format line" "$bin check --no-cache --format $format line.contrib > /dev/null || true")
        cmds+=(--command-name "$name $format catalog (warm)" "$bin check --format $format catalog > /dev/null || true")
    done
done
hyperfine --warmup 1 --runs "$RUNS" --export-json "$WORK/report.json" "${cmds[@]}" > /dev/null

# 2. Growth.
cmds=()
for build in "${builds[@]}"; do
    name="${build%%:*}"; bin="${build#*:}"
    for size in N 2N; do
        cmds+=(--command-name "$name suppressions $size" "$bin check --no-cache --format json suppressions-$size.contrib > /dev/null || true")
        cmds+=(--command-name "$name frontmatter $size" "$bin import skill frontmatter-$size > /dev/null 2>&1 || true")
    done
done
hyperfine --warmup 1 --runs "$RUNS" --export-json "$WORK/growth.json" "${cmds[@]}" > /dev/null

python3 - "$WORK" "${builds[@]}" <<'PY'
import json, sys
work, builds = sys.argv[1], [b.split(":", 1)[0] for b in sys.argv[2:]]
report = {r["command"]: r["mean"] for r in json.load(open(f"{work}/report.json"))["results"]}
growth = {r["command"]: r["mean"] for r in json.load(open(f"{work}/growth.json"))["results"]}
print("\nHuman output against JSON output of the same check (goal: ≤ 2×)\n")
print("| build | input | JSON | human | human ÷ JSON |")
print("|---|---|---:|---:|---:|")
for build in builds:
    for case in ["fields", "line", "catalog (warm)"]:
        j, h = report[f"{build} json {case}"], report[f"{build} human {case}"]
        print(f"| {build} | {case} | {j*1000:.0f} ms | {h*1000:.0f} ms | {h/j:.2f} |")
print("\nGrowth: time at 2N ÷ time at N (linear: about 2)\n")
print("| build | input | N | 2N | 2N ÷ N |")
print("|---|---|---:|---:|---:|")
for build in builds:
    for case in ["suppressions", "frontmatter"]:
        n, nn = growth[f"{build} {case} N"], growth[f"{build} {case} 2N"]
        print(f"| {build} | {case} | {n*1000:.0f} ms | {nn*1000:.0f} ms | {nn/n:.2f} |")
PY
