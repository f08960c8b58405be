"""What `baton doctor` found: each finding says what is missing or wrong and how to fix it."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict


class Level(StrEnum):
    error = "error"  # Baton will not work until it is fixed
    warning = "warning"  # Baton works; something is worth knowing
    unchecked = "cannot check"  # the token may not read it
    note = "note"  # Baton works as configured; how it will behave


class Finding(BaseModel):
    """One thing found, and its fix (empty when there is nothing to do)."""

    model_config = ConfigDict(frozen=True)

    level: Level
    what: str
    fix: str = ""

    def lines(self) -> list[str]:
        """The finding as printed: one line, and its fix on the next."""
        return [f"{self.level}: {self.what}", *([f"  fix: {self.fix}"] if self.fix else [])]


def error(what: str, fix: str) -> Finding:
    return Finding(level=Level.error, what=what, fix=fix)


def warning(what: str, fix: str = "") -> Finding:
    return Finding(level=Level.warning, what=what, fix=fix)


def unchecked(what: str, needs: str) -> Finding:
    return Finding(level=Level.unchecked, what=what, fix=f"use a token with {needs}")


def report(findings: list[Finding]) -> list[str]:
    """Every finding, then one line counting them."""
    errors = sum(f.level is Level.error for f in findings)
    counts = [f"{errors} error{'s' * (errors != 1)}"]
    named = ((Level.warning, "warning"), (Level.unchecked, "not checked"), (Level.note, "note"))
    for level, name in named:
        count = sum(f.level is level for f in findings)
        if count:
            plural = count != 1 and level is not Level.unchecked
            counts.append(f"{count} {name}{'s' * plural}")
    lines = [line for finding in findings for line in finding.lines()]
    verdict = "Baton's setup looks right" if not errors else "Baton's setup needs fixing"
    return [*lines, f"{verdict}: {', '.join(counts)}."]
