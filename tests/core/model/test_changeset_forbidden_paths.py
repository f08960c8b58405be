"""What an agent may not write: every file a later job loads and obeys (an agent CLI's settings
and instructions, MCP servers, local actions, dev containers, git's own files), Baton's config and
the workflows. Refused at any depth where the entry says so, in any case, under any name a
checkout folds onto it, and as a file above or below it; a maintainer lifts an entry with
`work.allow`, pasting the YAML the refusal gives."""

from __future__ import annotations

import base64
import time
import unicodedata
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from baton.core.model.changeset import (
    Changeset,
    FileChange,
    folded,
    forbidden_problem,
    problems,
    relation,
)
from baton.errors import InvalidConfig
from baton.workflow.config import (
    DEFAULT_FORBIDDEN,
    LOCKED_FORBIDDEN,
    WorkSettings,
    load_config,
    parse_config,
    repository_path,
)
from support.property_budget import budget

DEFAULTS = WorkSettings()


def _refused(path: str, work: WorkSettings = DEFAULTS) -> bool:
    return forbidden_problem(path, work) is not None


@pytest.mark.parametrize(
    "path",
    [
        ".claude/settings.json",
        ".claude/settings.local.json",
        "pkg/.claude/commands/x.md",
        "CLAUDE.md",
        "docs/deep/CLAUDE.md",
        "CLAUDE.local.md",
        "AGENTS.md",
        "sub/AGENTS.md",
        "AGENTS.override.md",
        "x/AGENTS.override.md",
        "GEMINI.md",
        "a/GEMINI.md",
        ".mcp.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        ".github/copilot-instructions.md",
        ".github/instructions/py.instructions.md",
        ".github/prompts/fix.prompt.md",
        ".github/agents/reviewer.agent.md",
        ".github/actions/setup/action.yml",
        ".github/actions/setup/run.sh",
        "tools/lint/action.yml",
        "action.yaml",
        ".devcontainer/devcontainer.json",
        ".devcontainer.json",
        ".vscode/tasks.json",
        ".vscode/mcp.json",
        ".cursor/rules/x.mdc",
        ".cursorrules",
        ".windsurfrules",
        ".clinerules",
        ".clinerules/style.md",
        ".aider.conf.yml",
        ".aiderignore",
        ".openhands/setup.sh",
        ".gitmodules",
        "vendor/.gitattributes",
        ".gitattributes",
        ".lfsconfig",
        ".env",
        "packages/web/.env",
        ".gemini/.env",
        ".envrc",
        "sub/.envrc",
        ".npmrc",
        "packages/app/.npmrc",
        ".yarnrc.yml",
        "tools/.yarnrc",
        ".github/workflows/ci.yml",
        ".github/baton.yml",
        ".github/baton.yaml",
    ],
)
def test_every_file_a_later_job_obeys_is_refused_by_default(path: str) -> None:
    assert _refused(path)


@pytest.mark.parametrize(
    ("path", "why"),
    [
        pytest.param(".Claude/settings.json", "macOS opens it as .claude", id="case"),
        pytest.param("claude.md", "macOS opens it as CLAUDE.md", id="lower case"),
        pytest.param("Agents.MD", "mixed case", id="mixed case"),
        pytest.param(".c\u200claude/settings.json", "HFS drops U+200C", id="ignorable"),
        pytest.param(".GITHUB/Workflows/ci.yml", "a workflow on macOS", id="workflow case"),
        pytest.param(".github", "a file where .github/workflows/ must be", id="ancestor"),
        pytest.param(".github/workflows", "a file in place of the folder", id="the folder"),
        pytest.param(".claude", "a file in place of .claude/", id="a file at .claude"),
        pytest.param("x/.claude", "a file in place of x/.claude/", id="a deep .claude"),
        pytest.param(".github/baton.yml/x", "below Baton's config", id="descendant"),
        pytest.param("CLAUDE.md/x", "below a forbidden file", id="below CLAUDE.md"),
        pytest.param(".mcp.json/servers", "below .mcp.json", id="below .mcp.json"),
        pytest.param(".github/actions", "a file in place of the folder", id="actions"),
    ],
)
def test_case_foldings_ancestors_and_descendants_are_refused(path: str, why: str) -> None:
    assert _refused(path), why


@pytest.mark.parametrize(
    "path",
    [
        "README.md",
        "src/claude.py",
        "docs/CLAUDE-notes.md",
        ".github/dependabot.yml",
        ".github/ISSUE_TEMPLATE/bug.md",
        "actions.yml",
        "src/action.py",
        "claude/settings.json",
        ".githubx/workflows/ci.yml",
        "docs/agents/README.md",
        ".gitignore",
        ".env.example",
        "docs/npmrc.md",
        ".yarn/releases/yarn.cjs",
    ],
)
def test_ordinary_files_stay_writable(path: str) -> None:
    assert forbidden_problem(path, DEFAULTS) is None


def test_a_refusal_says_why_and_gives_the_yaml_that_allows_the_path() -> None:
    assert forbidden_problem(".claude/settings.json", DEFAULTS) == (
        ".claude/settings.json is a forbidden path (**/.claude/**): Claude Code's settings: its "
        "hooks run shell commands; a maintainer can allow it in .github/baton.yml with "
        'work: {allow: [".claude/settings.json"]}'
    )
    assert forbidden_problem(".github/workflows/ci.yml", DEFAULTS) == (
        ".github/workflows/ci.yml is a forbidden path (.github/workflows/**): workflows run with "
        "the repository's secrets, and GITHUB_TOKEN cannot write them; no setting allows it"
    )
    assert forbidden_problem(".github/baton.yml/x", DEFAULTS) == (
        ".github/baton.yml/x is a forbidden path (.github/baton.yml): Baton's config: an agent "
        "would rewrite its own rules; no setting allows it"
    )


def test_allow_lifts_a_default_entry_for_the_paths_it_matches_only() -> None:
    work = WorkSettings(allow=(".vscode/settings.json", "docs/**/AGENTS.md"))
    assert not _refused(".vscode/settings.json", work)
    assert not _refused(".VSCode/Settings.JSON", work)  # compared as the default is
    assert _refused(".vscode/tasks.json", work)
    assert not _refused("docs/a/b/AGENTS.md", work)
    assert _refused("AGENTS.md", work)


def test_allow_never_lifts_the_workflows_baton_s_config_or_the_repository_s_own_entries() -> None:
    work = WorkSettings(
        allow=(".github/**", ".github/copilot-instructions.md", "secrets/**"),
        forbidden=("secrets/**",),
    )
    assert _refused(".github/workflows/ci.yml", work)
    assert _refused(".github/baton.yml", work)
    assert not _refused(".github/copilot-instructions.md", work)
    assert _refused(".github/prompts/fix.prompt.md", work)  # `.github/**` names no entry
    assert forbidden_problem("secrets/key", work) == (
        "secrets/key is a forbidden path (secrets/**, in work.forbidden)"
    )


@pytest.mark.parametrize(
    ("config", "error"),
    [
        (
            'work:\n  allow: [".github/workflows/ci.yml"]\n',
            ".github/baton.yml:2: work.allow: '.github/workflows/ci.yml' is always refused "
            "(workflows run with the repository's secrets, and GITHUB_TOKEN cannot write them); "
            "no setting allows it",
        ),
        (
            "work:\n  allow: [.github/workflows]\n",
            ".github/baton.yml:2: work.allow: '.github/workflows' is always refused (workflows "
            "run with the repository's secrets, and GITHUB_TOKEN cannot write them); no setting "
            "allows it",
        ),
        (
            "work:\n  allow: [.GitHub/Baton.yml]\n",
            ".github/baton.yml:2: work.allow: '.GitHub/Baton.yml' is always refused (Baton's "
            "config: an agent would rewrite its own rules); no setting allows it",
        ),
        (
            'work:\n  allow: [""]\n',
            ".github/baton.yml:2: work.allow: '' is not a path glob such as docs/**",
        ),
        (
            'work:\n  forbidden: ["a\\tb"]\n',
            ".github/baton.yml:2: work.forbidden: 'a\\tb' is not a path glob such as docs/**",
        ),
    ],
)
def test_a_bad_work_setting_is_one_clear_line(config: str, error: str) -> None:
    with pytest.raises(InvalidConfig) as caught:
        parse_config(config, source=".github/baton.yml")
    assert str(caught.value) == error


def test_an_old_config_that_replaced_the_default_list_still_loads_and_adds_to_it() -> None:
    old = "work:\n  forbidden:\n    - .github/workflows/**\n    - .github/baton.yml\n    - x/**\n"
    work = parse_config(old, source="old.yml").policy.work
    assert work.refused[-1] == "x/**" and ".github/baton.yml" in work.refused
    assert _refused("x/y", work) and _refused(".claude/settings.json", work)


def test_every_entry_has_a_reason_and_no_entry_repeats() -> None:
    entries = [*LOCKED_FORBIDDEN, *DEFAULT_FORBIDDEN]
    assert all(e.why and e.pattern for e in entries)
    assert len({e.pattern.casefold() for e in entries}) == len(entries)


@pytest.mark.parametrize(
    ("path", "pattern", "expected"),
    [
        (".github", ".github/workflows/**", "above"),
        (".github/workflows", ".github/workflows/**", "match"),
        (".github/workflows/a/b", ".github/workflows/**", "match"),
        (".github/baton.yml/x/y", ".github/baton.yml", "below"),
        ("a", "**/.claude/**", None),  # every path could hold a .claude: not "above"
        ("a/.claude", "**/.claude/**", "match"),
        ("src", "src/*.py", "above"),
        ("src/a.py/b", "src/*.py", "below"),
        ("docs", "**/*.md", None),
        ("x/y", "x/**/z", "above"),  # a file in place of the folder that may hold z
    ],
)
def test_how_a_path_stands_to_a_glob(path: str, pattern: str, expected: str | None) -> None:
    assert relation(path, pattern) == expected


# --- properties -----------------------------------------------------------------------------
NAMES = [
    ".claude", "CLAUDE.md", ".Claude", "agents.md", ".github", "workflows", "baton.yml",
    ".vscode", "a", "src", ".mcp.json", ".aider.conf.yml", "x.py", ".gitmodules",
]  # fmt: skip


def _cases(name: str) -> st.SearchStrategy[str]:
    return st.sampled_from([name, name.upper(), name.lower(), name.swapcase()])


paths = st.lists(st.sampled_from(NAMES).flatmap(_cases), min_size=1, max_size=5).map("/".join)


@budget(300)
@given(paths)
def test_a_refused_default_path_is_allowed_by_exactly_the_yaml_its_refusal_gives(
    path: str,
) -> None:
    problem = forbidden_problem(path, DEFAULTS)
    if problem is None or "a maintainer can allow it" not in problem:
        return
    pasted = yaml.safe_load(problem.split(" with ", 1)[1])
    work = WorkSettings.model_validate(pasted["work"])
    assert forbidden_problem(path, work) is None
    assert (
        forbidden_problem(path + "/more", work) is not None
        or forbidden_problem(path + "/more", DEFAULTS) is None
    )


@budget(300)
@given(paths)
def test_the_forbidden_set_ignores_case_and_covers_what_lies_below_a_refused_path(
    path: str,
) -> None:
    refused = _refused(path)
    assert _refused(path.upper()) is refused
    assert _refused(path.swapcase()) is refused
    rules = [r.pattern.casefold() for r in (*LOCKED_FORBIDDEN, *DEFAULT_FORBIDDEN)]
    if any(relation(path.casefold(), r) in {"match", "below"} for r in rules):
        assert refused and _refused(path + "/x")


@pytest.mark.parametrize(
    "path", ["ci/baton.yml", "CI/Baton.YML", "ci", "ci/baton.yml/x", "ci/cafe\u0301/b[1]*.yml"]
)
def test_the_config_at_the_configured_path_is_locked_with_its_ancestors_and_descendants(
    path: str,
) -> None:
    config = "ci/baton.yml" if "[" not in path else "ci/caf\u00e9/b[1]*.yml"
    everything = WorkSettings(allow=("**",))
    assert forbidden_problem(path, everything, config=config) == (
        f"{path} is a forbidden path ({config}): Baton's config, as the workflow's `config` "
        "input names it: an agent would rewrite its own rules; no setting allows it"
    )
    assert forbidden_problem(path, everything) is None  # no config path given: not locked


def test_a_configured_path_with_glob_characters_locks_that_file_only() -> None:
    config = "ci/b[1]*.yml"
    assert forbidden_problem("ci/b1x.yml", DEFAULTS, config=config) is None
    assert forbidden_problem("ci/b[1]*.yml", DEFAULTS, config=config) is not None
    assert forbidden_problem("ci/other.yml", DEFAULTS, config="ci/*.yml") is None
    assert forbidden_problem("ci/a.yml", DEFAULTS, config="ci/?.yml") is None
    assert forbidden_problem("ci/?.yml", DEFAULTS, config="ci/?.yml") is not None


@pytest.mark.parametrize(("given", "locked"), [("..", None), ("ci/..", "."), ("a/../..", None)])
def test_a_config_path_that_leaves_the_checkout_locks_nothing(
    given: str, locked: str | None
) -> None:
    assert repository_path(Path(given)) == locked


@pytest.mark.parametrize(
    ("given", "locked"),
    [
        (".github/baton.yml", ".github/baton.yml"),
        ("./ci/../ci/baton.yml", "ci/baton.yml"),
        ("/etc/baton.yml", None),
        ("../elsewhere/baton.yml", None),
    ],
)
def test_the_loaded_config_names_its_path_as_a_changeset_would(
    given: str, locked: str | None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = tmp_path / "repo"  # the working directory: the checkout's root in the action
    file = (checkout / given) if not given.startswith("/") else tmp_path / "abs.yml"
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text("{}\n", encoding="utf-8")
    checkout.mkdir(exist_ok=True)
    monkeypatch.chdir(checkout)
    read = Path(given) if not given.startswith("/") else file
    assert load_config(read, required=True).policy.config_path == locked


def test_a_repository_forbidden_path_spelled_in_nfd_is_refused_like_its_nfc_spelling() -> None:
    # APFS and HFS+ open `cafe\u0301` and `caf\u00e9` as one directory, as they open `.Claude`
    # as `.claude`: a pattern in either spelling refuses a path in either.
    nfc, nfd = "docs/caf\u00e9/run.sh", "docs/cafe\u0301/run.sh"
    for pattern in ("docs/caf\u00e9/**", "docs/cafe\u0301/**", "docs/CAF\u00c9/**"):
        work = WorkSettings(forbidden=(pattern,))
        assert forbidden_problem(nfd, work) == (
            f"{nfd} is a forbidden path ({pattern}, in work.forbidden)"
        )
        assert forbidden_problem(nfc, work) == (
            f"{nfc} is a forbidden path ({pattern}, in work.forbidden)"
        )
    assert folded("Caf\u00c9/E\u0301") == "caf\u00e9/\u00e9"
    # `?` matches one character of what the checkout opens: the composed letter.
    assert _refused(nfd, WorkSettings(forbidden=("docs/caf?/**",)))


ACCENTED = st.lists(
    st.sampled_from(
        [
            "e",
            "E",
            "\u00e9",
            "\u00c9",
            "e\u0301",
            "E\u0301",
            "\u212b",
            "A\u030a",
            "/",
            "\u0323",
            "\u0302",
            "\u1ec7",
            "\u0130",
            "\u01f0",
            "\u200c",
        ]
    ),
    min_size=1,
    max_size=12,
).map("".join)


@budget(300)
@given(ACCENTED, ACCENTED)
def test_every_canonically_equivalent_spelling_of_a_path_is_judged_alike(
    path: str, pattern: str
) -> None:
    names = [n for n in pattern.replace("\u200c", "").split("/") if n]
    work = WorkSettings(forbidden=("/".join(names) or "e",))
    spellings = {unicodedata.normalize(form, path) for form in ("NFC", "NFD", "NFKC")}
    spellings |= {s.upper() for s in spellings}
    verdicts = {_refused(s, work) for s in spellings}
    assert len(verdicts) == 1, spellings
    seen = unicodedata.normalize("NFD", path.replace("\u200c", ""))
    nfd = unicodedata.normalize("NFD", seen.casefold())
    assert folded(path) == unicodedata.normalize("NFC", nfd)  # the library's own, quadratic


def test_64_kb_of_combining_marks_is_folded_and_judged_in_linear_time() -> None:
    hostile = "a" + "\u0301\u0323" * 32_768 + "/" + "e\u200c\u0301" * 10_000
    assert len(hostile.encode()) > 64_000
    started = time.perf_counter()
    assert forbidden_problem(hostile, WorkSettings(forbidden=("x/**",))) is None
    assert folded(hostile).startswith("\u1ea1\u0323")  # dot below sorts first
    assert time.perf_counter() - started < 1.0


def test_300_files_of_1024_characters_are_judged_in_one_pass_each() -> None:
    many = [
        FileChange(path=("a/" * 511 + f"{i % 10}")[:1024], contents=base64.b64encode(b"x").decode())
        for i in range(300)
    ]
    unique = [f.model_copy(update={"path": f"{i}/" + f.path[4:]}) for i, f in enumerate(many)]
    assert problems(Changeset(base="a" * 40, files=unique), DEFAULTS) == []
