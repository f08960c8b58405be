"""What doctor asks of a caller is what Baton's workflows need: the permissions are the union of
the reusable workflow's jobs' (each job's own grant is checked against every request Baton
makes, in tests/workflow/test_api_permissions.py), and the events and the dispatch input are the
ones the caller `baton init` writes declares."""

from __future__ import annotations

import yaml

from baton.adopt.init import caller_source
from baton.adopt.needs import DISPATCH_INPUT, PERMISSIONS, TRIGGERS
from support.expressions import REUSABLE, jobs
from workflow.api_permissions import union


def test_the_permissions_are_the_union_of_the_reusable_workflows_jobs() -> None:
    assert union(job["permissions"] for job in jobs(REUSABLE).values()) == PERMISSIONS


def test_the_caller_grants_them_declares_the_events_and_the_dispatch_input() -> None:
    caller = yaml.safe_load(caller_source())
    (job,) = caller["jobs"].values()
    assert job["permissions"] == PERMISSIONS
    on = caller[True]  # PyYAML reads the key `on` as True
    for event, (types, _) in TRIGGERS.items():
        assert event in on
        if types is not None:
            assert set(on[event]["types"]) >= types
    assert DISPATCH_INPUT in on["workflow_dispatch"]["inputs"]
