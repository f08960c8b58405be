"""REST for the repository's labels and the labels of an issue (names that ignore case)."""

from __future__ import annotations

from baton.sim.api.base import FakeBase
from baton.sim.api.wire import ApiError, _invalid, _not_found, _Request, _Response
from baton.sim.model.issues import Issue, Label
from baton.sim.model.rules import DEFAULT_LABEL_COLOR


class LabelRoutes(FakeBase):
    """The repository's labels and an issue's."""

    def _issue_labels_response(self, req: _Request, issue: Issue) -> _Response:
        labels = [self._render_label(req.base, self._labels[n]) for n in issue.labels]
        return _Response(200, labels)

    def _list_issue_labels(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        return self._paginate(
            req, issue.labels, lambda n: self._render_label(req.base, self._labels[n])
        )

    def _add_issue_labels(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        names = self._label_names(req.body)
        for name in names:  # validate all before applying any
            if self._find_label(name) is None:
                self._validate_label(name, DEFAULT_LABEL_COLOR, None)
        self._add_labels(issue, names, self._bot)
        return self._issue_labels_response(req, issue)

    def _set_issue_labels(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        names = self._label_names(req.body if req.body is not None else [])
        for name in names:
            if self._find_label(name) is None:
                self._validate_label(name, DEFAULT_LABEL_COLOR, None)
        self._replace_labels(issue, names, self._bot)
        return self._issue_labels_response(req, issue)

    def _clear_issue_labels(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        for name in list(issue.labels):
            self._remove_label(issue, name, self._bot)
        return _Response(204)

    def _remove_issue_label(self, req: _Request) -> _Response:
        issue = self._issue_or_404(int(req.params["number"]))
        label = self._find_label(req.params["name"])
        if label is None or label.name not in issue.labels:
            raise ApiError(404, "Label does not exist")
        self._remove_label(issue, label.name, self._bot)
        return self._issue_labels_response(req, issue)

    def _list_labels(self, req: _Request) -> _Response:
        labels = sorted(self._labels.values(), key=lambda lab: lab.name.casefold())
        return self._paginate(req, labels, lambda lab: self._render_label(req.base, lab))

    def _create_label_handler(self, req: _Request) -> _Response:
        body = self._object_body(req)
        name, description = body.get("name"), body.get("description")
        color = body.get("color", DEFAULT_LABEL_COLOR)  # like the API: no leading "#"
        name, color, description = self._validate_label(name, color, description)
        if self._find_label(name) is not None:
            raise _invalid("Label", "name", "already_exists")
        label = self._create_label(name, color, description)
        return _Response(201, self._render_label(req.base, label))

    def _label_or_404(self, name: str) -> Label:
        label = self._find_label(name)
        if label is None:
            raise _not_found()
        return label

    def _get_label(self, req: _Request) -> _Response:
        return _Response(200, self._render_label(req.base, self._label_or_404(req.params["name"])))

    def _update_label(self, req: _Request) -> _Response:
        label = self._label_or_404(req.params["name"])
        body = self._object_body(req)
        new_name = body.get("new_name", label.name)
        color = body.get("color", label.color)
        description = body.get("description", label.description)
        clash = self._find_label(new_name) if isinstance(new_name, str) else None
        if clash is not None and clash is not label:
            raise _invalid("Label", "name", "already_exists")
        new_name, color, description = self._validate_label(new_name, color, description)
        old_name = label.name
        del self._labels[old_name]
        label.name, label.color, label.description = new_name, color.lower(), description
        self._labels[new_name] = label
        for issue in self._issues.values():
            issue.labels = sorted(
                (new_name if n == old_name else n for n in issue.labels), key=str.casefold
            )
        return _Response(200, self._render_label(req.base, label))

    def _delete_label(self, req: _Request) -> _Response:
        label = self._label_or_404(req.params["name"])
        del self._labels[label.name]
        for issue in self._issues.values():
            if label.name in issue.labels:
                issue.labels.remove(label.name)
        return _Response(204)
