# Sourced by the test scripts that run the command line: sets `contrib` to
# $CONTRIB_BIN, or to target/release/contrib or target/debug/contrib under
# `$root` (which the script sets first), whichever is built; stops the
# script when none is.
contrib="${CONTRIB_BIN:-}"
if [ -z "$contrib" ]; then
    for candidate in "$root/target/release/contrib" "$root/target/debug/contrib"; do
        if [ -x "$candidate" ]; then contrib=$candidate; break; fi
    done
fi
[ -n "$contrib" ] || { echo "no contrib binary: build it first (cargo build)" >&2; exit 1; }
