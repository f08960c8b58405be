"""The page: other people's text shown as plain text, every number in a table, and a body GitHub
takes however many issues there are."""

from __future__ import annotations

import re
import time

from hypothesis import given
from hypothesis import strategies as st

from baton.core.model.epic import Cost
from baton.core.model.evidence import RedProof
from baton.dashboard.figures import figures
from baton.dashboard.model import Figures, Unreadable, Worked
from baton.dashboard.page import GITHUB_BODY_LIMIT, MARKER, duration, issue_ref, render
from baton.workflow.model import load_preset
from support.records import at, record, spend, work

from .proof_records import P1, evidence, worked

LIFECYCLE = load_preset("issue-lifecycle")
ZWSP = "\u200b"
MOVES = [
    (0, "received", "maria", "entry"),
    (10, "implementing", "pm", "report"),
    (40, "running_tests", "developer", "report"),
    (50, "fixing_issues", "tester", "report"),
    (80, "running_tests", "developer", "report"),
    (90, "waiting_for_human_input", "tester", "report"),
]


def page_of(titles: list[str], *, unreadable: tuple[Unreadable, ...] = ()) -> str:
    worked = [
        Worked(n, title, True, record(n, MOVES, work=work(n + 10_000), spend=spend(2, 10, 0.1, 1)))
        for n, title in enumerate(titles, start=1)
    ]
    return render(compute(worked, unreadable))


def compute(
    worked: list[Worked], unreadable: tuple[Unreadable, ...] = (), *, tests: bool = False
) -> Figures:
    return figures(
        worked,
        unreadable,
        {LIFECYCLE.name: LIFECYCLE},
        now=at(60 * 24),
        window_days=90,
        bot_login="github-actions[bot]",
        tests=tests,
    )


def section(page: str, name: str) -> str:
    start = page.index(f"\n## {name}\n") + 1
    return page[start : page.index("\n\n## ", start)]


def test_an_issue_number_reads_as_one_and_links_nothing() -> None:
    assert issue_ref(12) == f"#{ZWSP}12"


def test_durations_read_in_the_largest_units_that_matter() -> None:
    assert [duration(s) for s in (0, 59, 60, 3599, 3600, 3660, 86_399, 86_400, 900_000)] == [
        "0s",
        "59s",
        "1m",
        "59m",
        "1h 00m",
        "1h 01m",
        "23h 59m",
        "1d 0h",
        "10d 10h",
    ]


def test_a_hostile_title_is_shown_as_plain_text_in_every_table() -> None:
    title = "Fix @maria | #123 <!-- baton:dashboard --> [x](y) o/r#9"
    page = page_of([title])
    shown = f"Fix @{ZWSP}maria \\| #{ZWSP}123 &lt;!-- baton:dashboard --&gt; \\[x\\](y) o/r#{ZWSP}9"
    assert f"| #{ZWSP}1 | {shown} | `waiting_for_human_input` |" in page
    assert page.count(shown) == 5  # waiting, the slowest, rework, humans, spend
    assert page.count(MARKER) == 1 and page.startswith(MARKER)


def test_the_page_shows_each_section_with_its_numbers() -> None:
    page = page_of(["One"])
    assert "| `waiting_for_human_input` | 1 |" in page
    assert "| `running_tests` | 2 | 10m | 10m |" in page
    assert "| `fixing_issues` | 1 |" in page  # the state that sent the work back
    assert "| 1 | 0 | 0 | 1 | none decided yet | 71.5% of 33,596 agent pull requests" in page
    assert "| All issues | 2 | 10 | USD 0.10 | 1.0 |" in page
    assert "$" not in page  # two would be read as math
    for chart in ("pie showData", "xychart-beta", "gantt"):
        assert f"```mermaid\n{chart}" in page


def test_the_spend_section_shows_each_roles_money_and_says_which_issues_count_runs_alone() -> None:
    kept = spend(2, 10, 0.1, 1).add(Cost(tokens=1_234, money=0.5, minutes=2.0), role="developer")
    worked = [
        Worked(1, "new", True, record(1, MOVES, spend=kept)),
        Worked(2, "old", True, record(2, MOVES, spend=spend(2, 10, 0.1, 1))),
    ]
    page = render(compute(worked))
    assert "| Role | Runs | Tokens | Money | Minutes |" in page
    assert "| `developer` | 3 | 1,234 | USD 0.50 | 2.0 |" in page  # 1 kept, 2 from the history
    assert "| `tester` | 2 | 0 | USD 0.00 | 0.0 |" in page
    assert "| `pm` | 1 | 0 | USD 0.00 | 0.0 |" in page
    assert (
        "1 issue(s) written before the record kept spend per role count their roles' runs" in page
    )


def test_the_evidence_section_counts_verdicts_sign_offs_and_the_first_greens_that_held() -> None:
    assert section(render(compute(worked(), tests=True)), "Evidence") == (
        "## Evidence\n"
        "\n"
        "3 issue(s) had a state settled by what the tests showed; "
        "3 issue(s) moved on agents' reports alone.\n"
        "\n"
        "| Red proofs | Green proofs | Failing | Broken | Issues signed off | First green held |\n"
        "|---|---|---|---|---|---|\n"
        "| 4 | 3 | 1 | 1 | 2 | 50.0% (1 of 2 issue(s)) |\n"
        "\n"
        "| Issue | Title | Red | Green | Failing | Broken | Signed off | First green "
        "| Last red proof |\n"
        "|---|---|---|---|---|---|---|---|---|\n"
        f"| #{ZWSP}2 | issue 2 | 2 | 2 | 1 | 1 | an earlier proof | broke "
        "| `3333333`: 3 failing, 1 passing |\n"
        f"| #{ZWSP}1 | issue 1 | 1 | 1 | 0 | 0 | yes | held | `1111111`: 2 failing, 5 passing |\n"
        f"| #{ZWSP}3 | issue 3 | 1 | 0 | 0 | 0 |  |  | `4444444`: 1 failing, 9 passing |"
    )


def test_without_evidence_the_page_says_why_instead_of_zeros() -> None:
    alone = [item for item in worked() if item.number > 3]
    assert section(render(compute(alone)), "Evidence") == (
        "## Evidence\n\nNo issue has evidence (no `tests:` in the config): "
        "3 issue(s) moved on agents' reports alone."
    )
    assert section(render(compute(alone, tests=True)), "Evidence") == (
        "## Evidence\n\nNo issue has evidence yet (no state was settled by the tests): "
        "3 issue(s) moved on agents' reports alone."
    )
    assert section(render(compute([])), "Evidence") == (
        "## Evidence\n\nNo issue has evidence (no `tests:` in the config)."
    )


def test_a_red_proofs_commit_that_is_not_hex_is_plain_text_in_its_cell() -> None:
    forged = RedProof(commit="@a|<b>`", sets=P1.sets, at=P1.at)
    item = Worked(9, "t", True, record(9, MOVES, tests=evidence(1, 0, waiting=forged)))
    row = section(render(compute([item])), "Evidence").splitlines()[-1]
    shown = f"@{ZWSP}a\\|&lt;b&gt;\\`"
    assert row == f"| #{ZWSP}9 | t | 1 | 0 | 0 | 0 |  |  | {shown}: 2 failing, 5 passing |"


def test_an_unreadable_record_is_named_at_the_end() -> None:
    broken = Unreadable(number=77, title="@everyone", problem="edited by @mallory")
    page = page_of(["One"], unreadable=(broken,))
    assert "1 record(s) could not be read: see the end." in page
    assert page.rstrip().endswith(f"| #{ZWSP}77 | @{ZWSP}everyone | edited by @{ZWSP}mallory |")


LIVE = re.compile(r"(?<![A-Za-z0-9])@[A-Za-z0-9]|#\d|<!--|-->|</?[A-Za-z]")
CHART = re.compile(r"```mermaid\n.*?```", re.S)
NEUTRAL_CHARTS = CHART.findall(page_of(["neutral"]))


@given(st.text(max_size=300))
def test_no_title_can_mention_link_or_open_html(title: str) -> None:
    page = page_of([title]).removeprefix(MARKER)
    assert CHART.findall(page) == NEUTRAL_CHARTS  # the charts carry no one's text
    assert LIVE.search(CHART.sub("", page)) is None


def test_a_64_kb_adversarial_title_renders_in_linear_time() -> None:
    hostile = "@a#1|<!--`*[" * 5_500  # 66 KB
    start = time.process_time()
    page = page_of([hostile, hostile[::-1]])
    assert time.process_time() - start < 1.0
    assert len(page) < GITHUB_BODY_LIMIT


def test_a_thousand_issues_fit_the_body_summarised_never_cut_mid_table() -> None:
    titles = [f"A long title for issue {n} " + "x" * 120 for n in range(1, 1001)]
    page = page_of(titles)
    assert len(page) <= GITHUB_BODY_LIMIT
    assert "…and 900 more issues." in page or "…and 950 more issues." in page
    for block in page.split("\n\n"):
        lines = block.splitlines()
        if lines and lines[0].startswith("|"):
            assert all(
                (line.startswith("| ") and line.endswith(" |")) or line.startswith("|---")
                for line in lines
            )
            columns = {line.count(" | ") for line in lines if not line.startswith("|---")}
            assert len(columns) == 1, block[:200]


def test_a_thousand_issues_with_evidence_fit_the_body_their_evidence_rows_summarised() -> None:
    kept = evidence(2, 1, 1, 0, waiting=P1, broke=True)
    worked = [
        Worked(n, f"A long title for issue {n} " + "x" * 120, True, record(n, MOVES, tests=kept))
        for n in range(1, 1001)
    ]
    page = render(compute(worked, tests=True))
    assert len(page) <= GITHUB_BODY_LIMIT
    shown = section(page, "Evidence")
    assert "| 2,000 | 1,000 | 1,000 | 0 | 0 | 0.0% (0 of 1,000 issue(s)) |" in shown
    assert shown.endswith("more issues.") and shown.count("| broke |") in (25, 50, 100)
