"""A workflow's problems as `baton validate` reports them: each names the states involved
and the place in the YAML it comes from."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from baton.workflow.yaml_source import YamlDocument


class Severity(StrEnum):
    error = "error"
    warning = "warning"


@dataclass(frozen=True)
class Problem:
    severity: Severity
    message: str
    path: tuple[str | int, ...] = ()

    def render(self, document: YamlDocument | None = None, prefix: tuple[str, ...] = ()) -> str:
        """`file:line: severity: message`; `prefix` locates an inline workflow in a config."""
        path = (*prefix, *self.path)
        line = document.line_of(path) if document and path else None
        where = f"{document.source}:{line}: " if document and line else ""
        if document and not line:
            where = f"{document.source}: "
        return f"{where}{self.severity.value}: {self.message}"


@dataclass
class Report:
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.error]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity is Severity.warning]

    @property
    def ok(self) -> bool:
        return not self.errors


def error(message: str, *path: str | int) -> Problem:
    return Problem(Severity.error, message, tuple(path))


def warning(message: str, *path: str | int) -> Problem:
    return Problem(Severity.warning, message, tuple(path))
