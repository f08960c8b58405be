"""The scenario format (`sim/scenario/format.py`): what docs/scenarios.md names, and how a file
that is no scenario is refused in one line that says where."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from baton.errors import InvalidScenario, InvalidStep
from baton.sim.scenario.format import (
    ACTIONS,
    Agents,
    Checks,
    EvidenceSpec,
    Expect,
    IssueSpec,
    Note,
    Push,
    Report,
    Review,
    Round,
    Scenario,
    Step,
    Task,
    Who,
    demo_scenario,
    load_scenario,
    one_line,
    parse_scenario,
)

DOC = Path(__file__).resolve().parents[3] / "docs" / "scenarios.md"


# --- docs/scenarios.md ----------------------------------------------------------------------
def test_the_scenario_doc_names_every_step_kind_and_every_key():
    models = (
        Scenario,
        IssueSpec,
        Step,
        Report,
        EvidenceSpec,
        Push,
        Review,
        Note,
        Who,
        Checks,
        Expect,
        Agents,
        Round,
        Task,
    )
    keys = {name for model in models for name in model.model_fields}
    named = set(re.findall(r"`([a-z_]+)(?::[^`]*)?`", DOC.read_text(encoding="utf-8")))

    missing = sorted((set(ACTIONS) | keys) - named)

    assert not missing, f"docs/scenarios.md does not mention {missing}"


# --- reading ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param("steps: [", "inline: not valid YAML", id="YAML that does not parse"),
        pytest.param(
            "steps:\n  - {label: baton, comment: hi}\n",
            "steps.0: Value error, a step needs exactly one of",
            id="a step with two actions names the step",
        ),
        pytest.param(
            "steps:\n  - {merge: {by: maria}, by: bob}\n",
            "`by` is given twice (bob and maria); give it once",
            id="a step whose doer is given twice",
        ),
        pytest.param(
            "steps:\n  - report: {base: stale}\n",
            "`base: stale` needs `changes`",
            id="a stale base without changes",
        ),
        pytest.param(
            "steps:\n  - wait: soon\n",
            "'soon' is not a duration",
            id="a wait that is no duration",
        ),
        pytest.param("steps: []\nwho: me\n", "who: Extra inputs are not permitted", id="a key"),
    ],
)
def test_a_file_that_is_no_scenario_is_refused_in_one_line_naming_where(
    text: str, words: str
) -> None:
    with pytest.raises(InvalidScenario) as caught:
        parse_scenario(text, "inline")

    assert words in str(caught.value)
    assert "\n" not in str(caught.value)


# --- a report's evidence -----------------------------------------------------------------------
FAILED = "{id: t::a, file: tests/test_a.py, outcome: failed, message: boom}"


@pytest.mark.parametrize(
    ("evidence", "error"),
    [
        pytest.param(
            "{tests: [{id: t::a, outcome: flaky}]}",
            "inline: steps.0.report.evidence.tests.0.outcome: Input should be 'passed', "
            "'failed', 'error' or 'skipped'",
            id="an outcome no runner reports",
        ),
        pytest.param(
            "{tests: [{id: '', outcome: passed}]}",
            "inline: steps.0.report.evidence.tests.0.id: String should have at least 1 character",
            id="a test without an id",
        ),
        pytest.param(
            "{tests: [{id: t::a, outcome: passed, took: 3}]}",
            "inline: steps.0.report.evidence.tests.0.took: Extra inputs are not permitted",
            id="a key a test does not have",
        ),
        pytest.param(
            f"{{tests: [{FAILED}], new: [t::b]}}",
            "inline: steps.0.report.evidence: Value error, `new` names 't::b', which is not "
            "one of the `tests`",
            id="a new id that names no test",
        ),
        pytest.param(
            "{commit: old}",
            "inline: steps.0.report.evidence.commit: Input should be 'head' or 'stale'",
            id="a commit that is neither head nor stale",
        ),
        pytest.param(
            "{changeset: fresh}",
            "inline: steps.0.report.evidence.changeset: Input should be 'stale'",
            id="a changeset that is not stale",
        ),
        pytest.param(
            "{exit_status: one}",
            "inline: steps.0.report.evidence.exit_status: Input should be a valid integer, "
            "unable to parse string as an integer",
            id="an exit status that is no number",
        ),
        pytest.param(
            '{problem: "no JUnit\\nwritten"}',
            "inline: steps.0.report.evidence: Value error, `problem` is one line",
            id="a problem of two lines",
        ),
        pytest.param(
            "{verdict: green}",
            "inline: steps.0.report.evidence.verdict: Extra inputs are not permitted",
            id="a verdict, which is computed, never given",
        ),
    ],
)
def test_bad_evidence_is_refused_in_one_line_naming_the_key(evidence: str, error: str) -> None:
    with pytest.raises(InvalidScenario) as caught:
        parse_scenario(f"steps:\n  - report: {{evidence: {evidence}}}\n", "inline")

    assert str(caught.value) == error


def test_evidence_reads_its_tests_and_leaves_the_exit_status_to_the_outcomes() -> None:
    scenario = parse_scenario(
        f"steps:\n  - report: {{evidence: {{tests: [{FAILED}, {{id: t::b, outcome: passed}}], "
        "new: [t::a]}}\n",
        "inline",
    )
    evidence = scenario.steps[0].report.evidence if scenario.steps[0].report else None

    assert evidence is not None
    assert [(t.id, t.file, t.outcome, t.message) for t in evidence.tests] == [
        ("t::a", "tests/test_a.py", "failed", "boom"),
        ("t::b", None, "passed", ""),
    ]
    assert (evidence.new, evidence.status, evidence.commit, evidence.changeset) == (
        ["t::a"],
        1,
        "head",
        None,
    )


@pytest.mark.parametrize(
    ("given", "status"),
    [
        pytest.param("tests: [{id: t::a, outcome: passed}]", 0, id="all passed: 0"),
        pytest.param("tests: [{id: t::a, outcome: error}]", 1, id="an error: 1"),
        pytest.param("tests: [], exit_status: 5", 5, id="given: as given"),
        pytest.param("tests: [], exit_status: null", None, id="null: it never finished"),
    ],
)
def test_the_exit_status_left_out_is_the_one_the_outcomes_mean(given: str, status: int) -> None:
    scenario = parse_scenario(f"steps:\n  - report: {{evidence: {{{given}}}}}\n", "inline")
    report = scenario.steps[0].report

    assert report is not None and report.evidence is not None
    assert report.evidence.status == status


def test_the_evidence_is_no_field_of_the_agent_result() -> None:
    report = Report.model_validate({"summary": "s", "evidence": {"commit": "stale"}})

    assert "evidence" not in report.result_fields()


def test_a_steps_rule_is_a_value_error_so_pydantic_places_it() -> None:
    assert issubclass(InvalidStep, ValueError)


def test_merge_true_is_a_merge_whose_keys_all_take_their_defaults() -> None:
    scenario = parse_scenario("steps:\n  - merge: true\n  - checks: true\n", "inline")

    assert [step.action for step in scenario.steps] == ["merge", "checks"]
    assert scenario.steps[1].checks == Checks()


def test_the_doer_is_read_beside_the_action_or_inside_it() -> None:
    scenario = parse_scenario(
        "steps:\n  - {merge: {by: maria}}\n  - {comment: hi, by: bob}\n  - comment: hey\n",
        "inline",
    )

    assert [step.actor for step in scenario.steps] == ["maria", "bob", None]


def test_a_file_that_cannot_be_read_is_refused(tmp_path: Path) -> None:
    (tmp_path / "latin1.yml").write_bytes(b"steps: []\n# caf\xe9\n")

    with pytest.raises(InvalidScenario, match="is not UTF-8"):
        load_scenario(tmp_path / "latin1.yml")
    with pytest.raises(InvalidScenario, match="cannot read"):
        load_scenario(tmp_path / "missing.yml")


def test_the_demo_ships_with_the_package_and_reads() -> None:
    assert demo_scenario().steps


def test_one_line_flattens_and_cuts_long_text() -> None:
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("x" * 10, limit=5) == "xxxx…"
