"""Issues as GitHub keeps them: their comments, labels, the events that say who did what, and
reactions, with the operations GitHub performs on them and its refusals (as `Refused`).

GitHub's API over the model (`sim.api`) holds its issues in one `Issues` and translates its
answers and refusals into GitHub's (a 422 body). Pull requests are issues too (same numbers,
`is_pull_request`). Stdlib only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from baton.sim.model import rules

STATES = ("open", "closed")
STATE_REASONS = ("completed", "not_planned", "reopened", "duplicate")


class Refused(Exception):
    """GitHub refused the change with 422 Validation Failed, for `refusal`'s reason; `subject`
    names what was refused (a label's name)."""

    def __init__(self, refusal: rules.Refusal, subject: object = None) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal
        self.subject = subject


@dataclass(frozen=True)
class User:
    """Who did something: a login and its account type (User, Bot, Organization)."""

    login: str
    type: str = "User"

    @classmethod
    def named(cls, login: str) -> User:
        return cls(login, rules.user_type(login))


@dataclass
class Label:
    id: int
    name: str
    color: str
    description: str | None = None
    default: bool = False


@dataclass(frozen=True)
class Reaction:
    id: int
    content: str
    user: User
    created_at: datetime


@dataclass(frozen=True)
class Event:
    """An issue event with its actor: labeled and unlabeled (with the label's name and colour
    then), closed, reopened, renamed (with the titles before and after)."""

    id: int
    kind: str
    actor: User
    created_at: datetime
    label: tuple[str, str] | None = None  # (name, color)
    rename: tuple[str, str] | None = None  # (from, to)


@dataclass
class Comment:
    id: int
    issue: int
    body: str
    author: str  # a login; `user` has its account type
    author_type: str
    association: str
    created_at: datetime
    updated_at: datetime
    # A body edit, as GitHub keeps it (GraphQL `lastEditedAt`, `editor`): none until the
    # first; reactions move neither, nor `updated_at`.
    edited_at: datetime | None = None
    editor: User | None = None
    reactions: list[Reaction] = field(default_factory=list)

    @property
    def user(self) -> User:
        return User(self.author, self.author_type)


@dataclass
class Issue:
    number: int
    id: int
    title: str
    body: str
    author: str  # a login; `user` has its account type
    author_type: str
    created_at: datetime
    updated_at: datetime
    association: str = "NONE"
    state: str = "open"
    state_reason: str | None = None
    closed_at: datetime | None = None
    labels: list[str] = field(default_factory=list)  # the repository's names for them
    events: list[Event] = field(default_factory=list)
    reactions: list[Reaction] = field(default_factory=list)
    is_pull_request: bool = False
    pinned: bool = False  # pinned to the repository (GraphQL `pinIssue`)

    @property
    def user(self) -> User:
        return User(self.author, self.author_type)


class Issues:
    """One repository's issues, comments and labels. Every id comes from `ids`, every stamp
    from `clock`; labels are kept in the order given, or by name (`sort_labels`), as GitHub
    lists them."""

    def __init__(
        self, ids: rules.Ids, clock: Callable[[], datetime], *, sort_labels: bool = False
    ) -> None:
        self._ids = ids
        self._clock = clock
        self._sort_labels = sort_labels
        self.issues: dict[int, Issue] = {}
        self.comments: dict[int, Comment] = {}  # by id, in the order they were made
        self.labels: dict[str, Label] = {}  # by name

    # --- issues -----------------------------------------------------------------------------
    def open(
        self,
        title: str,
        body: str,
        author: User,
        *,
        association: str = "NONE",
        labels: Iterable[str] = (),
        is_pull_request: bool = False,
    ) -> Issue:
        """A new issue, its labels recorded as added by its author, as GitHub records them."""
        now = self._clock()
        issue = Issue(
            number=rules.next_number(self.issues),
            id=self._ids.next(),
            title=title,
            body=body,
            author=author.login,
            author_type=author.type,
            created_at=now,
            updated_at=now,
            association=association,
            is_pull_request=is_pull_request,
        )
        self.issues[issue.number] = issue
        for name in labels:
            self.add_label(issue, name, author)
        return issue

    def touch(self, issue: Issue) -> None:
        """GitHub bumps an issue's updated_at on every comment, label and state change."""
        issue.updated_at = self._clock()

    def rename(self, issue: Issue, title: str, actor: User) -> None:
        if title != issue.title:
            self._event(issue, "renamed", actor, rename=(issue.title, title))
            issue.title = title

    def set_state(self, issue: Issue, state: str, actor: User, reason: str | None = None) -> bool:
        """Close or reopen `issue` (a `closed` or `reopened` event), or only change the reason
        of a closed one; whether the state changed."""
        if state not in STATES:
            raise Refused(rules.Refusal("Issue", "state", "invalid"))
        if reason is not None and reason not in STATE_REASONS:
            raise Refused(rules.Refusal("Issue", "state_reason", "invalid"))
        if state == issue.state:
            if reason is not None:
                issue.state_reason = reason
            return False
        issue.state = state
        if state == "closed":
            issue.closed_at = self._clock()
            issue.state_reason = reason or "completed"
        else:
            issue.closed_at = None
            issue.state_reason = "reopened"
        self._event(issue, "closed" if state == "closed" else "reopened", actor)
        return True

    def edit_body(self, issue: Issue, body: str) -> None:
        """A new body, or GitHub's refusal of one over its limit (nothing changed)."""
        check_body("Issue", body)
        issue.body = body
        self.touch(issue)

    def pin(self, issue: Issue) -> None:
        """Pin an issue to the repository; pinning a pinned one changes nothing. A pull
        request is no issue to pin."""
        if issue.is_pull_request:
            raise Refused(rules.Refusal("Issue", "issueId", "invalid"))
        issue.pinned = True

    def by_id(self, issue_id: int) -> Issue | None:
        """An issue (or pull request) by its database id, as node ids carry it."""
        return next((issue for issue in self.issues.values() if issue.id == issue_id), None)

    # --- labels -----------------------------------------------------------------------------
    def find_label(self, name: str) -> Label | None:
        """The repository's label `name` means: names ignore case."""
        known = rules.find_label(self.labels, name)
        return self.labels[known] if known is not None else None

    def create_label(self, name: object, color: object, description: object = None) -> Label:
        """A new label (GitHub keeps its colour in lower case), or GitHub's refusal of its
        name, colour or description."""
        refusal = rules.label_refusal(name, color, description)
        if refusal is not None:
            raise Refused(refusal, name)
        assert isinstance(name, str) and isinstance(color, str)
        text = description if isinstance(description, str) else None
        label = Label(self._ids.next(), name, color.lower(), text)
        self.labels[name] = label
        return label

    def label_for(self, name: str) -> Label:
        """The label `name` means, created grey when the repository lacks it (as GitHub does
        when a label is added to an issue)."""
        return self.find_label(name) or self.create_label(name, rules.DEFAULT_LABEL_COLOR)

    def add_label(self, issue: Issue, name: str, actor: User) -> str | None:
        """Apply `name` (the repository's label of that name in any case); the name applied,
        or None when the issue had it already."""
        label = self.label_for(name)
        if label.name in issue.labels:
            return None
        issue.labels.append(label.name)
        if self._sort_labels:
            issue.labels.sort(key=str.casefold)
        self._event(issue, "labeled", actor, label=label)
        self.touch(issue)
        return label.name

    def remove_label(self, issue: Issue, name: str, actor: User) -> str | None:
        """Take off the label `name` means, if the issue has it; the name removed."""
        found = rules.find_label(issue.labels, name)
        if found is None:
            return None
        issue.labels.remove(found)
        label = self.labels.get(found) or Label(0, found, rules.DEFAULT_LABEL_COLOR)
        self._event(issue, "unlabeled", actor, label=label)
        self.touch(issue)
        return found

    def label_by_id(self, label_id: int) -> Label | None:
        return next((label for label in self.labels.values() if label.id == label_id), None)

    # --- comments ---------------------------------------------------------------------------
    def comment(self, issue: Issue, body: str, author: User, association: str = "NONE") -> Comment:
        """A new comment. GitHub refuses a body over its limit (`check_body`) before it writes;
        the tests' helpers may seed one past it, as a forged or broken record would be."""
        now = self._clock()
        made = Comment(
            self._ids.next(), issue.number, body, author.login, author.type, association, now, now
        )
        self.comments[made.id] = made
        self.touch(issue)
        return made

    def comments_of(self, number: int) -> list[Comment]:
        return [c for c in self.comments.values() if c.issue == number]

    def edit(self, comment: Comment, body: str, editor: User) -> None:
        """A body edit, stamped as GitHub stamps it (`updated_at`, `lastEditedAt`, editor)."""
        comment.body = body
        comment.updated_at = comment.edited_at = self._clock()
        comment.editor = editor

    def react(self, reactions: list[Reaction], content: str, user: User) -> tuple[Reaction, bool]:
        """`user`'s `content` reaction, made once: (the reaction, whether it is new)."""
        if content not in rules.REACTIONS:
            raise Refused(rules.Refusal("Reaction", "content", "invalid"))
        for reaction in reactions:
            if reaction.content == content and reaction.user.login == user.login:
                return reaction, False
        made = Reaction(self._ids.next(), content, user, self._clock())
        reactions.append(made)
        return made, True

    # --- internals --------------------------------------------------------------------------
    def _event(
        self,
        issue: Issue,
        kind: str,
        actor: User,
        *,
        label: Label | None = None,
        rename: tuple[str, str] | None = None,
    ) -> None:
        named = (label.name, label.color) if label is not None else None
        made = Event(self._ids.next(), kind, actor, self._clock(), named, rename)
        issue.events.append(made)


def check_body(resource: str, body: str) -> None:
    """GitHub refuses an issue or comment body over its limit."""
    refusal = rules.body_refusal(resource, body)
    if refusal is not None:
        raise Refused(refusal)
