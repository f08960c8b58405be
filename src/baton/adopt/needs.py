"""What Baton needs of the workflow that calls it: the events it acts on, the dispatch input it
chains runs through, the permissions of its jobs, the secret signing its record. `baton doctor`
checks a repository's workflow against these; tests check them against the reusable workflow's
jobs and the caller `baton init` writes."""

from __future__ import annotations

REUSABLE_WORKFLOW = "baton-issues.yml"
WORKFLOWS_DIR = ".github/workflows"
CALLER_PATH = f"{WORKFLOWS_DIR}/baton.yml"

# Each event Baton acts on, the activity types it needs (None: any), and why.
TRIGGERS: dict[str, tuple[frozenset[str] | None, str]] = {
    "issues": (
        frozenset({"opened", "reopened", "closed", "labeled"}),
        "an issue entering, closing and its status labels",
    ),
    "issue_comment": (frozenset({"created", "edited"}), "humans answering Baton"),
    "pull_request_review": (frozenset({"submitted"}), "reviews of Baton's pull request"),
    "pull_request": (frozenset({"closed"}), "Baton's pull request merged or closed"),
    "workflow_dispatch": (None, "how Baton starts the next agent's run"),
    "schedule": (None, "the sweep: timeouts, drifted labels, silent agents"),
}
DISPATCH_INPUT = "issue"  # the input `baton report` dispatches the next run with
# The state handed over with it, and the attempt with its record's digest: with both, that run
# starts no `baton` job (a caller lacking either gets the issue alone, and a `baton` job first).
HANDOVER_INPUTS = {
    "state": "the state whose agent Baton starts",
    "handover": "the attempt Baton starts, left empty by humans",
}

# The union of what the reusable workflow's jobs ask of GITHUB_TOKEN: a caller grants at least
# this (a called workflow's jobs can only narrow the caller's grant).
PERMISSIONS: dict[str, str] = {
    "contents": "write",  # the branch and its commits, the checkouts
    "issues": "write",  # the record, labels and messages
    "pull-requests": "write",  # the draft pull request
    "actions": "write",  # dispatching the next agent's run
    "checks": "write",  # the failing checks sent back; the evidence's check run (Baton / tests)
}

RECORD_SECRET = "BATON_RECORD_SECRET"  # signs the record comment
APPROVE_SETTING = "Allow GitHub Actions to create and approve pull requests"
