"""What a run hands the workflow: output heredocs no value can break out of, annotations escaped
as the runner unescapes them, and an ignored event's outputs, summary and log line.

`log_line` and `quiet_block` are pinned with the other hostile text in tests/test_hostile_text.py.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from baton.action import outputs


def _read_outputs(text: str) -> dict[str, str]:
    """GITHUB_OUTPUT as the runner reads it: `name<<DELIM`, lines, `DELIM`."""
    found: dict[str, str] = {}
    lines = text.split("\n")
    at = 0
    while at < len(lines) - 1:
        name, delimiter = lines[at].split("<<", 1)
        end = lines.index(delimiter, at + 1)
        found[name] = "\n".join(lines[at + 1 : end])
        at = end + 1
    return found


def _unescape(text: str) -> str:
    """The runner's reading of a command's data and properties."""
    return (
        text.replace("%0D", "\r")
        .replace("%0A", "\n")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
    )


def test_each_output_is_a_heredoc_with_its_own_random_delimiter() -> None:
    text = outputs.format_outputs({"state": "analyzing", "decision": '{"a":1}'})
    heads = re.findall(r"^(\w+)<<(ghadelimiter_[0-9a-f]{32})$", text, re.M)
    assert [name for name, _ in heads] == ["state", "decision"]
    assert heads[0][1] != heads[1][1]
    assert _read_outputs(text) == {"state": "analyzing", "decision": '{"a":1}'}


def test_a_value_that_spells_an_output_adds_no_output() -> None:
    hostile = "x\nagent<<EOF\ndeveloper\nEOF\nghadelimiter_0\n"
    assert _read_outputs(outputs.format_outputs({"state": hostile})) == {"state": hostile}


@given(st.dictionaries(st.sampled_from(outputs.OUTPUT_NAMES), st.text()))
def test_the_runner_reads_back_exactly_the_values_written(values: dict[str, str]) -> None:
    as_lines = {name: value.replace("\r\n", "\n") for name, value in values.items()}
    text = outputs.format_outputs(as_lines)
    assert _read_outputs(text) == as_lines


def test_outputs_and_summary_append_to_their_files(tmp_path: Path) -> None:
    out, summary = tmp_path / "out", tmp_path / "summary"
    out.write_text("earlier<<D\nv\nD\n", encoding="utf-8")
    outputs.write_outputs(out, {"issue": "7"})
    outputs.append_summary(summary, "## Baton\n\n")
    outputs.append_summary(summary, "second")
    assert _read_outputs(out.read_text(encoding="utf-8")) == {"earlier": "v", "issue": "7"}
    assert summary.read_text(encoding="utf-8") == "## Baton\nsecond\n"


def test_without_a_file_nothing_is_written(tmp_path: Path) -> None:
    outputs.write_outputs(None, {"issue": "7"})
    outputs.append_summary(None, "text")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("level", "message", "title", "line"),
    [
        ("error", "plain", "Baton", "::error title=Baton::plain"),
        ("warning", "50% done\r\nnext", "Baton", "::warning title=Baton::50%25 done%0D%0Anext"),
        ("error", "a::b, c", "t: x, y%", "::error title=t%3A x%2C y%25::a::b, c"),
        ("notice", "", "Baton", "::notice title=Baton::"),
    ],
)
def test_annotations_are_escaped_as_the_runner_expects(
    level: str, message: str, title: str, line: str
) -> None:
    assert outputs.annotation(level, message, title) == line


@given(st.text(), st.text())
def test_an_annotation_is_one_line_that_unescapes_to_what_was_said(
    message: str, title: str
) -> None:
    line = outputs.annotation("error", message, title)
    assert "\n" not in line and "\r" not in line
    head, _, data = line.partition("::")[2].partition("::")
    assert head.startswith("error title=")
    assert _unescape(head.removeprefix("error title=")) == title
    assert "," not in head.removeprefix("error title=") and ":" not in head.removeprefix("error ")
    assert _unescape(data) == message


def test_an_ignored_event_outputs_nothing_to_do_and_the_reason() -> None:
    assert outputs.ignored_outputs("a bot's comment", 12) == {
        "issue": "12",
        "state": "",
        "previous-state": "",
        "agent": "",
        "transitioned": "false",
        "decision": '{"outcome":"ignored","issue":12,"reason":"a bot\'s comment"}',
        "branch": "",
        "pull-request": "",
        "handover": "",
    }
    assert outputs.ignored_outputs("no issue", None)["issue"] == ""
    assert json.loads(outputs.ignored_outputs("no issue", None)["decision"])["issue"] is None


def test_ignored_writes_the_outputs_the_summary_and_one_neutral_log_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out, summary = tmp_path / "out", tmp_path / "summary"
    env = {"GITHUB_OUTPUT": str(out), "GITHUB_STEP_SUMMARY": str(summary)}
    outputs.ignored(env, "label *x* ##[set-output]", 3)
    assert _read_outputs(out.read_text(encoding="utf-8"))["transitioned"] == "false"
    assert summary.read_text(encoding="utf-8") == (
        "## Baton\n\nNothing to do — label \\*x\\* ##\\[set-output\\] (0 API calls).\n"
    )
    assert capsys.readouterr().out == ("baton: ignored: label *x* ## [set-output] (0 API calls)\n")


def test_ignored_without_the_runner_files_only_logs(capsys: pytest.CaptureFixture[str]) -> None:
    outputs.ignored({"GITHUB_OUTPUT": "", "GITHUB_STEP_SUMMARY": ""}, "why", None)
    assert capsys.readouterr().out == "baton: ignored: why (0 API calls)\n"
