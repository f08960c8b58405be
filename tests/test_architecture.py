"""The architecture holds: the import contracts in pyproject.toml are kept, they break on a
forbidden import, and docs/architecture.md names every package they list."""

from __future__ import annotations

import ast
import functools
import os
import re
import shutil
import subprocess
import sys
import tomllib
import typing
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
    "importlinter"
]


def _lint(src: Path, config: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(config), "--no-cache"],
        capture_output=True,
        text=True,
        env=env,
        cwd=config.parent,
        timeout=120,
    )


def test_every_import_contract_is_kept() -> None:
    done = _lint(ROOT / "src", ROOT / "pyproject.toml")
    count = len(CONFIG["contracts"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"Contracts: {count} kept, 0 broken." in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "broken"),
    [
        pytest.param(
            "core/model/decision.py",
            "from baton.github import tracker",
            "baton.core is not allowed to import baton.github",
            id="the core importing the GitHub layer breaks the layers",
        ),
        pytest.param(
            "issue/apply.py",
            "import github",
            "baton.issue is not allowed to import github",
            id="PyGithub imported outside github/client.py is refused",
        ),
        pytest.param(
            "core/rules/labels.py",
            "import pydantic",
            "baton.core.rules.labels is not allowed to import pydantic",
            id="the fast path importing pydantic is refused",
        ),
        pytest.param(
            "core/model/work.py",
            "from baton.core.text import markdown",
            "baton.core.model is not allowed to import baton.core.text",
            id="a model importing the text it is rendered into breaks the core's rooms",
        ),
        pytest.param(
            "core/model/record.py",
            "from baton.core.model import decision",
            "No cycles are allowed in baton.core",
            id="a circle between two core modules is refused",
        ),
    ],
)
def test_a_forbidden_import_breaks_a_contract(
    tmp_path: Path, module: str, line: str, broken: str
) -> None:
    shutil.copytree(ROOT / "src", tmp_path / "src", ignore=shutil.ignore_patterns("*.egg-info"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    target = tmp_path / "src" / "baton" / module
    target.write_text(target.read_text(encoding="utf-8") + f"\n{line}  # noqa\n")
    done = _lint(tmp_path / "src", tmp_path / "pyproject.toml")
    assert done.returncode != 0
    assert broken in done.stdout


def test_the_layers_name_every_package_of_baton_once() -> None:
    (layers,) = [c for c in CONFIG["contracts"] if c.get("containers") == ["baton"]]
    named = [name.strip() for layer in layers["layers"] for name in re.split("[|:]", layer)]
    on_disk = sorted(
        p.stem if p.is_file() else p.name
        for p in (ROOT / "src" / "baton").iterdir()
        if (p.suffix == ".py" and p.stem != "__init__") or (p / "__init__.py").is_file()
    )
    assert sorted(named) == on_disk


def test_the_architecture_page_names_every_layer() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    (layers,) = [c for c in CONFIG["contracts"] if c.get("containers") == ["baton"]]
    for layer in layers["layers"]:
        for name in re.split("[|:]", layer):
            assert f"`{name.strip()}" in page, name


MAX_LINES = 450


def _import_graph() -> dict[str, set[str]]:
    """Every baton module and the baton modules it imports, type-only imports included."""
    import grimp

    graph = grimp.build_graph("baton", exclude_type_checking_imports=False, cache_dir=None)
    return {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(edges.get(target, ())))))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_module_of_baton_imports_itself_round_a_circle_type_only_imports_included() -> None:
    # The import contracts leave out imports under `if TYPE_CHECKING:`; a circle through them
    # still ties the modules together for a reader and for mypy, so this counts them.
    assert circles(_import_graph()) == []


@pytest.mark.parametrize(
    ("edges", "expected"),
    [
        pytest.param({"a": {"b"}, "b": set()}, [], id="a chain is no circle"),
        pytest.param({"a": {"b"}, "b": {"a"}}, [["a", "b"]], id="two modules importing each other"),
        pytest.param(
            {"e": {"w"}, "w": {"t"}, "t": {"e"}, "x": {"e"}},
            [["e", "t", "w"]],
            id="events, work and triage round a circle, and a module outside it",
        ),
    ],
)
def test_circles_are_found(edges: dict[str, set[str]], expected: list[list[str]]) -> None:
    assert circles(edges) == expected


def test_every_module_stays_within_450_lines() -> None:
    base = ROOT / "src" / "baton"
    sizes = {
        path.relative_to(base).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in base.rglob("*.py")
    }
    over = {name: size for name, size in sizes.items() if size > MAX_LINES}
    assert over == {}


# Modules whose tests live elsewhere, each with the reason; every other module with behaviour of
# its own has tests/<its package path>/test_<its name>.py.
TESTED_ELSEWHERE: dict[str, str] = {
    "sim/api/base.py": "the API's state and lookups: every route's tests in tests/sim/api/",
    "sim/api/views.py": "the state as tests read it back: tests/sim/api/test_face.py",
    "sim/api/wire.py": "requests, answers and GitHub's errors: tests/sim/api/test_pipeline.py",
}


def _has_behaviour(path: Path) -> bool:
    """A module defines a function or a class with a method: not only names and data."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return True
        if isinstance(node, ast.ClassDef) and any(
            isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) for item in node.body
        ):
            return True
    return False


def _test_module_of(relative: Path) -> Path:
    return ROOT / "tests" / relative.parent / f"test_{relative.stem}.py"


def test_tests_mirror_the_source() -> None:
    base = ROOT / "src" / "baton"
    missing = []
    for path in sorted(base.rglob("*.py")):
        relative = path.relative_to(base)
        if path.name in {"__init__.py", "__main__.py"} or not _has_behaviour(path):
            continue
        if relative.as_posix() in TESTED_ELSEWHERE:
            continue
        if not _test_module_of(relative).is_file():
            missing.append(relative.as_posix())
    assert missing == [], "each module with behaviour has tests/<path>/test_<name>.py"
    stale = [m for m in TESTED_ELSEWHERE if not (base / m).is_file()]
    assert stale == []


# The names every layer shares, spelt once (baton/names.py): a second spelling could drift.
SHARED_NAMES = ("github-actions[bot]", "baton/issue-", ".github/baton.yml")


def _string_constants(tree: ast.AST) -> list[str]:
    """The string literals of a module, its docstrings left out."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and id(node) not in docstrings
    ]


def test_the_shared_names_are_spelt_once_in_names_py() -> None:
    base = ROOT / "src" / "baton"
    spelt = sorted(
        (path.relative_to(base).as_posix(), name)
        for path in base.rglob("*.py")
        for text in _string_constants(ast.parse(path.read_text(encoding="utf-8")))
        for name in SHARED_NAMES
        if text == name
    )
    assert spelt == [("names.py", name) for name in sorted(SHARED_NAMES)]


def test_the_runs_flow_names_real_role_methods_and_modules() -> None:
    """docs/architecture.md's flow of one run names `Role.method`s of the Tracker's roles and
    dotted modules that exist; a renamed one fails here instead of misleading a reader."""
    import importlib

    from baton.github import tracker

    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    flow = page.split("## One run, through the packages", 1)[1].split("```")[1]
    calls = re.findall(r"\b(Issues|Lookups|Git|PullRequests|SubIssues|Checks)\.(\w+)", flow)
    assert len(calls) >= 12
    for role, method in calls:
        assert hasattr(getattr(tracker, role), method), f"{role}.{method}"
    for dotted in re.findall(r"\b((?:core|issue|action|webhooks|work_first)(?:\.\w+)+)", flow):
        module, _, name = dotted.rpartition(".")
        try:
            found = importlib.import_module(f"baton.{dotted}")
        except ModuleNotFoundError:
            found = getattr(importlib.import_module(f"baton.{module}"), name)
        assert found is not None, dotted


# The shell: the modules that read and write GitHub around the pure core. Which state an issue
# is in, and what that state asks for, is the rules' knowledge (`core/rules/`), never theirs.
SHELL = ("run.py", "work_first.py", "sweep.py", "action", "github", "issue")


def _preset_states() -> set[str]:
    import yaml

    presets = ROOT / "src" / "baton" / "workflow" / "presets"
    states: set[str] = set()
    for path in presets.glob("*.yml"):
        states |= set(yaml.safe_load(path.read_text(encoding="utf-8"))["states"])
    return states


def _names_of_states(tree: ast.AST, states: set[str]) -> list[str]:
    """The string literals equal to a state, and the upper-case names spelling one (a constant
    such as `IMPLEMENTING`)."""
    named = [text for text in _string_constants(tree) if text in states]
    for node in ast.walk(tree):
        name = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if isinstance(name, str) and name.isupper() and name.lower() in states:
            named.append(name)
    return named


# Words that are GitHub's or a test runner's before they are a preset's states: a check run's
# status (`completed`), a test's outcome (`failed`, `skipped`). The shell may say them.
NOT_STATES = frozenset({"completed", "failed", "skipped"})


def test_no_module_of_the_shell_names_a_state_of_a_preset() -> None:
    base = ROOT / "src" / "baton"
    states = _preset_states() - NOT_STATES
    assert {"implementing", "pending", "waiting_for_human_input"} <= states
    found = sorted(
        (path.relative_to(base).as_posix(), name)
        for part in SHELL
        for path in ([base / part] if part.endswith(".py") else sorted((base / part).rglob("*.py")))
        for name in _names_of_states(ast.parse(path.read_text(encoding="utf-8")), states)
    )
    assert found == [], "rule knowledge outside core/rules: " + repr(found)


def test_a_state_named_in_the_shell_is_found() -> None:
    states = {"implementing", "blocked"}
    tree = ast.parse('CONDUCTING = {"implementing"}\nif state == IMPLEMENTING or x.BLOCKED: pass\n')
    assert sorted(_names_of_states(tree, states)) == ["BLOCKED", "IMPLEMENTING", "implementing"]


MAX_FUNCTION_LINES = 80


def _long_functions(tree: ast.AST, limit: int) -> list[tuple[str, int]]:
    return [
        (node.name, node.end_lineno - node.lineno + 1)
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > limit
    ]


def test_no_function_in_src_is_over_80_lines() -> None:
    """A function a reader takes in at a glance: past 80 lines it does several things."""
    base = ROOT / "src" / "baton"
    found = sorted(
        (path.relative_to(base).as_posix(), name, lines)
        for path in base.rglob("*.py")
        for name, lines in _long_functions(
            ast.parse(path.read_text(encoding="utf-8")), MAX_FUNCTION_LINES
        )
    )
    assert found == []


def test_a_long_function_is_found() -> None:
    body = "\n".join(f"    x = {i}" for i in range(80))
    tree = ast.parse(f"def short():\n    pass\n\ndef long():\n{body}\n")
    assert _long_functions(tree, MAX_FUNCTION_LINES) == [("long", 81)]


# --- the names a docstring or comment gives a module: none goes stale -------------------------
# A dotted path is taken as a module path of Baton when it starts `baton.`, or when its first
# word is one of Baton's top-level packages or modules and its second the name of a module or
# package somewhere in Baton (`core.markdown`, `issue.load.verified`, `run.handle`). Names that
# only share a first word with a package are left alone that way: git's `core.worktree`, the
# config's `agents.roles`, GitHub's `github.event.inputs` and `issue.author_association`. A
# `path/like.py` whose first part is a top-level name is a file of src/baton. Either resolves
# from `baton` or, as a relative name, from a package the naming module is in.
BATON = ROOT / "src" / "baton"


def _top_names() -> set[str]:
    return {
        path.stem if path.is_file() else path.name
        for path in BATON.iterdir()
        if (path.suffix == ".py" and not path.name.startswith("__"))
        or (path / "__init__.py").is_file()
    }


def _module_names() -> frozenset[str]:
    files = {path.stem for path in BATON.rglob("*.py") if not path.name.startswith("__")}
    return frozenset(files | {path.parent.name for path in BATON.rglob("__init__.py")})


MODULE_NAMES = _module_names()


TOPS = "|".join(sorted(_top_names()))
DOTTED = re.compile(rf"(?<![\w./-])(baton\.)?((?:{TOPS})(?:\.[A-Za-z_]\w*)+)(?![\w/-])")
FILE_PATH = re.compile(rf"(?<![\w./-])(?:src/baton/)?((?:{TOPS})(?:/\w+)*\.py)(?![\w/-])")


def _prose(source: str) -> list[tuple[int, str]]:
    """The comments and the docstrings (any string standing as a statement) of a module."""
    import io
    import tokenize

    found = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    found += [
        (node.lineno, node.value.value)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ]
    return found


@functools.cache
def _resolves(dotted: str) -> bool:
    """`baton.x.y.Z`: the longest prefix that is a module, then attributes of it."""
    import importlib
    import importlib.util

    parts = dotted.split(".")
    module = None
    for end in range(1, len(parts) + 1):
        name = ".".join(parts[:end])
        try:
            if importlib.util.find_spec(name) is None:
                break
        except ModuleNotFoundError:
            break
        module, rest = importlib.import_module(name), parts[end:]
        if not hasattr(module, "__path__"):
            break
    if module is None:
        return False
    found: object = module
    for name in rest:
        if not hasattr(found, name):
            return False
        found = getattr(found, name)
    return True


def stale_names(text: str, package: str) -> list[str]:
    """The module paths `text` names that are nowhere, read from `package` (`baton.sim`)."""
    modules = MODULE_NAMES
    bases = ["baton"]
    parts = package.split(".")
    bases += [".".join(parts[:end]) for end in range(len(parts), 1, -1)]
    stale = []
    for match in DOTTED.finditer(text):
        prefixed, dotted = match.groups()
        if dotted.endswith(".py"):
            continue  # a file's name: FILE_PATH's
        if not prefixed and dotted.split(".")[1] not in modules:
            continue
        if not any(_resolves(f"{base}.{dotted}") for base in (["baton"] if prefixed else bases)):
            stale.append(match.group(0))
    for match in FILE_PATH.finditer(text):
        places = [ROOT / "src" / Path(*base.split(".")) for base in bases]
        if not any((place / match.group(1)).is_file() for place in places):
            stale.append(match.group(0))
    return stale


@pytest.mark.parametrize(
    ("text", "package", "stale"),
    [
        pytest.param("escaped (`core.markdown`)", "baton", ["core.markdown"], id="a moved module"),
        pytest.param("see `core.text.markdown`", "baton", [], id="where it is now"),
        pytest.param("`issue.load.verified`, `run.handle`", "baton", [], id="a module's names"),
        pytest.param(
            "`issue.load.trusted_or_not`", "baton", ["issue.load.trusted_or_not"], id="gone"
        ),
        pytest.param("`core.changeset.problems`", "baton", ["core.changeset.problems"], id="deep"),
        pytest.param("`baton.core.labels`", "baton", ["baton.core.labels"], id="from baton"),
        pytest.param("a `sim.model.git.Git`", "baton.core", [], id="the model's package"),
        pytest.param(
            "a `sim.github.git.Git`", "baton.sim", ["sim.github.git.Git"], id="its old name"
        ),
        pytest.param("`run.py` and `core/text/work.py`", "baton", [], id="files"),
        pytest.param("`core/markdown.py`", "baton", ["core/markdown.py"], id="a moved file"),
        pytest.param(
            "git's `core.worktree`, the config's `agents.roles` and `dashboard.pinned`, "
            "GitHub's `github.event.inputs`, `issue.author_association` and github.com",
            "baton",
            [],
            id="names that only share a first word",
        ),
        pytest.param("tests/core/rules/conftest.py, docs.core.x", "baton", [], id="elsewhere"),
    ],
)
def test_stale_names_are_told_from_names_of_other_things(
    text: str, package: str, stale: list[str]
) -> None:
    assert stale_names(text, package) == stale


# Stale names in modules another change owns at the moment, each with where the code is now;
# fixed there, the entry goes (the test fails while an entry names nothing stale).
STALE_FOR_NOW: dict[str, str] = {}


def test_every_module_a_docstring_or_comment_names_exists() -> None:
    """A module moved or renamed leaves no reader looking for it under its old name."""
    stale = []
    for path in sorted(BATON.rglob("*.py")):
        relative = path.relative_to(ROOT / "src").with_suffix("")
        package = ".".join(relative.parts[:-1])
        source = path.read_text(encoding="utf-8")
        if not stale_names(source, package):
            continue  # nothing stale in the whole text, so none in its prose: not parsed
        for _, text in _prose(source):
            named = path.relative_to(BATON).as_posix()
            stale += [f"{named}: {name}" for name in stale_names(text, package)]
    assert sorted(set(stale) - set(STALE_FOR_NOW)) == []
    assert sorted(set(STALE_FOR_NOW) - set(stale)) == [], "fixed: drop it from STALE_FOR_NOW"
    assert all(_resolves(f"baton.{now}") for now in STALE_FOR_NOW.values())


# A comment's command is read once, where its event is made; the fast path's triage reads it
# itself because it runs before pydantic is imported and cannot make the event.
COMMAND_READERS = [
    ("core/model/events.py", "commented"),
    ("core/rules/triage.py", "quick_reason.has_command"),
]


def _callers(tree: ast.AST, callee: str) -> list[str]:
    """The qualified names of the functions that call `callee` (by name or as an attribute);
    a call outside any function is `<module>`."""
    found: list[str] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                visit(child, [*scope, child.name])
                continue
            if isinstance(child, ast.Call):
                func = child.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name == callee:
                    found.append(".".join(scope) or "<module>")
            visit(child, scope)

    visit(tree, [])
    return found


def test_a_comments_command_is_parsed_in_one_place() -> None:
    base = ROOT / "src" / "baton"
    found = sorted(
        (path.relative_to(base).as_posix(), caller)
        for path in base.rglob("*.py")
        for caller in _callers(ast.parse(path.read_text(encoding="utf-8")), "parse_command")
    )
    assert found == COMMAND_READERS, "rules read Commented.command, they do not parse a body"
    defined = sorted(
        path.relative_to(base).as_posix()
        for path in base.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.FunctionDef) and re.fullmatch(r"parse_\w*command", node.name)
    )
    assert defined == ["core/model/commands.py"]


def test_a_caller_of_parse_command_is_found() -> None:
    tree = ast.parse(
        "parse_command(b, w)\n"
        "def outer():\n    def inner():\n        commands.parse_command(b, w)\n"
        "class C:\n    def m(self):\n        return [parse_command(x, w) for x in y]\n"
        "def other():\n    parse_commands(b)\n"
    )
    assert _callers(tree, "parse_command") == ["<module>", "outer.inner", "C.m"]


# When a fact is needed is the rules' knowledge: `decide` asks (`core/rules/asking.py`), the
# shell answers. No module outside core/rules calls a need predicate to predict it.
NEED_PREDICATES = (
    "needs_permission",
    "needs_identity",
    "needs_tasks",
    "needs_order",
    "needs_review_notes",
    "needs_failing_checks",
    "needs_lineage",
    "asks_of",
)


def test_no_module_outside_the_rules_calls_a_need_predicate() -> None:
    base = ROOT / "src" / "baton"
    found = sorted(
        (path.relative_to(base).as_posix(), predicate, caller)
        for path in base.rglob("*.py")
        if not path.relative_to(base).as_posix().startswith("core/rules/")
        for predicate in NEED_PREDICATES
        for caller in _callers(ast.parse(path.read_text(encoding="utf-8")), predicate)
    )
    assert found == [], "the shell predicts what decide needs: " + repr(found)


def test_a_need_predicate_called_outside_the_rules_would_be_found() -> None:
    tree = ast.parse("def handle():\n    if needs.needs_tasks(r, e, 'epic'):\n        pass\n")
    assert _callers(tree, "needs_tasks") == ["handle"]


# What an Event holds: what GitHub sent (or the agent's result, or the sweep). Everything a run
# looks up or GitHub answers to its work travels apart, in `core.model.facts.Facts`.
EVENT_FIELDS = {
    "_Event": {"id", "issue", "actor", "at", "comments_upto", "comments_seen", "run_id"},
    "IssueChanged": {"kind", "action"},
    "Labeled": {"kind", "label", "added"},
    "Commented": {"kind", "comment_id", "body", "edited", "command", "epic_command"},
    "AgentReported": {
        "kind",
        "agent",
        "state",
        "result",
        "error",
        "nonce",
        "evidence",
        "evidence_problem",
    },
    "Dispatched": {"kind", "source", "nonce"},
    "Tick": {"kind"},
    "Reviewed": {"kind", "pull_request", "review_id", "verdict", "body", "commit"},
    "PullRequestClosed": {"kind", "pull_request", "merged"},
    "ChecksCompleted": {
        "kind",
        "branch",
        "head",
        "conclusion",
        "pull_request",
        "failing",  # what a workflow run's payload names as failed
        "source",
    },
}
LOOKED_UP = {"tasks", "order", "created", "merge", "failing_issues", "opened", "foreign_branch"}
LOOKED_UP |= {"lineage", "notes", "failed_runs", "changeset", "permission", "teams"}


def test_events_carry_only_what_github_sent() -> None:
    from baton.core.model import events

    for name, own in EVENT_FIELDS.items():
        model = getattr(events, name)
        base = set() if name == "_Event" else set(events._Event.model_fields)
        assert set(model.model_fields) - base == own, name
        assert not (set(model.model_fields) & LOOKED_UP), name
    kinds = {m.__name__ for m in events._Event.__subclasses__()}
    assert kinds == set(EVENT_FIELDS) - {"_Event"}, "a new kind of event lists its fields here"
    from baton.core.model.facts import Facts

    assert {"tasks", "order", "created", "merge", "failing_issues", "opened", "branch"} <= set(
        Facts.model_fields
    )
    assert {"lineage", "review_notes", "failing_checks", "permissions", "teams", "changeset"} <= (
        set(Facts.model_fields)
    )


def _models_within(model: Any, seen: set[type]) -> set[type]:
    """The pydantic models `model`'s fields hold, at any depth (in a tuple, a union ...)."""
    from pydantic import BaseModel

    found: set[type] = set()
    pending = [f.annotation for f in model.model_fields.values()]
    while pending:
        kind = pending.pop()
        pending.extend(typing.get_args(kind))
        if isinstance(kind, type) and issubclass(kind, BaseModel) and kind not in seen:
            seen.add(kind)
            found |= {kind} | _models_within(kind, seen)
    return found


def test_what_an_event_holds_carries_nothing_looked_up_either() -> None:
    """Every event's actor and issue, and a later commit's author, are what GitHub sent: what
    people may do (their permission, their teams) is a fact (`Facts.permission_of`, `teams_of`)."""
    from baton.core.model import events
    from baton.core.model.issue_facts import Actor

    within = _models_within(events._Event, set()) | _models_within(events.LaterCommit, set())
    assert Actor in within
    for model in within:
        assert not (set(model.model_fields) & LOOKED_UP), model.__name__
    assert set(Actor.model_fields) == {"login", "is_bot", "association"}
    assert Actor.model_config.get("extra") == "forbid", "a looked-up field is refused, not dropped"


# Names that once meant two things each (`finish`: the step that makes a Decision and the
# Action's exit; `entry`: an issue entering the workflow and the process's entry point;
# `conduct`: the conductor's pass and the epic's draft around it; `plan`: a task graph, the
# writes of a decision and `baton init`'s files). Each now names one module or function.
ONE_MEANING = ("finish", "entry", "conduct", "plan", "conclude", "admit", "conductor_pass")


def _definers(base: Path, name: str) -> list[str]:
    """The modules of `base` that are called `name` or define a top-level `name`."""
    found = []
    for path in sorted(base.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined = any(
            isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name
            for node in tree.body
        )
        if defined or path.stem == name:
            found.append(path.relative_to(base).as_posix())
    return found


@pytest.mark.parametrize("name", ONE_MEANING)
def test_a_name_that_meant_two_things_names_one(name: str) -> None:
    assert len(_definers(ROOT / "src" / "baton", name)) <= 1, _definers(
        ROOT / "src" / "baton", name
    )


def test_a_name_defined_in_two_modules_is_found(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "plan.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("def plan():\n    pass\n\ndef other():\n    def plan(): ...\n")
    (tmp_path / "c.py").write_text("class plan: ...\n")
    assert _definers(tmp_path, "plan") == ["a/plan.py", "b.py", "c.py"]
