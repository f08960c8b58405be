"""`baton demo` (`sim/demo.py`) as a new user reads it: each notice told once, no agent named
without saying what comes first, and a diagram only when asked for. Exact lines, since the
output is what the README sends a newcomer to."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner, Result

from baton.cli import cli


@pytest.fixture(scope="module")
def told() -> Result:
    result = CliRunner().invoke(cli, ["demo"])
    assert result.exit_code == 0, result.output
    return result


def _step(output: str, number: int) -> list[str]:
    """The lines of one numbered step, up to the blank line that ends it."""
    start = re.search(rf"^{number:>2}\. .*$", output, re.M)
    assert start, number
    return output[start.start() :].split("\n\n", 1)[0].splitlines()


CI_NOTICE = "     | ### 🔐 CI on pull request #2 waits for a maintainer's approval"


def test_the_ci_approval_notice_is_shown_once_and_named_when_posted_again(told: Result) -> None:
    assert told.output.count("Approve and run") == 1
    assert _step(told.output, 8)[4:7] == [
        "   bot comments:",
        CI_NOTICE,
        "     | GitHub holds the CI runs of a pull request that GITHUB_TOKEN opened or updated "
        "until someone with write access clicks **Approve and run** on the pull request page. "
        "Approving runs the agent-written code of the pull request (its tests, a `conftest.py`, "
        "a Makefile, any script CI calls) with the repository's secrets: review the diff first, "
        "and approve only what you would run yourself. Each commit Baton adds waits for approval "
        "again; a run never approved sends nothing back.",
    ]
    assert _step(told.output, 11)[4:7] == [
        "   bot comments again, as at step 8:",
        CI_NOTICE,
        "   next agent: pm (workflow run dispatched)",
    ]


def test_an_agent_named_before_a_human_step_says_that_step_comes_first(told: Result) -> None:
    assert _step(told.output, 17) == [
        "17. maria reviews pull request #2: approves",
        "   transition: waiting_for_human_input → human_input_received",
        "   why: waiting_for_human_input → human_input_received: maria approved pull request #2",
        "   labels: status:human-input-received",
        "   next agent: pm (follow-up job); step 18 happens before it reports",
    ]
    assert "   next agent: developer (follow-up job)" in _step(told.output, 13)


def test_the_header_says_what_next_agent_means(told: Result) -> None:
    assert told.output.splitlines()[:3] == [
        "Baton demo: one issue through the issue-lifecycle workflow, on an in-memory GitHub.",
        "Every step is a GitHub event or an agent report, handled exactly as `baton run` and "
        "`baton report` handle them.",
        "“next agent” is the agent Baton starts next: in a job of the same workflow run "
        "(follow-up job) or in a run it dispatches.",
    ]


def test_the_demo_ends_with_where_the_diagram_is_not_with_raw_mermaid(told: Result) -> None:
    assert "```" not in told.output and "-->" not in told.output
    assert told.output.splitlines()[-7:] == [
        "   ✓ as expected",
        "",
        "Final state: completed after 15 transitions (67 GitHub API requests, 8 workflow runs "
        "dispatched).",
        "The work: baton/issue-1 at 638a655, 4 commit(s) by Baton; pull request #2 merged into "
        "main as f0892a6.",
        "",
        "The path as a Mermaid diagram: `baton demo --diagram` (GitHub draws Mermaid in Markdown).",
        "The whole workflow: `baton graph`, drawn in the README.",
    ]


def test_diagram_ends_the_demo_with_the_path_as_mermaid(told: Result) -> None:
    drawn = CliRunner().invoke(cli, ["demo", "--diagram"])
    assert drawn.exit_code == 0, drawn.output
    head, _, diagram = drawn.output.partition("\nThe path the issue took:\n\n```mermaid\n")
    assert head == told.output.rsplit("\nThe path as a Mermaid diagram", 1)[0]
    assert diagram.startswith("stateDiagram-v2\n    [*] --> received\n")
    assert diagram.endswith("    completed --> [*]\n```\n")
