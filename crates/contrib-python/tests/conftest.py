"""The workspace the tests run in: tests/conformance/setup.sh, installed
with the `contrib` command line into a temporary folder."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "conformance"


def cannot_run(why: str) -> None:
    """Skips here; under CI=true, fails (CI installs what the tests need)."""
    if os.environ.get("CI") in ("true", "1"):
        pytest.fail(f"this test cannot run, and CI=true: {why}")
    pytest.skip(why)


def contrib_bin() -> str:
    given = os.environ.get("CONTRIB_BIN")
    if given:
        return given
    for profile in ("debug", "release"):
        candidate = ROOT / "target" / profile / "contrib"
        if candidate.is_file():
            return str(candidate)
    cannot_run("no `contrib` binary (set CONTRIB_BIN or `cargo build --bin contrib`)")
    raise AssertionError("unreachable")


@pytest.fixture(scope="session")
def workspace_folder(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    work = tmp_path_factory.mktemp("conformance")
    env = dict(os.environ, CONTRIB_BIN=contrib_bin())
    subprocess.run(["bash", str(CORPUS / "setup.sh"), str(work)], check=True, env=env)
    return work / "workspace"
