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


_ENTRIES = "entries { name mode }"


def tree_selection(folders: Sequence[str], links: Sequence[str]) -> tuple[str, str, dict[str, str]]:
    """(variable declarations, selection, variables) reading a commit's tree under the alias
    `baseTree` (`$base` its id): each folder's entries as `d<i>` (the root is `tree`, another
    `file(path:)`, whose object is a Tree), each link's target as `t<i>` (its Blob's text).
    `Commit.file` never follows a link: a path through one answers null."""
    declared = "".join(f", $d{i}: String!" for i, f in enumerate(folders) if f)
    declared += "".join(f", $t{i}: String!" for i in range(len(links)))
    parts = [
        f"d{i}: tree {{ {_ENTRIES} }}"
        if not folder
        else f"d{i}: file(path: $d{i}) {{ object {{ ... on Tree {{ {_ENTRIES} }} }} }}"
        for i, folder in enumerate(folders)
    ]
    parts += [
        f"t{i}: file(path: $t{i}) {{ mode object {{ ... on Blob {{ text }} }} }}"
        for i in range(len(links))
    ]
    selection = f"baseTree: object(oid: $base) {{ ... on Commit {{ {' '.join(parts)} }} }}"
    variables = {f"d{i}": f for i, f in enumerate(folders) if f}
    variables |= {f"t{i}": link for i, link in enumerate(links)}
    return ", $base: GitObjectID!" + declared, selection, variables


def tree_document(folders: Sequence[str], links: Sequence[str]) -> tuple[str, dict[str, str]]:
    """`BatonTree`: what `tree_selection` reads, alone (a link led further than the read)."""
    declared, selection, variables = tree_selection(folders, links)
    document = f"""query BatonTree($owner: String!, $name: String!{declared}) {{
  repository(owner: $owner, name: $name) {{
    {selection}
  }}
}}"""
    return document, variables


def git_mode(mode: Any) -> str:
    """Git's octal mode of a GraphQL `TreeEntry.mode` (an Int: 40960 is `120000`)."""
    return format(mode, "06o") if isinstance(mode, int) and mode >= 0 else ""


def parse_tree(
    node: Any, folders: Sequence[str], links: Sequence[str]
) -> tuple[dict[str, tuple[tuple[str, str], ...] | None], dict[str, str | None]]:
    """What `tree_selection` answered: each folder's (name, mode) entries or None, each
    link's target or None (not a link, or not text); nothing when the commit is not there."""
    if not isinstance(node, dict):
        return {}, {}  # no such commit: nothing is known
    listed: dict[str, tuple[tuple[str, str], ...] | None] = {}
    for i, folder in enumerate(folders):
        found = node.get(f"d{i}") or {}
        tree = found if not folder else (found.get("object") or {})
        entries = tree.get("entries") if isinstance(tree, dict) else None
        listed[folder] = (
            tuple(
                (str(e.get("name") or ""), git_mode(e.get("mode")))
                for e in entries
                if isinstance(e, dict)
            )
            if isinstance(entries, list)
            else None
        )
    targets: dict[str, str | None] = {}
    for i, link in enumerate(links):
        entry = node.get(f"t{i}") or {}
        text = (entry.get("object") or {}).get("text")
        is_link = git_mode(entry.get("mode")) == "120000"
        targets[link] = text if is_link and isinstance(text, str) else None
    return listed, targets


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
