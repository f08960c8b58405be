"""`baton run`'s fast path: an event certainly ignored is answered before pydantic, click or
PyGithub load, from the same input reader and the config as written; anything out of the
ordinary steps aside to the full path, which decides and reports it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.action.env import ActionEnv
from baton.action.fast_path import PRESETS, Triage, quick_run, raw_view, triage
from baton.errors import InvalidConfig
from baton.workflow.model import preset_names
from support.bad_inputs import BAD

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


def test_a_payload_that_may_matter_is_passed_on_as_triaged_and_a_bad_one_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"inputs": {"issue": "7"}}), encoding="utf-8")
    env = {"GITHUB_EVENT_NAME": "workflow_dispatch", "GITHUB_EVENT_PATH": str(event)}

    assert triage(env) == Triage(exit_code=None, passed=True)
    assert triage({**env, "INPUT_DRY-RUN": "maybe"}) == Triage(), "the full path triages it"
    assert quick_run(env) is None


def test_the_presets_are_the_packaged_ones() -> None:
    assert sorted(p.stem for p in PRESETS.glob("*.yml")) == sorted(preset_names())


def _write_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str) -> None:
    """`config` as the default `.github/baton.yml` of a run started in `tmp_path`."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "baton.yml").write_text(config, encoding="utf-8")


@pytest.mark.parametrize(
    "config",
    [
        "workflow: no-such-preset\n",
        "epics: {label: baton:task}\n",  # the epic and task markers must differ
        "epics: {unknown_key: 1}\n",
        "label_prefix: 3\n",
        "work: {branch_prefix: 7}\n",
        "[not, a, mapping]\n",
        "entry: {trigger_label: [x]}\n",
    ],
)
def test_a_config_out_of_the_ordinary_steps_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    _write_config(tmp_path, monkeypatch, config)
    assert raw_view({}) is None


LAUGHS = "\n".join(
    [
        'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
        *(
            f"{letter}: &{letter} [{','.join([f'*{previous}'] * 9)}]"
            for previous, letter in zip("abcdefgh", "bcdefghi", strict=True)
        ),
        "approval_words: *i",
    ]
)


@pytest.mark.parametrize(
    "config",
    [
        pytest.param(LAUGHS, id="an alias bomb in approval_words (str() of it would never end)"),
        pytest.param("x: &w [lgtm]\napproval_words: *w\n", id="one anchor and its alias"),
        pytest.param("approval_words: [ok]\n" + "#" * (256 * 1024), id="over 256 KB"),
    ],
)
def test_a_config_the_full_path_refuses_as_yaml_steps_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    _write_config(tmp_path, monkeypatch, config)
    assert raw_view({}) is None


@pytest.mark.parametrize(
    "config",
    [
        'work: {allow: ["docs/**", "*.md"]}\n',
        "approval_words: [approved, lgtm]  # R&D says yes\n",
        'entry: {trigger_label: "a&b"}\n',
    ],
)
def test_globs_and_ampersands_in_text_are_no_alias(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, config: str
) -> None:
    _write_config(tmp_path, monkeypatch, config)
    assert raw_view({}) is not None


def test_a_missing_explicit_config_steps_aside(tmp_path: Path) -> None:
    assert raw_view({"INPUT_CONFIG": str(tmp_path / "absent.yml")}) is None


def test_an_unreadable_event_steps_aside(tmp_path: Path) -> None:
    event = tmp_path / "event.json"
    event.write_text("{not json", encoding="utf-8")
    assert quick_run({"GITHUB_EVENT_NAME": "push", "GITHUB_EVENT_PATH": str(event)}) is None
    assert quick_run({"GITHUB_EVENT_NAME": "push"}) is None


def test_an_ignored_run_imports_none_of_the_heavy_modules(tmp_path: Path) -> None:
    """What keeps an ignored run near an interpreter start (benchmarks/RESULTS.md): no
    pydantic, click or PyGithub (also an import contract), and neither `dataclasses` nor the
    `inspect` it pulls in, nor `importlib.resources` or `secrets`."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}), encoding="utf-8")
    script = (
        "import sys\n"
        "from baton.action.fast_path import quick_run\n"
        f"env = {{'GITHUB_EVENT_NAME': 'push', 'GITHUB_EVENT_PATH': {str(event)!r}}}\n"
        "assert quick_run(env) == 0\n"
        "heavy = ('pydantic', 'click', 'github', 'dataclasses', 'inspect', 'importlib.resources',"
        " 'secrets')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_a_comment_the_fast_path_parsed_is_not_parsed_again_for_its_event(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`/retry` while the developer works: the fast path needs its command to let it through,
    and the event made from the same payload reads that answer instead of rendering again."""
    from baton import webhooks
    from baton.core.model import commands
    from baton.core.model.events import Commented
    from baton.sim import payloads
    from baton.sim.sim_github import SimGitHub
    from baton.workflow.config import Config, settings_from

    settings = settings_from(Config())
    gh = SimGitHub()
    number = gh.open_issue("Export CSV", "Please.", author="alice")
    gh.human_label(number, settings.workflow.label_for("implementing", "status:"), by="maria")
    posted = gh.human_comment(number, "/retry use the v2 API", author="maria")
    payload = payloads.comment_created(gh, posted.id)
    monkeypatch.chdir(tmp_path)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    rendered: list[str] = []
    live_lines = commands.live_lines

    def counting(body: str) -> list[str]:
        rendered.append(body)
        return live_lines(body)

    monkeypatch.setattr(commands, "live_lines", counting)
    commands.parse_command.cache_clear()

    env = {"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": str(event)}
    assert triage(env) == Triage(exit_code=None, passed=True)
    parsed = webhooks.parse("issue_comment", payload, settings.policy, now=gh.now)
    assert isinstance(parsed, Commented)
    assert parsed.command == commands.CommentCommand(commands.Verb.retry, "use the v2 API")
    assert rendered == ["/retry use the v2 API"]
