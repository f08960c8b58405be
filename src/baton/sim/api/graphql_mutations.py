"""GitHub's GraphQL root fields over the fake's state: `repository` and `node`, and the
mutations Baton sends, each refused with GitHub's words."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from functools import partial
from typing import Any

from baton.sim.api.base import FakeBase as FakeGitHub
from baton.sim.api.graphql_nodes import (
    REACTION_CONTENT,
    Node,
    _actor,
    _comment_node,
    _commit_node,
    _from_rest,
    _issue_node,
    _node,
    _not_a_node,
    _reaction_node,
    _ref_node,
    _repository_node,
    _split,
)
from baton.sim.api.graphql_paging import GitHubError, _cursor
from baton.sim.api.wire import ApiError, _refusing
from baton.sim.model import git, pulls, relations, rules
from baton.sim.model.issues import Comment, Issue, Label
from baton.sim.model.pulls import PullRequest
from baton.sim.payloads import REPOSITORY_ID


def _issue_for(fake: FakeGitHub, node_id: str) -> Issue:
    """The issue (or pull request) a node id names: an `I_` or a `PR_` id."""
    parts = _split(node_id)
    issue = fake._issue_by_id(parts[1]) if parts is not None and parts[0] == "I" else None
    if parts is not None and parts[0] == "PR":
        issue = fake._issues[pull.number] if (pull := fake._pull_by_id(parts[1])) else None
    if issue is None:
        raise _not_a_node(node_id)
    return issue


def _plain_issue_for(fake: FakeGitHub, node_id: str) -> Issue:
    """An issue, not a pull request: what sub-issues and dependencies take."""
    parts = _split(node_id)
    issue = fake._issue_by_id(parts[1]) if parts is not None and parts[0] == "I" else None
    if issue is None or issue.is_pull_request:
        raise GitHubError(
            "NOT_FOUND", f"Could not resolve to Issue node with the global id of '{node_id}'."
        )
    return issue


def _pull_for(fake: FakeGitHub, node_id: str) -> PullRequest:
    parts = _split(node_id)
    pull = fake._pull_by_id(parts[1]) if parts is not None and parts[0] == "PR" else None
    if pull is None:
        raise _not_a_node(node_id)
    return pull


def _from_git(refusal: git.GitRefusal) -> GitHubError:
    """A refusal of the repository as GraphQL reports it. GitHub documents none of these
    types; STALE_DATA is what `createCommitOnBranch` is seen to answer on a moved head."""
    kinds = {"stale": "STALE_DATA", "no_branch": "NOT_FOUND", "workflow": "FORBIDDEN"}
    return GitHubError(kinds.get(refusal.kind, "UNPROCESSABLE"), refusal.message)


def _committable_branch(fake: FakeGitHub, branch: dict[str, Any]) -> str:
    """The branch a `CommittableBranch` names: by the ref's node id, or by the repository's
    name with owner and the branch's name (`refs/heads/` optional)."""
    if branch.get("id") is not None:
        parts = _split(branch["id"])
        found = fake._branch_by_ref_id(parts[1]) if parts and parts[0] == "REF" else None
        if found is None:
            raise _not_a_node(branch["id"])
        return found
    where, name = branch.get("repositoryNameWithOwner"), branch.get("branchName")
    if not where or not name:
        raise GitHubError(
            "UNPROCESSABLE",
            "A branch must be given by its id or by repositoryNameWithOwner and branchName.",
        )
    if where.casefold() != fake.repo_full_name.casefold():
        raise GitHubError(
            "NOT_FOUND", f"Could not resolve to a Repository with the name '{where}'."
        )
    return str(name).removeprefix(git.HEADS)


def _comment_for(fake: FakeGitHub, node_id: str) -> Comment:
    parts = _split(node_id)
    comment = fake._comments.get(parts[1]) if parts is not None and parts[0] == "IC" else None
    if comment is None:
        raise _not_a_node(node_id)
    return comment


def _labels_for(fake: FakeGitHub, node_ids: Sequence[str]) -> list[Label]:
    """Every label named, or NOT_FOUND before anything is changed."""
    found = []
    for node_id in node_ids:
        parts = _split(node_id)
        label = fake._label_by_id(parts[1]) if parts is not None and parts[0] == "LA" else None
        if label is None:
            raise _not_a_node(node_id)
        found.append(label)
    return found


def _repository(fake: FakeGitHub, owner: str, name: str, followRenames: bool = True) -> Node:
    if (owner.casefold(), name.casefold()) != (fake.owner.casefold(), fake.repo.casefold()):
        raise GitHubError(
            "NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'."
        )
    return _repository_node(fake)


def _node_by_id(fake: FakeGitHub, id: str) -> Node:
    found = _node(fake, id)
    if found is None:
        raise _not_a_node(id)
    return found


def _add_comment(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    issue = _issue_for(fake, input["subjectId"])
    try:
        text = fake._body_text("IssueComment", input["body"], required=True)
    except ApiError as error:
        raise _from_rest(error) from None
    comment = fake._create_comment(issue, text, fake._bot, "NONE")
    return {
        "clientMutationId": input.get("clientMutationId"),
        "commentEdge": {"cursor": _cursor(comment.id), "node": _comment_node(fake, comment)},
        "subject": _issue_node(fake, issue),
    }


def _update_issue_comment(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    comment = _comment_for(fake, input["id"])
    try:
        text = fake._body_text("IssueComment", input["body"], required=True)
    except ApiError as error:
        raise _from_rest(error) from None
    fake._set_comment_body(comment, text)
    return {
        "clientMutationId": input.get("clientMutationId"),
        "issueComment": _comment_node(fake, comment),
    }


def _delete_issue_comment(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    fake._remove_comment(_comment_for(fake, input["id"]))
    return {"clientMutationId": input.get("clientMutationId")}


def _add_labels(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    issue = _issue_for(fake, input["labelableId"])
    if input.get("labelIds") is None:
        raise GitHubError("UNPROCESSABLE", "Either labelIds or labels must be provided.")
    labels = _labels_for(fake, input["labelIds"])
    # Already applied: nothing happens, as over REST; new ones are `labeled` by the bot.
    fake._add_labels(issue, [label.name for label in labels], fake._bot)
    return {
        "clientMutationId": input.get("clientMutationId"),
        "labelable": _issue_node(fake, issue),
    }


def _remove_labels(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    issue = _issue_for(fake, input["labelableId"])
    for label in _labels_for(fake, input["labelIds"]):
        if label.name in issue.labels:  # not applied: nothing happens, no error
            fake._remove_label(issue, label.name, fake._bot)
    return {
        "clientMutationId": input.get("clientMutationId"),
        "labelable": _issue_node(fake, issue),
    }


def _add_reaction(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    subject_id = input["subjectId"]
    parts = _split(subject_id)
    subject: Node
    if parts is not None and parts[0] == "I" and (issue := fake._issue_by_id(parts[1])):
        reactions, subject = issue.reactions, _issue_node(fake, issue)
    elif parts is not None and parts[0] == "IC" and (comment := fake._comments.get(parts[1])):
        reactions, subject = comment.reactions, _comment_node(fake, comment)
    else:
        raise _not_a_node(subject_id)
    reaction, _ = fake._add_reaction(reactions, REACTION_CONTENT[input["content"]])
    return {
        "clientMutationId": input.get("clientMutationId"),
        "reaction": _reaction_node(reaction, subject),
        "subject": subject,
    }


def _create_issue(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    """The bot opens an issue, with its labels, and as `parentIssueId`'s sub-issue in the
    same step: refused whole (nothing created) when the parent is full."""
    if input["repositoryId"] != f"R_fake{REPOSITORY_ID}":
        raise _not_a_node(input["repositoryId"])
    title = input["title"]
    if not title.strip():
        raise GitHubError("UNPROCESSABLE", "Title can't be blank")
    try:
        body = fake._body_text("Issue", input.get("body"), required=False)
    except ApiError as error:
        raise _from_rest(error) from None
    labels = _labels_for(fake, input.get("labelIds") or [])
    parent = None
    if input.get("parentIssueId") is not None:
        parent = _plain_issue_for(fake, input["parentIssueId"])
        try:
            fake._relations.check_sub_issue(parent.number)
        except relations.RelationRefusal as refused:
            raise GitHubError("UNPROCESSABLE", refused.message) from None
    with _refusing():
        number = fake._store.open(
            title, body, fake._bot, labels=[label.name for label in labels]
        ).number
    if parent is not None:
        fake._relations.add_sub_issue(parent.number, number)
    return {
        "clientMutationId": input.get("clientMutationId"),
        "issue": _issue_node(fake, fake._issues[number]),
    }


def _add_sub_issue(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    parent = _plain_issue_for(fake, input["issueId"])
    if input.get("subIssueId") is not None:
        child = _plain_issue_for(fake, input["subIssueId"])
    elif input.get("subIssueUrl") is not None:
        url = str(input["subIssueUrl"])
        prefix = f"https://github.com/{fake.repo_full_name}/issues/"
        number = url.removeprefix(prefix)
        found = fake._issues.get(int(number)) if number.isdigit() else None
        if not url.startswith(prefix) or found is None or found.is_pull_request:
            raise GitHubError("NOT_FOUND", f"Could not resolve to an issue at {url}.")
        child = found
    else:
        raise GitHubError("UNPROCESSABLE", "Either subIssueId or subIssueUrl must be given.")
    try:
        fake._relations.add_sub_issue(
            parent.number, child.number, replace_parent=bool(input.get("replaceParent"))
        )
    except relations.RelationRefusal as refused:
        raise GitHubError("UNPROCESSABLE", refused.message) from None
    return {
        "clientMutationId": input.get("clientMutationId"),
        "issue": _issue_node(fake, parent),
        "subIssue": _issue_node(fake, child),
    }


def _add_blocked_by(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    issue = _plain_issue_for(fake, input["issueId"])
    blocking = _plain_issue_for(fake, input["blockingIssueId"])
    try:
        fake._relations.add_blocked_by(issue.number, blocking.number)
    except relations.RelationRefusal as refused:
        raise GitHubError("UNPROCESSABLE", refused.message) from None
    return {
        "clientMutationId": input.get("clientMutationId"),
        "issue": _issue_node(fake, issue),
        "blockingIssue": _issue_node(fake, blocking),
    }


def _create_ref(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    if input["repositoryId"] != f"R_fake{REPOSITORY_ID}":
        raise _not_a_node(input["repositoryId"])
    name: str = input["name"]
    if not name.startswith(git.HEADS):
        # Tags and other refs exist on GitHub; the fake keeps branches only.
        raise GitHubError("UNPROCESSABLE", f"The fake GitHub creates branches only: {name}")
    branch = name.removeprefix(git.HEADS)
    try:
        fake._git.create_branch(branch, input["oid"])
    except git.GitRefusal as refused:
        raise _from_git(refused) from None
    return {"clientMutationId": input.get("clientMutationId"), "ref": _ref_node(fake, branch)}


def _create_commit_on_branch(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    branch = _committable_branch(fake, input["branch"])
    changes = input.get("fileChanges") or {}
    additions: dict[str, bytes] = {}
    for addition in changes.get("additions") or []:
        try:
            additions[addition["path"]] = base64.b64decode(addition["contents"], validate=True)
        except (binascii.Error, ValueError):
            raise GitHubError(
                "UNPROCESSABLE", f"The contents of {addition['path']} are not base64."
            ) from None
    deletions = [deletion["path"] for deletion in changes.get("deletions") or []]
    message = input["message"]
    text = message["headline"] + (f"\n\n{message['body']}" if message.get("body") else "")
    bot = fake.bot_login
    try:
        made = fake._git.commit(
            branch,
            expected_head=input["expectedHeadOid"],
            additions=additions,
            deletions=deletions,
            message=text,
            author=bot,
            email=f"{rules.GITHUB_ACTIONS_BOT_ID}+{bot}@users.noreply.github.com",
            when=fake.now,
            workflows=fake.workflows_permission,
        )
    except git.GitRefusal as refused:
        raise _from_git(refused) from None
    return {
        "clientMutationId": input.get("clientMutationId"),
        "commit": _commit_node(fake, made.oid),
        "ref": _ref_node(fake, branch),
    }


def _update_pull_request(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    pull = _pull_for(fake, input["pullRequestId"])
    issue = fake._issues[pull.number]
    try:
        text = fake._body_text("PullRequest", input.get("body"), required=False)
    except ApiError as error:
        raise _from_rest(error) from None
    title = input.get("title")
    if title is not None and not title.strip():
        raise GitHubError("UNPROCESSABLE", "Title can't be blank")
    base = input.get("baseRefName")
    if base is not None and base not in fake._git.refs:
        raise GitHubError("UNPROCESSABLE", f"Base ref {base} does not exist")
    if input.get("body") is not None:
        issue.body = text
    if title is not None:
        issue.title = title
    if base is not None:
        pull.base = base
    fake._store.touch(issue)
    return {
        "clientMutationId": input.get("clientMutationId"),
        "actor": _actor(fake, fake._bot),
        "pullRequest": _issue_node(fake, issue),
    }


def _create_pull_request(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    """A pull request from a branch of this repository, refused with the words GitHub's
    REST answer uses (the type of the Actions refusal is assumed: GitHub documents none)."""
    if input["repositoryId"] != f"R_fake{REPOSITORY_ID}":
        raise _not_a_node(input["repositoryId"])
    if not fake.actions_may_open_pull_requests:
        raise GitHubError("FORBIDDEN", pulls.ACTIONS_MAY_NOT_OPEN_PULL_REQUESTS)
    if not input["title"].strip():
        raise GitHubError("UNPROCESSABLE", "Title can't be blank")
    base, branch = input["baseRefName"], input["headRefName"]
    if base not in fake._git.refs:
        raise GitHubError("UNPROCESSABLE", f"Base ref {base} does not exist")
    if base != fake._git.default_branch:
        raise GitHubError("UNPROCESSABLE", "The fake GitHub opens pull requests to main only")
    try:
        text = fake._body_text("PullRequest", input.get("body"), required=False)
        pull = fake._work.open(branch, input["title"], text, fake._bot, draft=input["draft"])
    except ApiError as error:
        raise _from_rest(error) from None
    except pulls.PullRequestRefusal as refused:
        raise GitHubError("UNPROCESSABLE", refused.message) from None
    return {
        "clientMutationId": input.get("clientMutationId"),
        "pullRequest": _issue_node(fake, fake._issues[pull.number]),
    }


def _mark_ready(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    pull = _pull_for(fake, input["pullRequestId"])
    issue = fake._issues[pull.number]
    if pull.draft:  # one that is ready already stays so, no error
        pull.draft = False
        fake._store.touch(issue)
    return {
        "clientMutationId": input.get("clientMutationId"),
        "pullRequest": _issue_node(fake, issue),
    }


def _pin_issue(fake: FakeGitHub, input: dict[str, Any]) -> Node:
    issue = _plain_issue_for(fake, input["issueId"])
    fake._store.pin(issue)
    return {
        "clientMutationId": input.get("clientMutationId"),
        "issue": _issue_node(fake, issue),
    }


def _root(fake: FakeGitHub) -> Node:
    """Query and Mutation fields (their names do not clash, so one root serves both)."""
    return {
        "repository": partial(_repository, fake),
        "node": partial(_node_by_id, fake),
        "addComment": partial(_add_comment, fake),
        "updateIssueComment": partial(_update_issue_comment, fake),
        "deleteIssueComment": partial(_delete_issue_comment, fake),
        "addLabelsToLabelable": partial(_add_labels, fake),
        "removeLabelsFromLabelable": partial(_remove_labels, fake),
        "addReaction": partial(_add_reaction, fake),
        "createRef": partial(_create_ref, fake),
        "createIssue": partial(_create_issue, fake),
        "addSubIssue": partial(_add_sub_issue, fake),
        "addBlockedBy": partial(_add_blocked_by, fake),
        "createCommitOnBranch": partial(_create_commit_on_branch, fake),
        "createPullRequest": partial(_create_pull_request, fake),
        "updatePullRequest": partial(_update_pull_request, fake),
        "markPullRequestReadyForReview": partial(_mark_ready, fake),
        "pinIssue": partial(_pin_issue, fake),
    }
