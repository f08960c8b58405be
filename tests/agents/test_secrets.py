"""The secrets the agent's job held never leave in what the agent hands back: a changeset
holding one (as it is or base64-encoded) is refused naming the variable, never the value, and
the result's texts are redacted. Which variables count, exact outputs, properties over any
value and placement, and bounded work on 64 KB of adversarial input."""

from __future__ import annotations

import base64
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baton.agents.environment import credential
from baton.agents.secrets import (
    REDACTED,
    Secret,
    forms_of,
    held,
    leaked,
    redact,
    redact_result,
    secret_named,
    secrets_of,
)
from baton.core.model.agent_result import AgentResult
from baton.core.model.changeset import REGULAR, Changeset, FileChange
from baton.workflow.model import AgentStatus
from support.property_budget import budget

KEY = "sk-ant-0123456789"
BASE = "0" * 40


def changeset(**files: bytes) -> Changeset:
    return Changeset(
        base=BASE,
        files=[
            FileChange(path=path, mode=REGULAR, contents=base64.b64encode(data).decode())
            for path, data in files.items()
        ],
    )


def only(name: str = "ANTHROPIC_API_KEY", value: str = KEY) -> list[Secret]:
    return secrets_of({name: value})


@pytest.mark.parametrize(
    ("name", "secret"),
    [
        pytest.param("ANTHROPIC_API_KEY", True, id="an API key"),
        pytest.param("openai_api_key", True, id="in any case"),
        pytest.param("NPM_TOKEN", True, id="a token"),
        pytest.param("CLIENT_SECRET", True, id="a secret"),
        pytest.param("DB_PASSWORD", True, id="a password"),
        pytest.param("MYSQL_PASSWD", True, id="a passwd"),
        pytest.param("GOOGLE_APPLICATION_CREDENTIALS", True, id="credentials"),
        pytest.param("BASIC_AUTH", True, id="auth at the end"),
        pytest.param("AUTH_HEADER", True, id="auth at the start"),
        pytest.param("PROXY_AUTHORIZATION", True, id="an authorization"),
        pytest.param("SSH_PRIVATE", True, id="something private"),
        pytest.param("SESSION_COOKIE", True, id="a cookie"),
        pytest.param("GIT_AUTHOR_NAME", False, id="an author is no secret"),
        pytest.param("GIT_AUTHOR_EMAIL", False, id="nor the author's address"),
        pytest.param("HOME", False, id="anything else"),
        pytest.param("GITHUB_PAT", False, id="a credential named otherwise is not by its name"),
    ],
)
def test_which_names_hold_a_secret(name: str, secret: bool) -> None:
    assert secret_named(name) is secret


def test_the_secrets_held_are_named_ones_and_credentials_of_eight_characters_or_more() -> None:
    environ = {
        "ANTHROPIC_API_KEY": KEY,
        "GITHUB_PAT": "ghp_personal_token",
        "SHORT_TOKEN": "1234567",
        "EIGHT_TOKEN": "12345678",
        "BLANK_SECRET": "   \t 12  ",
        "HOME": "/home/runner/work",
        "GIT_AUTHOR_NAME": "github-actions[bot]",
    }

    assert held(environ, withheld=credential) == {
        "ANTHROPIC_API_KEY": KEY,
        "GITHUB_PAT": "ghp_personal_token",
        "EIGHT_TOKEN": "12345678",
    }


def test_a_value_that_is_not_utf8_is_looked_for_byte_for_byte() -> None:
    # os.environ holds bytes that are not UTF-8 as lone surrogates.
    value = "abcdefg\udcff"
    (secret,) = secrets_of({"RAW_TOKEN": value})

    assert secret.forms[0] == b"abcdefg\xff"
    assert leaked(changeset(**{"f.bin": b"..abcdefg\xff.."}), [secret]) == (
        "f.bin holds the value of RAW_TOKEN"
    )
    assert redact(f"x {value} y", [secret]) == f"x {REDACTED} y"


def test_the_forms_are_the_value_and_its_base64_at_each_alignment_in_both_alphabets() -> None:
    # base64 of "abcdefgh" after 0, 1 and 2 bytes is YWJjZGVmZ2g=, AGFiY2RlZmdo,
    # AABhYmNkZWZnaA==: only the characters made of the value's bits alone are kept.
    assert forms_of("abcdefgh") == (b"abcdefgh", b"YWJjZGVmZ2", b"FiY2RlZmdo", b"hYmNkZWZna")
    assert forms_of("ab?>>?ab~~") == (
        b"ab?>>?ab~~",
        b"YWI/Pj4/YWJ+f",
        b"YWI_Pj4_YWJ-f",
        b"FiPz4+P2Fifn",
        b"FiPz4-P2Fifn",
        b"hYj8+Pj9hYn5+",
        b"hYj8-Pj9hYn5-",
    )


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param({"a.py": f"KEY = '{KEY}'\n".encode()}, "a.py", id="as it is"),
        pytest.param({"b.txt": base64.b64encode(KEY.encode())}, "b.txt", id="base64 at the start"),
        pytest.param(
            {"c.txt": base64.b64encode(b"x:" + KEY.encode() + b"!")},
            "c.txt",
            id="base64 after two bytes",
        ),
        pytest.param(
            {"d.txt": base64.urlsafe_b64encode(b"?" + KEY.encode())},
            "d.txt",
            id="url-safe base64 after one byte",
        ),
        pytest.param({"ok.txt": b"nothing here", "e.txt": KEY.encode()}, "e.txt", id="in any file"),
    ],
)
def test_a_changeset_holding_a_secret_is_refused_naming_the_variable_and_file(
    files: dict[str, bytes], expected: str
) -> None:
    assert leaked(changeset(**files), only()) == f"{expected} holds the value of ANTHROPIC_API_KEY"


def test_a_secret_in_a_path_is_refused_without_naming_the_path() -> None:
    reason = leaked(changeset(**{f"dir/{KEY}.txt": b"x"}), only())

    assert reason == "a path the agent wrote holds the value of ANTHROPIC_API_KEY"


def test_a_changeset_without_any_secret_passes() -> None:
    clean = changeset(**{"a.py": KEY[:-1].encode(), "b.py": b"sk-ant-"})

    assert leaked(clean, only()) is None
    assert leaked(Changeset(base=BASE, files=[]), only()) is None
    assert leaked(changeset(**{"a.py": KEY.encode()}), []) is None


def test_a_deletion_holds_no_secret() -> None:
    deleted = Changeset(base=BASE, files=[FileChange(path="gone.txt", mode=REGULAR)])

    assert leaked(deleted, only()) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(f"key {KEY}.", f"key {REDACTED}.", id="the value"),
        pytest.param(f"{KEY}{KEY}", REDACTED * 2, id="twice, adjacent"),
        pytest.param(
            "b64 " + base64.b64encode(KEY.encode()).decode(),
            f"b64 {REDACTED}" + base64.b64encode(KEY.encode()).decode()[-2:],
            id="its base64, to the last character made of the key alone",
        ),
        pytest.param("nothing", "nothing", id="nothing to redact"),
    ],
)
def test_redaction_replaces_every_form(text: str, expected: str) -> None:
    assert redact(text, only()) == expected


def test_a_secret_holding_another_is_redacted_and_named_whole() -> None:
    # The shorter one sorts after the longer one by length, before it by its bytes.
    held_two = secrets_of({"SHORT_KEY": "zzzzzzzz", "LONG_KEY": "aaaa-zzzzzzzz-bbbb"})

    assert redact("x aaaa-zzzzzzzz-bbbb y zzzzzzzz", held_two) == f"x {REDACTED} y {REDACTED}"
    found = leaked(changeset(**{"f.txt": b"aaaa-zzzzzzzz-bbbb"}), held_two)
    assert found == "f.txt holds the value of LONG_KEY"


def test_the_results_texts_are_redacted_and_nothing_else_changes() -> None:
    result = AgentResult(
        status=AgentStatus.success,
        confidence=0.5,
        summary=f"used {KEY}",
        issues_found=[f"found {KEY}"],
        questions=[f"ok {KEY}?"],
        spec=f"spec {KEY}",
        next_state="done",
    )

    redacted = redact_result(result, only())

    assert redacted == result.model_copy(
        update={
            "summary": f"used {REDACTED}",
            "issues_found": [f"found {REDACTED}"],
            "questions": [f"ok {REDACTED}?"],
            "spec": f"spec {REDACTED}",
        }
    )
    clean = result.model_copy(update={"summary": "x", "issues_found": [], "questions": []})
    assert redact_result(clean.model_copy(update={"spec": None}), only()).summary == "x"


# --- properties ---------------------------------------------------------------------------
values = st.text(
    st.characters(min_codepoint=33, max_codepoint=0x2FF, categories=("L", "N", "P", "S", "M")),
    min_size=8,
    max_size=40,
)
around = st.binary(max_size=40)
# The same examples on every run: a failure here is never a matter of luck.
DERANDOMISED = settings(budget(200), derandomize=True)


@DERANDOMISED
@given(values, around, around)
def test_any_secret_anywhere_in_a_file_is_found_as_it_is_or_base64_encoded(
    value: str, before: bytes, after: bytes
) -> None:
    raw = before + value.encode() + after
    for data in (raw, base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        assert leaked(changeset(**{"f.txt": data}), only("MY_TOKEN", value)) == (
            "f.txt holds the value of MY_TOKEN"
        )


@DERANDOMISED
@given(values, st.text(max_size=60), st.text(max_size=60))
def test_redaction_leaves_no_secret_and_never_grows_the_text(
    value: str, before: str, after: str
) -> None:
    text = before + value + after + value
    redacted = redact(text, only("MY_TOKEN", value))

    assert value not in redacted
    assert len(redacted) <= len(text)


# --- bounded work -------------------------------------------------------------------------
SIZE = 64 * 1024
LIMIT = 2.0  # seconds of CPU: a guard against super-linear work, not a benchmark


@pytest.mark.parametrize(
    ("secret", "unit"),
    [
        pytest.param("a" * 99 + "b", "a", id="a long near miss"),
        pytest.param("abababab" + "c", "ab", id="a periodic near miss"),
        pytest.param(KEY, KEY[:-1], id="the key but its last character"),
    ],
)
def test_64_kb_of_near_misses_are_checked_and_redacted_in_bounded_time(
    secret: str, unit: str
) -> None:
    hostile = (unit * (SIZE // len(unit) + 1))[:SIZE]
    many = secrets_of({f"KEY_{n}": secret + str(n) for n in range(20)})
    files = {f"f{n}.txt": hostile.encode() for n in range(4)}
    result = AgentResult(
        status=AgentStatus.success,
        confidence=1.0,
        summary=hostile[:20_000],
        questions=[hostile[:20_000]],
    )

    started = time.process_time()
    assert leaked(changeset(**files), many) is None
    redact(hostile, many)
    redact_result(result, many)
    spent = time.process_time() - started

    assert spent < LIMIT, f"{spent:.2f} s of CPU"
