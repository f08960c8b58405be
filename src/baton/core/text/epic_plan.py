"""The epic's plan as text for its record comment: a task table and a mermaid graph coloured by
state, within a character budget.

Task titles are a planning agent's words, so they are data: in the table they are escaped like
any user text (`core.text.markdown`); in the graph every character outside a small safe set becomes
a mermaid entity code (`#quot;`, `#35;`), so a title can neither close its label, nor start a
line (a `click` or a `%%{init}` directive, a node, an edge), nor close the code fence. Node ids
are `t_<index>`, never the key. Each pass is linear in the text.
"""

from __future__ import annotations

from baton.core.model.epic import DONE, MAX_TITLE, EpicState, PlannedTask
from baton.core.text import markdown

HEADER = "| task | sub-issue | state | attempts | blocked by |\n|---|---|---|---|---|"
FENCE_OPEN = "```mermaid"
FENCE_CLOSE = "```"
_SAFE_PUNCTUATION = frozenset(" .,:_-!?'/+=*@()")
_NAMED = {'"': "#quot;"}

STYLES: dict[str, str] = {
    "pending": "fill:#eaeef2,stroke:#57606a",
    "in_progress": "fill:#ddf4ff,stroke:#0969da",
    "pending_review": "fill:#fbefff,stroke:#8250df",
    "retry_queued": "fill:#fff8c5,stroke:#9a6700",
    "completed": "fill:#dafbe1,stroke:#1a7f37",
    "failed": "fill:#ffebe9,stroke:#cf222e",
    "blocked": "fill:#fff1e5,stroke:#bc4c00",
    "skipped": "fill:#f6f8fa,stroke:#8c959f",
    "replaced": "fill:#f6f8fa,stroke:#8c959f,color:#8c959f",
    "dropped": "fill:#f6f8fa,stroke:#8c959f,color:#8c959f",
}


def state(task: PlannedTask) -> str:
    """The task's state as a word: its status, or `replaced` / `dropped` for an old entry."""
    if task.replaced_by is not None:
        return "replaced" if task.replaced_by else "dropped"
    return task.status.value


def _title(task: PlannedTask) -> str:
    return task.title[:MAX_TITLE]


def _blockers(task: PlannedTask, by_key: dict[str, PlannedTask]) -> list[str]:
    """The dependencies not yet completed or skipped (an unknown key counts: it never will)."""
    if task.replaced_by is not None or task.status in DONE:
        return []
    out = []
    for key in task.depends_on:
        dep = by_key.get(key)
        if dep is None or dep.status not in DONE:
            out.append(key)
    return out


def _current(epic: EpicState) -> dict[str, PlannedTask]:
    """Key -> the entry a dependency on it means: the current one, else a dropped one."""
    found: dict[str, PlannedTask] = {}
    for task in epic.tasks:
        if task.replaced_by == "":
            found.setdefault(task.key, task)
    for task in epic.tasks:
        if task.replaced_by is None:
            found[task.key] = task
    return found


def _row(task: PlannedTask, by_key: dict[str, PlannedTask]) -> str:
    issue = f"#{task.number}" if task.number is not None else "—"
    blockers = _blockers(task, by_key)
    cells = [
        markdown.cell(f"{task.key}: {_title(task)}"),
        issue,
        state(task).replace("_", " "),
        str(task.attempts),
        markdown.cell(", ".join(blockers)) if blockers else "—",
    ]
    return "| " + " | ".join(cells) + " |"


def _more(n: int) -> str:
    return f"| … {n} more | | | | |"


def _table(rows: list[str], shown: int) -> str:
    lines = [HEADER, *rows[:shown]]
    if shown < len(rows):
        lines.append(_more(len(rows) - shown))
    return "\n".join(lines)


def _rows(epic: EpicState) -> list[str]:
    by_key = _current(epic)
    return [_row(task, by_key) for task in epic.tasks]


def task_table(epic: EpicState, *, limit: int = 60) -> str:
    """The plan as a Markdown table, at most `limit` task rows and then `… N more`."""
    rows = _rows(epic)
    return _table(rows, max(min(limit, len(rows)), 0))


def label(text: str) -> str:
    """Text for inside a mermaid label's quotes: blanks folded to one space, everything but
    letters, digits and plain punctuation as an entity code."""
    out = []
    for char in " ".join(text.split()):
        if (char.isalnum() and char.isprintable()) or char in _SAFE_PUNCTUATION:
            out.append(char)
        else:
            out.append(_NAMED.get(char) or f"#{ord(char)};")
    return "".join(out)


def mermaid(epic: EpicState) -> str:
    """The plan as a fenced mermaid graph: a node per task, an edge from each dependency to its
    dependent (current tasks only), the nodes coloured by state."""
    ids = {id(task): f"t_{i}" for i, task in enumerate(epic.tasks)}
    by_key = _current(epic)
    nodes, edges, classes = [], [], []
    used: dict[str, None] = {}
    for i, task in enumerate(epic.tasks):
        text = (f"#{task.number} " if task.number is not None else "") + _title(task)
        nodes.append(f'    t_{i}["{label(text)}"]')
        if task.replaced_by is None:
            for key in dict.fromkeys(task.depends_on):
                dep = by_key.get(key)
                if dep is not None and dep is not task:
                    edges.append(f"    {ids[id(dep)]} --> t_{i}")
        word = state(task)
        used[word] = None
        classes.append(f"    class t_{i} {word}")
    styles = [f"    classDef {word} {STYLES[word]}" for word in used]
    return "\n".join([FENCE_OPEN, "graph TD", *nodes, *edges, *styles, *classes, FENCE_CLOSE])


def summary(epic: EpicState, *, budget: int) -> str:
    """The table and the graph within `budget` characters: the graph goes first, then table
    rows from the end; "" when not even the table's head fits."""
    rows = _rows(epic)
    table = _table(rows, len(rows))
    if len(table) <= budget:
        graph = mermaid(epic) if epic.tasks else ""
        both = f"{table}\n\n{graph}" if graph else table
        return both if len(both) <= budget else table
    fits, size = -1, len(HEADER)  # the most rows that fit; `size`: the head and the rows so far
    for shown in range(len(rows) + 1):
        more = len(rows) - shown
        if size + (1 + len(_more(more)) if more else 0) <= budget:
            fits = shown
        if shown < len(rows):
            size += 1 + len(rows[shown])
            if size > budget:
                break
    return _table(rows, fits) if fits >= 0 else ""
