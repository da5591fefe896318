#!/usr/bin/env bash
# The README's corpus table: what `contrib check` finds in the manifests
# `contrib import` writes from the real, public corpus in ../shared/corpus/.
#
#   benches/corpus_table.sh            # builds target/release/contrib first
#   CONTRIB=path/to/contrib benches/corpus_table.sh
#   CORPUS=path/to/corpus benches/corpus_table.sh   # another corpus
#
# Runs exactly what a person would:
#   contrib import auto ../shared/corpus/* -o DIR --report
#   contrib check DIR --format json --no-cache
# and prints, as Markdown, the files read, manifests and contributors (from
# the import report's total row), then one row per rule the checker reports
# (code, rule, severity, count), then the share of imported contributors
# `placement-could-be-wider` fires on. Nothing is written outside a
# temporary folder. Without ../shared/corpus it says so and exits 0; it is
# not part of CI, which has no corpus.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
LABEL="${CORPUS:-../shared/corpus/}"
CORPUS="${CORPUS:-$ROOT/../shared/corpus}"

if [ ! -d "$CORPUS" ]; then
    echo "skipped: $CORPUS (the corpus of real plugins this table is about) is not here" >&2
    exit 0
fi
if ! command -v jq >/dev/null; then
    echo "jq is required (apt-get install jq)" >&2
    exit 2
fi
if [ -z "${CONTRIB:-}" ]; then
    cargo build --quiet --release --bin contrib --manifest-path "$ROOT/Cargo.toml"
    CONTRIB="$ROOT/target/release/contrib"
fi
CONTRIB="$(cd "$(dirname "$CONTRIB")" && pwd)/$(basename "$CONTRIB")"
if [ ! -x "$CONTRIB" ]; then
    echo "no contrib binary at $CONTRIB" >&2
    exit 2
fi

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
OUT="$WORK/imported"

sources=()
for entry in "$CORPUS"/*; do
    case "$(basename "$entry")" in .*) continue ;; esac
    sources+=("$entry")
done

# Import exits 1 when some file could not be imported; the report says which.
"$CONTRIB" import auto "${sources[@]}" -o "$OUT" --report >"$WORK/report.md" 2>"$WORK/import.err" || true
# Check exits 1 when it finds errors; that is what the table counts.
(cd "$WORK" && "$CONTRIB" check "$OUT" --format json --no-cache >"$WORK/check.json") || true
if [ ! -s "$WORK/check.json" ] || ! jq -e 'has("diagnostics")' "$WORK/check.json" >/dev/null; then
    cat "$WORK/import.err" >&2
    echo "contrib check did not write its JSON report" >&2
    exit 2
fi

# The import report's total row, read by its header's column names.
read -r files_read manifests contributors < <(awk -F'|' '
    /^\| source \|/ {
        for (i = 1; i <= NF; i++) {
            name = $i; gsub(/^ +| +$/, "", name); column[name] = i
        }
    }
    /^\| \*\*total\*\* \|/ {
        row = $0
        split(row, cells, "|")
        for (key in column) { value[key] = cells[column[key]]; gsub(/[ ,]/, "", value[key]) }
        print value["files read"], value["manifests"], value["contributors"]
        exit
    }' "$WORK/report.md")
if [ -z "${contributors:-}" ]; then
    echo "the import report has no total row" >&2
    exit 2
fi

checked="$(jq '.files' "$WORK/check.json")"
if [ "$checked" != "$manifests" ]; then
    echo "contrib check read $checked manifests, the import wrote $manifests" >&2
    exit 2
fi

echo "Over the real, public corpus in \`$LABEL\` ($files_read files read, $manifests"
echo "manifests, $contributors contributors), \`contrib check\` of the result finds:"
echo
echo "| Code | Rule | Severity | Count |"
echo "|---|---|---|---:|"
jq -r '
    .diagnostics
    | group_by([.code, .name, .severity])
    | map("| \(.[0].code) | `\(.[0].name)` | \(.[0].severity) | \(length) |")
    | .[]' "$WORK/check.json"
echo
wider="$(jq '[.diagnostics[] | select(.name == "placement-could-be-wider")] | length' "$WORK/check.json")"
awk -v wider="$wider" -v total="$contributors" 'BEGIN {
    printf "`placement-could-be-wider`: %d of %d imported contributors (%.2f%%).\n", wider, total, 100 * wider / total
}'
