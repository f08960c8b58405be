"""The check runs Baton posts over GitHub: what the evidence that settled a state showed, on
the commit it ran on (REST `POST /check-runs`; GraphQL's `createCheckRun` would need the
repository's node id and gives nothing more)."""

from __future__ import annotations

from typing import Any

from baton.core.model.decision import CheckPlan
from baton.github.tracker import PostedCheck
from baton.github.transport import Role


class GitHubChecks(Role):
    """`tracker.Checks` over the transport."""

    def create_check_run(self, plan: CheckPlan) -> PostedCheck:
        body: dict[str, Any] = {
            "name": plan.name,
            "head_sha": plan.commit,
            "status": "completed",
            "conclusion": plan.conclusion,
            "output": {"title": plan.title, "summary": plan.summary},
        }
        if plan.external_id:
            body["external_id"] = plan.external_id
        # Once: a 5xx may come after GitHub created the run, and a second would show twice.
        _, data = self.transport.call(
            "POST",
            f"{self.transport.base}/check-runs",
            f"posting the check run {plan.name!r} on {plan.commit[:7]}",
            once=True,
            input=body,
        )
        data = data if isinstance(data, dict) else {}
        made, url = data.get("id"), data.get("html_url")
        return PostedCheck(id=made if isinstance(made, int) else 0, url=str(url or ""))
