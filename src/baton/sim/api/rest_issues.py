"""REST for issues, their comments, reactions, events and timeline, over the model's issues."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from baton.sim import payloads
from baton.sim.api.base import FakeBase
from baton.sim.api.views import _stamp_of
from baton.sim.api.wire import _invalid, _parse_iso, _refusing, _Request, _Response
from baton.sim.model import rules
from baton.sim.model.issues import STATE_REASONS, Comment, Event, Issue, Reaction
from baton.sim.model.rules import DEFAULT_LABEL_COLOR, REACTIONS


class IssueRoutes(FakeBase):
    """Issues, comments, reactions, events and the timeline."""

    def _render_reaction(self, base: str, reaction: Reaction) -> dict[str, Any]:
        return {
            "id": reaction.id,
            "node_id": f"REA_fake{reaction.id}",
            "user": self._render_user(base, reaction.user),
            "content": reaction.content,
            "created_at": rules.timestamp(reaction.created_at),
        }

    def _render_issue(self, base: str, issue: Issue) -> dict[str, Any]:
        return payloads.issue_object(
            base,
            self.repo_full_name,
            issue_id=issue.id,
            number=issue.number,
            title=issue.title,
            body=issue.body,
            state=issue.state,
            state_reason=issue.state_reason,
            user=self._render_user(base, issue.user),
            labels=[self._render_label(base, self._labels[name]) for name in issue.labels],
            comments=len(self._store.comments_of(issue.number)),
            created_at=rules.timestamp(issue.created_at),
            updated_at=rules.timestamp(issue.updated_at),
            closed_at=_stamp_of(issue.closed_at),
            author_association=issue.association,
            reactions=[r.content for r in issue.reactions],
            is_pull_request=issue.is_pull_request,
        )

    def _render_comment(self, base: str, comment: Comment) -> dict[str, Any]:
        user = comment.user
        return payloads.comment_object(
            base,
            self.repo_full_name,
            comment_id=comment.id,
            number=comment.issue,
            user=self._render_user(base, user),
            body=comment.body,
            created_at=rules.timestamp(comment.created_at),
            updated_at=rules.timestamp(comment.updated_at),
            author_association=comment.association,
            reactions=[r.content for r in comment.reactions],
            by_actions=user.type == "Bot" and user.login == self.bot_login,
        )

    def _render_event(self, base: str, issue: Issue, event: Event) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": event.id,
            "node_id": f"LE_fake{event.id}",
            "url": f"{self._api(base)}/issues/events/{event.id}",
            "actor": self._render_user(base, event.actor),
            "event": event.kind,
            "commit_id": None,
            "commit_url": None,
            "created_at": rules.timestamp(event.created_at),
            "performed_via_github_app": None,
        }
        if event.label is not None:
            data["label"] = {"name": event.label[0], "color": event.label[1]}
        if event.rename is not None:
            data["rename"] = {"from": event.rename[0], "to": event.rename[1]}
        if event.kind == "closed":
            data["state_reason"] = issue.state_reason
        return data

    def _list_issues(self, req: _Request) -> _Response:
        state = req.query.get("state", "open")
        sort = req.query.get("sort", "created")
        direction = req.query.get("direction", "desc")
        if state not in ("open", "closed", "all"):
            raise _invalid("Issue", "state", "invalid")
        if sort not in ("created", "updated", "comments") or direction not in ("asc", "desc"):
            raise _invalid("Issue", "sort", "invalid")
        wanted = {
            name.strip().casefold()
            for name in req.query.get("labels", "").split(",")
            if name.strip()
        }
        since = _parse_iso(req.query["since"]) if "since" in req.query else None
        issues = [
            issue
            for issue in self._issues.values()
            if state in ("all", issue.state)
            and wanted <= {name.casefold() for name in issue.labels}
            and (since is None or _parse_iso(rules.timestamp(issue.updated_at)) >= since)
        ]
        stamp = rules.timestamp  # GitHub sorts by its timestamps, to the second
        keys: dict[str, Callable[[Issue], tuple[Any, int]]] = {
            "created": lambda issue: (stamp(issue.created_at), issue.number),
            "updated": lambda issue: (stamp(issue.updated_at), issue.number),
            "comments": lambda issue: (len(self._store.comments_of(issue.number)), issue.number),
        }
        issues.sort(key=keys[sort], reverse=direction == "desc")
        return self._paginate(req, issues, lambda issue: self._render_issue(req.base, issue))

    def _create_issue(self, req: _Request) -> _Response:
        """The bot opens an issue (title and body only: all Baton sends), refused whole."""
        body = self._object_body(req)
        title = body.get("title")
        if not isinstance(title, str) or not title.strip():
            raise _invalid("Issue", "title", "missing_field")
        text = self._body_text("Issue", body.get("body"), required=False)
        with _refusing():
            issue = self._store.open(title, text, self._bot)
        return _Response(201, self._render_issue(req.base, issue))

    def _get_issue(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        return _Response(200, self._render_issue(req.base, issue))

    def _update_issue(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        body = self._object_body(req)
        # Validate everything first so a 422 leaves the issue untouched.
        if "title" in body and (not isinstance(body["title"], str) or not body["title"].strip()):
            raise _invalid("Issue", "title", "missing_field")
        text = self._body_text("Issue", body.get("body"), required=False)
        if "state" in body and body["state"] not in ("open", "closed"):
            raise _invalid("Issue", "state", "invalid")
        reason = body.get("state_reason")
        if reason is not None and reason not in STATE_REASONS:
            raise _invalid("Issue", "state_reason", "invalid")
        names = self._label_names(body["labels"]) if "labels" in body else None
        if names is not None:
            for name in names:
                if self._find_label(name) is None:
                    self._validate_label(name, DEFAULT_LABEL_COLOR, None)

        if "title" in body:
            self._store.rename(issue, body["title"], self._bot)
        if "body" in body:
            issue.body = text
        if "state" in body:
            with _refusing():
                self._store.set_state(issue, body["state"], self._bot, reason)
        if names is not None:
            self._replace_labels(issue, names, self._bot)
        self._store.touch(issue)
        return _Response(200, self._render_issue(req.base, issue))

    def _list_comments(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        since = _parse_iso(req.query["since"]) if "since" in req.query else None
        comments = [
            c
            for c in self._store.comments_of(issue.number)
            if since is None or _parse_iso(rules.timestamp(c.updated_at)) >= since
        ]
        return self._paginate(req, comments, lambda c: self._render_comment(req.base, c))

    def _create_comment_handler(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        text = self._body_text("IssueComment", self._object_body(req).get("body"), required=True)
        comment = self._create_comment(issue, text, self._bot, "NONE")
        return _Response(201, self._render_comment(req.base, comment))

    def _get_comment(self, req: _Request) -> _Response:
        comment = self._comment_or_404(int(req.params["comment_id"]))
        return _Response(200, self._render_comment(req.base, comment))

    def _update_comment(self, req: _Request) -> _Response:
        comment = self._comment_or_404(int(req.params["comment_id"]))
        text = self._body_text("IssueComment", self._object_body(req).get("body"), required=True)
        self._set_comment_body(comment, text)
        return _Response(200, self._render_comment(req.base, comment))

    def _delete_comment(self, req: _Request) -> _Response:
        comment = self._comment_or_404(int(req.params["comment_id"]))
        self._remove_comment(comment)
        return _Response(204)

    def _react(self, req: _Request, reactions: list[Reaction]) -> _Response:
        content = self._object_body(req).get("content")
        if content not in REACTIONS:
            raise _invalid("Reaction", "content", "invalid")
        reaction, created = self._add_reaction(reactions, content)
        return _Response(201 if created else 200, self._render_reaction(req.base, reaction))

    def _create_comment_reaction(self, req: _Request) -> _Response:
        comment = self._comment_or_404(int(req.params["comment_id"]))
        return self._react(req, comment.reactions)

    def _list_comment_reactions(self, req: _Request) -> _Response:
        comment = self._comment_or_404(int(req.params["comment_id"]))
        return self._paginate(req, comment.reactions, lambda r: self._render_reaction(req.base, r))

    def _create_issue_reaction(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        return self._react(req, issue.reactions)

    def _list_issue_reactions(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        return self._paginate(req, issue.reactions, lambda r: self._render_reaction(req.base, r))

    def _list_events(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        return self._paginate(req, issue.events, lambda e: self._render_event(req.base, issue, e))

    def _list_timeline(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        items: list[dict[str, Any]] = [self._render_event(req.base, issue, e) for e in issue.events]
        for comment in self._store.comments_of(issue.number):
            item = self._render_comment(req.base, comment)
            item.update({"event": "commented", "actor": item["user"]})
            items.append(item)
        items.sort(key=lambda item: int(item["id"]))  # ids follow creation order
        return self._paginate(req, items, lambda item: item)
