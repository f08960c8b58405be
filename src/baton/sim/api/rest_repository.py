"""REST for the repository and who may act on it (collaborators, organisations, teams, the
rate limit), and its workflows and dispatches.
"""

from __future__ import annotations

import copy
import json
import time

from baton.sim.api.base import FakeBase, _WorkflowState
from baton.sim.api.wire import ApiError, _not_found, _Request, _Response
from baton.sim.model import rules
from baton.sim.model.issues import User
from baton.sim.payloads import DispatchRequest

MAX_CLIENT_PAYLOAD_KEYS = 10


MAX_EVENT_TYPE_CHARS = 100


class RepositoryRoutes(FakeBase):
    """The repository, its people, its workflows and dispatches."""

    def _get_rate_limit(self, req: _Request) -> _Response:
        reset = int(time.time()) + 3600
        core = {
            "limit": self.rate_limit,
            "used": self.rate_used,
            "remaining": max(self.rate_limit - self.rate_used, 0),
            "reset": reset,
        }
        search = {"limit": 30, "used": 0, "remaining": 30, "reset": reset}
        graphql = {"limit": 5000, "used": 0, "remaining": 5000, "reset": reset}
        return _Response(
            200, {"resources": {"core": core, "search": search, "graphql": graphql}, "rate": core}
        )

    def _get_user(self, req: _Request) -> _Response:
        # GITHUB_TOKEN is an installation token: it has no user behind it.
        raise ApiError(403, "Resource not accessible by integration")

    def _org_known(self, org: str) -> bool:
        return org.casefold() == self.owner.casefold() or self._teams.has_org(org)

    def _get_org(self, req: _Request) -> _Response:
        org = req.params["org"]
        if not self._org_known(org):
            raise _not_found()
        data = self._render_user(req.base, User(org, "Organization"))
        data.update({"url": f"{req.base}/orgs/{org}", "description": None})
        return _Response(200, data)

    def _get_team(self, req: _Request) -> _Response:
        org, slug = req.params["org"], req.params["team"]
        if not self._teams.exists(org, slug):
            raise _not_found()
        team_id = self._user_id(f"team:{org.casefold()}/{slug.casefold()}")
        # Real team URLs are /organizations/{id}/team/{id}; the slug form keeps
        # Team.get_team_membership() on the documented route.
        url = f"{req.base}/orgs/{org}/teams/{slug}"
        return _Response(
            200,
            {
                "id": team_id,
                "node_id": f"T_fake{team_id}",
                "url": url,
                "html_url": f"https://github.com/orgs/{org}/teams/{slug}",
                "name": slug,
                "slug": slug,
                "description": None,
                "privacy": "closed",
                "notification_setting": "notifications_enabled",
                "permission": "pull",
                "members_url": f"{url}/members{{/member}}",
                "repositories_url": f"{url}/repos",
                "parent": None,
            },
        )

    def _get_team_membership(self, req: _Request) -> _Response:
        org, slug, login = req.params["org"], req.params["team"], req.params["username"]
        state = self._teams.state(org, slug, login)
        if state is None:
            raise _not_found()
        return _Response(
            200,
            {
                "url": f"{req.base}/orgs/{org}/teams/{slug}/memberships/{login}",
                "role": "member",
                "state": state,
            },
        )

    def _get_repo(self, req: _Request) -> _Response:
        return _Response(200, self._render_repo(req.base))

    def _get_permission(self, req: _Request) -> _Response:
        login = req.params["username"]
        role = self._collaborators.role(login)
        if role is None:
            raise _not_found()
        answer = rules.permission_answer(role)
        user = self._render_user(req.base, User(login, "User"))
        user["permissions"] = answer.pop("permissions")
        user["role_name"] = role
        return _Response(200, {**answer, "user": user})

    def _register_workflow(self, file: str) -> _WorkflowState:
        if file not in self._workflows:
            self._workflows[file] = {"id": self._next_id(), "file": file, "inputs": None}
        return self._workflows[file]

    def _workflow_or_404(self, workflow_id: str) -> _WorkflowState:
        for workflow in self._workflows.values():
            if workflow_id in (workflow["file"], str(workflow["id"])):
                return workflow
        if self._strict_workflows:
            raise _not_found()
        return self._register_workflow(workflow_id)

    def _get_workflow(self, req: _Request) -> _Response:
        workflow = self._workflow_or_404(req.params["workflow_id"])
        url = f"{self._api(req.base)}/actions/workflows/{workflow['id']}"
        path = f".github/workflows/{workflow['file']}"
        return _Response(
            200,
            {
                "id": workflow["id"],
                "node_id": f"W_fake{workflow['id']}",
                "name": workflow["file"].rsplit(".", 1)[0],
                "path": path,
                "state": "active",
                "created_at": "2020-01-01T00:00:00Z",
                "updated_at": "2020-01-01T00:00:00Z",
                "url": url,
                "html_url": f"{self._html()}/blob/main/{path}",
                "badge_url": f"{self._html()}/workflows/{workflow['file']}/badge.svg",
            },
        )

    def _create_workflow_dispatch(self, req: _Request) -> _Response:
        workflow = self._workflow_or_404(req.params["workflow_id"])
        body = self._object_body(req)
        ref, inputs = body.get("ref"), body.get("inputs", {})
        if not isinstance(ref, str) or not ref:
            raise ApiError(422, 'Invalid request.\n\n"ref" wasn\'t supplied.')
        if not isinstance(inputs, dict):
            raise ApiError(422, "Invalid request.\n\nFor 'properties/inputs', is not an object.")
        declared = workflow["inputs"]
        unexpected = sorted(set(inputs) - declared) if declared is not None else []
        if unexpected:
            raise ApiError(422, f"Unexpected inputs provided: {json.dumps(unexpected)}")
        self._dispatches.append(
            DispatchRequest(
                "workflow_dispatch",
                self._stamp(),
                workflow=workflow["file"],
                ref=ref,
                inputs=copy.deepcopy(inputs),
            )
        )
        if body.get("return_run_details"):
            run_id = self._next_id()
            return _Response(
                200,
                {
                    "workflow_run_id": run_id,
                    "run_url": f"{self._api(req.base)}/actions/runs/{run_id}",
                    "html_url": f"{self._html()}/actions/runs/{run_id}",
                },
            )
        return _Response(204)

    def _create_repository_dispatch(self, req: _Request) -> _Response:
        body = self._object_body(req)
        event_type, payload = body.get("event_type"), body.get("client_payload", {})
        if not isinstance(event_type, str) or not event_type:
            raise ApiError(422, 'Invalid request.\n\n"event_type" wasn\'t supplied.')
        if len(event_type) > MAX_EVENT_TYPE_CHARS:
            raise ApiError(
                422,
                "Invalid request.\n\nevent_type is too long "
                f"(maximum is {MAX_EVENT_TYPE_CHARS} characters).",
            )
        if not isinstance(payload, dict):
            raise ApiError(
                422, "Invalid request.\n\nFor 'properties/client_payload', is not an object."
            )
        if len(payload) > MAX_CLIENT_PAYLOAD_KEYS:
            raise ApiError(
                422,
                f"Invalid request.\n\nNo more than {MAX_CLIENT_PAYLOAD_KEYS} "
                f"properties are allowed; {len(payload)} were supplied.",
            )
        self._dispatches.append(
            DispatchRequest(
                "repository_dispatch",
                self._stamp(),
                event_type=event_type,
                client_payload=copy.deepcopy(payload),
            )
        )
        return _Response(204)
