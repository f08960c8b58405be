"""The Action's environment: one reader for every input, `BATON_*` and `GITHUB_*` value, strict
values, one clear line per bad value — and the fast path of `baton run` never deciding
differently from the full path."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from action_harness import ActionRunner
from baton.action import inputs
from baton.action.env import ActionEnv
from baton.action.fast_path import quick_run, raw_view
from baton.errors import InvalidConfig
from baton.issue import record_comment
from baton.sim import payloads as P
from fakes.http_github import FakeGitHub

BAD = [
    pytest.param(
        "INPUT_DRY-RUN", "ture", "input dry-run", "true or false", id="a misspelt boolean"
    ),
    pytest.param(
        "INPUT_DRY_RUN", "yes", "input dry-run", "true or false", id="a boolean GitHub never sends"
    ),
    pytest.param(
        "BATON_HTTP_TIMEOUT",
        "abc",
        "BATON_HTTP_TIMEOUT",
        "a whole number of seconds, 1 or more",
        id="a timeout that is no number",
    ),
    pytest.param(
        "BATON_HTTP_TIMEOUT",
        "0",
        "BATON_HTTP_TIMEOUT",
        "a whole number of seconds, 1 or more",
        id="a timeout of nothing",
    ),
    pytest.param(
        "GITHUB_API_URL",
        "api.github.com",
        "GITHUB_API_URL",
        "an http(s) URL with its scheme, such as https://api.github.com",
        id="an API URL without its scheme",
    ),
    pytest.param(
        "GITHUB_RUN_ATTEMPT",
        "second",
        "GITHUB_RUN_ATTEMPT",
        "a whole number, 1 or more",
        id="a run attempt that is no number",
    ),
    pytest.param(
        "GITHUB_REPOSITORY", "demo", "GITHUB_REPOSITORY", "owner/name", id="a repository alone"
    ),
    pytest.param(
        "INPUT_BOT-LOGIN", "my bot", "input bot-login", "a GitHub login", id="a login with a space"
    ),
    pytest.param(
        "BATON_AGENT_TIMEOUT",
        "1h",
        "BATON_AGENT_TIMEOUT",
        "a whole number of seconds",
        id="an agent timeout with a unit",
    ),
]


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


# --- the fast path reads the same values ---------------------------------------------------
SAMPLES = {
    "INPUT_DRY-RUN": ["true", "false", "ture", "yes", "1", ""],
    "INPUT_BOT-LOGIN": ["github-actions[bot]", "baton-app[bot]", "my bot", "-x", ""],
    "BATON_HTTP_TIMEOUT": ["15", "1", "0", "-3", "abc", "1.5", ""],
    "GITHUB_API_URL": ["https://api.github.com", "api.github.com", "ftp://x", ""],
    "GITHUB_RUN_ATTEMPT": ["1", "2", "0", "x", ""],
    "GITHUB_RUN_ID": ["123", "run-1", ""],
    "GITHUB_REPOSITORY": ["octo/repo", "octo", ""],
    "BATON_AGENT_TIMEOUT": ["60", "0", "1h", ""],
}
ENVIRONMENTS = st.fixed_dictionaries(
    {},
    optional={
        key: st.one_of(st.sampled_from(values), st.text(max_size=8))
        for key, values in SAMPLES.items()
    },
)


@settings(max_examples=300, deadline=None)
@given(env=ENVIRONMENTS)
def test_the_fast_path_steps_aside_exactly_when_the_full_path_refuses(
    env: dict[str, str],
) -> None:
    try:
        full = ActionEnv.from_environ(env)
    except InvalidConfig:
        assert raw_view(env) is None, "a bad value must reach the full path, which reports it"
        return
    view = raw_view(env)
    assert view is not None
    assert view.bot_login == full.bot_login


@pytest.fixture
def ignored_push(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.chdir(tmp_path)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}), encoding="utf-8")
    return {"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event)}


def test_the_fast_path_ignores_an_event_when_every_value_is_good(
    ignored_push: dict[str, str],
) -> None:
    assert quick_run({**ignored_push, "INPUT_DRY-RUN": "false"}) == 0


@pytest.mark.parametrize(("key", "value", "named", "accepts"), BAD)
def test_the_fast_path_leaves_a_bad_value_to_the_full_path(
    ignored_push: dict[str, str], key: str, value: str, named: str, accepts: str
) -> None:
    assert quick_run({**ignored_push, key: value}) is None


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
