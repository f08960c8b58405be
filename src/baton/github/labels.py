"""Labels over REST: a label found or created (styled as a status label), added, removed.

GraphQL adds a label only by its node id, so a label the repository lacks is created here first,
with its colour and description when it is a status label; a label GitHub made grey on first use
(added by name) is styled once. A courtesy that fails never fails the run.
"""

from __future__ import annotations

import contextlib
from urllib.parse import quote

from baton.errors import TrackerError
from baton.github.tracker import LabelSpec
from baton.github.transport import Known, Transport

DEFAULT_COLOUR = "ededed"  # what GitHub gives a label created implicitly by adding it


def label_node(transport: Transport, known: Known, name: str, spec: LabelSpec | None) -> str:
    """The node id of a label to add: looked up by the read, else created (with its colour
    and description when it is a status label), once per repository."""
    key = name.casefold()
    found = known.label_nodes.get(key)
    style = known.label_styles.pop(key, None)
    if found is not None:
        if spec and style and style.color.lower() == DEFAULT_COLOUR and not style.description:
            # Made grey by hand or by an older run: style it. A courtesy, never a failure.
            with contextlib.suppress(TrackerError):
                style_label(transport, spec)
        return found
    color = spec.color if spec else DEFAULT_COLOUR
    body = {"name": name, "color": color, "description": spec.description if spec else ""}
    try:
        _, data = transport.call(
            "POST", f"{transport.base}/labels", f"creating label {name}", input=body
        )
    except TrackerError as exc:
        if exc.status != 422:  # 422: it exists after all (created meanwhile); read it
            raise
        _, data = transport.call(
            "GET", f"{transport.base}/labels/{quote(name, safe='')}", f"reading label {name}"
        )
    known.label_nodes[key] = str(data["node_id"])
    return known.label_nodes[key]


def set_labels(
    transport: Transport,
    number: int,
    current: tuple[str, ...],
    wanted: tuple[str, ...],
    specs: dict[str, LabelSpec],
) -> None:
    """Change only the difference over REST: add first (an issue briefly carrying two status
    labels is repaired by the next run, one carrying none would look like it left the
    workflow), then remove."""
    add = [label for label in wanted if label not in current]
    remove = [label for label in current if label not in wanted]
    if add:
        _, data = transport.call(
            "POST",
            f"{transport.base}/issues/{number}/labels",
            f"labelling #{number}",
            input={"labels": add},
        )
        for label in data or []:
            name = str(label.get("name"))
            spec = specs.get(name)
            if (
                spec
                and str(label.get("color")).lower() == DEFAULT_COLOUR
                and not label.get("description")
            ):
                style_label(transport, spec)
    for label in remove:
        remove_label(transport, number, label)


def remove_label(transport: Transport, number: int, label: str) -> None:
    try:
        transport.call(
            "DELETE",
            f"{transport.base}/issues/{number}/labels/{quote(label, safe='')}",
            f"removing {label} from #{number}",
        )
    except TrackerError as exc:
        if exc.status != 404:  # already gone: the difference is applied
            raise


def style_label(transport: Transport, spec: LabelSpec) -> None:
    """First use of a status label: GitHub created it grey; give it its colour and text."""
    transport.call(
        "PATCH",
        f"{transport.base}/labels/{quote(spec.name, safe='')}",
        f"styling label {spec.name}",
        input={"color": spec.color, "description": spec.description},
    )
