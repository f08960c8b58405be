"""Every input Baton parses, fuzzed: event payloads, agent results, record comments and the
config. Whatever arrives, `baton` exits 0 or 1, says why in at most one `::error::` line, never
prints a traceback, and when it refuses (exit 1) it has written nothing to GitHub.

The runs are in process (click's runner) against the HTTP fake GitHub on 127.0.0.1, so the
real PyGithub/GraphQL client is exercised; payloads are real ones with one part replaced.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.action.fast_path import quick_run
from baton.cli import cli
from baton.issue import record_comment
from baton.sim import payloads as P
from fakes.http_github import FakeGitHub

READS = {"BatonRead", "BatonRecordCheck"}
FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=30),
    st.just("x" * 70_000),
    st.just("\u202e\u200b::error::x"),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        number = server.add_issue("Export as CSV", "Please.", user="alice")
        server.label_by(number, "status:analyzing-requirements", "maria")
        server.add_comment(number, "looks good", user="alice")
        yield server


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _replace(payload: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    changed = copy.deepcopy(payload)
    target = changed
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return changed


def _writes(fake: FakeGitHub) -> list[str]:
    return [
        f"{c.method} {c.path} {c.operation or ''}"
        for c in fake.requests
        if c.method != "GET" and not (c.path == "/graphql" and c.operation in READS)
    ]


def _invoke(fake: FakeGitHub, tmp: Path, args: list[str], name: str, raw: bytes) -> Result:
    event = tmp / "event.json"
    event.write_bytes(raw)
    env = {
        "GITHUB_EVENT_NAME": name,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": fake.repo_full_name,
        "GITHUB_API_URL": fake.url,
        "GITHUB_RUN_ID": "77",
        "GITHUB_RUN_ATTEMPT": "1",
        "GITHUB_OUTPUT": str(tmp / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp / "summary"),
        "GITHUB_WORKFLOW_REF": "",
        "INPUT_GITHUB-TOKEN": fake.token,
        "INPUT_CONFIG": str(tmp / "baton.yml"),
        "BATON_HTTP_TIMEOUT": "5",
    }
    fake.reset_requests()
    return CliRunner().invoke(cli, args, env=env, catch_exceptions=True)


def _assert_clean(result: Result, fake: FakeGitHub) -> None:
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"uncaught {result.exception!r}\n{result.output}")
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("::error")]
    assert len(errors) == (1 if result.exit_code else 0), result.output
    if result.exit_code:
        assert _writes(fake) == [], f"refused, yet wrote: {_writes(fake)}"


@pytest.fixture(scope="module")
def bases(fake: FakeGitHub) -> dict[str, tuple[str, dict[str, Any]]]:
    """Real payloads, built once: the fuzz draws from paths that do not move under it."""
    (comment,) = [c for c in fake.comments(1) if c["user"]["login"] == "alice"]
    return {
        "labeled": ("issues", P.labeled(fake, 1, "status:analyzing-requirements")),
        "reopened": ("issues", P.reopened(fake, 1)),
        "comment": ("issue_comment", P.comment_created(fake, comment["id"])),
        "dispatch": (
            "workflow_dispatch",
            P.workflow_dispatch(fake, {"issue": "1"}, sender="alice"),
        ),
        "report": (
            "repository_dispatch",
            P.repository_dispatch(
                fake,
                "baton-report",
                {"issue": 1, "result": {"status": "success", "confidence": 0.9}},
                sender="alice",
            ),
        ),
    }


@pytest.mark.parametrize("kind", ["labeled", "reopened", "comment", "dispatch", "report"])
@FUZZ
@given(data=st.data())
def test_a_payload_with_any_part_replaced_is_handled_or_refused_cleanly(
    fake: FakeGitHub,
    bases: dict[str, tuple[str, dict[str, Any]]],
    tmp_path: Path,
    kind: str,
    data: st.DataObject,
) -> None:
    (tmp_path / "baton.yml").write_text("", encoding="utf-8")
    name, payload = bases[kind]
    path = data.draw(st.sampled_from(sorted(_paths(payload), key=repr)), label="path")
    value = data.draw(HOSTILE, label="value")
    raw = json.dumps(_replace(payload, path, value)).encode()
    env = {
        "GITHUB_EVENT_NAME": name,
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "INPUT_CONFIG": str(tmp_path / "baton.yml"),
    }
    _assert_clean(_invoke(fake, tmp_path, ["run"], name, raw), fake)
    assert quick_run(env) in (None, 0)


@FUZZ
@given(raw=st.one_of(st.binary(max_size=200), st.just(b"\xff\xfe{}"), st.just(b"[1, 2]")))
def test_an_unreadable_payload_is_refused_in_one_line(
    fake: FakeGitHub, tmp_path: Path, raw: bytes
) -> None:
    (tmp_path / "baton.yml").write_text("", encoding="utf-8")
    result = _invoke(fake, tmp_path, ["run"], "issue_comment", raw)
    _assert_clean(result, fake)


@FUZZ
@given(raw=st.one_of(st.binary(max_size=300), st.text(max_size=300).map(str.encode)))
def test_any_config_file_is_used_or_refused_in_one_line(
    fake: FakeGitHub, tmp_path: Path, raw: bytes
) -> None:
    (tmp_path / "baton.yml").write_bytes(raw)
    payload = json.dumps(P.workflow_dispatch(fake, {"issue": "1"}, sender="alice")).encode()
    _assert_clean(_invoke(fake, tmp_path, ["run"], "workflow_dispatch", payload), fake)


RESULT = {"status": "success", "confidence": 0.9, "summary": "done", "questions": ["why?"]}


@FUZZ
@given(data=st.data())
def test_any_result_file_is_applied_or_refused_without_a_traceback(
    fake: FakeGitHub, tmp_path: Path, data: st.DataObject
) -> None:
    (tmp_path / "baton.yml").write_text("", encoding="utf-8")
    raw = data.draw(
        st.one_of(
            st.binary(max_size=100),
            st.sampled_from(sorted(_paths(RESULT), key=repr)).flatmap(
                lambda path: HOSTILE.map(lambda v: json.dumps(_replace(RESULT, path, v)).encode())
            ),
        ),
        label="result",
    )
    result_file = tmp_path / "result.json"
    result_file.write_bytes(raw)
    args = ["report", "--issue", "1", "--result", str(result_file), "--state", "nowhere"]
    result = _invoke(fake, tmp_path, args, "workflow_dispatch", b"{}")
    _assert_clean(result, fake)


@FUZZ
@given(value=HOSTILE, field=st.sampled_from(["state", "revision", "history", "workflow", "issue"]))
def test_a_forged_or_broken_record_comment_never_crashes_a_run(
    fake: FakeGitHub, tmp_path: Path, value: Any, field: str
) -> None:
    (tmp_path / "baton.yml").write_text("", encoding="utf-8")
    body = (
        record_comment.RECORD_OPEN
        + "\n"
        + json.dumps({"v": 1, field: value}).replace("<", "\\u003c")
        + "\n"
        + record_comment.RECORD_CLOSE
    )
    number = fake.add_issue("Another", "x", user="alice")
    fake.label_by(number, "status:analyzing-requirements", "maria")
    fake.add_comment(number, body, user=fake.bot_login, user_type="Bot")
    fake.add_comment(number, body.replace('"v": 1', '"v": 2'), user="alice")
    payload = json.dumps(P.workflow_dispatch(fake, {"issue": str(number)}, sender="alice")).encode()
    _assert_clean(_invoke(fake, tmp_path, ["run"], "workflow_dispatch", payload), fake)
