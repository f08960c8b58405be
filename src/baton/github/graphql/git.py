"""The documents of the work product's git side: a branch's head, a new branch, a commit.

A commit is one `createCommitOnBranch`, whose `expectedHeadOid` is the compare-and-swap on the
branch head; GitHub signs it, and no git credentials are needed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

REF = "name target { oid ... on Commit { message } }"

BRANCH = f"""query BatonBranch($owner: String!, $name: String!, $ref: String!) {{
  repository(owner: $owner, name: $name) {{
    id
    defaultBranchRef {{ name target {{ oid }} }}
    ref(qualifiedName: $ref) {{ {REF} }}
  }}
}}"""

CREATE_REF = f"""mutation BatonCreateBranch($repository: ID!, $ref: String!, $oid: GitObjectID!) {{
  createRef(input: {{repositoryId: $repository, name: $ref, oid: $oid}}) {{ ref {{ {REF} }} }}
}}"""

BRANCH_AND_BASE = f"""query BatonBranchFrom(
  $owner: String!, $name: String!, $ref: String!, $base: String!
) {{
  repository(owner: $owner, name: $name) {{
    id
    defaultBranchRef {{ name target {{ oid }} }}
    ref(qualifiedName: $ref) {{ {REF} }}
    base: ref(qualifiedName: $base) {{ {REF} }}
  }}
}}"""

CREATE_COMMIT = """mutation BatonCommit($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) { commit { oid } }
}"""

# The branch's first commit and its draft pull request: root fields of a mutation run in
# document order, so the pull request is created from the branch as the commit left it.
COMMIT_OPENING = """mutation BatonCommitOpening(
  $input: CreateCommitOnBranchInput!, $pullRequest: CreatePullRequestInput!
) {
  createCommitOnBranch(input: $input) { commit { oid } }
  createPullRequest(input: $pullRequest) { pullRequest { number id } }
}"""


def qualified(branch: str) -> str:
    """The full name GraphQL's `ref(qualifiedName:)` and `createRef` take for a branch."""
    return f"refs/heads/{branch}"


def parse_ref(node: Any) -> tuple[str, str, str] | None:
    """(name, oid, message) of a `Ref` answered with `REF`, or None."""
    if not isinstance(node, dict):
        return None
    target = node.get("target") or {}
    oid = target.get("oid")
    if not isinstance(oid, str):
        return None
    return str(node.get("name") or ""), oid, str(target.get("message") or "")


def commit_input(
    repository: str,
    branch: str,
    expected_head: str,
    headline: str,
    body: str,
    additions: Sequence[tuple[str, str]],
    deletions: Sequence[str],
) -> dict[str, Any]:
    """`CreateCommitOnBranchInput`: one commit, applied only if the head is `expected_head`."""
    changes: dict[str, Any] = {}
    if additions:
        changes["additions"] = [{"path": p, "contents": c} for p, c in additions]
    if deletions:
        changes["deletions"] = [{"path": p} for p in deletions]
    return {
        "branch": {"repositoryNameWithOwner": repository, "branchName": branch},
        "expectedHeadOid": expected_head,
        "message": {"headline": headline, "body": body},
        "fileChanges": changes,
    }


def pull_request_input(
    repository_id: str, base: str, branch: str, title: str, body: str
) -> dict[str, Any]:
    """`CreatePullRequestInput`: a draft from `branch` of this repository into `base`."""
    return {
        "repositoryId": repository_id,
        "baseRefName": base,
        "headRefName": branch,
        "title": title,
        "body": body,
        "draft": True,
    }
