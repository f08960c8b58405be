"""A workflow's problems as `baton validate` prints them: placed at their line when the YAML
has one, at the file when it has none, bare without a document; a report fails on errors only."""

from __future__ import annotations

from baton.workflow.problems import Problem, Report, Severity, error, warning
from baton.workflow.yaml_source import YamlDocument, read_yaml


def _document() -> YamlDocument:
    text = "name: tiny\ninitial: a\nstates:\n  a: {kind: terminal}\ntransitions:\n  a: []\n"
    return read_yaml(text, source="tiny.yml")


def test_a_problem_is_placed_at_its_line_at_its_file_or_nowhere() -> None:
    document = _document()
    assert error("a is odd", "states", "a").render(document) == "tiny.yml:4: error: a is odd"
    assert warning("hm").render(document) == "tiny.yml: warning: hm"
    assert error("bare").render() == "error: bare"


def test_a_prefix_places_an_inline_workflow_inside_its_config() -> None:
    problem = Problem(Severity.error, "x", ("a",))
    assert problem.render(_document(), prefix=("states",)) == "tiny.yml:4: error: x"


def test_a_report_fails_on_errors_only() -> None:
    report = Report([warning("w"), error("e")])
    assert ([p.message for p in report.errors], [p.message for p in report.warnings]) == (
        ["e"],
        ["w"],
    )
    assert not report.ok
    assert Report([warning("w")]).ok
