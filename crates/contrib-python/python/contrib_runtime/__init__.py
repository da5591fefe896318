"""The contrib runtime for agent hosts.

Open a workspace whose ``contrib.lock`` says what a person approved, start
or resume conversations in it, and per request get the body for the
provider's wire as a plain ``dict`` its SDK sends as it is::

    import anthropic, contrib_runtime

    workspace = contrib_runtime.Workspace.open("/srv/agents/acme")
    conversation = workspace.start(session_toml, gate=my_gate, tools=my_tools)
    conversation.turn("2026-03-02T09:01:00Z", "Where is the login handler?")
    conversation.request("2026-03-02T09:01:00Z")
    reply = anthropic.Anthropic().messages.create(**conversation.body("anthropic"))

``docs/host.md`` in the repository is the long form.
"""

from typing import Any, Dict

from ._native import (
    WIRES,
    ContribError,
    Conversation,
    InputError,
    ProfileError,
    ResumeError,
    SessionError,
    Workspace,
    WorkspaceError,
)

__all__ = [
    "WIRES",
    "ContribError",
    "Conversation",
    "InputError",
    "ProfileError",
    "ResumeError",
    "SessionError",
    "Workspace",
    "WorkspaceError",
    "ran",
    "refused",
    "pending",
]


def ran(output: str) -> Dict[str, Any]:
    """A gate's answer: the call ran and returned ``output``."""
    return {"outcome": "ran", "output": output}


def refused(reason: str) -> Dict[str, Any]:
    """A gate's answer: the call is refused, for ``reason``."""
    return {"outcome": "refused", "reason": reason}


def pending(reason: str) -> Dict[str, Any]:
    """A gate's answer: the call waits for a person's approval."""
    return {"outcome": "pending", "reason": reason}
