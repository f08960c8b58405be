"""The Action's environment: one reader for every input, `BATON_*` and `GITHUB_*` value, strict
values, one clear line per bad value (the fast path's agreement with it is
tests/action/test_fast_path.py's)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from action_harness import ActionRunner
from baton.action import inputs
from baton.action.env import ActionEnv
from baton.errors import InvalidConfig
from baton.issue import record_comment
from baton.sim import payloads as P
from fakes.http_github import FakeGitHub
from support.bad_inputs import BAD


@pytest.mark.parametrize(("key", "value", "named", "accepts"), BAD)
def test_a_bad_value_is_refused_in_one_line_naming_it_and_what_it_accepts(
    key: str, value: str, named: str, accepts: str
) -> None:
    with pytest.raises(InvalidConfig) as refused:
        ActionEnv.from_environ({key: value})

    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith(f"{named} is {json.dumps(value)}: expected ")
    assert accepts in message


@pytest.mark.parametrize(
    ("text", "value"),
    [("true", True), ("false", False), ("True", True), ("FALSE", False), (" true\n", True)],
)
def test_github_booleans_arrive_as_the_strings_true_and_false(text: str, value: bool) -> None:
    assert ActionEnv.from_environ({"INPUT_DRY-RUN": text}).dry_run is value


def test_an_input_github_passes_blank_means_its_default() -> None:
    blank = {key: "" for source in inputs.SOURCES for key in source.keys}

    assert ActionEnv.from_environ(blank) == ActionEnv()


def test_every_bad_value_is_named_at_once() -> None:
    with pytest.raises(InvalidConfig) as refused:
        ActionEnv.from_environ({"INPUT_DRY-RUN": "ture", "GITHUB_RUN_ATTEMPT": "0"})

    assert len(str(refused.value).splitlines()) == 2


def test_the_values_read_are_typed() -> None:
    env = ActionEnv.from_environ(
        {
            "GITHUB_API_URL": "http://127.0.0.1:8080/api/v3",
            "GITHUB_RUN_ATTEMPT": "3",
            "GITHUB_RUN_ID": "42",
            "BATON_HTTP_TIMEOUT": "5",
            "INPUT_GITHUB-TOKEN": "ghs_x",
            "INPUT_CONFIG": "ci/baton.yml",
        }
    )
    assert env.api_url == "http://127.0.0.1:8080/api/v3"
    assert (env.run_attempt, env.run_id, env.http_timeout) == (3, "42", 5)
    assert env.token is not None and env.token.get_secret_value() == "ghs_x"
    assert env.config == "ci/baton.yml" and env.config_given


@pytest.mark.parametrize("login", ["github-actions[bot]", "baton-app[bot]", "octocat_acme"])
def test_a_bot_login_may_be_an_app_or_a_managed_user(login: str) -> None:
    assert ActionEnv.from_environ({"INPUT_BOT-LOGIN": login}).bot_login == login


def test_an_input_wins_over_its_baton_variable() -> None:
    env = ActionEnv.from_environ(
        {"INPUT_AGENT-COMMAND": "claude -p", "BATON_AGENT_COMMAND": "codex exec"}
    )
    assert env.agent_command == "claude -p"
    assert ActionEnv.from_environ({"BATON_AGENT_COMMAND": "codex exec"}).agent_command == (
        "codex exec"
    )


# --- `baton run` as the Action runs it -----------------------------------------------------
@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    return ActionRunner(fake, tmp_path)


def test_a_misspelt_dry_run_writes_nothing_and_fails_in_one_line(
    fake: FakeGitHub, action: ActionRunner
) -> None:
    number = fake.add_issue("Bug", user="alice")
    fake.label_by(number, "baton", "maria")

    step = action.run("issues", P.labeled(fake, number, "baton"), **{"INPUT_DRY-RUN": "ture"})

    assert step.returncode == 1
    assert step.calls == [], "refused before any API call, so nothing is written"
    assert step.outputs == {} and step.summary == ""
    errors = [line for line in step.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1
    assert 'input dry-run is "ture": expected true or false' in errors[0]


def test_dry_run_true_reads_and_writes_nothing(fake: FakeGitHub, action: ActionRunner) -> None:
    number = fake.add_issue("Bug", user="alice")
    fake.label_by(number, "baton", "maria")

    step = action.run("issues", P.labeled(fake, number, "baton"), **{"INPUT_DRY-RUN": "true"})

    assert step.returncode == 0, step.stdout + step.stderr
    assert step.calls and all(
        method == "GET" or where.endswith("BatonRead") for method, where in step.calls
    ), step.calls


def test_an_ignored_event_with_a_bad_value_fails_like_any_other(
    fake: FakeGitHub, action: ActionRunner
) -> None:
    step = action.run("push", {"ref": "refs/heads/main"}, BATON_HTTP_TIMEOUT="0")

    assert step.returncode == 1
    assert step.calls == [] and step.outputs == {}
    assert "BATON_HTTP_TIMEOUT" in step.stdout


def test_records_are_signed_with_the_repository_s_key_not_the_bare_secret() -> None:
    env = ActionEnv.from_environ(
        {"INPUT_RECORD-SECRET": "s3cret", "GITHUB_REPOSITORY": "octo/demo"}
    )

    assert env.secret_value() == record_comment.record_key("s3cret", "octo/demo")
    assert env.secret_value() != "s3cret"
    assert ActionEnv.from_environ({"GITHUB_REPOSITORY": "octo/demo"}).secret_value() is None
