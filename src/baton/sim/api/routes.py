"""The routing table of GitHub's API over the model: each REST endpoint Baton (or a test) calls,
as GitHub documents it, and ``POST /graphql``; each row names the `GitHubApi` method that
answers it (in `rest_*`, `face`)."""

from __future__ import annotations

from baton.sim.api.wire import GRAPHQL_PATH, Route, _compile, handled_by

_REPO = "/repos/{owner}/{repo}"
_ISSUE = _REPO + "/issues/{number:int}"
_COMMENT = _REPO + "/issues/comments/{comment_id:int}"
_PULL = _REPO + "/pulls/{number:int}"

_TABLE: list[tuple[str, str, str]] = [
    ("GET", "/rate_limit", "_get_rate_limit"),
    ("GET", "/user", "_get_user"),
    ("GET", "/orgs/{org}", "_get_org"),
    ("GET", "/orgs/{org}/teams/{team}", "_get_team"),
    ("GET", "/orgs/{org}/teams/{team}/memberships/{username}", "_get_team_membership"),
    ("GET", _REPO, "_get_repo"),
    ("GET", _REPO + "/issues", "_list_issues"),
    ("POST", _REPO + "/issues", "_create_issue"),
    ("GET", _ISSUE, "_get_issue"),
    ("PATCH", _ISSUE, "_update_issue"),
    ("GET", _ISSUE + "/comments", "_list_comments"),
    ("POST", _ISSUE + "/comments", "_create_comment_handler"),
    ("GET", _ISSUE + "/reactions", "_list_issue_reactions"),
    ("POST", _ISSUE + "/reactions", "_create_issue_reaction"),
    ("GET", _ISSUE + "/labels", "_list_issue_labels"),
    ("POST", _ISSUE + "/labels", "_add_issue_labels"),
    ("PUT", _ISSUE + "/labels", "_set_issue_labels"),
    ("DELETE", _ISSUE + "/labels", "_clear_issue_labels"),
    ("DELETE", _ISSUE + "/labels/{name:rest}", "_remove_issue_label"),
    ("GET", _ISSUE + "/events", "_list_events"),
    ("GET", _ISSUE + "/timeline", "_list_timeline"),
    ("GET", _COMMENT, "_get_comment"),
    ("PATCH", _COMMENT, "_update_comment"),
    ("DELETE", _COMMENT, "_delete_comment"),
    ("GET", _COMMENT + "/reactions", "_list_comment_reactions"),
    ("POST", _COMMENT + "/reactions", "_create_comment_reaction"),
    ("GET", _REPO + "/labels", "_list_labels"),
    ("POST", _REPO + "/labels", "_create_label_handler"),
    ("GET", _REPO + "/labels/{name:rest}", "_get_label"),
    ("PATCH", _REPO + "/labels/{name:rest}", "_update_label"),
    ("DELETE", _REPO + "/labels/{name:rest}", "_delete_label"),
    ("GET", _REPO + "/collaborators/{username}/permission", "_get_permission"),
    ("GET", _REPO + "/actions/workflows/{workflow_id}", "_get_workflow"),
    (
        "POST",
        _REPO + "/actions/workflows/{workflow_id}/dispatches",
        "_create_workflow_dispatch",
    ),
    ("POST", _REPO + "/dispatches", "_create_repository_dispatch"),
    ("GET", _REPO + "/contents/{path:rest}", "_get_contents"),
    ("GET", _REPO + "/actions/secrets", "_list_secrets"),
    ("GET", _REPO + "/actions/permissions", "_get_actions_permissions"),
    ("GET", _REPO + "/actions/permissions/workflow", "_get_workflow_permissions"),
    ("GET", _REPO + "/git/ref/heads/{branch:rest}", "_get_ref"),
    ("GET", _REPO + "/branches/{branch:rest}", "_get_branch"),
    ("GET", _REPO + "/commits/{ref}/check-runs", "_list_check_runs"),
    ("POST", _REPO + "/check-runs", "_create_check_run"),
    ("GET", _REPO + "/commits/{ref}", "_get_commit"),
    ("GET", _REPO + "/compare/{basehead}", "_compare"),
    ("POST", _REPO + "/merges", "_merge"),
    ("GET", _REPO + "/pulls", "_list_pulls"),
    ("POST", _REPO + "/pulls", "_create_pull"),
    ("GET", _PULL, "_get_pull"),
    ("PATCH", _PULL, "_update_pull"),
    (
        "GET",
        _PULL + "/reviews/{review_id:int}/comments",
        "_list_review_comments",
    ),
    ("POST", GRAPHQL_PATH, "_graphql"),
]
ROUTES: tuple[Route, ...] = tuple(
    Route(method, _compile(template), handled_by(name)) for method, template, name in _TABLE
)
