"""No scenario file crashes `baton simulate` with a traceback.

Scenario files are written by hand and shared, so `baton simulate` meets whatever a person (or a
generator) puts in one: valid scenarios with hostile values — huge or odd unicode strings, agents
asking 19,000-character questions, states and agents that do not exist, durations that overflow
the calendar — and files that are not YAML or not even UTF-8. Whatever the file, the command
exits 0 (it played) or 1 (an expectation failed, or the file was refused with a one-line error).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baton.cli import cli
from baton.workflow.model import load_preset

FUZZ = settings(
    max_examples=int(os.environ.get("BATON_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

WORKFLOW = load_preset("issue-lifecycle")
STATES = sorted(WORKFLOW.states)
AGENTS = sorted({a for s in STATES if (a := WORKFLOW.agent_of(s))})
QUESTION = "Which of these do you mean? " * 700  # about 19,000 characters

hostile_text = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [
            "",
            " ",
            "\x00\x07\x1b[31m",
            "\u202eevil\u202c",
            "😀" * 500,
            "approved",
            "/retry",
            "<!-- baton:record {} -->",
            "x" * 70_000,
            QUESTION,
        ]
    ),
)
login = st.one_of(
    st.sampled_from(["maria", "alice", "bob", "dependabot[bot]", "", "ü", "-", "a" * 300]),
    st.text(max_size=12),
)
state = st.one_of(st.sampled_from(STATES), st.text(max_size=30))
status_label = st.one_of(
    st.sampled_from([f"status:{s.replace('_', '-')}" for s in STATES] + ["baton", "status:"]),
    hostile_text,
)
duration = st.one_of(
    st.sampled_from(["5m", "7d", "1d12h", "0s", "-1d", "9999999999999w", "1e400", "nan", "soon"]),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
)
start = st.one_of(
    st.sampled_from(
        ["2026-01-05T09:00:00Z", "9999-12-31T23:00:00Z", "0001-01-01T00:00:00Z", "yesterday"]
    ),
    st.datetimes().map(lambda d: d.isoformat()),
)
report = st.fixed_dictionaries(
    {},
    optional={
        "agent": st.one_of(st.none(), st.sampled_from(AGENTS), st.text(max_size=20)),
        "status": st.sampled_from(["success", "failure", "blocked", "maybe"]),
        "confidence": st.floats(allow_nan=True, allow_infinity=True),
        "summary": hostile_text,
        "issues_found": st.lists(hostile_text, max_size=3),
        "questions": st.lists(st.one_of(hostile_text, st.just(QUESTION)), max_size=3),
        "next_state": state,
    },
)
step = st.one_of(
    st.fixed_dictionaries({"label": status_label, "by": login}),
    st.fixed_dictionaries({"unlabel": status_label, "by": login}),
    st.fixed_dictionaries(
        {"comment": hostile_text, "by": login},
        optional={"association": st.sampled_from(["OWNER", "MEMBER", "NONE", "", "?" * 99])},
    ),
    st.fixed_dictionaries({"report": report}),
    st.fixed_dictionaries({"wait": duration}),
    st.sampled_from([{"sweep": True}, {"open": True}, {"dispatch": True}]),
    st.fixed_dictionaries({"close": st.just(True), "by": login}, optional={"note": hostile_text}),
    st.fixed_dictionaries({"reopen": st.just(True), "by": login}),
    st.fixed_dictionaries(
        {
            "expect": st.fixed_dictionaries(
                {},
                optional={
                    "state": state,
                    "agent": st.text(max_size=10),
                    "labels": st.lists(status_label, max_size=2),
                    "transitioned": st.booleans(),
                },
            )
        }
    ),
)
scenario = st.fixed_dictionaries(
    {
        "people": st.dictionaries(
            login,
            st.sampled_from(["read", "triage", "write", "maintain", "admin", "none", "god", ""]),
            max_size=4,
        ).map(lambda people: {"maria": "maintain", **people}),
        # Mostly a scenario that enters the workflow first, so the later steps reach `decide`.
        "steps": st.lists(step, max_size=7).flatmap(
            lambda steps: st.sampled_from(
                [[{"label": "baton", "by": "maria"}, *steps], steps or [{"sweep": True}]]
            )
        ),
    },
    optional={
        "name": hostile_text,
        "start": start,
        "step_minutes": st.integers(min_value=-5, max_value=10**15),
        "issue": st.fixed_dictionaries(
            {},
            optional={
                "title": hostile_text,
                "body": hostile_text,
                "author": login,
                "labels": st.lists(status_label, max_size=3),
            },
        ),
    },
)


def simulate(content: bytes) -> Result:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "scenario.yml"
        path.write_bytes(content)
        return CliRunner().invoke(cli, ["simulate", str(path)])


def assert_handled(result: Result) -> None:
    """Exit 0 or 1, never an exception; what went to stderr is at most one line."""
    crash = result.exception if not isinstance(result.exception, SystemExit) else None
    assert crash is None, f"{type(crash).__name__}: {crash}"
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) <= 1, result.stderr


@FUZZ
@given(scenario)
def test_a_valid_scenario_with_hostile_values_never_crashes(data: dict[str, Any]) -> None:
    text = yaml.safe_dump(data, allow_unicode=True, sort_keys=False)

    assert_handled(simulate(text.encode("utf-8")))


@FUZZ
@given(
    st.one_of(
        st.text(max_size=200).map(lambda t: t.encode("utf-8")),
        st.binary(max_size=200),
        st.sampled_from(
            [
                b"steps: [",
                b"- 1\n- 2\n",
                b"steps:\n  - label: baton\n    label: baton\n",
                b"\xff\xfe\x00s\x00t\x00e\x00p\x00s",
                b"steps: !!python/object:os.system [ls]",
                b"[" * 5_000 + b"]" * 5_000,
                b"&a [*a]",
                b"steps: []\n",
                b"steps: null\n",
                b"steps:\n  - wait: 99999999999999w\n",
                b"steps:\n  - wait: .inf\n",
            ]
        ),
    )
)
def test_a_file_that_is_no_scenario_is_refused_in_one_line(content: bytes) -> None:
    result = simulate(content)

    assert_handled(result)
    if result.exit_code == 1 and "Simulating" not in result.output:
        assert result.stderr.startswith("error: "), result.stderr
