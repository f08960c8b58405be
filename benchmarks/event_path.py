"""One event's path through Baton, module by module: an approver's "approved" comment on an
issue waiting for human input, from the payload (`webhooks.parse`) through `run.handle` to the
write, over the demo's GitHub (`baton.sim`), leaving out the GitHub client (`baton.github`) and the
model of GitHub behind it: what is counted is Baton's own path.

    .venv/bin/python benchmarks/event_path.py

Prints the modules in the order the run first calls into them, how many there are (all of
Baton; the shell alone, without the plain data, words and definitions it reads), how often the
run moves from one module to another, and how often it comes back into `baton.run`.
docs/architecture.md quotes the figures.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from types import FrameType
from typing import Any

from baton import webhooks
from baton.core.model.commands import parse_command
from baton.core.model.events import Ignored
from baton.issue.apply import tracker_labels
from baton.run import handle
from baton.sim import payloads
from baton.sim.sim_github import SimGitHub
from baton.workflow.config import Config, settings_from

LEAF = ("baton.core.model", "baton.core.text", "baton.workflow", "baton.errors", "baton.names")


class Path:
    """The baton modules a profiled stretch of code calls into, in order, and its moves."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.moves = 0
        self.into_run = 0
        self._last = ""

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        module = str(frame.f_globals.get("__name__", ""))
        if not module.startswith("baton.") or module.startswith(("baton.sim", "baton.github")):
            return
        if module not in self.order:
            self.order.append(module)
        if module != self._last:
            self.moves += 1
            self.into_run += module == "baton.run"
        self._last = module


def approved_comment() -> Path:
    """Issue #1 forced into waiting_for_human_input by a maintainer, then "approved" by her."""
    settings = settings_from(Config())
    gh = SimGitHub(labels=tracker_labels(settings), now=datetime(2026, 11, 2, 9, 0, tzinfo=UTC))
    gh.set_permission("maria", "maintain")
    gh.open_issue("Export the report as CSV", "Please add a CSV export.", author="alice")

    def deliver(name: str, payload: dict[str, Any]) -> None:
        event = webhooks.parse(name, payload, settings.policy, now=gh.now, run_id="41")
        assert not isinstance(event, Ignored), event
        gh.new_run()
        handle(event, gh, settings)

    label = settings.workflow.label_for("waiting_for_human_input", settings.policy.label_prefix)
    gh.human_label(1, label, by="maria")
    deliver("issues", payloads.labeled(gh, 1, label, sender="maria"))
    posted = gh.human_comment(1, "approved", author="maria", association="MEMBER")
    parse_command.cache_clear()  # a run is a process of its own: it has parsed no comment yet
    path = Path()
    sys.setprofile(path)
    try:
        deliver("issue_comment", payloads.comment_created(gh, posted.id))
    finally:
        sys.setprofile(None)
    return path


def main() -> None:
    path = approved_comment()
    shell = [m for m in path.order if not m.startswith(LEAF)]
    print(f"{len(path.order)} modules of Baton; {len(shell)} without model, text and workflow")
    print(f"{path.moves} moves between modules; {path.into_run} into baton.run")
    for module in shell:
        print("  " + module.removeprefix("baton."))


if __name__ == "__main__":
    main()
