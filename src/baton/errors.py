"""The exceptions Baton raises; each message is written for the maintainer who must fix it."""


class BatonError(Exception):
    """Base of every error Baton reports to a user."""


class InvalidWorkflow(BatonError):
    """A workflow definition is malformed or breaks an invariant."""


class InvalidConfig(BatonError):
    """`.github/baton.yml` cannot be read or does not validate."""


class InvalidAgentResult(BatonError):
    """An agent's result JSON is missing, malformed or fails validation."""


class InvalidEvent(BatonError):
    """An event payload is unreadable or lacks what its event kind requires."""


class TrackerError(BatonError):
    """GitHub (or the in-memory stand-in) refused or failed a call."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
