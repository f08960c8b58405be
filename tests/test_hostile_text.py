"""Bounded work on hostile text, and nothing user-written reaches the runner's log unescaped.

Every function that reads text someone else wrote gets 64 KB of adversarial input and must
finish within a generous CPU-time limit: a guard against super-linear blow-ups (32 KB of
`<a hidden ` used to take minutes), not a benchmark. CPU time of this process, so a busy
machine does not fail it."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from baton.action import commands as action
from baton.action import outputs as workflow_commands
from baton.action.outputs import log_line, quiet_block
from baton.agents.runner import result_from_output
from baton.agents.sanitize import fence, visible_characters, visible_text
from baton.cli import cli
from baton.core.model.commands import parse_command
from baton.core.text import markdown, messages
from baton.workflow.config import Policy

SIZE = 64 * 1024
UNITS = {
    "tags never closed": "<a hidden ",
    "comments never closed": "<!--",
    "hidden elements never closed": "<div hidden>",
    "end tags": "</div>",
    "brackets": "[",
    "image openers": "![",
    "link openers": "[a](",
    "emphasis": "*_",
    "backslashes": "\\",
    "ampersands": "&#",
    "lines": "a\n",
    "quote markers": "> ",
    "list markers": "- ",
    "fences": "```\n",
    "pipes": "|-",
    "braces": "{",
    "nested json": '{"a":',
    "json keys": '{"',
    "approvals": "approved\n",
    "commands in brackets": "/retry [",
    "references": "@a #1 GH-1 ",
    "workflow commands": "::error::##[",
    "invisible": "\u200b\ufe0f\U000e0041",
    "separators": "\u2028\x0c",
    "emoji": "😀",
}
HOSTILE = {name: (unit * (SIZE // len(unit) + 1))[:SIZE] for name, unit in UNITS.items()}
HOSTILE["growing backtick runs"] = "".join("`" * n + "x" for n in range(1, 400))[:SIZE]

LIMIT = 2.0  # seconds of CPU
# A whole CommonMark parse in pure Python: about 1-2 s for 64 KB of `![` here; quadratic work
# on 64 KB would take minutes.
MARKDOWN_LIMIT = 6.0
POLICY = Policy()

FUNCTIONS: dict[str, tuple[Callable[[str], object], float]] = {
    "sanitize.visible_text": (visible_text, MARKDOWN_LIMIT),
    "sanitize.visible_characters": (visible_characters, LIMIT),
    "sanitize.fence": (fence, LIMIT),
    "markdown.escape": (markdown.escape, LIMIT),
    "markdown.quote": (lambda t: markdown.quote(t, 100_000), LIMIT),
    "markdown.cell": (lambda t: markdown.cell(t, 100_000), LIMIT),
    "markdown.code": (markdown.code, LIMIT),
    "commands.parse_command": (lambda t: parse_command(t, ("approved",)), MARKDOWN_LIMIT),
    "messages.questions": (
        lambda t: messages.questions("s", "pm", t, [t, t, t, t]),
        LIMIT,
    ),
    "messages.escalation": (
        lambda t: messages.escalation(
            "s", t, retry_to="s", skip_to=None, replan_to=None, policy=POLICY, moved_to=None
        ),
        LIMIT,
    ),
    "messages.fit": (lambda t: messages.fit(t * 2), LIMIT),
    "messages.stale_approval": (lambda t: messages.stale_approval(t, 7, t, t), LIMIT),
    "agent_runner.result_from_output": (lambda t: result_from_output(t, 1), LIMIT),
    "workflow_commands.log_line": (log_line, LIMIT),
    "workflow_commands.quiet_block": (quiet_block, LIMIT),
}


@pytest.mark.parametrize("function", list(FUNCTIONS))
def test_each_text_function_is_bounded_on_64_kb_of_hostile_input(function: str) -> None:
    run, limit = FUNCTIONS[function]
    slowest, slowest_input = 0.0, ""
    for name, text in HOSTILE.items():
        started = time.process_time()
        run(text)
        spent = time.process_time() - started
        if spent > slowest:
            slowest, slowest_input = spent, name
    assert slowest < limit, f"{function} took {slowest:.2f} s of CPU on {slowest_input}"


# --- the runner's log -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("plain", "baton: plain", id="a plain line is prefixed"),
        pytest.param("::error::x", "baton: ::error::x", id="a command cannot open the line"),
        pytest.param(
            "a\n  ::stop-commands::t", "baton: a\nbaton:   ::stop-commands::t", id="every line"
        ),
        pytest.param("a\r::error::x", "baton: a\nbaton: ::error::x", id="a carriage return"),
        pytest.param("a\u2028b\x0bc", "baton: a\nbaton: b\nbaton: c", id="other line breaks"),
        pytest.param("x ##[error]y", "baton: x ## [error]y", id="a legacy command mid-line"),
        pytest.param("#\u200b#[set-env]", "baton: ## [set-env]", id="a legacy one hid by a zwsp"),
        pytest.param("a\x1b[31mb\u202e", "baton: a[31mb", id="control characters go"),
        pytest.param("tab\there", "baton: tab\there", id="a tab stays"),
        pytest.param("", "baton: ", id="an empty line"),
    ],
)
def test_log_lines_never_read_as_workflow_commands(text: str, expected: str) -> None:
    assert log_line(text) == expected


def test_a_quiet_block_holds_the_text_between_a_random_token() -> None:
    text = "::error::x\n##[stop-commands]y\n::stop-commands::z"

    block = quiet_block(text)
    first, *body, last = block.split("\n")[:-1]

    assert first.startswith("::stop-commands::")
    token = first.removeprefix("::stop-commands::")
    assert len(token) == 32 and token not in text
    assert last == f"::{token}::"
    assert body == text.split("\n")
    for text in ("x", "x\n"):  # the resume line always has a line of its own
        lines = quiet_block(text).split("\n")
        assert lines[1:] == ["x", "::" + lines[0].removeprefix("::stop-commands::") + "::", ""]
    assert len(quiet_block("").split("\n")) == 3
    assert quiet_block("") != quiet_block("")  # a new token each time


def test_context_printed_in_a_workflow_step_runs_no_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    briefing = "# You are the analyst\n\n```text\n::error::pwned\n##[stop-commands]x\n```\n"
    monkeypatch.setattr(
        action,
        "context_command",
        lambda env, issue, fmt, state=None, handover="": (action.CommandResult(), briefing),
    )

    in_actions = CliRunner().invoke(
        cli, ["context", "--issue", "1"], env={"GITHUB_ACTIONS": "true"}
    )
    outside = CliRunner().invoke(cli, ["context", "--issue", "1"], env={"GITHUB_ACTIONS": ""})

    lines = in_actions.output.split("\n")
    token = lines[0].removeprefix("::stop-commands::")
    assert lines[0] == f"::stop-commands::{token}" and len(token) == 32
    assert "\n".join(lines[1:-2]) + "\n" == briefing
    assert lines[-2:] == [f"::{token}::", ""]
    assert outside.output == briefing


def test_context_redirected_to_a_file_is_verbatim(tmp_path: Path) -> None:
    briefing = "::error::x\n"
    environ = {"GITHUB_ACTIONS": "true"}
    with (tmp_path / "prompt.md").open("w", encoding="utf-8") as file:
        assert workflow_commands.context_for_stdout(briefing, file, environ) == briefing
    read, write = os.pipe()
    with os.fdopen(write, "w") as pipe:
        assert workflow_commands.context_for_stdout(briefing, pipe, environ).startswith(
            "::stop-commands::"
        )
    os.close(read)
    assert workflow_commands.context_for_stdout(briefing, sys.stdout, {}) == briefing


def test_wrap_up_writes_every_log_line_through_log_line() -> None:
    printed: list[str] = []
    outcome = action.CommandResult(log=["#1: refused: /retry ::error::x\n##[set-output]y"])

    action.wrap_up(action.ActionEnv(), outcome, printed.append)

    assert printed == ["baton: #1: refused: /retry ::error::x\nbaton: ## [set-output]y"]


def test_a_quiet_block_never_uses_a_token_the_text_holds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tokens = iter(["a" * 32, "b" * 32])
    monkeypatch.setattr(workflow_commands, "_token", lambda: next(tokens))

    assert quiet_block("::" + "a" * 32 + "::") == (
        f"::stop-commands::{'b' * 32}\n::{'a' * 32}::\n::{'b' * 32}::\n"
    )


@pytest.mark.parametrize(
    ("level", "message", "title", "expected"),
    [
        pytest.param("error", "bad", "Baton", "::error title=Baton::bad", id="plain"),
        pytest.param(
            "warning",
            "a\nb\r%c ::error::d ##[x]",
            "Baton",
            "::warning title=Baton::a%0Ab%0D%25c ::error::d ##[x]",
            id="a message cannot start a line of its own",
        ),
        pytest.param(
            "error", "m", "x:y,z\n%", "::error title=x%3Ay%2Cz%0A%25::m", id="a hostile title"
        ),
    ],
)
def test_annotations_escape_what_the_runner_would_read(
    level: str, message: str, title: str, expected: str
) -> None:
    assert workflow_commands.annotation(level, message, title) == expected


def test_each_output_value_sits_in_a_heredoc_it_cannot_end(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    tokens = iter(["1" * 32, "2" * 32, "3" * 32])
    monkeypatch.setattr(workflow_commands, "_token", lambda: next(tokens))
    values = {"decision": "x\nghadelimiter_" + "1" * 32 + "\nagent=evil", "agent": ""}

    workflow_commands.write_outputs(tmp_path / "out", values)
    workflow_commands.write_outputs(None, values)

    assert (tmp_path / "out").read_text(encoding="utf-8") == (
        f"decision<<ghadelimiter_{'2' * 32}\n{values['decision']}\nghadelimiter_{'2' * 32}\n"
        f"agent<<ghadelimiter_{'3' * 32}\n\nghadelimiter_{'3' * 32}\n"
    )


def test_an_ignored_event_reports_its_reason_escaped_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {"GITHUB_OUTPUT": str(tmp_path / "out"), "GITHUB_STEP_SUMMARY": str(tmp_path / "sum")}
    (tmp_path / "sum").write_text("before\n", encoding="utf-8")

    workflow_commands.ignored(env, "label '::error::x @team <b>' is not Baton's", 12)
    workflow_commands.ignored({}, "no files", None)

    outputs = (tmp_path / "out").read_text(encoding="utf-8")
    assert '"reason":"label \'::error::x @team <b>\' is not Baton\'s"' in outputs
    assert '"issue":12' in outputs and "issue<<" in outputs
    assert (tmp_path / "sum").read_text(encoding="utf-8") == (
        "before\n## Baton\n\nNothing to do — label ':\u200b:error:\u200b:x @\u200bteam "
        "&lt;b&gt;' is not Baton's (0 API calls).\n"
    )
    assert capsys.readouterr().out == (
        "baton: ignored: label '::error::x @team <b>' is not Baton's (0 API calls)\n"
        "baton: ignored: no files (0 API calls)\n"
    )


def test_the_summary_keeps_its_leading_lines_and_one_final_newline(tmp_path: Path) -> None:
    workflow_commands.append_summary(tmp_path / "sum", "\nA\n\n")
    workflow_commands.append_summary(None, "nowhere")

    assert (tmp_path / "sum").read_text(encoding="utf-8") == "\nA\n"


def test_without_output_files_an_ignored_event_writes_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    workflow_commands.ignored({"GITHUB_OUTPUT": ""}, "why", None)

    assert list(tmp_path.iterdir()) == []


def test_an_annotation_is_titled_baton_unless_told() -> None:
    assert workflow_commands.annotation("notice", "m") == "::notice title=Baton::m"


def test_ignored_outputs_follow_the_contract() -> None:
    assert workflow_commands.ignored_outputs("why", None) == {
        "issue": "",
        "state": "",
        "previous-state": "",
        "agent": "",
        "transitioned": "false",
        "decision": '{"outcome":"ignored","issue":null,"reason":"why"}',
        "branch": "",
        "pull-request": "",
        "handover": "",
    }
