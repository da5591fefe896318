"""check_recording.py must fail on a recording that breaks its rules: a
checker that passes everything would let every host regression through.

    python3 -m unittest examples/hosts/test_check_recording.py

Each test starts from one good recording (two persons on one host, a tool
call answered, a restart that tells only what changed), breaks one rule,
and expects the checker to exit 1 naming it.
"""

import copy
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from typing import Any, Dict, List

CHECKER = Path(__file__).with_name("check_recording.py")

SYSTEM = [
    {"type": "text", "text": "Platform preamble."},
    {"type": "text", "text": "Agent prompt.", "cache_control": {"type": "ephemeral"}},
]


def user(text: str) -> Dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def request(label: str, messages: List[Dict[str, Any]], system: Any = None) -> Dict[str, Any]:
    body = {"model": "m", "system": system or SYSTEM, "tools": [{"name": "lookup"}], "messages": messages}
    return {"path": "/v1/messages", "conversation": label, "body": body}


def good() -> List[Dict[str, Any]]:
    call = {"role": "assistant", "content": [{"type": "tool_use", "id": "local_call_1", "name": "lookup", "input": {}}]}
    answer = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "local_call_1", "content": "42"}]}
    return [
        request("sam", [user("Hello from Sam.")]),
        request("sam", [user("Hello from Sam."), call, answer]),
        request("priya", [user("Hello from Priya.")]),
        request("sam-resumed", [user("Hello from Sam."), call, answer, user("Back again.")]),
    ]


def check(lines: List[Dict[str, Any]], *labels: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as folder:
        recording = Path(folder) / "recording.jsonl"
        recording.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        return subprocess.run(
            [sys.executable, str(CHECKER), str(recording), *labels],
            capture_output=True,
            text=True,
            check=False,
        )


class CheckRecording(unittest.TestCase):
    def assert_refused(self, lines: List[Dict[str, Any]], expected: str, *labels: str) -> None:
        result = check(lines, *labels)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn(expected, result.stderr)

    def test_a_good_recording_passes(self) -> None:
        result = check(good(), "sam-resumed")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("4 requests checked", result.stdout)

    def test_an_empty_recording_fails(self) -> None:
        self.assert_refused([], "no request arrived")

    def test_persons_with_different_agent_prefixes_fail(self) -> None:
        lines = good()
        system = copy.deepcopy(SYSTEM)
        system[0]["text"] = "Priya's own preamble."
        lines[2] = request("priya", [user("Hello from Priya.")], system)
        self.assert_refused(lines, "agent requests differ before the agent breakpoint")

    def test_more_than_four_breakpoints_fail(self) -> None:
        lines = good()
        marked = [{"type": "text", "text": f"block {n}", "cache_control": {"type": "ephemeral"}} for n in range(5)]
        lines[0]["body"]["system"] = marked
        self.assert_refused(lines, "5 cache breakpoints, at most four")

    def test_an_unanswered_tool_call_fails(self) -> None:
        lines = good()
        del lines[1]["body"]["messages"][2]
        self.assert_refused(lines, "tool calls not answered: ['local_call_1']")

    def test_a_text_told_twice_after_resuming_fails(self) -> None:
        lines = good()
        lines[3]["body"]["messages"].append(user("Hello from Sam."))
        self.assert_refused(lines, "told twice after resuming")

    def test_a_text_lost_across_the_restart_fails(self) -> None:
        lines = good()
        lines[3]["body"]["messages"][0] = user("Someone else.")
        self.assert_refused(lines, "what was said before the restart is missing")

    def test_a_preface_retrieved_again_is_not_lost(self) -> None:
        lines = good()
        lines[1]["body"]["messages"].insert(0, user('<retrieved_content source="notes">old</retrieved_content>'))
        self.assertEqual(check(lines, "sam-resumed").returncode, 0)

    def test_a_missing_label_fails(self) -> None:
        self.assert_refused(good(), "no request labelled `ts:sam-resumed` arrived", "sam-resumed", "ts:sam-resumed")

    def test_a_recording_without_a_restart_fails(self) -> None:
        self.assert_refused(good()[:3], "no resumed conversation arrived")


if __name__ == "__main__":
    unittest.main()
