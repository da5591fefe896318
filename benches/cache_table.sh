#!/usr/bin/env bash
# The README's cache table: what `contrib simulate` measures on the
# examples, for every layout side by side, on three fleets and under each
# provider profile. Every figure the README quotes about the prompt cache
# comes from this script.
#
#   benches/cache_table.sh            # builds target/release/contrib first
#   CONTRIB=path/to/contrib benches/cache_table.sh
#
# Runs exactly what a person would:
#   contrib build examples/*.contrib -o DIR
#   contrib simulate --bundles DIR --usage examples/usage/support-turns.jsonl \
#       --profile P --format json  FLEET
# for each fleet below and each profile in PROFILES, and prints, as
# Markdown, one table per fleet: a row per layout, and per profile its
# input cost against sending every input token uncached, against contrib,
# the share of agent-prefix tokens read from a cache entry another
# conversation (or a pre-warm request) wrote, beside it the limit of layout
# alone on that layout's traffic (the most any layout could share without
# pre-warming: the writes after each expiry are unavoidable), and dollars
# (input and output). The `contrib-prewarmed` row appears under profiles
# that take pre-warm requests (Anthropic's `max_tokens: 0`), kept warm 12
# hours after each prefix's last use (`--keep-warm`). Cost counts input
# tokens at the model's uncached, cache-read and cache-write prices; output
# is priced apart and is the same in every layout but for the rounds the
# eager loads save. Deterministic: the same seed gives the same figures.
# The bundles are simulated from a folder (`--bundles`), unapproved: the
# figures are about layout, not trust. Nothing is written outside a
# temporary folder. Not part of CI.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PROFILES="${PROFILES:-anthropic openai}"

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
cd "$ROOT"
if ! "$CONTRIB" build examples/*.contrib -o "$WORK/bundles" >"$WORK/build.log" 2>&1; then
    cat "$WORK/build.log" >&2
    exit 2
fi

# name|title|simulate arguments
FLEETS=(
    "busy|a busy day: 3 agents × 100 persons × 3 conversations of 1 to 20 turns, starting over one day|--agents 3 --persons 100 --conversations 3 --turns 20 --days 1"
    "week|the same conversations spread over a working week (Monday to Saturday)|--agents 3 --persons 100 --conversations 3 --turns 20 --days 6"
    "single|single-turn traffic: 3 agents × 100 persons × 3 conversations of one turn, over one day|--agents 3 --persons 100 --conversations 3 --turns 1 --days 1"
)

for fleet in "${FLEETS[@]}"; do
    IFS='|' read -r name title arguments <<<"$fleet"
    for profile in $PROFILES; do
        # shellcheck disable=SC2086 # the fleet's arguments are words
        "$CONTRIB" simulate --bundles "$WORK/bundles" \
            --usage examples/usage/support-turns.jsonl \
            --profile "$profile" --seed 1 --format json $arguments \
            >"$WORK/$name-$profile.json" 2>"$WORK/simulate.log" ||
            { cat "$WORK/simulate.log" >&2; exit 2; }
    done

    echo "### $title"
    echo
    first="${PROFILES%% *}"
    jq -r '"\(.turns) turns in \(.conversations) conversations (seed \(.options.seed)); conversations start on \(.options.model)\(if .options.switch_model != .options.model then ", a quarter switching to \(.options.switch_model)" else "" end)"' \
        "$WORK/$name-$first.json"
    echo
    header="| layout |"
    rule="|---|"
    for profile in $PROFILES; do
        header="$header $profile: cost vs uncached | × contrib | shared from other conversations | limit of layout alone | input \$ | output \$ |"
        rule="$rule---:|---:|---:|---:|---:|---:|"
    done
    echo "$header"
    echo "$rule"
    layouts=$(jq -r '.layouts[].name' "$WORK"/$name-*.json | awk '!seen[$0]++')
    for layout in $layouts; do
        row="| $(jq -r --arg n "$layout" '.layouts[] | select(.name == $n) | .title' "$WORK"/$name-*.json | head -1) |"
        for profile in $PROFILES; do
            row="$row $(jq -r --arg n "$layout" '
                (.layouts[] | select(.name == "contrib") | .input_cost) as $contrib
                | [.layouts[] | select(.name == $n)]
                | if length == 0 then "— | — | — | — | — | — |" else .[0]
                | "\(.relative_cost * 1000 | round / 1000) | \(.input_cost / $contrib * 100 | round / 100)× | \(.agent_shared_from_other_conversations * 1000 | round / 10)% | \(if .limit then "\(.limit.best_share_from_other_conversations * 1000 | round / 10)% (\(.limit.unavoidable_writes) writes)" else "—" end) | \(if .usd then (.usd.input * 100 | round / 100 | tostring) else "—" end) | \(if .usd then (.usd.output * 100 | round / 100 | tostring) else "—" end) |" end' \
                "$WORK/$name-$profile.json")"
        done
        echo "$row"
    done
    echo
    for profile in $PROFILES; do
        jq -r --arg p "$profile" '
            "- \($p): the hand-placed layout (b) costs \(.fair_ratio * 100 | round / 100)× contrib'"'"'s input"
            + (if .fair_ratio_with_output then " (\(.fair_ratio_with_output * 100 | round / 100)× with output priced in)" else "" end)
            + "; eager loads: \(.eager_loads.rounds_without - .eager_loads.rounds_with) rounds saved (\(.eager_loads.rounds_saved_per_conversation * 100 | round / 100) per conversation) for \(.eager_loads.preloaded_tokens_per_request | round) tokens in every request"
            + (if .prewarm then "; pre-warming " + (if .prewarm.pays then "pays" else "does not pay" end) + ": \(.prewarm.requests) pre-warm requests, input cost \(.prewarm.cost_with / .prewarm.cost_without * 1000 | round / 1000)× contrib'"'"'s" else "; no pre-warm request on this profile'"'"'s model" end)
            + (if (.short_prefixes | length) > 0 then "; warning: " + ([.short_prefixes[] | "\(.boundary) prefix under the minimum in \(.requests) turns"] | join(", ")) else "" end)' \
            "$WORK/$name-$profile.json"
    done
    echo
done

# Why the busy day shares what it does: the same day with compaction
# switched off, so the mid-day skill update never reaches a running
# conversation's agent prefix (see docs/cache.md, "The limit of layout
# alone").
"$CONTRIB" simulate --bundles "$WORK/bundles" \
    --usage examples/usage/support-turns.jsonl --profile anthropic --seed 1 \
    --format json --agents 3 --persons 100 --conversations 3 --turns 20 --days 1 \
    --compact-after 10000000 >"$WORK/never-compacted.json" 2>"$WORK/simulate.log" ||
    { cat "$WORK/simulate.log" >&2; exit 2; }
echo "### the busy day with compaction switched off (anthropic)"
echo
jq -r '.layouts[] | select(.name == "contrib") | "contrib shares \(.agent_shared_from_other_conversations * 1000 | round / 10)% of agent-prefix tokens; the limit of layout alone is \(.limit.best_share_from_other_conversations * 1000 | round / 10)% with \(.limit.unavoidable_writes) unavoidable writes"' \
    "$WORK/never-compacted.json"
