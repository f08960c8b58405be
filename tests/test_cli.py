"""The commands that need no GitHub: `baton demo`, `simulate`, `graph` and `schema`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from baton.cli import cli
from baton.workflow.model import load_preset, preset_names, to_yaml

# The lifecycle `baton demo` walks, transition by transition, after the entry at received.
DEMO_PATH = [
    ("received", "analyzing_requirements"),
    ("analyzing_requirements", "requirements_unclear"),
    ("requirements_unclear", "waiting_for_requirements_clarification"),
    ("waiting_for_requirements_clarification", "requirements_clarified"),
    ("requirements_clarified", "creating_tests"),
    ("creating_tests", "implementing"),
    ("implementing", "running_tests"),
    ("running_tests", "fixing_issues"),
    ("fixing_issues", "creating_pr"),
    ("creating_pr", "waiting_for_human_input"),
    ("waiting_for_human_input", "addressing_feedback"),  # maria's review: a route
    ("addressing_feedback", "creating_pr"),
    ("creating_pr", "waiting_for_human_input"),
    ("waiting_for_human_input", "human_input_received"),  # maria's approving review
    ("human_input_received", "completed"),  # the merge: a route
]
# The moves the pull request made along the workflow's routes (numbered as in the path).
DEMO_ROUTES = {11: "changes_requested", 15: "merged"}
# What caused each move, as the path labels it: no move of the demo is a forced relabel.
DEMO_CAUSES = ["report"] * 3 + ["reply"] + ["report"] * 6 + ["review", "report", "report"]
DEMO_CAUSES += ["review", "merge"]

TRANSITION_LINE = re.compile(r"^\s+transition: (\S+(?: \S+ \S+)?) → (\w+)$", re.MULTILINE)
PATH_STEP = re.compile(r"^\s+(\w+) --> (\w+): (\d+) ([\w ]+?)(, forced)?$")


def _invoke(args: list[str]) -> Result:
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def _mermaid_block(output: str) -> list[str]:
    """The lines of the last ```mermaid block in the output."""
    start = output.rindex("```mermaid\n") + len("```mermaid\n")
    end = output.index("```", start)
    return output[start:end].splitlines()


def _numbered_steps(block: list[str]) -> list[tuple[str, str, int]]:
    steps = []
    for line in block:
        match = PATH_STEP.match(line)
        if match:
            steps.append((match[1], match[2], int(match[3])))
    return steps


def _causes(block: list[str]) -> list[str]:
    return [m[4] + (m[5] or "") for m in map(PATH_STEP.match, block) if m]


@pytest.fixture
def in_empty_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run where there is no .github/baton.yml, so the defaults apply."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- baton demo ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def demo() -> Result:
    return _invoke(["demo"])


def test_the_demo_exits_zero(demo: Result) -> None:
    assert demo.exit_code == 0, demo.output


@pytest.mark.parametrize(
    "shown",
    [
        "transition: (not in workflow) → received",
        "entered at received: trigger label by maria",
        "analyzing_requirements → requirements_unclear: confidence is below the 0.85 threshold",
        "1. > Should the CSV use commas or semicolons?",
        "2. > Which columns - all, or only the visible ones?",
        "alice comments: 'Commas, and only the visible columns please.'",
        "waiting_for_requirements_clarification → requirements_clarified: alice replied",
        "requirements_clarified → creating_tests",
        "creating_tests → implementing: the tests are ready",
        "implementing → running_tests",
        "GitHub: branch baton/issue-1 created at",
        "tester reports success, confidence 0.90, changed 1 file(s)",
        "+ tests/test_export_csv.py",
        "GitHub: pull request #2 opened as a draft from baton/issue-1",
        "+ src/report/export.py",
        "tester reports failure, confidence 0.90, 1 issue(s) found",
        "running_tests → fixing_issues: the tests failed",
        "~ src/report/export.py",
        "fixing_issues → creating_pr",
        "GitHub: pull request #2 marked ready for review",
        "creating_pr → waiting_for_human_input",
        "maria reviews pull request #2: requests changes, 1 inline note(s)",
        "waiting_for_human_input → addressing_feedback: maria requested changes on pull request #2",
        "src/report/export.py:6: End each row with a plain newline",
        "addressing_feedback → creating_pr: the feedback is addressed",
        "mallory's review carries no weight: only approvers' reviews steer the issue",
        "waiting_for_human_input → human_input_received: maria approved pull request #2",
        "human_input_received → completed: pull request #2 merged by maria",
        "Final state: completed after 15 transitions",
        "4 commit(s) by Baton; pull request #2 merged into main as ",
    ],
    ids=[
        "the issue enters at received",
        "the entry says who started it",
        "the analyst's low confidence makes the requirements unclear",
        "the first question is posted",
        "the second question is posted",
        "the author answers",
        "the answer moves the issue on",
        "the clarified requirements go to the tester",
        "the tests go to the developer",
        "the implementation is tested",
        "entering creating_tests makes the issue's branch",
        "the tester's report carries its files",
        "the tester's file is committed",
        "the first commit opens a draft pull request",
        "the developer's file is committed",
        "a test run fails with an issue found",
        "the failure goes to a fix",
        "the fix changes the developer's file",
        "the fix goes to a PR",
        "entering creating_pr marks the pull request ready",
        "the PR waits for a human",
        "a maintainer requests changes with an inline note",
        "the review sends the issue back to the developer",
        "the developer's briefing carries the inline note",
        "the addressed feedback goes back to the PR",
        "a passer-by's approving review carries no weight",
        "a maintainer's approving review is the approval",
        "the merge completes the issue",
        "the summary names the final state",
        "the summary names the work on GitHub",
    ],
)
def test_the_demo_shows_each_step_of_the_lifecycle(demo: Result, shown: str) -> None:
    assert shown in demo.output


def test_the_demo_shows_the_transitions_in_lifecycle_order(demo: Result) -> None:
    moves = TRANSITION_LINE.findall(demo.output)
    assert moves == [("(not in workflow)", "received"), *DEMO_PATH]


def test_the_passer_bys_approval_comes_before_the_accepted_one(demo: Result) -> None:
    output = demo.output
    refused = output.index("mallory's review carries no weight")
    accepted = output.index("maria approved pull request #2")
    merged = output.index("merged by maria")
    assert output.rindex("creating_pr → waiting_for_human_input") < refused < accepted < merged


def test_the_demo_names_the_branch_each_commit_the_pull_request_and_the_merge() -> None:
    from baton.sim.scenario.format import demo_scenario
    from baton.sim.scenario.player import Player
    from baton.workflow.config import load_config

    player = Player(demo_scenario(), load_config(None), lambda _: None)
    player.play()
    git = player.gh.git
    head = git.head("baton/issue-1")
    assert head is not None
    mine = [git.commits[o] for o in git.ancestors(head)]
    commits = sorted((c for c in mine if c.author == player.gh.bot_login), key=lambda c: c.when)
    merge = git.commits[git.head("main") or ""]

    output = _invoke(["demo"]).output

    assert len(commits) == 4
    for commit in commits:
        assert f"GitHub: baton/issue-1 → {commit.oid[:7]} by {commit.author}: " in output
    assert [c.headline.split(":")[0] for c in commits] == [
        "tester",
        "developer",
        "developer",
        "developer",
    ]
    assert merge.parents[1] == head
    assert f"GitHub: pull request #2 merged into main as {merge.oid[:7]}" in output
    assert f"The work: baton/issue-1 at {head[:7]}, 4 commit(s) by Baton; " in output


def test_the_demo_with_diagram_ends_with_the_path_it_took_as_mermaid() -> None:
    drawn = _invoke(["demo", "--diagram"])
    assert drawn.output.rstrip().endswith("```")
    block = _mermaid_block(drawn.output)
    assert block[0] == "stateDiagram-v2"
    assert block[1].strip() == "[*] --> received"
    assert block[-1].strip() == "completed --> [*]"
    steps = _numbered_steps(block)
    assert [n for _, _, n in steps] == list(range(1, len(DEMO_PATH) + 1))
    assert [(a, b) for a, b, _ in steps] == DEMO_PATH
    assert _causes(block) == DEMO_CAUSES


def test_every_step_of_the_demo_path_is_an_edge_or_a_pull_request_route() -> None:
    workflow = load_preset("issue-lifecycle")
    routes = workflow.pull_request
    for number, (a, b) in enumerate(DEMO_PATH, 1):
        if number in DEMO_ROUTES:
            assert getattr(routes, DEMO_ROUTES[number]) == b
        else:
            assert workflow.allows(a, b), (a, b)


def test_the_quiet_demo_prints_the_same_path_without_the_steps(demo: Result) -> None:
    quiet = _invoke(["demo", "--quiet", "--diagram"])
    assert quiet.exit_code == 0
    assert "why:" not in quiet.output
    assert "why:" in demo.output
    assert _mermaid_block(quiet.output) == _mermaid_block(_invoke(["demo", "--diagram"]).output)


# --- baton simulate ------------------------------------------------------------------------
LIFECYCLE_SCENARIO = """\
name: short lifecycle
issue: {title: Fix the typo, author: alice}
people: {alice: read, maria: maintain}
steps:
  - label: baton
    by: maria
  - expect: {state: received, agent: pm, labels: ["status:received"], transitioned: true}
  - report: {agent: pm, status: success, confidence: 0.9}
  - report: {agent: analyst, status: success, confidence: 0.95}
  - expect: {state: creating_tests, agent: tester, labels: ["status:creating-tests"]}
  - report: {agent: tester, status: success, confidence: 0.9, next_state: completed}
  - expect: {state: creating_tests, transitioned: false}
"""

GATE_SCENARIO = """\
name: gate
people: {maria: maintain, mallory: read}
steps:
  - label: baton
    by: maria
  - report: {agent: pm, status: success, confidence: 0.9}
  - report: {agent: analyst, status: success, confidence: 0.9}
  - report: {agent: developer, status: success, confidence: 0.9}
  - expect: {state: awaiting_approval, labels: ["status:awaiting-approval"]}
  - comment: "lgtm"
    by: mallory
  - expect: {state: awaiting_approval, transitioned: false}
  - comment: "lgtm, ship it"
    by: maria
  - expect: {state: done, labels: ["status:done"], transitioned: true}
"""


def test_a_scenario_whose_expectations_hold_passes(in_empty_dir: Path) -> None:
    Path("scenario.yml").write_text(LIFECYCLE_SCENARIO, encoding="utf-8")
    result = _invoke(["simulate", "scenario.yml"])
    assert result.exit_code == 0, result.output
    assert "Simulating short lifecycle on workflow issue-lifecycle" in result.output
    assert result.output.count("✓ as expected") == 3
    assert "✗" not in result.output
    steps = _numbered_steps(_mermaid_block(result.output))
    assert [(a, b) for a, b, _ in steps] == [
        ("received", "analyzing_requirements"),
        ("analyzing_requirements", "creating_tests"),
    ]


def test_a_scenario_can_run_a_config_with_its_own_approval_word(in_empty_dir: Path) -> None:
    Path("scenario.yml").write_text(GATE_SCENARIO, encoding="utf-8")
    Path("baton.yml").write_text("workflow: approval-gate\napproval_words: [lgtm]\n")
    result = _invoke(["simulate", "scenario.yml", "--config", "baton.yml"])
    assert result.exit_code == 0, result.output
    assert "refused mallory" in result.output
    assert _numbered_steps(_mermaid_block(result.output))[-1] == ("awaiting_approval", "done", 4)


def test_a_scenario_runs_on_a_preset_named_on_the_command_line(in_empty_dir: Path) -> None:
    scenario = GATE_SCENARIO.replace('"lgtm"', '"approved"').replace("lgtm,", "approved,")
    Path("scenario.yml").write_text(scenario, encoding="utf-8")
    result = _invoke(["simulate", "scenario.yml", "--workflow", "approval-gate"])
    assert result.exit_code == 0, result.output
    assert "on workflow approval-gate" in result.output


@pytest.mark.parametrize(
    ("expect", "complaint"),
    [
        ("{state: completed}", "state is creating_tests, expected completed"),
        ('{labels: ["status:completed"]}', "expected ['status:completed']"),
        ("{agent: developer}", "agent is tester, expected developer"),
        ("{transitioned: false}", "transitioned is True, expected False"),
    ],
    ids=[
        "the wrong state fails",
        "the wrong labels fail",
        "the wrong agent fails",
        "a transition where none was expected fails",
    ],
)
def test_a_scenario_whose_expectation_fails_exits_one(
    in_empty_dir: Path, expect: str, complaint: str
) -> None:
    text = LIFECYCLE_SCENARIO.split("  - report: {agent: tester")[0]
    text += f"  - expect: {expect}\n"
    Path("scenario.yml").write_text(text, encoding="utf-8")
    result = _invoke(["simulate", "scenario.yml"])
    assert result.exit_code == 1
    failures = [line for line in result.output.splitlines() if line.strip().startswith("✗")]
    assert len(failures) == 1
    assert complaint in failures[0]
    assert "1 expectation(s) failed" in result.output


def test_every_failed_expectation_is_counted(in_empty_dir: Path) -> None:
    text = LIFECYCLE_SCENARIO + "  - expect: {state: completed, agent: developer}\n"
    Path("scenario.yml").write_text(text, encoding="utf-8")
    result = _invoke(["simulate", "scenario.yml"])
    assert result.exit_code == 1
    assert "2 expectation(s) failed" in result.output


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("steps:\n  - {label: baton, comment: hi}\n", ["exactly one"]),
        ("steps:\n  - {dance: true}\n", ["steps.0", "dance"]),
        ("steps: [\n", ["not valid YAML"]),
        ("name: no steps\n", ["steps"]),
    ],
    ids=[
        "a step with two actions",
        "a step with an unknown action",
        "a file that is not YAML",
        "a scenario without steps",
    ],
)
def test_a_malformed_scenario_is_refused(in_empty_dir: Path, text: str, words: list[str]) -> None:
    Path("scenario.yml").write_text(text, encoding="utf-8")
    result = _invoke(["simulate", "scenario.yml"])
    assert result.exit_code == 1
    assert "error:" in result.output
    assert "scenario.yml" in result.output
    for word in words:
        assert word in result.output


def test_simulate_refuses_a_scenario_file_that_does_not_exist(in_empty_dir: Path) -> None:
    result = _invoke(["simulate", "missing.yml"])
    assert result.exit_code == 2
    assert "missing.yml" in result.output


# --- baton simulate: the work on the branch and its pull request -----------------------------
WORK_SCENARIO = """\
name: the work travels
people: {maria: maintain, bob: read}
steps:
  - label: status:implementing
    by: maria
  - report:
      agent: developer
      confidence: 0.85
      summary: Add the export.
      changes: {src/export.py: "def to_csv(rows): ...\\n"}
  - expect: {state: creating_pr, commits: 1, pull_request: open}
  - expect: {branch_files: {src/export.py: "def to_csv(rows): ...\\n", README.md: "# demo\\n"}}
"""


def test_simulate_checks_the_files_on_the_branch_and_the_pull_request(in_empty_dir: Path) -> None:
    Path("scenario.yml").write_text(WORK_SCENARIO, encoding="utf-8")

    result = _invoke(["simulate", "scenario.yml"])

    assert result.exit_code == 0, result.output
    assert result.output.count("✓ as expected") == 2
    assert "GitHub: branch baton/issue-1 created at" in result.output
    assert "developer: Add the export. (#1)" in result.output
    assert "     + src/export.py" in result.output
    assert "pull request #2 opened as a draft from baton/issue-1 and marked ready" in result.output
    assert "The work: baton/issue-1 at " in result.output
    assert "1 commit(s) by Baton; pull request #2 open." in result.output


@pytest.mark.parametrize(
    ("expect", "complaint"),
    [
        (
            '{branch_files: {src/export.py: "pass\\n"}}',
            "src/export.py on baton/issue-1 is 'def to_csv(rows): ...\\n', expected 'pass\\n'",
        ),
        ("{branch_files: {src/export.py: null}}", "expected absent"),
        ('{branch_files: {docs/gone.md: "x"}}', "docs/gone.md on baton/issue-1 is absent"),
        ("{pull_request: merged}", "the pull request is open, expected merged"),
        ("{pull_request: draft}", "the pull request is open, expected draft"),
        ("{commits: 2}", "Baton made 1 commit(s) on the branch, expected 2"),
    ],
    ids=[
        "a file with other text fails",
        "a file expected absent fails",
        "a file expected present fails",
        "an open pull request is not merged",
        "a ready pull request is no draft",
        "the wrong number of commits fails",
    ],
)
def test_a_wrong_expectation_about_the_work_fails(
    in_empty_dir: Path, expect: str, complaint: str
) -> None:
    text = WORK_SCENARIO.rsplit("  - expect:", 1)[0] + f"  - expect: {expect}\n"
    Path("scenario.yml").write_text(text, encoding="utf-8")

    result = _invoke(["simulate", "scenario.yml"])

    assert result.exit_code == 1, result.output
    failures = [line for line in result.output.splitlines() if line.strip().startswith("✗")]
    assert len(failures) == 1 and complaint in failures[0], failures


def test_without_a_branch_every_file_is_absent_and_there_is_no_pull_request(
    in_empty_dir: Path,
) -> None:
    text = (
        "people: {maria: maintain}\n"
        "steps:\n"
        "  - label: baton\n"
        "    by: maria\n"
        "  - expect: {branch_files: {README.md: null}, pull_request: none, commits: 0}\n"
    )
    Path("scenario.yml").write_text(text, encoding="utf-8")

    result = _invoke(["simulate", "scenario.yml"])

    assert result.exit_code == 0, result.output
    assert "The work:" not in result.output


@pytest.mark.parametrize(
    ("step", "words"),
    [
        ("{review: {by: maria}}", ["steps.1.review.verdict", "Field required"]),
        ("{review: {verdict: lgtm}}", ["steps.1.review.verdict", "'approved'"]),
        ("{checks: {conclusion: red}}", ["steps.1.checks.conclusion"]),
        ("{push: {files: {}}}", ["steps.1.push.files"]),
        ("{report: {base: stale}}", ["`base: stale` needs `changes`"]),
        ("{merge: {by: maria}, by: bob}", ["`by` is given twice (bob and maria)"]),
        (
            "{report: {changes: {src/gone.py: null}}}",
            ["step 2: the agent cannot delete src/gone.py"],
        ),
    ],
    ids=[
        "a review without a verdict",
        "a verdict GitHub has not",
        "a conclusion GitHub has not",
        "a push of no files",
        "a stale base without changes",
        "two different people doing one step",
        "deleting a file the branch does not have",
    ],
)
def test_a_work_step_that_cannot_be_is_one_clear_line(
    in_empty_dir: Path, step: str, words: list[str]
) -> None:
    text = f"people: {{maria: maintain}}\nsteps:\n  - {{label: baton, by: maria}}\n  - {step}\n"
    Path("scenario.yml").write_text(text, encoding="utf-8")

    result = _invoke(["simulate", "scenario.yml"])

    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result.output
    for word in words:
        assert word in errors[0]


# --- baton graph ---------------------------------------------------------------------------
@pytest.mark.parametrize("name", preset_names())
def test_the_mermaid_graph_has_every_edge_and_no_other(name: str) -> None:
    workflow = load_preset(name)
    result = _invoke(["graph", "--format", "mermaid", "--workflow", name])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "stateDiagram-v2"
    assert f"    [*] --> {workflow.initial}" in lines
    drawn = {
        tuple(line.split(" --> "))
        for line in (x.strip() for x in lines)
        if " --> " in line and "[*]" not in line
    }
    table = {(s, t) for s in workflow.states for t in workflow.targets(s)}
    assert drawn == table
    for state in workflow.states:
        if workflow.is_terminal(state):
            assert f"    {state} --> [*]" in lines


def test_the_default_mermaid_graph_is_the_issue_lifecycle_with_its_72_edges(
    in_empty_dir: Path,
) -> None:
    result = _invoke(["graph"])
    assert result.exit_code == 0
    edges = [x for x in result.output.splitlines() if " --> " in x and "[*]" not in x]
    assert len(edges) == 72
    assert result.output == _invoke(["graph", "--workflow", "issue-lifecycle"]).output


def test_the_graph_refuses_an_unknown_format() -> None:
    result = CliRunner().invoke(cli, ["graph", "--format", "dot"])
    assert result.exit_code == 2


# --- baton schema --------------------------------------------------------------------------
def test_baton_schema_prints_a_json_schema() -> None:
    result = _invoke(["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["type"] == "object"
    assert {"workflow", "approvers", "approval_words", "timeouts", "limits"} <= set(
        schema["properties"]
    )


# --- the group ------------------------------------------------------------------------------
ADOPT_LOADED_AFTER = """
import sys
from click.testing import CliRunner
from baton.cli import cli
print("baton.adopt" in sys.modules)
CliRunner().invoke(cli, sys.argv[1:])
print("baton.adopt" in sys.modules)
"""


@pytest.mark.parametrize(
    ("args", "loaded"),
    [(["validate"], "False False"), (["init", "--help"], "False True"), (["--help"], "False True")],
)
def test_baton_adopt_is_imported_only_for_init_doctor_or_the_list(
    args: list[str], loaded: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", ADOPT_LOADED_AFTER, *args], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert " ".join(done.stdout.split()) == loaded


def test_the_help_lists_every_command_in_order() -> None:
    commands = _invoke(["--help"]).output.split("Commands:\n", 1)[1]
    listed = re.findall(r"^  (\w+) ", commands, re.MULTILINE)
    expected = ["agent", "context", "dashboard", "demo", "doctor", "graph", "init", "report", "run"]
    assert listed == [*expected, "schema", "simulate", "sweep", "validate", "verify"]


# --- one workflow file, every command: read by `workflow.sources.load_workflow` ---------------
MY_GATE = to_yaml(load_preset("approval-gate")).replace("name: approval-gate", "name: my-gate")
TRAPPED = MY_GATE.replace(
    "states:\n", "states:\n  loop_a:\n    kind: work\n    agent: pm\n", 1
).replace("transitions:\n", "transitions:\n  loop_a:\n  - loop_a\n", 1)
LABELLED = "name: labelled\npeople: {maria: maintain}\nsteps:\n  - label: baton\n    by: maria\n"
COMMANDS = {"validate": ["validate"], "graph": ["graph"], "simulate": ["simulate", "scenario.yml"]}
NAMED_BY = {
    "--workflow FILE": ["--workflow", "wf/mine.yml"],
    "workflow: FILE": ["--config", "wf/baton.yml"],
}
TABLE = [(command, way) for command in COMMANDS for way in NAMED_BY]


def _with_workflow_file(text: bytes, command: str, way: str) -> Result:
    Path("wf").mkdir()
    Path("wf/mine.yml").write_bytes(text)
    Path("wf/baton.yml").write_text("workflow: mine.yml\n", encoding="utf-8")
    Path("scenario.yml").write_text(LABELLED, encoding="utf-8")
    return CliRunner().invoke(cli, [*COMMANDS[command], *NAMED_BY[way]])


@pytest.mark.parametrize(("command", "way"), TABLE)
def test_every_command_reads_the_workflow_file_validate_accepts(
    in_empty_dir: Path, command: str, way: str
) -> None:
    result = _with_workflow_file(MY_GATE.encode(), command, way)

    assert result.exit_code == 0, result.output
    first = {
        "validate": "my-gate: 0 error(s), 0 warning(s)",
        "graph": "stateDiagram-v2",
        "simulate": "Simulating labelled on workflow my-gate",
    }
    assert result.output.splitlines()[0] == first[command]


@pytest.mark.parametrize(("command", "way"), TABLE)
def test_every_command_refuses_a_workflow_file_that_is_not_utf8_in_one_line(
    in_empty_dir: Path, command: str, way: str
) -> None:
    result = _with_workflow_file(MY_GATE.encode().replace(b"my-gate", b"my-g\xe2te"), command, way)

    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == "error: workflow file wf/mine.yml is not UTF-8 text (byte 10: 0xe2)\n"


@pytest.mark.parametrize(("command", "way"), TABLE)
def test_every_command_refuses_a_workflow_with_a_trap(
    in_empty_dir: Path, command: str, way: str
) -> None:
    result = _with_workflow_file(TRAPPED.encode(), command, way)

    assert result.exit_code == 1
    trap = "error: no terminal state can be reached from loop_a: an issue there moves among them"
    assert trap in result.output
    assert "wf/mine.yml:" in result.output


@pytest.mark.parametrize(
    ("config", "noted"),
    [
        ("workflow: issue-lifecycle\n", True),
        ('tests:\n  command: python -m pytest -q --junitxml="$BATON_JUNIT"\n', False),
    ],
    ids=["without tests: the note says agents' reports decide", "with tests: no note"],
)
def test_validate_says_when_transitions_rest_on_agents_reports(
    in_empty_dir: Path, config: str, noted: bool
) -> None:
    Path("baton.yml").write_text(config, encoding="utf-8")
    result = _invoke(["validate", "--config", "baton.yml"])
    assert result.exit_code == 0, result.output
    note = "note: no `tests:` in the config: transitions rest on agents' reports\n"
    assert (note in result.output) is noted
