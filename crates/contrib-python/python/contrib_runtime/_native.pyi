# The types of the compiled module (crates/contrib-python/src).
from datetime import datetime
from os import PathLike
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

JSON = Any
"""A value as JSON reads it: dict, list, str, int, float, bool or None."""

GateAnswer = Union[str, Mapping[str, str]]
"""The output of a call that ran, or ``{"outcome": "ran"|"refused"|"pending", "output"|"reason": str}``."""

Gate = Callable[[Dict[str, JSON]], GateAnswer]
"""Called with ``{contributor, tool, arguments, effect, gated, at}``."""

Reader = Callable[[str, str, str], Optional[str]]
"""Called with ``(skill, version, operation)``; ``None`` when the host has no text."""

Instant = Union[str, datetime]
"""RFC 3339 text, or a timezone-aware datetime."""

WIRES: Tuple[str, str, str]

class ContribError(Exception):
    """Anything the runtime refuses."""

    diagnostics: List[Dict[str, JSON]]
    """``{code, name, severity, message, help, location}``; ``location`` is
    ``{path, line, column, start, end}`` or ``None``."""

class WorkspaceError(ContribError): ...
class ProfileError(ContribError): ...
class ResumeError(ContribError): ...
class SessionError(ContribError): ...
class InputError(ContribError): ...

class Workspace:
    @staticmethod
    def open(
        folder: Union[str, "PathLike[str]"],
        *,
        profiles: Optional[Union[str, "PathLike[str]"]] = None,
    ) -> "Workspace": ...
    @property
    def folder(self) -> Path: ...
    @property
    def plugins(self) -> List[str]: ...
    @property
    def refused_at_load(self) -> List[str]: ...
    def start(
        self,
        session: str,
        *,
        gate: Gate,
        profile: Optional[str] = None,
        tools: Optional[Sequence[Mapping[str, JSON]]] = None,
        reader: Optional[Reader] = None,
        log_path: Optional[Union[str, "PathLike[str]"]] = None,
    ) -> "Conversation": ...
    def resume(
        self,
        session: str,
        log: Union[str, bytes],
        said: Sequence[Mapping[str, JSON]],
        *,
        gate: Gate,
        profile: Optional[str] = None,
        tools: Optional[Sequence[Mapping[str, JSON]]] = None,
        reader: Optional[Reader] = None,
        log_path: Optional[Union[str, "PathLike[str]"]] = None,
    ) -> "Conversation": ...

class Conversation:
    def turn(self, at: Instant, prompt: Optional[str] = None, **fields: JSON) -> Dict[str, JSON]: ...
    def request(self, at: Instant, **fields: JSON) -> Dict[str, JSON]: ...
    def body(self, wire: str) -> Dict[str, JSON]: ...
    def body_record(self, wire: str) -> Dict[str, JSON]: ...
    def model_said(
        self, text: str, calls: Optional[Sequence[Mapping[str, JSON]]] = None
    ) -> None: ...
    def tool_results(self, results: Sequence[Mapping[str, JSON]]) -> None: ...
    def compact(self, kept: Sequence[Mapping[str, JSON]]) -> None: ...
    def approve(self, contributor: str) -> None: ...
    def deny(self, contributor: str) -> None: ...
    @property
    def said(self) -> List[Dict[str, JSON]]: ...
    @property
    def log(self) -> str: ...
    @property
    def system_prompt(self) -> Dict[str, JSON]: ...
    @property
    def opening(self) -> List[Dict[str, JSON]]: ...
    @property
    def breakpoints(self) -> List[Dict[str, JSON]]: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def log_error(self) -> Optional[str]: ...
