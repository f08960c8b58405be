"""One event's path (`benchmarks/event_path.py`): the modules an approver's "approved" comment
visits, as docs/architecture.md quotes them. A change to the run loop that moves a figure fails
here until the page says the new one."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "architecture.md"


def event_path() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "bench_event_path", ROOT / "benchmarks" / "event_path.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_event_path"] = module
    spec.loader.exec_module(module)
    return module


def test_the_comment_is_decided_by_the_rules_after_the_actor_is_asked_for_and_looked_up() -> None:
    path = event_path().approved_comment()
    order = path.order
    assert order[0] == "baton.webhooks"
    # decide asks (asking), the shell answers (fulfil), decide runs again, then the write.
    steps = ["baton.run", "baton.core.rules.route", "baton.core.rules.asking", "baton.issue.fulfil"]
    steps += ["baton.core.rules.humans", "baton.core.rules.conclude", "baton.issue.apply"]
    assert [m for m in order if m in steps] == steps
    assert not any(m.startswith(("baton.sim", "baton.github")) for m in order)
    assert path.into_run >= 2 and path.moves > len(order)


def test_the_architecture_page_quotes_the_path_as_measured() -> None:
    bench = event_path()
    path = bench.approved_comment()
    shell = [m for m in path.order if not m.startswith(bench.LEAF)]
    page = PAGE.read_text(encoding="utf-8")
    words = r"Now (\d+) modules of Baton, (\d+) of the shell, (\d+) moves"
    quoted = re.search(words.replace(" ", r"\s+"), page)
    assert quoted is not None, "docs/architecture.md quotes benchmarks/event_path.py"
    assert tuple(map(int, quoted.groups())) == (len(path.order), len(shell), path.moves)
