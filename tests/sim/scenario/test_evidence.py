"""A report's evidence (`sim/scenario/evidence.py`): the player makes the `Evidence` the agent's
job would have handed back, and the event `baton report` builds carries it. Its commit, changeset
and files are checked against values computed here from what GitHub holds, by hand."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import pytest

from baton.core.model.changeset import Changeset, FileChange
from baton.core.model.events import AgentReported
from baton.core.model.work import digest_in
from baton.run import handle
from baton.sim.scenario import player as player_module
from baton.sim.scenario.format import parse_scenario
from baton.sim.scenario.player import Player
from baton.workflow.config import Settings, load_config, parse_config

TEST_FILE = "def test_header():\n    from report.export import to_csv\n"
FAILED = (
    "{id: tests/test_export.py::test_header, file: tests/test_export.py, outcome: failed, "
    "message: \"ModuleNotFoundError: No module named 'report'\"}"
)
PASSED = "{id: tests/test_export.py::test_header, file: tests/test_export.py, outcome: passed}"
START = "people: {maria: maintain}\nsteps:\n  - label: status:creating-tests\n    by: maria\n"
RED = (
    "  - report:\n"
    "      agent: tester\n"
    '      changes: {tests/test_export.py: "' + TEST_FILE.replace("\n", "\\n") + '"}\n'
    f"      evidence: {{tests: [{FAILED}], new: [tests/test_export.py::test_header]}}\n"
)
GREEN = f"  - report:\n      agent: developer\n      evidence: {{tests: [{PASSED}]}}\n"


class Seen:
    """The report events the player hands to `run.handle`, in order."""

    def __init__(self) -> None:
        self.reports: list[AgentReported] = []


@pytest.fixture
def seen(monkeypatch: pytest.MonkeyPatch) -> Seen:
    found = Seen()

    def recording(event: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(event, AgentReported):
            found.reports.append(event)
        return handle(event, *args, **kwargs)

    monkeypatch.setattr(player_module, "handle", recording)
    return found


def _play(text: str, settings: Settings | None = None, said: list[str] | None = None) -> Player:
    sink = said.append if said is not None else (lambda _: None)
    player = Player(parse_scenario(text, "inline"), settings or load_config(None), sink)
    player.play()
    return player


def _blob(text: str) -> str:
    data = text.encode()
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


def _files(*lines: str) -> str:
    return "sha256:" + hashlib.sha256("".join(sorted(lines)).encode()).hexdigest()


def test_a_red_proof_names_the_base_the_changesets_digest_and_the_tree_after_it(
    seen: Seen,
) -> None:
    player = _play(START + RED)
    evidence = seen.reports[0].evidence
    git = player.gh.git
    initial = git.head("main")
    committed = git.commits[git.head(player.branch) or ""]
    by_hand = Changeset(
        base=initial or "",
        files=[
            FileChange(
                path="tests/test_export.py", contents=base64.b64encode(TEST_FILE.encode()).decode()
            )
        ],
    )

    assert evidence is not None
    assert (evidence.verdict, evidence.reason) == (
        "red",
        "1 new or changed failed, every other test passed",
    )
    assert (evidence.commit, evidence.base, evidence.exit_status) == (initial, initial, 1)
    assert evidence.changeset == digest_in(committed.message) == by_hand.digest()
    assert evidence.files == _files(f"100644 {_blob(TEST_FILE)}\ttests/test_export.py\n")
    assert evidence.new == ("tests/test_export.py::test_header",)
    assert player.evidence == [(2, evidence)]


def test_evidence_without_changes_is_of_the_branch_head_and_keeps_the_same_files(
    seen: Seen,
) -> None:
    player = _play(START + RED + GREEN)
    red, green = (report.evidence for report in seen.reports)
    git = player.gh.git

    assert red is not None and green is not None
    assert (green.verdict, green.reason) == ("green", "1 passed, 0 skipped")
    assert green.commit == git.head(player.branch) != red.commit
    assert (green.changeset, green.exit_status) == (None, 0)
    assert green.base == git.head("main")  # the merge base of the branch with main
    assert green.files == red.files


def test_before_the_branch_exists_the_evidence_is_of_the_default_branchs_head(
    seen: Seen,
) -> None:
    player = _play(f"steps:\n  - report: {{evidence: {{tests: [{PASSED}]}}}}\n")
    evidence = seen.reports[0].evidence

    assert evidence is not None
    assert evidence.commit == evidence.base == player.gh.git.head("main")


def test_the_files_are_those_the_configs_tests_name_in_the_tree_after_the_changes(
    seen: Seen,
) -> None:
    settings = parse_config(
        "tests:\n  command: make test\n  paths: ['spec/**']\n  frozen: [README.md, conftest.py]\n",
        source="inline",
    )
    _play(
        START + "  - report:\n"
        "      agent: tester\n"
        "      changes:\n"
        '        {spec/a.py: "A\\n", conftest.py: "C\\n", src/x.py: "X\\n", README.md: null}\n'
        f"      evidence: {{tests: [{PASSED}]}}\n",
        settings,
    )
    evidence = seen.reports[0].evidence

    assert evidence is not None
    assert evidence.files == _files(
        f"100644 {_blob('A' + chr(10))}\tspec/a.py\n",
        f"100644 {_blob('C' + chr(10))}\tconftest.py\n",
    )


def test_evidence_made_stale_names_the_commit_before_the_one_the_report_is_bound_to(
    seen: Seen,
) -> None:
    said: list[str] = []
    stale = f"  - report: {{agent: developer, evidence: {{tests: [{PASSED}], commit: stale}}}}\n"
    player = _play(START + RED + stale, said=said)
    git = player.gh.git
    head = git.commits[git.head(player.branch) or ""]  # Baton's commit of the red proof
    evidence = seen.reports[1].evidence

    assert evidence is not None
    assert evidence.commit == head.parents[0] == git.head("main")
    assert (
        f"   evidence: green on {evidence.commit[:7]} (stale: the report is bound to "
        f"{head.oid[:7]}): 1 passed, 0 skipped"
    ) in said


def test_evidence_made_stale_names_another_changeset_than_the_reports(seen: Seen) -> None:
    said: list[str] = []
    player = _play(
        START + "  - report:\n"
        "      agent: tester\n"
        '      changes: {tests/test_export.py: "x\\n"}\n'
        f"      evidence: {{tests: [{PASSED}], changeset: stale}}\n",
        said=said,
    )
    evidence = seen.reports[0].evidence
    mine = Changeset(
        base=player.gh.git.head("main") or "",
        files=[FileChange(path="tests/test_export.py", contents=base64.b64encode(b"x\n").decode())],
    ).digest()

    assert evidence is not None and evidence.changeset is not None
    assert evidence.changeset != mine
    assert evidence.changeset.startswith("sha256:") and len(evidence.changeset) == 71
    assert any(f"(stale: the report has changeset {mine[7:19]})" in line for line in said)


def test_stale_evidence_on_a_first_commit_names_a_commit_git_does_not_hold(seen: Seen) -> None:
    player = _play(f"steps:\n  - report: {{evidence: {{tests: [{PASSED}], commit: stale}}}}\n")
    evidence = seen.reports[0].evidence

    assert evidence is not None
    assert evidence.commit not in player.gh.git.commits


def test_a_changeset_from_a_stale_base_has_evidence_of_that_base(seen: Seen) -> None:
    player = _play(
        START + "  - report:\n"
        "      agent: tester\n"
        "      base: stale\n"
        '      changes: {tests/test_export.py: "x\\n"}\n'
        f"      evidence: {{tests: [{FAILED}], new: [tests/test_export.py::test_header]}}\n"
    )
    evidence = seen.reports[0].evidence

    assert evidence is not None
    assert evidence.commit == player.gh.git.head("main") != player.gh.git.head(player.branch)


def test_a_problem_is_broken_evidence_and_the_player_says_the_evidence_beside_the_report(
    seen: Seen,
) -> None:
    said: list[str] = []
    _play(
        START + "  - report:\n      agent: tester\n"
        "      evidence: {problem: no JUnit was written, exit_status: null}\n",
        said=said,
    )
    evidence = seen.reports[0].evidence

    assert evidence is not None
    assert (evidence.verdict, evidence.reason, evidence.exit_status) == (
        "broken",
        "no JUnit was written",
        None,
    )
    assert f"   evidence: broken on {evidence.commit[:7]}: no JUnit was written" in said


def test_the_player_says_a_red_proof_with_its_failing_tests(seen: Seen) -> None:
    said: list[str] = []
    player = _play(START + RED, said=said)
    evidence = player.evidence[0][1]

    assert (
        f"   evidence: red on {evidence.commit[:7]} with changeset {evidence.changeset[7:19]}: "
        "1 new or changed failed, every other test passed; failing: "
        "tests/test_export.py::test_header"
    ) in said
