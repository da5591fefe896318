#!/usr/bin/env bash
# What tests/it/oci.rs needs besides the registry (Debian's docker-registry,
# installed by .ci/run): an independent OCI client, the `oras` package
# from PyPI, and `bcrypt` for the htpasswd test, in a throw-away virtual
# environment at target/oci-venv (seconds; reused when it already works).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/oci-venv
if "$venv/bin/python" -c 'import oras.client, bcrypt' 2>/dev/null; then
    exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install -q --disable-pip-version-check 'oras>=0.2,<0.3' 'bcrypt>=4,<6'
"$venv/bin/python" -c 'import oras.client, bcrypt'
