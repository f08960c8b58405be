"""Each job of the workflows grants exactly what its commands need: every request Baton makes in
the HTTP scenarios (a lifecycle with its commits, pull request, reviews and CI, a pull request
marked ready by a maintainer's label, a sweep, an epic, the agent's briefing) has a row in
api_permissions.py, and each job's `permissions:` (and the App token's `permission-*` inputs) is
the union of the rows of the commands it runs. A report whose decision asks for a check run (the
evidence's, issue 26) runs on `test-first` with `tests:`: a red proof the real rules settle."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from action_harness import ActionRunner, Step
from baton.core.model.record import Record
from baton.sim import payloads
from fakes.http_github import FakeGitHub
from support.epic_http import EpicPlayer, Play
from support.evidence_http import CHECK_RUNS, beside, entered, evidence_on, proof_runner, report
from support.expressions import CALLER, EXPANDED, REUSABLE, ROOT, jobs, workflow
from workflow.api_permissions import READ, WRITE, Grant, Request, mutation_fields, needs, union

# The commands each job runs, and what its other steps need (checkouts read the repository).
# The report job runs `baton run` in place of a dispatch's skipped baton job when the agent job
# refused it (the record did not wait for the state handed over).
COMMANDS = {"baton": ("run", "sweep"), "agent": ("context",), "report": ("report", "run")}
STEPS: Grant = {"contents": READ}


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("bench_run", ROOT / "benchmarks" / "run.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_run"] = module
    spec.loader.exec_module(module)
    return module


def _epic_agent(number: int, agent: str, record: Record | None) -> Play | None:
    """A small epic's agents: a spec at once, a plan of two tasks, tasks that pass review."""
    if agent == "discovery":
        return Play({"spec": "# Spec\nTeams.", "categories": ["users", "scope"]})
    if agent == "planner":
        return Play({"tasks": [{"key": "a", "title": "Model"}, {"key": "b", "title": "API"}]})
    if agent == "developer":
        return Play({"summary": "done"}, {f"src/t{number}.py": f"print({number})\n"})
    return Play({"summary": "ok"})


def _epic(workdir: Path) -> None:
    with FakeGitHub() as fake:
        fake.set_permission("maria", "maintain")
        config = workdir / "epic.yml"
        config.write_text("epics:\n  max_parallel: 2\n", encoding="utf-8")
        player = EpicPlayer(fake, ActionRunner(fake, workdir, config=str(config)), _epic_agent)
        epic = fake.add_issue("Teams and roles", "Let admins create teams.", user="alice")
        fake.label_by(epic, "baton:epic", "maria")
        player.event("issues", payloads.labeled(fake, epic, "baton:epic"))
        player.drain()
        approved = fake.add_comment(epic, "approved", user="maria")
        # The plan's sub-issues and their edges, the conductor starting the first task and
        # dispatching it, that task's first commit: then every kind of request has been made.
        player.event("issue_comment", payloads.comment_created(fake, approved["id"]))
        player.drain(limit=6)


def _forced_ready(bench: Any, workdir: Path) -> None:
    """A maintainer moves an issue with an open pull request to `creating_pr` by its label: the
    run itself marks the pull request ready (the work product follows the record)."""
    with FakeGitHub() as fake:
        work = bench.WorkBench(fake, workdir)
        number = work.enter("Export CSV")
        work.report(number, summary="Clear feature request.")
        work.report(number, summary="Clear.", confidence=0.95)  # creates the branch
        branch = f"baton/issue-{number}"
        tests = work.changeset(branch, {"tests/test_csv.py": b"def test_csv():\n    pass\n"})
        assert work.report(number, tests, summary="Tests.").outputs.get("pull-request")
        step = work.relabel(number, "creating_pr")
        assert "markPullRequestReadyForReview" in str(fake.requests[-1].body), step.calls


def _briefing(workdir: Path) -> None:
    """The agent job's one call with a token: `baton context` for an issue an agent holds."""
    with FakeGitHub() as fake:
        fake.set_permission("maria", "maintain")
        action = ActionRunner(fake, workdir)
        number = fake.add_issue("Export CSV", "body", user="alice")
        fake.label_by(number, "baton", "maria")
        assert action.run("issues", payloads.labeled(fake, number, "baton")).returncode == 0
        step = action.invoke(["context", "--issue", str(number)], "workflow_dispatch", {})
        assert step.returncode == 0, step.stdout + step.stderr


def _checked(workdir: Path) -> None:
    """A report with evidence whose decision asks for a check run: the report job posts it."""
    with FakeGitHub() as fake:
        action = proof_runner(fake, workdir)
        number, handover = entered(action, fake)
        beside(action, evidence_on(fake, number).model_dump_json().encode())
        step = report(action, number, handover)
        assert CHECK_RUNS in step.calls, step.stdout + step.stderr


@pytest.fixture(scope="module")
def requests(tmp_path_factory: pytest.TempPathFactory) -> dict[str, set[Request]]:
    """Every request of the scenarios, by the command that made it."""
    made: dict[str, set[Request]] = {}
    invoke = ActionRunner.invoke

    def recording(self: ActionRunner, args: list[str], *rest: Any, **extra: str) -> Step:
        step = invoke(self, args, *rest, **extra)
        for call in self.fake.requests:
            document = call.body.get("query", "") if isinstance(call.body, dict) else ""
            request = Request(call.method, call.path, call.operation, mutation_fields(document))
            made.setdefault(args[0], set()).add(request)
        return step

    bench = _bench()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ActionRunner, "invoke", recording)
        bench.work_calls(tmp_path_factory.mktemp("work"))
        _forced_ready(bench, tmp_path_factory.mktemp("ready"))
        bench.sweep_calls(tmp_path_factory.mktemp("sweep"), total=12, in_workflow=4, due=2)
        _epic(tmp_path_factory.mktemp("epic"))
        _briefing(tmp_path_factory.mktemp("briefing"))
        _checked(tmp_path_factory.mktemp("checked"))
    return made


def _needed(requests: dict[str, set[Request]], job: str) -> Grant:
    return union([STEPS, *(needs(r) for c in COMMANDS[job] for r in requests.get(c, ()))])


def test_every_request_baton_makes_has_a_row(requests: dict[str, set[Request]]) -> None:
    missing = []
    for made in requests.values():
        for request in made:
            try:
                needs(request)
            except KeyError as error:
                missing.append(str(error))
    assert not missing, f"no row in api_permissions.py for: {sorted(set(missing))}"


def test_the_scenarios_run_every_command_of_every_job(requests: dict[str, set[Request]]) -> None:
    assert {c for commands in COMMANDS.values() for c in commands} <= set(requests)


def _granted(job: dict[str, Any]) -> Grant:
    return {scope: level for scope, level in job["permissions"].items()}


def _app_token(job: dict[str, Any]) -> Grant | None:
    steps = [s for s in job["steps"] if "create-github-app-token" in str(s.get("uses", ""))]
    if not steps:
        return None
    (step,) = steps
    with_ = step["with"]
    return {k.removeprefix("permission-"): v for k, v in with_.items() if k.startswith("perm")}


@pytest.mark.parametrize("path", [REUSABLE, EXPANDED], ids=["reusable", "expanded"])
@pytest.mark.parametrize("job", sorted(COMMANDS))
def test_each_job_grants_exactly_what_its_commands_need(
    requests: dict[str, set[Request]], path: Path, job: str
) -> None:
    assert _granted(jobs(path)[job]) == _needed(requests, job)


@pytest.mark.parametrize("job", ["baton", "report"])
def test_the_app_token_asks_for_exactly_what_its_job_needs(
    requests: dict[str, set[Request]], job: str
) -> None:
    assert _app_token(jobs(REUSABLE)[job]) == _needed(requests, job)


def test_the_callers_job_grants_the_union_of_the_reusable_jobs(
    requests: dict[str, set[Request]],
) -> None:
    """A called workflow's jobs get at most what the caller's job grants."""
    (caller,) = jobs(CALLER).values()
    assert _granted(caller) == union(_needed(requests, job) for job in COMMANDS)
    assert workflow(REUSABLE)["permissions"] == {}


def test_write_covers_read_and_a_mutation_needs_each_of_its_fields() -> None:
    assert union([{"issues": READ}, {"issues": WRITE}, {"checks": READ}]) == {
        "issues": WRITE,
        "checks": READ,
    }
    document = (
        "mutation BatonWrite($a: ID!) {\n  c0: addComment(input: {subjectId: $a, body: $b}) "
        "{ clientMutationId }\n  p0: markPullRequestReadyForReview(input: {pullRequestId: $p}) "
        "{ clientMutationId }\n}"
    )
    fields = mutation_fields(document)
    assert fields == ("addComment", "markPullRequestReadyForReview")
    request = Request("POST", "/graphql", "BatonWrite", fields)
    assert needs(request) == {"issues": WRITE, "pull-requests": WRITE}
    assert needs(Request("GET", "/repos/o/r/labels/area/ui")) == {"issues": READ}
    with pytest.raises(KeyError):
        needs(Request("PUT", "/repos/o/r/pulls/7/merge"))
