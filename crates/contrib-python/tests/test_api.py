"""The Python API beyond the corpus: errors as exceptions with their
diagnostics, the gate and reader as callables, times as datetimes, the
log written to a file."""

import datetime
import json
import pathlib
from typing import Any, Dict, List

import pytest

import contrib_runtime
from conftest import CORPUS

CASE = json.loads((CORPUS / "cases" / "two-persons-anthropic.json").read_text(encoding="utf-8"))
SESSION: str = CASE["steps"][0]["session"]
TOOLS: List[Dict[str, Any]] = CASE["steps"][0]["tools"]


def test_a_gate_hears_requests_as_dicts_and_a_failing_gate_refuses(
    workspace_folder: pathlib.Path,
) -> None:
    heard: List[Dict[str, Any]] = []

    def gate(request: Dict[str, Any]) -> Any:
        heard.append(request)
        if request["tool"] == "fetch_url":
            raise RuntimeError("no network here")
        return contrib_runtime.ran("the output")

    workspace = contrib_runtime.Workspace.open(workspace_folder)
    assert workspace.refused_at_load == []
    assert "acme/clock@2.0.0" in workspace.plugins
    conversation = workspace.start(SESSION, gate=gate, tools=TOOLS)
    at = datetime.datetime(2026, 3, 2, 9, 1, tzinfo=datetime.timezone.utc)
    turn = conversation.turn(at, "Hello")
    assert turn["number"] == 1
    conversation.request(at)
    assert {request["tool"] for request in heard} >= {"get_current_time", "fetch_url"}
    assert all(
        set(request) >= {"contributor", "tool", "arguments", "at"} for request in heard
    )
    body = conversation.body("anthropic")
    assert body["model"] == "claude-sonnet-4-5"
    text = json.dumps(body)
    assert "the output" in text
    assert "no network here" not in text
    record = conversation.body_record("anthropic")
    assert len(record["breakpoints"]) <= 4


def test_a_reader_supplies_operations(workspace_folder: pathlib.Path) -> None:
    asked: List[tuple] = []

    def reader(skill: str, version: str, operation: str) -> str:
        asked.append((skill, version, operation))
        return "Diff it against main."

    workspace = contrib_runtime.Workspace.open(workspace_folder)
    conversation = workspace.start(SESSION, gate=lambda request: "ok", tools=TOOLS, reader=reader)
    assert asked == [("code-review", "2.3.0", "diff")]
    conversation.turn("2026-03-02T09:01:00Z", "Hi")
    conversation.request("2026-03-02T09:01:00Z")
    assert "Diff it against main." in json.dumps(conversation.body("anthropic"))


def test_the_log_is_written_to_the_file_as_it_goes(
    workspace_folder: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "sam.log"
    workspace = contrib_runtime.Workspace.open(workspace_folder)
    conversation = workspace.start(SESSION, gate=lambda request: "ok", log_path=path)
    conversation.turn("2026-03-02T09:01:00Z", "Hi")
    conversation.request("2026-03-02T09:01:00Z")
    assert path.read_text(encoding="utf-8") == conversation.log
    assert conversation.log.startswith("contrib-session-log 2\n")
    assert conversation.log_error is None


def test_a_new_conversation_never_overwrites_a_log(
    workspace_folder: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "sam.log"
    path.write_text("contrib-session-log 2\nanother conversation\n", encoding="utf-8")
    workspace = contrib_runtime.Workspace.open(workspace_folder)
    with pytest.raises(FileExistsError) as raised:
        workspace.start(SESSION, gate=lambda request: "ok", log_path=path)
    assert str(path) in str(raised.value)
    assert path.read_text(encoding="utf-8") == "contrib-session-log 2\nanother conversation\n"


def test_not_a_workspace(tmp_path: pathlib.Path) -> None:
    with pytest.raises(contrib_runtime.WorkspaceError) as raised:
        contrib_runtime.Workspace.open(tmp_path)
    assert isinstance(raised.value, contrib_runtime.ContribError)
    assert "is not a workspace" in str(raised.value)
    assert raised.value.diagnostics[0]["code"] == "workspace"


def test_a_policy_with_errors_carries_its_diagnostics(tmp_path: pathlib.Path) -> None:
    (tmp_path / "contrib.toml").write_text(
        "[workspace]\ncontext_budget = 200000\n\n[tools.search_code]\neffect = \"teleport\"\n",
        encoding="utf-8",
    )
    with pytest.raises(contrib_runtime.WorkspaceError) as raised:
        contrib_runtime.Workspace.open(tmp_path)
    diagnostics = raised.value.diagnostics
    assert diagnostics, "the policy's diagnostics"
    first = diagnostics[0]
    assert first["code"] and first["message"] and first["severity"] == "error"
    assert first["location"]["path"].endswith("contrib.toml")
    assert first["location"]["line"] >= 1


def test_unknown_profile_session_and_input(workspace_folder: pathlib.Path) -> None:
    workspace = contrib_runtime.Workspace.open(workspace_folder)
    with pytest.raises(contrib_runtime.ProfileError, match="no cache profile `gemini`"):
        workspace.start(SESSION, gate=lambda request: "ok", profile="gemini")
    with pytest.raises(contrib_runtime.SessionError):
        workspace.start("started_at = 12", gate=lambda request: "ok")
    conversation = workspace.start(SESSION, gate=lambda request: "ok")
    with pytest.raises(contrib_runtime.InputError, match="unknown field `replyin`"):
        conversation.turn("2026-03-02T09:01:00Z", "Hi", replyin=False)
    with pytest.raises(contrib_runtime.InputError, match="there is no wire `gemini`"):
        conversation.body("gemini")
    with pytest.raises(contrib_runtime.InputError):
        conversation.tool_results([{"id": "x"}])


def test_a_damaged_log_does_not_resume(workspace_folder: pathlib.Path) -> None:
    workspace = contrib_runtime.Workspace.open(workspace_folder)
    with pytest.raises(contrib_runtime.ResumeError) as raised:
        workspace.resume(SESSION, "not a log\n", [], gate=lambda request: "ok")
    assert raised.value.diagnostics[0]["message"].startswith("cannot resume")
