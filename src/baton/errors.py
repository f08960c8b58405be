"""The exceptions Baton raises; each message is written for the maintainer who must fix it.

They all live here, so a reader finds every way a run can fail in one place:

    BatonError                   reported to a user, as the run's error
    ├── InvalidWorkflow          a workflow definition
    ├── InvalidConfig            `.github/baton.yml`
    ├── InvalidAgentResult       an agent's result JSON
    ├── InvalidChangeset         an agent's changeset file
    ├── InvalidEvidence          the evidence beside a result (`baton-evidence.json`)
    ├── CaptureFailed            reading what an agent changed in its checkout
    ├── InvalidEvent             an event payload
    ├── InvalidScenario          a `baton simulate` scenario
    ├── InvalidWorkflowRef       GITHUB_WORKFLOW_REF, where chained runs go
    ├── AgentSetupError          `baton agent` cannot start the agent
    ├── ResultUnwritable         `baton agent` cannot write the result or changeset
    ├── SetupRefused             `baton init` will not write the setup asked for
    └── TrackerError             GitHub refused or failed a call (status, type, message)
        ├── StaleHead            a commit's compare-and-swap: the branch moved
        ├── CommitRefused        GitHub refused the commit itself
        └── PullRequestRefused   GitHub would not open the pull request
    DuplicateKeyError (ValueError)   becomes an InvalidConfig/InvalidWorkflow with its line
    YamlRefused (ValueError)         a YAML alias, or a document too large or too deep: the same
    RecordCorrupt (ValueError)       becomes a rebuild of the record from the labels
    GraphQLUnusable                  becomes the same work done over REST
    InvalidDuration (ValueError)     a value breaking its rule, which pydantic places at its
    InvalidSetting (ValueError)      key and which becomes an InvalidConfig, InvalidWorkflow
    InvalidInput (ValueError)        or InvalidScenario with it (an input: the run's one-line
    InvalidStep (ValueError)         error naming the input)
    StateNotInWorkflow (ValueError)  a caller handed `decide` a record its workflow lacks

The ones below the tree never reach a user as such.
"""


class BatonError(Exception):
    """Base of every error Baton reports to a user."""


class InvalidWorkflow(BatonError):
    """A workflow definition is malformed or breaks an invariant."""


class InvalidConfig(BatonError):
    """`.github/baton.yml` cannot be read or does not validate."""


class InvalidAgentResult(BatonError):
    """An agent's result JSON is missing, malformed or fails validation."""


class InvalidChangeset(BatonError):
    """An agent's changeset file is malformed (what it may carry is
    `core.model.changeset.problems`)."""


class InvalidEvidence(BatonError):
    """The evidence beside an agent's result cannot be read or does not validate: the report
    carries the reason (`AgentReported.evidence_problem`), never the file."""


class CaptureFailed(BatonError):
    """What an agent changed could not be read from its checkout (not a git checkout, no such
    commit, git failed): a setup error of the agent's job, not a failed attempt."""


class InvalidEvent(BatonError):
    """An event payload is unreadable or lacks what its event kind requires."""


class InvalidScenario(BatonError):
    """A `baton simulate` scenario file is malformed."""


class InvalidWorkflowRef(BatonError):
    """GITHUB_WORKFLOW_REF is not `path@ref`: there is no workflow to chain runs to."""


class TrackerError(BatonError):
    """GitHub (or its model in `baton.sim`) refused or failed a call. It carries GitHub's answer
    where there was one, so a caller tells a conflict from a missing branch without parsing the
    message: `status` (HTTP, or the one a GraphQL error type stands for), `kind` (GraphQL's
    error type, e.g. NOT_FOUND) and `said` (GitHub's own message, with a 422's details)."""

    def __init__(
        self, message: str, *, status: int | None = None, kind: str = "", said: str = ""
    ) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind
        self.said = said


class StaleHead(TrackerError):
    """The branch moved since the changeset's base (a human pushed): the compare-and-swap of a
    commit refused it, and nothing was written."""

    def __init__(
        self, message: str, *, head: str | None = None, kind: str = "", said: str = ""
    ) -> None:
        super().__init__(message, status=409, kind=kind, said=said)
        self.head = head


class CommitRefused(TrackerError):
    """GitHub answered the commit itself with a refusal other than a moved head (a deletion of
    a path the branch lacks, a path the token may not write): nothing was written, and the same
    changeset would be refused again, so it is a refused changeset, not a failed run."""


class PullRequestRefused(TrackerError):
    """GitHub would not open the pull request (Actions may not create pull requests in this
    repository, or nothing differs from the base): the message says what a maintainer fixes."""


class DuplicateKeyError(ValueError):
    """A YAML mapping names the same key twice (PyYAML would silently keep the last)."""

    def __init__(self, key: str, line: int, path: tuple[str, ...]) -> None:
        where = ".".join(path) or "top level"
        super().__init__(f"duplicate key {key!r} in {where} (line {line})")
        self.key = key
        self.line = line
        self.path = path


class YamlRefused(ValueError):
    """YAML refused before it is built: an alias in Baton's own files, an alias expansion past
    its bound, a document over its size or nesting limit (a billion laughs fit in 400 bytes)."""


class RecordCorrupt(ValueError):
    """The record comment exists but cannot be trusted or read."""


class GraphQLUnusable(Exception):
    """GraphQL would not take a document at all: nothing ran, REST can do the same. `lasting`:
    it will not take the next one either (a document this server does not know, a spent
    budget), so the rest of the process keeps to REST."""

    def __init__(self, why: str, *, lasting: bool = True) -> None:
        super().__init__(why)
        self.lasting = lasting


# --- A value that breaks its rule, found while a model or the inputs are read. Each is a
# ValueError so that pydantic reports it at its key (with the config's line), and
# `action.inputs.read` names the input it came from.


class InvalidDuration(ValueError):
    """A duration ("90m", "7d") in a workflow, a config or a scenario is not one Baton reads."""


class InvalidSetting(ValueError):
    """A value in `.github/baton.yml` breaks a rule of its own (a team, a glob, a word)."""


class InvalidInput(ValueError):
    """An Action input or `BATON_*` variable does not parse; `action.inputs.read` names it."""


class InvalidStep(ValueError):
    """A `baton simulate` step is not one step as written (two actions, `by` twice)."""


class AgentSetupError(BatonError):
    """`baton agent` cannot start the agent (no command, an unreadable briefing or config, no
    git): a setup error of the job, reported once, that spends no attempt."""


class ResultUnwritable(BatonError):
    """`baton agent` could not write the agent's result or changeset where the job reads it."""


class StateNotInWorkflow(ValueError):
    """`decide` was handed a record whose state its workflow does not have: a caller's bug
    (the record is rebuilt against the workflow before `decide` sees it), never a user's."""


class SetupRefused(BatonError):
    """`baton init` will not write: a file exists, or an option names no agent or release."""
