"""An `expect` step: what GitHub and the last decision hold that the scenario does not expect,
each as one line a maintainer reads."""

from __future__ import annotations

from baton.core.model.decision import Decision
from baton.sim.scenario.format import Expect, one_line
from baton.sim.scenario.holding import Stage, baton_commits, holding, record_of


def problems(stage: Stage, want: Expect, last: Decision | None) -> list[str]:
    """Every way the issue, its labels and the last decision differ from `want`."""
    record = record_of(stage)
    state = record.state if record else None
    found = []
    if want.state is not None and state != want.state:
        found.append(f"state is {state}, expected {want.state}")
    if want.labels is not None:
        labels = sorted(stage.gh.labels_of(stage.number))
        if labels != sorted(want.labels):
            found.append(f"labels are {labels}, expected {sorted(want.labels)}")
    agent = last.agent if last else None
    if want.agent is not None and agent != want.agent:
        found.append(f"agent is {agent}, expected {want.agent}")
    transitioned = bool(last and last.transitioned)
    if want.transitioned is not None and transitioned != want.transitioned:
        found.append(f"transitioned is {transitioned}, expected {want.transitioned}")
    check = last.check.conclusion if last and last.check else "none"
    if want.check is not None and check != want.check:
        found.append(f"the check run is {check}, expected {want.check}")
    signed = bool(record and record.tests and record.tests.signed)
    if want.signed_off is not None and signed != want.signed_off:
        found.append(f"signed_off is {signed}, expected {want.signed_off}")
    return found + work_problems(stage, want)


def work_problems(stage: Stage, want: Expect) -> list[str]:
    """What the branch and the pull request hold that the expectation does not."""
    found = []
    exists = stage.number != 0 and stage.gh.git.head(stage.branch) is not None
    for path, text in (want.branch_files or {}).items():
        held = stage.gh.file_at(stage.branch, path) if exists else None
        if held != text:
            found.append(f"{path} on {stage.branch} is {_shown(held)}, expected {_shown(text)}")
    now = holding(stage)
    if want.pull_request is not None and now.pull_request_state != want.pull_request:
        found.append(f"the pull request is {now.pull_request_state}, expected {want.pull_request}")
    commits = baton_commits(stage)
    if want.commits is not None and commits != want.commits:
        found.append(f"Baton made {commits} commit(s) on the branch, expected {want.commits}")
    return found


def _shown(text: str | None) -> str:
    return "absent" if text is None else one_line(repr(text), 80)
