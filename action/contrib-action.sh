#!/usr/bin/env bash
# What the contrib GitHub Action runs (action.yml), and what CI runs against
# the examples. Reads its inputs from the environment:
#
#   CONTRIB_COMMAND      check | diff
#   CONTRIB_PATHS        check: paths, separated by spaces (default ".")
#   CONTRIB_OLD, CONTRIB_NEW   diff: the approved and the new version
#   CONTRIB_ARGS         more arguments, separated by spaces
#   CONTRIB_SARIF        check: where the SARIF report goes (contrib.sarif)
#   CONTRIB_ANNOTATIONS  check: "true" to also print GitHub annotations
#   GITHUB_OUTPUT        where step outputs go (set by the runner)
#
# Exit status: contrib's own. `check`: 0 clean, 1 problems, 2 could not
# run. `diff`: 0 within what was approved, 3 needs approval, 2 could not run.
set -uo pipefail

command=${CONTRIB_COMMAND:-check}
sarif=${CONTRIB_SARIF:-contrib.sarif}
output=${GITHUB_OUTPUT:-/dev/null}
read -r -a extra <<<"${CONTRIB_ARGS:-}"

case "$command" in
check)
    read -r -a paths <<<"${CONTRIB_PATHS:-.}"
    contrib check --format sarif "${extra[@]}" "${paths[@]}" >"$sarif"
    status=$?
    if [ "$status" -le 1 ]; then
        echo "sarif-file=$sarif" >>"$output"
    fi
    if [ "${CONTRIB_ANNOTATIONS:-true}" = "true" ] && [ "$status" -le 1 ]; then
        # Answered from the cache the first run filled: no second check.
        contrib check --format github "${extra[@]}" "${paths[@]}" 2>/dev/null || true
    fi
    exit "$status"
    ;;
diff)
    if [ -z "${CONTRIB_OLD:-}" ] || [ -z "${CONTRIB_NEW:-}" ]; then
        echo "::error title=contrib diff::give both \`old\` and \`new\`"
        exit 2
    fi
    contrib diff "${extra[@]}" "$CONTRIB_OLD" "$CONTRIB_NEW"
    status=$?
    if [ "$status" -eq 3 ]; then
        echo "needs-approval=true" >>"$output"
        echo "::error title=contrib diff::$CONTRIB_NEW asks for more than $CONTRIB_OLD: a person must approve it"
    elif [ "$status" -eq 0 ]; then
        echo "needs-approval=false" >>"$output"
    fi
    exit "$status"
    ;;
*)
    echo "::error title=contrib::unknown command \`$command\`: write check or diff"
    exit 2
    ;;
esac
