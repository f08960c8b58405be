"""`baton agent` as the Action's `command: agent` runs it: the agent's command line comes from
`--command`, else the `agent-command` input (or BATON_AGENT_COMMAND); with neither, the job stops
once with a clear error before any API call and leaves no result to count as an attempt. The
agent runs in a git checkout with no GitHub credential in its environment, and what it changed
there is written as a changeset beside the result, whatever became of the agent."""

from __future__ import annotations

import base64
import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from action_harness import ActionRunner, Step
from baton.sim import payloads as P
from fakes.http_github import FakeGitHub

ROOT = Path(__file__).resolve().parents[2]
ISSUE = 1
SUCCESS = {"status": "success", "confidence": 0.9, "summary": "done by {who}"}


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        yield server


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def checkout(workdir: Path) -> str:
    """Make the step's directory a checkout with one commit, as actions/checkout leaves it; the
    files the test harness and the agent scripts write there are ignored. Returns HEAD."""
    git(workdir, "init", "-q", "-b", "main")
    (workdir / ".gitignore").write_text(
        "/event.json\n/output\n/summary\n/baton-*.json\n/*.py\n/*.out\n", encoding="utf-8"
    )
    (workdir / "README.md").write_text("# Demo\n", encoding="utf-8")
    git(workdir, "add", "-A")
    git(workdir, "commit", "-q", "-m", "start")
    return git(workdir, "rev-parse", "HEAD")


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    """Issue #1 entered, so the pm is due and `baton agent` has something to brief; the step
    runs in a checkout."""
    checkout(tmp_path)
    runner = ActionRunner(fake, tmp_path)
    fake.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
    fake.label_by(ISSUE, "baton", "maria")
    entered = runner.run("issues", P.labeled(fake, ISSUE, "baton"))
    assert entered.outputs["agent"] == "pm", entered.stdout + entered.stderr
    return runner


def agent_script(workdir: Path, who: str, *, sleep: float = 0, before: str = "") -> str:
    """A command line that runs a tiny agent: `before` (Python), a nap, then its result JSON."""
    script = workdir / f"{who}.py"
    result = json.dumps({**SUCCESS, "summary": f"done by {who}"})
    script.write_text(
        f"import os, sys, time, json, pathlib\n{before}\ntime.sleep({sleep})\nprint({result!r})\n",
        encoding="utf-8",
    )
    return f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"


def agent(action: ActionRunner, *args: str, **env: str) -> Step:
    return action.invoke(["agent", "--issue", str(ISSUE), *args], "workflow_dispatch", {}, **env)


def result_of(action: ActionRunner, name: str = "baton-result.json") -> dict[str, Any]:
    data = json.loads((action.workdir / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def changeset_of(action: ActionRunner, name: str = "baton-changeset.json") -> dict[str, Any]:
    return result_of(action, name)


def written(changeset: dict[str, Any]) -> dict[str, str | None]:
    return {
        f["path"]: None if f["contents"] is None else base64.b64decode(f["contents"]).decode()
        for f in changeset["files"]
    }


@pytest.mark.parametrize(
    "variable", ["INPUT_AGENT-COMMAND", "INPUT_AGENT_COMMAND", "BATON_AGENT_COMMAND"]
)
def test_the_agent_command_input_runs_the_agent_without_a_command_option(
    action: ActionRunner, variable: str
) -> None:
    step = agent(action, **{variable: agent_script(action.workdir, "input")})

    assert step.returncode == 0, step.stdout + step.stderr
    assert result_of(action)["summary"] == "done by input"


def test_a_command_option_wins_over_the_input(action: ActionRunner) -> None:
    option = agent_script(action.workdir, "option")
    step = agent(
        action, "--command", option, **{"INPUT_AGENT-COMMAND": agent_script(action.workdir, "in")}
    )

    assert step.returncode == 0, step.stdout + step.stderr
    assert result_of(action)["summary"] == "done by option"


def test_a_blank_command_option_falls_back_to_the_input(action: ActionRunner) -> None:
    # The example workflow passes an unset repository variable as --command "".
    step = agent(
        action, "--command", "", **{"INPUT_AGENT-COMMAND": agent_script(action.workdir, "input")}
    )

    assert step.returncode == 0, step.stdout + step.stderr
    assert result_of(action)["summary"] == "done by input"


@pytest.mark.parametrize("args", [[], ["--command", ""], ["--command", "  "]], ids=repr)
def test_without_any_agent_command_the_job_stops_once_before_any_call(
    action: ActionRunner, args: list[str]
) -> None:
    step = agent(action, *args, **{"INPUT_AGENT-COMMAND": ""})

    assert step.returncode == 1
    assert step.calls == [], "a setup error costs no API call"
    errors = [line for line in step.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "agent-command" in errors[0], step.stdout + step.stderr
    assert not (action.workdir / "baton-result.json").exists(), "no result: no attempt is spent"
    marker = (action.workdir / "baton-setup-error.txt").read_text(encoding="utf-8")
    assert marker.startswith("no agent command: set the reusable workflow's `agent` input")


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--agent", "claude"], "the `agent` input 'claude' is no ready profile"),
        (["--agent", "codex", "--command", "my-agent"], "both set: keep one"),
    ],
    ids=["an unknown profile", "a profile and a command"],
)
def test_a_ready_profile_the_agent_cannot_run_stops_the_job_once(
    action: ActionRunner, args: list[str], said: str
) -> None:
    step = agent(action, *args)

    assert step.returncode == 1
    assert step.calls == [], "a setup error costs no API call"
    assert not (action.workdir / "baton-result.json").exists(), "no result: no attempt is spent"
    marker = (action.workdir / "baton-setup-error.txt").read_text(encoding="utf-8")
    assert said in marker and "\n" not in marker.rstrip("\n")


def test_the_agent_timeout_input_stops_a_slow_agent(action: ActionRunner) -> None:
    slow = agent_script(action.workdir, "slow", sleep=30)
    step = agent(action, BATON_AGENT_COMMAND=slow, BATON_AGENT_TIMEOUT="1")

    assert step.returncode == 0, step.stdout + step.stderr
    result = result_of(action)
    assert result["status"] == "failure"
    assert "did not finish within 1 seconds" in result["summary"]


def test_action_yml_declares_the_agent_command_input() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    spec = action["inputs"]["agent-command"]
    assert spec.get("required", False) is False and "default" not in spec
    assert "BATON_AGENT_COMMAND" in spec["description"]


# --------------------------------------------------------------------------- no token


CREDENTIALS = {
    "GITHUB_TOKEN": "ghs_default",
    "GH_TOKEN": "ghs_cli",
    "GH_ENTERPRISE_TOKEN": "ghs_enterprise",
    "MY_GITHUB_TOKEN": "ghp_personal",
    "GITHUB_PAT": "ghp_pat",
    "INPUT_GITHUB_TOKEN": "ghs_input",
    "INPUT_RECORD-SECRET": "record-secret",
    "ACTIONS_RUNTIME_TOKEN": "runtime",
    "ACTIONS_RUNTIME_URL": "https://runtime.invalid/",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc",
    "ACTIONS_ID_TOKEN_REQUEST_URL": "https://oidc.invalid/",
    "ACTIONS_CACHE_URL": "https://cache.invalid/",
    "BATON_RECORD_SECRET": "record-secret-variable",
    "BATON_APP_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----",
}
# Not credentials, but Baton's or the runner's: inputs, Baton's settings, the file commands.
BATONS = {
    "INPUT_CONFIG": ".github/baton.yml",
    "BATON_AGENT_TIMEOUT": "600",
    "GITHUB_ENV": "/tmp/set-env-file",
    "GITHUB_PATH": "/tmp/add-path-file",
    "GITHUB_STATE": "/tmp/save-state-file",
}
KEPT = {
    "ANTHROPIC_API_KEY": "sk-ant-kept",
    "OPENAI_API_KEY": "sk-kept",
    "GITHUB_REPOSITORY": "octo/demo",
    "GITHUB_WORKSPACE": "/tmp/workspace",
}
DUMP_ENV = "pathlib.Path(os.environ['ENV_DUMP']).write_text(json.dumps(dict(os.environ)))"


def test_the_agent_runs_with_no_github_credential_in_its_environment(
    action: ActionRunner, tmp_path_factory: pytest.TempPathFactory
) -> None:
    dump = tmp_path_factory.mktemp("env") / "env.json"
    command = agent_script(action.workdir, "env", before=DUMP_ENV)
    step = agent(action, "--command", command, ENV_DUMP=str(dump), **CREDENTIALS, **BATONS, **KEPT)

    assert step.returncode == 0, step.stdout + step.stderr
    seen = json.loads(dump.read_text(encoding="utf-8"))
    leaked = {k for k in seen if k in CREDENTIALS or k.upper() == "INPUT_GITHUB-TOKEN"}
    assert leaked == set(), "no GitHub credential reaches the agent"
    assert not [k for k in seen if k in BATONS or k.startswith("INPUT_") or k == "GITHUB_OUTPUT"]
    assert not [k for k in seen if k.startswith("BATON_") and not k.endswith("_FILE")]
    assert action.fake.token not in json.dumps(seen)
    assert {k: seen.get(k) for k in KEPT} == KEPT, "the agent's own keys and the runner's stay"
    assert seen["BATON_PROMPT_FILE"] and seen["BATON_RESULT_FILE"]


def test_a_briefing_fetched_earlier_runs_the_agent_with_no_token_and_no_call(
    action: ActionRunner,
) -> None:
    fetched = action.invoke(
        ["context", "--issue", str(ISSUE), "--output", "prompt.out"], "workflow_dispatch", {}
    )
    assert fetched.returncode == 0, fetched.stdout + fetched.stderr
    briefing = (action.workdir / "prompt.out").read_text(encoding="utf-8")
    copy = "pathlib.Path('stdin.out').write_text(sys.stdin.read())"
    command = agent_script(action.workdir, "prompted", before=copy)

    step = action.invoke(
        ["agent", "--prompt", "prompt.out", "--command", command],
        "workflow_dispatch",
        {},
        **{"INPUT_GITHUB-TOKEN": "", "INPUT_ISSUE": ""},
    )

    assert step.returncode == 0, step.stdout + step.stderr
    assert step.calls == [], "the briefing was fetched by the step before"
    assert (action.workdir / "stdin.out").read_text(encoding="utf-8") == briefing
    assert result_of(action)["summary"] == "done by prompted"


def test_neither_an_issue_nor_a_prompt_is_a_setup_error(action: ActionRunner) -> None:
    command = agent_script(action.workdir, "idle")
    step = action.invoke(["agent", "--command", command], "workflow_dispatch", {}, INPUT_ISSUE="")

    assert step.returncode == 1
    assert "--issue N" in step.stderr and "--prompt FILE" in step.stderr
    assert not (action.workdir / "baton-result.json").exists()


# --------------------------------------------------------------------------- the changeset

WORK = (
    "pathlib.Path('src').mkdir()\n"
    "pathlib.Path('src/app.py').write_text('print(1)\\n')\n"
    "pathlib.Path('README.md').unlink()\n"
)


def test_what_the_agent_changed_is_written_beside_the_result(action: ActionRunner) -> None:
    base = git(action.workdir, "rev-parse", "HEAD")
    step = agent(action, "--command", agent_script(action.workdir, "worker", before=WORK))

    assert step.returncode == 0, step.stdout + step.stderr
    changeset = changeset_of(action)
    assert changeset["base"] == base and changeset["refused"] is None
    assert written(changeset) == {"README.md": None, "src/app.py": "print(1)\n"}
    assert "changeset: 1 file(s) written, 1 deleted, 9 bytes" in step.stdout
    assert "-> baton-changeset.json" in step.stdout


def test_the_changeset_binds_to_the_commit_before_the_agent_committed(
    action: ActionRunner,
) -> None:
    base = git(action.workdir, "rev-parse", "HEAD")
    commits = (
        WORK + "import subprocess\n"
        "subprocess.run(['git', '-c', 'user.name=a', '-c', 'user.email=a@b', 'add', '-A'])\n"
        "subprocess.run(['git', '-c', 'user.name=a', '-c', 'user.email=a@b', "
        "'commit', '-qm', 'mine'])\n"
    )
    step = agent(action, "--command", agent_script(action.workdir, "committer", before=commits))

    assert step.returncode == 0, step.stdout + step.stderr
    assert git(action.workdir, "rev-parse", "HEAD") != base
    assert changeset_of(action)["base"] == base
    assert written(changeset_of(action)) == {"README.md": None, "src/app.py": "print(1)\n"}


def test_a_failing_agents_work_is_still_captured(action: ActionRunner) -> None:
    crash = WORK + "sys.exit(3)"
    step = agent(action, "--command", agent_script(action.workdir, "crash", before=crash))

    assert step.returncode == 0, step.stdout + step.stderr
    assert result_of(action)["status"] == "failure"
    assert written(changeset_of(action)) == {"README.md": None, "src/app.py": "print(1)\n"}


def test_a_timed_out_agents_partial_work_is_captured_and_its_children_stopped(
    action: ActionRunner,
) -> None:
    # The agent leaves a child that would keep writing after the timeout.
    child = (
        WORK + "import subprocess\n"
        "subprocess.Popen([sys.executable, '-c', "
        '\'import time, pathlib; time.sleep(3); pathlib.Path("late.txt").write_text("late")\'])\n'
    )
    slow = agent_script(action.workdir, "slow", sleep=30, before=child)
    step = agent(action, BATON_AGENT_COMMAND=slow, BATON_AGENT_TIMEOUT="1")

    assert step.returncode == 0, step.stdout + step.stderr
    assert "did not finish within 1 seconds" in result_of(action)["summary"]
    assert written(changeset_of(action)) == {"README.md": None, "src/app.py": "print(1)\n"}
    time.sleep(3.5)
    assert not (action.workdir / "late.txt").exists(), "the agent's session was stopped"


def test_the_changeset_goes_where_the_option_says(action: ActionRunner) -> None:
    step = agent(
        action,
        "--command",
        agent_script(action.workdir, "placed", before=WORK),
        "--output",
        "out/result.json",
        "--changeset",
        "elsewhere.out",
    )

    assert step.returncode == 0, step.stdout + step.stderr
    assert result_of(action, "out/result.json")["summary"] == "done by placed"
    assert written(changeset_of(action, "elsewhere.out"))["src/app.py"] == "print(1)\n"


def test_the_changeset_defaults_to_beside_the_result(action: ActionRunner) -> None:
    (action.workdir / "out").mkdir()
    step = agent(
        action, "--command", agent_script(action.workdir, "beside"), "--output", "out/r.json"
    )

    assert step.returncode == 0, step.stdout + step.stderr
    assert changeset_of(action, "out/baton-changeset.json")["files"] == []


def test_outside_a_checkout_the_agent_does_not_run_and_no_result_is_written(
    fake: FakeGitHub, tmp_path: Path
) -> None:
    runner = ActionRunner(fake, tmp_path)
    fake.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
    fake.label_by(ISSUE, "baton", "maria")
    runner.run("issues", P.labeled(fake, ISSUE, "baton"))
    ran = tmp_path / "ran.out"
    command = agent_script(tmp_path, "never", before=f"pathlib.Path({str(ran)!r}).touch()")

    step = agent(runner, "--command", command)

    assert step.returncode == 1
    errors = [line for line in step.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "is not a git checkout" in errors[0], step.stdout
    assert not ran.exists()
    marker = (tmp_path / "baton-setup-error.txt").read_text(encoding="utf-8")
    assert "is not a git checkout" in marker, "the report job fails once with it"
    assert not (tmp_path / "baton-result.json").exists()
    assert not (tmp_path / "baton-changeset.json").exists()


# --------------------------------------------------------------------------- containment

ANCESTORS = (
    "import os, json, pathlib\n"
    "seen, pid = [], os.getppid()\n"
    "while pid > 1 and pid != int(os.environ['TEST_PID']):\n"
    "    proc = pathlib.Path('/proc', str(pid))\n"
    "    try:\n"  # unreadable to a user without CAP_SYS_PTRACE: Baton's is undumpable
    "        environ = (proc / 'environ').read_bytes().decode('latin-1')\n"
    "    except PermissionError:\n"
    "        environ = ''\n"
    "    seen.append({'pid': pid, 'environ': environ,\n"
    "                 'cmdline': (proc / 'cmdline').read_bytes().decode('latin-1')})\n"
    "    pid = int((proc / 'stat').read_text().rpartition(')')[2].split()[1])\n"
    "pathlib.Path(os.environ['ENV_DUMP']).write_text(json.dumps(seen))\n"
)


@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs /proc")
def test_no_process_above_the_agent_holds_a_credential_in_its_environment_or_arguments(
    action: ActionRunner, tmp_path_factory: pytest.TempPathFactory
) -> None:
    dump = tmp_path_factory.mktemp("env") / "ancestors.json"
    command = agent_script(action.workdir, "ancestors", before=ANCESTORS)
    step = agent(
        action,
        "--command",
        command,
        ENV_DUMP=str(dump),
        TEST_PID=str(os.getpid()),
        **CREDENTIALS,
        **BATONS,
    )

    assert step.returncode == 0, step.stdout + step.stderr
    ancestors = json.loads(dump.read_text(encoding="utf-8"))
    commands = [a["cmdline"] for a in ancestors]
    assert any("baton\0agent" in c for c in commands), "the walk reached baton"
    assert ancestors[-1]["cmdline"].split("\0")[:4] == [sys.executable, "-P", "-m", "baton"]
    secrets = [action.fake.token, *CREDENTIALS.values(), *BATONS.values()]
    for ancestor in ancestors:
        for block in (ancestor["environ"], ancestor["cmdline"]):
            assert [s for s in secrets if s in block] == [], ancestor["cmdline"]
    assert result_of(action)["summary"] == "done by ancestors"


LINGERING = (
    "import os, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        fd = os.open(os.devnull, os.O_RDWR)\n"
    "        for n in (0, 1, 2): os.dup2(fd, n)\n"
    "        pathlib.Path({pid_file!r}).write_text(str(os.getpid()))\n"
    "        time.sleep(2)\n"
    "        for target in {targets!r}:\n"
    "            pathlib.Path(target).write_text('rewritten by a child that outlived the agent')\n"
    "        time.sleep(60)\n"
    "    os._exit(0)\n"
    "os.wait()\n"
    "while not pathlib.Path({pid_file!r}).exists(): time.sleep(0.01)\n"
)


def test_a_child_that_left_the_agents_session_does_not_outlive_it(
    action: ActionRunner, tmp_path_factory: pytest.TempPathFactory
) -> None:
    pid_file = tmp_path_factory.mktemp("pid") / "lingering.pid"
    out = action.workdir / "out"
    targets = [str(action.workdir / "README.md"), str(out / "baton-changeset.json")]
    before = LINGERING.format(pid_file=str(pid_file), targets=targets)
    command = agent_script(action.workdir, "forker", before=before)

    step = agent(action, "--command", command, "--output", "out/baton-result.json")

    assert step.returncode == 0, step.stdout + step.stderr
    lingering = int(pid_file.read_text(encoding="utf-8"))
    written_then = (out / "baton-changeset.json").read_text(encoding="utf-8")
    time.sleep(3)
    assert not Path(f"/proc/{lingering}").exists(), "the double-forked child was killed"
    assert (out / "baton-changeset.json").read_text(encoding="utf-8") == written_then
    assert (action.workdir / "README.md").read_text(encoding="utf-8") == "# Demo\n"
    assert json.loads(written_then)["files"] == []


FILE_COMMANDS = (
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_STATE",
    "GITHUB_OUTPUT",
    "GITHUB_STEP_SUMMARY",
)
TAMPER = (
    "commands = pathlib.Path(os.environ['COMMANDS_DIR'])\n"
    "(commands / 'set_env').open('a').write('NODE_OPTIONS=--require /tmp/evil.js\\n')\n"
    "(commands / 'add_path').unlink()\n"
    "(commands / 'add_path').symlink_to(commands / 'elsewhere')\n"
    "(commands / 'step_summary').write_text('# all good, merge it\\n')\n"
)


def test_the_runners_file_commands_are_withheld_and_put_back_as_they_were(
    action: ActionRunner, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # They live in $RUNNER_TEMP/_runner_file_commands, where the agent can find them.
    commands = tmp_path_factory.mktemp("_runner_file_commands")
    names = dict(
        zip(
            FILE_COMMANDS,
            ["set_env", "add_path", "save_state", "set_output", "step_summary"],
            strict=True,
        )
    )
    for name in names.values():
        (commands / name).write_text(f"{name}=before\n", encoding="utf-8")
    (commands / "elsewhere").write_text("", encoding="utf-8")
    dump = tmp_path_factory.mktemp("env") / "env.json"
    command = agent_script(action.workdir, "tamper", before=TAMPER + DUMP_ENV)
    paths = {variable: str(commands / name) for variable, name in names.items()}

    step = agent(
        action, "--command", command, COMMANDS_DIR=str(commands), ENV_DUMP=str(dump), **paths
    )

    assert step.returncode == 0, step.stdout + step.stderr
    assert [k for k in json.loads(dump.read_text(encoding="utf-8")) if k in FILE_COMMANDS] == []
    for name in names.values():
        assert not (commands / name).is_symlink()
        assert (commands / name).read_text(encoding="utf-8") == f"{name}=before\n"
    assert (commands / "elsewhere").read_text(encoding="utf-8") == ""
    said = (
        "the agent changed the runner's file commands ($GITHUB_ENV, $GITHUB_PATH, "
        "$GITHUB_STEP_SUMMARY); Baton put them back"
    )
    assert f"::warning title=Baton::{said}" in step.stdout
    assert result_of(action)["issues_found"] == [said]


def test_the_result_is_written_to_a_new_file_never_through_a_link_the_agent_left(
    action: ActionRunner, tmp_path_factory: pytest.TempPathFactory
) -> None:
    target = tmp_path_factory.mktemp("elsewhere") / "victim"
    target.write_text("untouched\n", encoding="utf-8")
    plant = (
        f"pathlib.Path('baton-result.json').symlink_to({str(target)!r})\n"
        f"pathlib.Path('baton-changeset.json').symlink_to({str(target)!r})\n"
    )
    step = agent(action, "--command", agent_script(action.workdir, "linker", before=plant))

    assert step.returncode == 0, step.stdout + step.stderr
    assert target.read_text(encoding="utf-8") == "untouched\n"
    assert not (action.workdir / "baton-result.json").is_symlink()
    assert result_of(action)["summary"] == "done by linker"


API_KEY = "sk-ant-api03-0123456789abcdefXYZ"
LEAK = (
    "key = os.environ['ANTHROPIC_API_KEY']\n"
    "pathlib.Path('src').mkdir()\n"
    "pathlib.Path('src/settings.py').write_text(f'KEY = {key!r}\\n')\n"
    "print(json.dumps({'status': 'success', 'confidence': 0.9,\n"
    "                  'summary': f'I used the key {key} to test',\n"
    "                  'questions': [f'is {key} right?']}))\n"
    "sys.exit(0)\n"
)


def test_a_changeset_holding_the_agents_own_key_is_refused_and_the_result_redacted(
    action: ActionRunner,
) -> None:
    command = agent_script(action.workdir, "leaker", before=LEAK)

    step = agent(action, "--command", command, ANTHROPIC_API_KEY=API_KEY)

    assert step.returncode == 0, step.stdout + step.stderr
    changeset = changeset_of(action)
    assert changeset["files"] == []
    assert changeset["refused"] == "src/settings.py holds the value of ANTHROPIC_API_KEY"
    result = result_of(action)
    assert result["summary"] == "I used the key [secret] to test"
    assert result["questions"] == ["is [secret] right?"]
    on_disk = (action.workdir / "baton-result.json").read_text(encoding="utf-8")
    assert API_KEY not in on_disk + json.dumps(changeset) + step.stdout


def test_a_changeset_holding_the_github_token_base64_encoded_is_refused(
    action: ActionRunner,
) -> None:
    # The token never reaches the agent; here it knows it anyway (say, from the issue).
    encoded = base64.b64encode(b"Authorization: " + action.fake.token.encode()).decode()
    write = f"pathlib.Path('auth.txt').write_text({encoded!r})\n"
    step = agent(action, "--command", agent_script(action.workdir, "encoder", before=write))

    assert step.returncode == 0, step.stdout + step.stderr
    assert changeset_of(action)["refused"] == "auth.txt holds the value of INPUT_GITHUB-TOKEN"


def test_a_checkout_that_kept_the_token_in_its_git_config_does_not_run_the_agent(
    action: ActionRunner,
) -> None:
    git(action.workdir, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: x")
    ran = action.workdir / "ran.out"
    command = agent_script(action.workdir, "never", before=f"pathlib.Path({str(ran)!r}).touch()")

    step = agent(action, "--command", command)

    assert step.returncode == 1
    assert not ran.exists()
    errors = [line for line in step.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "persist-credentials: false" in errors[0], step.stdout
    assert not (action.workdir / "baton-result.json").exists(), "no attempt is spent"
    marker = (action.workdir / "baton-setup-error.txt").read_text(encoding="utf-8")
    assert "holds a credential (http.https://github.com/.extraheader)" in marker


def test_a_refusal_naming_a_file_named_after_the_agents_key_names_no_key(
    action: ActionRunner,
) -> None:
    # A new file over the size limit is named in the refusal, which the report job posts on
    # the issue: the path is redacted before it is quoted, never cut first.
    long_key = "sk-ant-api03-" + "Q7f" * 20
    write = (
        "pathlib.Path('a' * 100).mkdir()\n"
        "pathlib.Path('a' * 100, os.environ['ANTHROPIC_API_KEY']).write_bytes(b'x' * 4_100_000)\n"
    )
    command = agent_script(action.workdir, "namer", before=write)

    step = agent(action, "--command", command, ANTHROPIC_API_KEY=long_key)

    assert step.returncode == 0, step.stdout + step.stderr
    refused = changeset_of(action)["refused"]
    assert refused.startswith("the agent's new files hold more than"), refused
    assert f"(reached at {'a' * 100}/[secret], 4,100,000 bytes)" in refused
    written_out = (action.workdir / "baton-changeset.json").read_text(encoding="utf-8")
    assert long_key[:20] not in written_out + step.stdout


def test_a_setup_error_marker_the_agent_wrote_beside_the_result_is_removed(
    action: ActionRunner,
) -> None:
    # The report job stops on the marker as a setup error (no attempt spent, nothing said on
    # the issue); one there after the agent ended is the agent's, so its attempt still counts.
    write = (
        "pathlib.Path('out').mkdir()\n"
        "pathlib.Path('out/baton-setup-error.txt').write_text('no agent command: set it')\n"
    )
    command = agent_script(action.workdir, "staller", before=write)

    step = agent(action, "--command", command, "--output", "out/baton-result.json")

    assert step.returncode == 0, step.stdout + step.stderr
    assert result_of(action, "out/baton-result.json")["summary"] == "done by staller"
    assert not (action.workdir / "out" / "baton-setup-error.txt").exists()
    said = "::warning title=Baton::the agent wrote out/baton-setup-error.txt; Baton removed it"
    assert said in step.stdout.splitlines()


def test_a_setup_error_marker_planted_as_a_folder_or_a_link_is_removed(
    action: ActionRunner, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere") / "kept.txt"
    elsewhere.write_text("not the agent's to lose\n", encoding="utf-8")
    folder = (
        "pathlib.Path('out/baton-setup-error.txt').mkdir(parents=True)\n"
        "pathlib.Path('out/baton-setup-error.txt/x').write_text('x')\n"
    )
    link = (
        "pathlib.Path('o2').mkdir()\n"
        f"pathlib.Path('o2/baton-setup-error.txt').symlink_to({str(elsewhere)!r})\n"
    )
    folder_agent = agent_script(action.workdir, "folder", before=folder)
    link_agent = agent_script(action.workdir, "link", before=link)

    first = agent(action, "--command", folder_agent, "--output", "out/baton-result.json")
    second = agent(action, "--command", link_agent, "--output", "o2/baton-result.json")

    assert first.returncode == 0, first.stdout + first.stderr
    assert not os.path.lexists(action.workdir / "out" / "baton-setup-error.txt")
    assert second.returncode == 0, second.stdout + second.stderr
    assert not os.path.lexists(action.workdir / "o2" / "baton-setup-error.txt")
    assert elsewhere.read_text(encoding="utf-8") == "not the agent's to lose\n"


# A `git` the agent drops into a directory of its PATH that it can write (on GitHub-hosted
# runners ~/.local/bin and the tool cache's Python bin, both before /usr/bin). It records that
# it ran and hands on to the real git so nothing looks wrong.
PLANTED_GIT = '#!/bin/sh\necho "$*" >> {marker}\nexec {real} "$@"\n'


def test_capture_never_runs_a_git_the_agent_planted_on_its_path(
    action: ActionRunner, tmp_path_factory: pytest.TempPathFactory
) -> None:
    bin_dir = tmp_path_factory.mktemp("user-local-bin")  # writable by the job's user
    marker = tmp_path_factory.mktemp("proof") / "git-ran"
    real = shutil.which("git")
    assert real is not None
    planted = PLANTED_GIT.format(marker=shlex.quote(str(marker)), real=shlex.quote(real))
    plant = (
        f"p = pathlib.Path({str(bin_dir / 'git')!r})\n"
        f"p.write_text({planted!r})\n"
        "p.chmod(0o755)\n"
        "pathlib.Path('README.md').write_text('# Demo\\n\\nwork\\n')\n"
    )
    command = agent_script(action.workdir, "planter", before=plant)
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', os.defpath)}"

    step = agent(action, "--command", command, PATH=path)

    assert step.returncode == 0, step.stdout + step.stderr
    assert written(changeset_of(action)) == {"README.md": "# Demo\n\nwork\n"}
    assert not marker.exists(), marker.read_text(encoding="utf-8")


def test_a_git_replaced_while_the_agent_ran_refuses_the_changeset(
    action: ActionRunner, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # The git Baton resolved before the agent lies in a folder the agent can write (as the tool
    # cache's is): the agent replaces it, so the capture refuses rather than run it.
    bin_dir = tmp_path_factory.mktemp("writable-bin")
    marker = tmp_path_factory.mktemp("proof") / "git-ran"
    real = shutil.which("git")
    assert real is not None
    shutil.copy2(real, bin_dir / "git")
    planted = PLANTED_GIT.format(marker=shlex.quote(str(marker)), real=shlex.quote(real))
    swap = (
        f"p = pathlib.Path({str(bin_dir / 'git')!r})\n"
        "p.unlink()\n"
        f"p.write_text({planted!r})\n"
        "p.chmod(0o755)\n"
    )
    command = agent_script(action.workdir, "swapper", before=swap)
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', os.defpath)}"

    step = agent(action, "--command", command, PATH=path)

    assert step.returncode == 0, step.stdout + step.stderr
    changeset = changeset_of(action)
    assert changeset["files"] == []
    assert changeset["refused"] == (
        f"the git Baton resolved before the agent ran ({bin_dir / 'git'}) changed since"
    )
    assert not marker.exists(), marker.read_text(encoding="utf-8")


def test_a_baton_package_in_the_checkout_does_not_replace_baton_after_the_re_exec(
    tmp_path: Path,
) -> None:
    # The previous agent's changeset added `baton/__main__.py` at the repository's root (no
    # forbidden entry covers it). `baton agent` re-executes `python -P -m baton agent --handoff
    # FD` in the checkout: without -P the working directory comes first on sys.path and the
    # checkout's `baton` would run with the handoff (the agent's keys) and no containment.
    work = tmp_path / "checkout"
    work.mkdir()
    proof = tmp_path / "planted-ran"
    git(work, "init", "-q", "-b", "main")
    planted = f"import pathlib, sys\npathlib.Path({str(proof)!r}).write_text(' '.join(sys.argv))\n"
    for package in ("baton", "click", "pydantic"):
        (work / package).mkdir()
        (work / package / "__init__.py").write_text(planted, encoding="utf-8")
        (work / package / "__main__.py").write_text(planted, encoding="utf-8")
    (work / "README.md").write_text("# Demo\n", encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "the previous agent's commit")
    prompt = tmp_path / "prompt.md"
    prompt.write_text("do the work\n", encoding="utf-8")
    script = tmp_path / "agent.py"
    script.write_text(f"print({json.dumps({**SUCCESS, 'summary': 'ok'})!r})\n", encoding="utf-8")
    console = Path(sys.executable).with_name("baton")  # the `baton` the workflow's pip installs
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}

    done = subprocess.run(
        [
            str(console),
            "agent",
            "--prompt",
            str(prompt),
            "--output",
            str(tmp_path / "r.json"),
            "--command",
            f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )

    assert not proof.exists(), proof.read_text(encoding="utf-8")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["summary"] == "ok"
