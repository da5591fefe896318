"""The conformance corpus (tests/conformance/README.md) run against the
Python package: the same bodies after JSON parsing, the same session logs
byte for byte, the same transcripts as the Rust crate wrote in
expected/."""

import json
import pathlib
from typing import Any, Dict, List, Optional

import pytest

import contrib_runtime
from conftest import CORPUS

CASES = sorted((CORPUS / "cases").glob("*.json"))


def canned_gate(answers: Dict[str, str]):
    def gate(request: Dict[str, Any]) -> Any:
        tool = request["tool"]
        if tool in answers:
            return answers[tool]
        return contrib_runtime.refused(f"`{tool}` is not offered to contributors here")

    return gate


def canned_reader(texts: Optional[Dict[str, Dict[str, str]]]):
    if texts is None:
        return None

    def reader(skill: str, version: str, operation: str) -> Optional[str]:
        return texts.get(skill, {}).get(operation)

    return reader


def expected_lines(name: str) -> List[Dict[str, Any]]:
    text = (CORPUS / "expected" / f"{name}.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


def run_case(
    folder: pathlib.Path,
    case: Dict[str, Any],
    resume_from: Optional[Dict[str, Dict[str, Any]]] = None,
) -> List[Dict[str, Any]]:
    """Runs a case's steps; `resume_from` replaces, by the name a resume
    step's `from` gives, the log and said the resume reads (a
    conversation written by another runtime)."""
    workspace = contrib_runtime.Workspace.open(folder)
    open_: Dict[str, contrib_runtime.Conversation] = {}
    outputs: List[Dict[str, Any]] = []
    for index, step in enumerate(case["steps"]):
        what, name = step["do"], step["conversation"]
        if what in ("start", "resume"):
            options = dict(
                gate=canned_gate(step.get("gate") or {}),
                profile=step.get("profile"),
                tools=step.get("tools") or [],
                reader=canned_reader(step.get("reader")),
            )
            if what == "start":
                open_[name] = workspace.start(step["session"], **options)
            else:
                earlier = open_.pop(step["from"])
                log, said = earlier.log, earlier.said
                del earlier
                if resume_from is not None:
                    log = resume_from[step["from"]]["log"]
                    said = resume_from[step["from"]]["said"]
                open_[name] = workspace.resume(step["session"], log, said, **options)
            continue
        conversation = open_[name]
        if what == "turn":
            fields = dict(step["input"])
            at = fields.pop("at")
            conversation.turn(at, step.get("prompt"), **fields)
        elif what == "request":
            fields = dict(step["input"])
            at = fields.pop("at")
            conversation.request(at, **fields)
        elif what == "model_said":
            conversation.model_said(step.get("text", ""), step.get("calls") or [])
        elif what == "tool_results":
            conversation.tool_results(step["results"])
        elif what == "compact":
            conversation.compact(step["kept"])
        elif what == "body":
            wire = step["wire"]
            outputs.append(
                {
                    "step": index,
                    "do": "body",
                    "conversation": name,
                    "wire": wire,
                    "body": conversation.body(wire),
                    "record": conversation.body_record(wire),
                }
            )
        elif what == "log":
            outputs.append({"step": index, "do": "log", "conversation": name, "log": conversation.log})
        elif what == "said":
            outputs.append({"step": index, "do": "said", "conversation": name, "said": conversation.said})
        else:
            raise AssertionError(f"step {index}: there is no step `{what}`")
    return outputs


@pytest.mark.parametrize("path", CASES, ids=[path.stem for path in CASES])
def test_case(workspace_folder: pathlib.Path, path: pathlib.Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    outputs = run_case(workspace_folder, case)
    expected = expected_lines(path.stem)
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        assert got == want, f"step {want['step']} ({want['do']}) differs"


def test_the_corpus_has_its_cases() -> None:
    assert {path.stem for path in CASES} >= {
        "two-persons-anthropic",
        "tool-rounds-openai-responses",
        "openai-chat-compaction",
        "restart-resume",
        "eager-gate-refusal",
    }


def test_a_conversation_rust_wrote_resumes_in_python(workspace_folder: pathlib.Path) -> None:
    """The resume reads the log and said the Rust runner wrote (the
    expected file), not what Python wrote: the resumed bodies and log are
    still Rust's."""
    case = json.loads((CORPUS / "cases" / "restart-resume.json").read_text(encoding="utf-8"))
    expected = expected_lines("restart-resume")
    resume = next(step for step in case["steps"] if step["do"] == "resume")
    written = {
        line["do"]: line
        for line in expected
        if line["conversation"] == resume["from"] and line["do"] in ("log", "said")
    }
    assert set(written) == {"log", "said"}
    rust = {resume["from"]: {"log": written["log"]["log"], "said": written["said"]["said"]}}
    outputs = run_case(workspace_folder, case, resume_from=rust)
    resumed = [line for line in outputs if line["conversation"] == resume["conversation"]]
    assert resumed, "the resumed conversation has outputs"
    assert resumed == [line for line in expected if line["conversation"] == resume["conversation"]]
    assert any(line["do"] == "body" for line in resumed)
