"""Who someone is, decided as GitHub really answers, over real HTTP through `baton run`: the
sender's own role (never the issue author's association), read from `role_name` (the legacy
`permission` field says `read` for triage and `write` for maintain)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from action_harness import ActionRunner
from baton.sim import payloads as P
from fakes.http_github import FakeGitHub

PERMISSION = "/repos/octo/demo/collaborators/{}/permission"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        for login, role in {
            "octo": "admin",
            "maria": "maintain",
            "wendy": "write",
            "tess": "triage",
            "alice": "read",
        }.items():
            server.set_permission(login, role)
        yield server


def _entered(fake: FakeGitHub, action: ActionRunner, author: str = "alice", **kw: str) -> int:
    number = fake.add_issue("Export as CSV", "Please.", user=author, **kw)
    fake.label_by(number, "baton", "octo")
    step = action.run("issues", P.labeled(fake, number, "baton"))
    assert step.outputs["state"] == "received", step.stdout + step.stderr
    return number


def _relabel(fake: FakeGitHub, action: ActionRunner, number: int, who: str) -> dict[str, object]:
    fake.label_by(number, "status:implementing", who)
    step = action.run("issues", P.labeled(fake, number, "status:implementing"))
    assert step.returncode == 0, step.stdout + step.stderr
    return step.decision


@pytest.mark.parametrize(
    ("maintainers", "who", "moved"),
    [
        pytest.param("triage", "tess", True, id="a triage user may relabel by default"),
        pytest.param("triage", "alice", False, id="a read user may not relabel"),
        pytest.param("maintain", "maria", True, id="a maintain user passes a maintain group"),
        pytest.param("maintain", "wendy", False, id="a write user fails a maintain group"),
        pytest.param("admin", "maria", False, id="a maintain user fails an admin group"),
        pytest.param("admin", "octo", True, id="an admin passes an admin group"),
    ],
)
def test_a_relabel_is_decided_by_the_senders_real_role(
    fake: FakeGitHub, tmp_path: Path, maintainers: str, who: str, moved: bool
) -> None:
    config = tmp_path / "baton.yml"
    config.write_text(f"maintainers: {{permission: {maintainers}}}\n", encoding="utf-8")
    action = ActionRunner(fake, tmp_path, config=str(config))
    number = _entered(fake, action)
    decision = _relabel(fake, action, number, who)
    assert decision["outcome"] == ("transition" if moved else "refused")
    assert ("status:implementing" in fake.labels_of(number)) is moved


def test_an_issue_authored_by_the_owner_lends_its_association_to_no_sender(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    config = tmp_path / "baton.yml"
    config.write_text("maintainers: {permission: admin}\n", encoding="utf-8")
    action = ActionRunner(fake, tmp_path, config=str(config))
    number = _entered(fake, action, author="octo", association="OWNER")
    fake.label_by(number, "status:implementing", "wendy")
    step = action.run("issues", P.labeled(fake, number, "status:implementing"))
    assert step.decision["outcome"] == "refused", step.stdout
    assert ("GET", PERMISSION.format("wendy")) in step.calls, "wendy's own role was looked up"
    assert "status:implementing" not in fake.labels_of(number)
