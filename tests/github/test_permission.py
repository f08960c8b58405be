"""The collaborator-permission API's answer read as the real role (`github/permission.py`)."""

from __future__ import annotations

from typing import Any

import pytest

from baton.github.permission import role_of


def flags(**on: bool) -> dict[str, Any]:
    names = ("admin", "maintain", "push", "triage", "pull")
    return {"user": {"permissions": {name: on.get(name, False) for name in names}}}


@pytest.mark.parametrize(
    ("answer", "role"),
    [
        pytest.param({"permission": "read", "role_name": "triage"}, "triage", id="triage"),
        pytest.param({"permission": "write", "role_name": "maintain"}, "maintain", id="maintain"),
        pytest.param({"permission": "write", "role_name": "write"}, "write", id="write"),
        pytest.param({"permission": "admin", "role_name": "admin"}, "admin", id="admin"),
        pytest.param({"permission": "read", "role_name": "read"}, "read", id="read"),
        pytest.param({"permission": "none", "role_name": "none"}, "none", id="no access"),
        pytest.param({"permission": "read", "role_name": "Triage"}, "triage", id="any case"),
        pytest.param(
            {"permission": "write", "role_name": "releaser", **flags(push=True, pull=True)},
            "write",
            id="a custom role reads as the base role its flags give",
        ),
        pytest.param(
            {"permission": "read", "role_name": "labeller", **flags(triage=True, pull=True)},
            "triage",
            id="a custom role on triage reads as triage, not the legacy read",
        ),
        pytest.param(
            {"permission": "read", "role_name": "viewer", **flags(pull=True)},
            "read",
            id="a custom role on read reads as read",
        ),
        pytest.param(
            {"permission": "none", "role_name": "odd", **flags()}, "none", id="no flags set"
        ),
        pytest.param({"permission": "write"}, "write", id="only the legacy field: write"),
        pytest.param({"permission": "push"}, "write", id="only the oldest legacy name: push"),
        pytest.param({"permission": "pull"}, "read", id="only the oldest legacy name: pull"),
        pytest.param({"permission": "owner"}, "none", id="an unknown legacy value is none"),
        pytest.param({}, "none", id="an empty answer is none"),
        pytest.param({"role_name": None, "user": "x"}, "none", id="a malformed answer is none"),
    ],
)
def test_the_real_role_is_read_from_the_answer(answer: dict[str, Any], role: str) -> None:
    assert role_of(answer) == role
