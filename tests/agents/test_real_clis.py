"""The real agent CLIs, in the loop: each setup of examples/agents runs, as the reusable workflow
runs it, against a scripted model on 127.0.0.1 that speaks the vendor's own streaming protocol.

The command line is read from the example file; `baton agent` runs it in a checkout of the
issue's branch with no GitHub token; the scripted model edits README.md with the CLI's own edit
tool, runs `env` with its shell tool, and writes the result file; `baton report` commits the
changeset against the fake GitHub. A role documented as read-only is offered no tool that
writes. No request leaves 127.0.0.1: proxies point at the scripted server, which records every
request, and each test asserts it saw only the model calls scripted for it.

The CLIs are pinned in tests/agents/clis/package-lock.json (`npm ci --prefix tests/agents/clis`,
which .ci/run does; with BATON_REQUIRE_CLIS=1 a missing CLI fails instead of skipping).
What they did here, in order (every request on 127.0.0.1; under strace, no other connect):

* Claude Code 2.1.332 (Anthropic Messages, SSE): one `POST /v1/messages?beta=true` per turn
  and nothing else: Read, Edit, Bash (`env`), Write (the result), the final text: 5 requests.
  The same 5, and nothing else, without CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC (by hand,
  with the base URL on 127.0.0.1). The read-only setup: 2 (a Write and a Bash, both refused;
  the final text). Offered with `--allowedTools`: Agent, Bash, Edit, Glob, Grep, ListAgents,
  Read, ReportFindings, ScheduleWakeup, Skill, ToolSearch, Workflow, Write (and a deferred
  placeholder); with `--tools "Read,Glob,Grep"`: those three.
* Codex CLI 0.171.0 (OpenAI Responses, SSE): one `POST /v1/responses` per turn and nothing
  else: apply_patch, exec_command (`env`), exec_command (the result), the final text: 4
  requests. Without `[features] plugins = false` it first tried `CONNECT github.com:443` (its
  plugin marketplace). Refused with a 401: 1 request (retries off in its config), exit 1,
  nothing on standard output, the reason at the end of its standard error.
* Gemini CLI 0.61.0 (streamGenerateContent, SSE): one `POST
  /v1beta/models/<router model>:generateContent` first (its model router rates the task),
  then one `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` per turn: replace,
  run_shell_command (`env`), write_file (the result), the final text: 5 requests. Without
  `--skip-trust`: none, it stops first.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml

from action_harness import BATON, ActionRunner, Step
from baton.agents.transcript import TRANSCRIPT_FILE
from baton.core.model.changeset import CHANGESET_FILE
from fakes.http_github import FakeGitHub
from support.git_checkout import checkout
from support.http import record_of
from test_commit_faults_http import BRANCH, ISSUE, at_implementing

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "agents"
CLIS = Path(__file__).resolve().parent / "clis" / "node_modules" / ".bin"
KEY = "sk-scripted-0123456789"  # the agent's API key: a secret the job holds
GITHUB_TOKEN = "ghs_scriptedtoken0123456789"  # in the job's environment, never the agent's
# The agent's own claim of what it cost: outranked by what the CLI reports.
CLAIM = {"tokens": 1, "money": 0.01}
RESULT = {
    "status": "success",
    "confidence": 0.9,
    "summary": "README says it exports CSV.",
    "cost": CLAIM,
}
README_BEFORE = "# demo\n"
README_AFTER = "# demo\n\nExports the report as CSV.\n"


def cli(name: str) -> Path:
    """The pinned CLI's launcher; skipped when `npm ci` has not run, failed in CI."""
    path = CLIS / name
    if not path.exists():
        if os.environ.get("BATON_REQUIRE_CLIS"):
            pytest.fail(f"{path} is missing: run npm ci --prefix tests/agents/clis")
        pytest.skip(f"{name} is not installed (npm ci --prefix tests/agents/clis)")
    return path


def example_command(name: str) -> str:
    """The `agent-command` of examples/agents/NAME.yml, as the reusable workflow gets it."""
    document = yaml.safe_load((EXAMPLES / f"{name}.yml").read_text(encoding="utf-8"))
    command: str = document["with"]["agent-command"]
    return command


# --- the scripted model ------------------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """A tool call the scripted model makes."""

    name: str
    args: dict[str, Any]


Reply = list[str | Call]  # what the model answers in one turn: text and tool calls
Turn = Callable[[str], Reply]  # from the request's body, as text


@dataclass
class Seen:
    method: str
    path: str
    body: str


def _sse(events: list[tuple[str | None, dict[str, Any]]]) -> bytes:
    lines = []
    for name, data in events:
        if name:
            lines.append(f"event: {name}\n")
        lines.append(f"data: {json.dumps(data)}\n\n")
    return "".join(lines).encode()


# What the scripted model bills for every call, in each vendor's usage fields.
INPUT_TOKENS, OUTPUT_TOKENS = 100, 20
# Claude Code 2.1.332's list price for the model it asks for by default (claude-opus-5-5), in
# US dollars per token: what it multiplies the usage by for `total_cost_usd` (measured here
# with 2,000 input tokens and none out, then 200 in and 40 out).
CLAUDE_PRICE_IN, CLAUDE_PRICE_OUT = 4e-6, 20e-6


def anthropic_stream(reply: Reply, turn: int) -> bytes:
    """A Messages API stream: message_start, a content block per part, message_delta, stop."""
    usage = {"input_tokens": INPUT_TOKENS, "output_tokens": 1}
    message = {"id": f"msg_{turn}", "type": "message", "role": "assistant", "model": "scripted"}
    events: list[tuple[str | None, dict[str, Any]]] = [
        (
            "message_start",
            {
                "type": "message_start",
                "message": {**message, "content": [], "stop_reason": None, "usage": usage},
            },
        )
    ]
    stop = "end_turn"
    for index, part in enumerate(reply):
        if isinstance(part, Call):
            stop = "tool_use"
            block = {"type": "tool_use", "id": f"toolu_{turn}_{index}", "name": part.name}
            start = {**block, "input": {}}
            delta = {"type": "input_json_delta", "partial_json": json.dumps(part.args)}
        else:
            start = {"type": "text", "text": ""}
            delta = {"type": "text_delta", "text": part}
        events += [
            (
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": start},
            ),
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": index, "delta": delta},
            ),
            ("content_block_stop", {"type": "content_block_stop", "index": index}),
        ]
    events += [
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop, "stop_sequence": None},
                "usage": {"output_tokens": OUTPUT_TOKENS},
            },
        ),
        ("message_stop", {"type": "message_stop"}),
    ]
    return _sse(events)


def openai_stream(reply: Reply, turn: int) -> bytes:
    """A Responses API stream: response.created, each output item added and done, completed."""
    events: list[tuple[str | None, dict[str, Any]]] = [
        (
            "response.created",
            {
                "type": "response.created",
                "response": {"id": f"resp_{turn}", "status": "in_progress"},
            },
        )
    ]
    for index, part in enumerate(reply):
        call_id = f"call_{turn}_{index}"
        item: dict[str, Any]
        if isinstance(part, Call) and part.name == "apply_patch":  # a freeform tool
            item = {
                "type": "custom_tool_call",
                "call_id": call_id,
                "name": part.name,
                "input": part.args["input"],
            }
        elif isinstance(part, Call):
            item = {
                "type": "function_call",
                "call_id": call_id,
                "name": part.name,
                "arguments": json.dumps(part.args),
            }
        else:
            item = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": part, "annotations": []}],
            }
        item = {"id": f"item_{turn}_{index}", "status": "completed", **item}
        events += [
            (kind, {"type": kind, "output_index": index, "item": item})
            for kind in ("response.output_item.added", "response.output_item.done")
        ]
    usage = {
        "input_tokens": INPUT_TOKENS,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": OUTPUT_TOKENS,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS,
    }
    events.append(
        (
            "response.completed",
            {
                "type": "response.completed",
                "response": {
                    "id": f"resp_{turn}",
                    "status": "completed",
                    "output": [],
                    "usage": usage,
                },
            },
        )
    )
    return _sse(events)


GEMINI_USAGE = {
    "promptTokenCount": INPUT_TOKENS,
    "candidatesTokenCount": OUTPUT_TOKENS,
    "totalTokenCount": INPUT_TOKENS + OUTPUT_TOKENS,
}


def gemini_candidate(parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "candidates": [
            {"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": GEMINI_USAGE,
    }


def gemini_stream(reply: Reply, turn: int) -> bytes:
    """streamGenerateContent with alt=sse: one chunk holding the whole turn."""
    parts = [
        {"functionCall": {"name": part.name, "args": part.args}}
        if isinstance(part, Call)
        else {"text": part}
        for part in reply
    ]
    return _sse([(None, gemini_candidate(parts))])


def gemini_router() -> bytes:
    """The Gemini CLI's model router asks a small model to rate the task (plain JSON)."""
    rating = json.dumps({"complexity_reasoning": "A scripted task.", "complexity_score": 30})
    return json.dumps(gemini_candidate([{"text": rating}])).encode()


@dataclass
class Vendor:
    stream: Callable[[Reply, int], bytes]
    turn_path: re.Pattern[str]  # a model call that takes the next scripted turn
    side_paths: dict[str, Callable[[], bytes]] = field(default_factory=dict)  # answered as JSON


ANTHROPIC = Vendor(anthropic_stream, re.compile(r"/v1/messages(\?beta=true)?$"))
OPENAI = Vendor(openai_stream, re.compile(r"/v1/responses$"))
GEMINI = Vendor(
    gemini_stream,
    re.compile(r"/v1beta/models/[\w.-]+:streamGenerateContent\?alt=sse$"),
    {r"/v1beta/models/[\w.-]+:generateContent$": gemini_router},
)


REFUSED = json.dumps(
    {
        "error": {
            "message": "Incorrect API key provided.",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }
    }
).encode()
MODEL_NAME = re.compile(r"models/[\w.-]+:")  # Gemini's paths name the model the CLI chose


class ScriptedModel(ThreadingHTTPServer):
    """A model on 127.0.0.1 that answers turn after turn from a script, and records every
    request it receives (a CLI's stray request through the proxies included)."""

    daemon_threads = True

    def __init__(self, vendor: Vendor, turns: list[Turn], refuse: int | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _ModelHandler)
        self.vendor, self.turns, self.refuse = vendor, turns, refuse
        self.seen: list[Seen] = []
        self.lock = threading.Lock()
        self.taken = 0
        self.billed = 0  # calls answered with a usage: each bills INPUT_ and OUTPUT_TOKENS

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def __enter__(self) -> ScriptedModel:
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()

    def answer(self, method: str, path: str, body: str) -> tuple[int, str, bytes]:
        with self.lock:
            self.seen.append(Seen(method, path, body))
            if method == "POST" and self.vendor.turn_path.search(path):
                turn, self.taken = self.taken, self.taken + 1
            else:
                turn = -1
        if self.refuse is not None:  # every call refused, as a revoked key is
            return self.refuse, "application/json", REFUSED
        for pattern, side in self.vendor.side_paths.items():
            if method == "POST" and re.search(pattern, path):
                self._bill()
                return 200, "application/json", side()
        if 0 <= turn < len(self.turns):
            self._bill()
            return 200, "text/event-stream", self.vendor.stream(self.turns[turn](body), turn)
        return 404, "application/json", b'{"error": {"message": "not scripted"}}'

    def _bill(self) -> None:
        with self.lock:
            self.billed += 1

    @property
    def tokens_billed(self) -> int:
        return self.billed * (INPUT_TOKENS + OUTPUT_TOKENS)

    def paths(self) -> list[str]:
        return [f"{seen.method} {MODEL_NAME.sub('models/M:', seen.path)}" for seen in self.seen]


class _ModelHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: ScriptedModel

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _handle(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
        status, kind, data = self.server.answer(self.command, self.path, body)
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PUT = do_CONNECT = _handle


# --- what the scripted model reads from the request ---------------------------------------------
RESULT_PATH = re.compile(r"(/[^\s\"'\\]*baton-agent-[^\s\"'\\/]*/result\.json)")


def result_path(body: str) -> str:
    """The result file the briefing names (Baton's scratch folder, expanded by the shell)."""
    found = RESULT_PATH.search(body)
    assert found, "the request names no result file"
    return found.group(1)


def said_env(seen: list[Seen]) -> str:
    """The output of the `env` tool call, as the CLI sent it back to the model."""
    for request in seen:
        if "PATH=" in request.body and "BATON_RESULT_FILE=" in request.body:
            return request.body
    raise AssertionError("no request carried the output of env")


# --- the jobs, as the reusable workflow runs them -----------------------------------------------
@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        server.set_permission("maria", "maintain")
        server.add_issue("Export the report as CSV", "Please add a CSV export.", user="alice")
        yield server


@pytest.fixture
def action(fake: FakeGitHub, tmp_path: Path) -> ActionRunner:
    return ActionRunner(fake, tmp_path)


@dataclass
class AgentRun:
    step: subprocess.CompletedProcess[str]
    checkout: Path
    out: Path
    seconds: float

    @property
    def result(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads((self.out / "baton-result.json").read_text())
        return loaded

    @property
    def changeset(self) -> dict[str, Any]:
        loaded: dict[str, Any] = json.loads((self.out / CHANGESET_FILE).read_text())
        return loaded


def agent_job(
    action: ActionRunner,
    fake: FakeGitHub,
    root: Path,
    command: str,
    env: dict[str, str],
    role: str | None = None,
) -> AgentRun:
    """Checkout of the branch, `baton context` with the token, `baton agent` without: the
    agent's step has the CLIs on PATH, its key and what the CLI is pointed with (`env`), and a
    GitHub token in the job's environment that must not reach the agent."""
    work = checkout(fake._git, BRANCH, root / "checkout")
    out = root / "out"
    context = action.invoke(
        ["context", "--issue", str(ISSUE), "--output", str(root / "prompt.md")],
        "workflow_dispatch",
        {},
    )
    assert context.returncode == 0, context.stdout + context.stderr
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    base = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    step_env = {
        **base,
        "HOME": str(home),
        "PATH": f"{CLIS}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_TOKEN": GITHUB_TOKEN,
        "NO_COLOR": "1",
        **env,
    }
    started = time.monotonic()
    step = subprocess.run(
        [
            *BATON,
            "agent",
            "--prompt",
            str(root / "prompt.md"),
            *(["--role", role] if role else ["--command", command]),
            "--output",
            str(out / "baton-result.json"),
        ],
        cwd=work,
        env=step_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return AgentRun(step, work, out, time.monotonic() - started)


def report(action: ActionRunner, run: AgentRun) -> Step:
    return action.invoke(
        [
            "report",
            "--issue",
            str(ISSUE),
            "--result",
            str(run.out / "baton-result.json"),
            "--state",
            "implementing",
            "--agent",
            "developer",
        ],
        "workflow_dispatch",
        {},
    )


def offline(model: ScriptedModel) -> dict[str, str]:
    """Every proxy variable points at the scripted server: a request for any other host
    arrives there (and is recorded), never on the network."""
    proxy = {name: model.url for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY")}
    lower = {name.lower(): value for name, value in proxy.items()}
    return {**proxy, **lower, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"}


def assert_committed(action: ActionRunner, fake: FakeGitHub, run: AgentRun) -> None:
    """The agent's edit travelled: captured, committed by the report job, the issue moved."""
    assert run.step.returncode == 0, run.step.stdout + run.step.stderr
    assert run.result["status"] == "success", run.result
    assert run.result["summary"] == RESULT["summary"]
    assert [change["path"] for change in run.changeset["files"]] == ["README.md"]
    reported = report(action, run)
    assert reported.returncode == 0, reported.stdout + reported.stderr
    assert fake.file_at(BRANCH, "README.md") == README_AFTER
    assert reported.outputs["state"] != "implementing", reported.outputs["decision"]


def assert_spend_recorded(
    fake: FakeGitHub, run: AgentRun, *, tokens: int, money: float | None
) -> None:
    """What the CLI reported is the result's cost, marked as the CLI's, and the record's spend
    after the report job: the figures the scripted server billed, not the agent's claim."""
    cost = run.result["cost"]
    assert cost["source"] == "cli", cost
    assert cost["tokens"] == tokens, (cost, tokens)
    if money is None:
        assert cost["money"] is None, cost
    else:
        assert cost["money"] == pytest.approx(money), (cost, money)
    spend = record_of(fake, ISSUE).spend
    assert (spend.runs, spend.tokens, spend.claimed) == (1, tokens, 0), spend
    assert spend.money == pytest.approx(money or 0.0), spend
    transcript = (run.out / TRANSCRIPT_FILE).read_text(encoding="utf-8")
    assert "## standard output" in transcript and KEY not in transcript


def assert_agent_env(env_output: str, key_name: str) -> None:
    """What `env` showed the model: Baton's two files and the agent's own key (its shell can
    read it), no GitHub token, no action input."""
    assert "BATON_RESULT_FILE=" in env_output and "BATON_PROMPT_FILE=" in env_output
    assert f"{key_name}={KEY}" in env_output
    assert GITHUB_TOKEN not in env_output and "GITHUB_TOKEN" not in env_output
    assert "INPUT_" not in env_output


# --- Claude Code ------------------------------------------------------------------------------
def test_claude_code_edits_runs_a_tool_and_writes_its_result_which_baton_commits(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    cli("claude")
    at_implementing(action, fake)
    command = example_command("claude-code")
    work = tmp_path / "job" / "checkout"
    turns: list[Turn] = [
        lambda body: ["Reading.", Call("Read", {"file_path": f"{work}/README.md"})],
        lambda body: [
            Call(
                "Edit",
                {
                    "file_path": f"{work}/README.md",
                    "old_string": "# demo\n",
                    "new_string": README_AFTER,
                },
            )
        ],
        lambda body: [Call("Bash", {"command": "env", "description": "Show the environment"})],
        lambda body: [
            Call("Write", {"file_path": result_path(body), "content": json.dumps(RESULT)})
        ],
        lambda body: ["Done."],
    ]
    with ScriptedModel(ANTHROPIC, turns) as model:
        env = {"ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": KEY, **offline(model)}
        run = agent_job(action, fake, tmp_path / "job", command, env)

    assert model.paths() == ["POST /v1/messages?beta=true"] * 5, model.paths()
    tools = json.loads(model.seen[0].body)["tools"]
    offered = {tool["name"] for tool in tools if not tool.get("defer_loading")}
    allowed = {"Bash", "Read", "Edit", "Write", "Glob", "Grep"}
    assert allowed < offered, "--allowedTools approves tools; it does not limit what is offered"
    assert_committed(action, fake, run)
    assert_agent_env(said_env(model.seen), "ANTHROPIC_API_KEY")
    price = model.billed * (INPUT_TOKENS * CLAUDE_PRICE_IN + OUTPUT_TOKENS * CLAUDE_PRICE_OUT)
    assert_spend_recorded(fake, run, tokens=model.tokens_billed, money=price)
    assert KEY not in run.step.stderr


def test_claude_code_s_read_only_setup_offers_no_tool_that_writes(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    """The model tries to write anyway: the CLI refuses a tool it never offered, the checkout
    stays as it was, and the result the reply ends with is the agent's result."""
    cli("claude")
    at_implementing(action, fake)
    command = example_command("claude-code-read-only")
    work = tmp_path / "job" / "checkout"
    turns: list[Turn] = [
        lambda body: [
            Call("Write", {"file_path": f"{work}/README.md", "content": "pwned\n"}),
            Call("Bash", {"command": "echo pwned > README.md"}),
        ],
        lambda body: [f"Read it.\n{json.dumps(RESULT)}"],
    ]
    with ScriptedModel(ANTHROPIC, turns) as model:
        env = {"ANTHROPIC_BASE_URL": model.url, "ANTHROPIC_API_KEY": KEY, **offline(model)}
        run = agent_job(action, fake, tmp_path / "job", command, env)

    assert model.paths() == ["POST /v1/messages?beta=true"] * 2, model.paths()
    tools = json.loads(model.seen[0].body)["tools"]
    offered = {tool["name"] for tool in tools if not tool.get("defer_loading")}
    assert offered == {"Read", "Glob", "Grep"}, offered
    refused = json.loads(model.seen[1].body)["messages"][-1]["content"]
    assert [block.get("is_error") for block in refused] == [True, True], refused
    assert (run.checkout / "README.md").read_text() == README_BEFORE
    assert run.step.returncode == 0, run.step.stdout + run.step.stderr
    assert run.result["status"] == "success" and run.changeset["files"] == []


# --- Codex --------------------------------------------------------------------------------------
PATCH = (
    "*** Begin Patch\n*** Update File: README.md\n@@\n # demo\n+\n+Exports the report as CSV.\n"
    "*** End Patch\n"
)


def codex_home(root: Path, model: ScriptedModel) -> Path:
    """A user's ~/.codex/config.toml naming the scripted server as the model provider (Codex
    reads no base-URL variable for its built-in provider); its analytics off."""
    home = root / "codex-home"
    home.mkdir(parents=True)
    (home / "config.toml").write_text(
        'model = "gpt-5.5"\n'
        'model_provider = "scripted"\n\n'
        "[analytics]\nenabled = false\n\n"
        "[features]\nplugins = false\n\n"
        "[model_providers.scripted]\n"
        'name = "scripted"\n'
        f'base_url = "{model.url}/v1"\n'
        'env_key = "CODEX_API_KEY"\n'
        'wire_api = "responses"\n'
        "request_max_retries = 0\n"
        "stream_max_retries = 0\n",
        encoding="utf-8",
    )
    return home


def test_codex_edits_runs_a_tool_and_writes_its_result_which_baton_commits(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    cli("codex")
    at_implementing(action, fake)
    command = example_command("codex")

    def write_result(body: str) -> Reply:
        text = json.dumps(RESULT).replace("'", "")
        return [Call("exec_command", {"cmd": f"printf '%s' '{text}' > {result_path(body)}"})]

    turns: list[Turn] = [
        lambda body: [Call("apply_patch", {"input": PATCH})],
        lambda body: [Call("exec_command", {"cmd": "env"})],
        write_result,
        lambda body: ["Done."],
    ]
    with ScriptedModel(OPENAI, turns) as model:
        env = {
            "CODEX_HOME": str(codex_home(tmp_path, model)),
            "CODEX_API_KEY": KEY,
            **offline(model),
        }
        run = agent_job(action, fake, tmp_path / "job", command, env)

    assert model.paths() == ["POST /v1/responses"] * 4, model.paths()
    assert_committed(action, fake, run)
    assert_agent_env(said_env(model.seen), "CODEX_API_KEY")
    assert_spend_recorded(fake, run, tokens=model.tokens_billed, money=None)


def test_codex_refused_by_its_model_fails_with_the_reason_in_the_log_and_the_result(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    """The run that was invisible: Codex printed nothing on standard output and exited 1. Its
    standard error is in the job log, line by line, and its end in the failure result."""
    cli("codex")
    at_implementing(action, fake)
    with ScriptedModel(OPENAI, [], refuse=401) as model:
        env = {
            "CODEX_HOME": str(codex_home(tmp_path, model)),
            "CODEX_API_KEY": KEY,
            **offline(model),
        }
        run = agent_job(action, fake, tmp_path / "job", example_command("codex"), env)

    assert run.step.returncode == 0, run.step.stdout + run.step.stderr
    assert run.result["status"] == "failure"
    summary = run.result["summary"]
    assert summary.startswith("the agent printed no JSON result (exit status 1)."), summary
    errors = summary.split("Last lines on standard error:\n", 1)[1]
    assert "401 Unauthorized" in errors and "Incorrect API key provided." in errors, errors
    logged = [line for line in run.step.stderr.splitlines() if "401 Unauthorized" in line]
    assert logged and all(line.startswith("agent: ") for line in logged), run.step.stderr
    assert KEY not in summary and KEY not in run.step.stderr
    assert model.paths() == ["POST /v1/responses"], model.paths()


# --- an agent per role ----------------------------------------------------------------------
def test_two_roles_run_two_cli_profiles_named_in_the_config(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    """`agents:` in the config (the default branch's, as the agent job passes it): the analyst
    runs the read-only Claude Code profile with a model of its own, the developer Gemini. Each
    `baton agent --role` runs its CLI, which asks its own scripted vendor."""
    cli("claude")
    cli("gemini")
    at_implementing(action, fake)
    config = tmp_path / "baton.yml"
    config.write_text(
        "agents:\n"
        "  profiles:\n"
        "    triage: {uses: claude-code-read-only, model: claude-haiku-4-5}\n"
        "  roles: {analyst: triage, developer: gemini}\n",
        encoding="utf-8",
    )
    with ScriptedModel(ANTHROPIC, [lambda body: [f"Read it.\n{json.dumps(RESULT)}"]]) as claude:
        env = {
            "ANTHROPIC_BASE_URL": claude.url,
            "ANTHROPIC_API_KEY": KEY,
            "INPUT_CONFIG": str(config),
            **offline(claude),
        }
        analyst = agent_job(action, fake, tmp_path / "analyst", "false", env, role="analyst")
    assert analyst.step.returncode == 0, analyst.step.stdout + analyst.step.stderr
    assert "agent profile triage for analyst" in analyst.step.stderr
    assert analyst.result["status"] == "success" and analyst.result["cost"]["source"] == "cli"
    assert json.loads(claude.seen[0].body)["model"] == "claude-haiku-4-5"

    work = tmp_path / "developer" / "checkout"
    turns: list[Turn] = [
        lambda body: [gemini_edit(work)],
        lambda body: [
            Call("write_file", {"file_path": result_path(body), "content": json.dumps(RESULT)})
        ],
        lambda body: ["Done."],
    ]
    with ScriptedModel(GEMINI, turns) as gemini:
        gemini_settings(tmp_path / "developer" / "home")
        env = {
            "GOOGLE_GEMINI_BASE_URL": gemini.url,
            "GEMINI_API_KEY": KEY,
            "INPUT_CONFIG": str(config),
            **GEMINI_ENV,
            **offline(gemini),
        }
        developer = agent_job(action, fake, tmp_path / "developer", "false", env, role="developer")
    assert "agent profile gemini for developer" in developer.step.stderr
    assert gemini.paths()[-1] == "POST /v1beta/models/M:streamGenerateContent?alt=sse"
    assert_committed(action, fake, developer)


# --- Gemini -------------------------------------------------------------------------------------
GEMINI_ENV = {"GEMINI_CLI_NO_RELAUNCH": "true"}  # no second node process with a larger heap


def gemini_edit(work: Path) -> Call:
    """Gemini's edit tool, asked to add README_AFTER's line to the checkout's README.md."""
    return Call(
        "replace",
        {
            "file_path": f"{work}/README.md",
            "old_string": "# demo\n",
            "new_string": README_AFTER,
            "instruction": "Add a line.",
        },
    )


def gemini_settings(home: Path) -> None:
    """A user's ~/.gemini/settings.json: the API-key login (with GOOGLE_GEMINI_BASE_URL set the
    CLI would otherwise pick its `gateway` login, which headless mode refuses), telemetry and
    usage statistics off, no update check."""
    (home / ".gemini").mkdir(parents=True)
    settings = {
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": False},
        "telemetry": {"enabled": False},
        "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
    }
    (home / ".gemini" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")


def test_gemini_edits_runs_a_tool_and_writes_its_result_which_baton_commits(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    cli("gemini")
    at_implementing(action, fake)
    command = example_command("gemini")
    work = tmp_path / "job" / "checkout"
    turns: list[Turn] = [
        lambda body: [gemini_edit(work)],
        lambda body: [Call("run_shell_command", {"command": "env", "description": "env"})],
        lambda body: [
            Call("write_file", {"file_path": result_path(body), "content": json.dumps(RESULT)})
        ],
        lambda body: ["Done."],
    ]
    with ScriptedModel(GEMINI, turns) as model:
        gemini_settings(tmp_path / "job" / "home")
        env = {
            "GOOGLE_GEMINI_BASE_URL": model.url,
            "GEMINI_API_KEY": KEY,
            **GEMINI_ENV,
            **offline(model),
        }
        run = agent_job(action, fake, tmp_path / "job", command, env)

    assert model.paths() == [
        "POST /v1beta/models/M:generateContent",
        *["POST /v1beta/models/M:streamGenerateContent?alt=sse"] * 4,
    ], model.paths()
    assert_committed(action, fake, run)
    assert_agent_env(said_env(model.seen), "GEMINI_API_KEY")
    assert_spend_recorded(fake, run, tokens=model.tokens_billed, money=None)


def test_gemini_without_skip_trust_stops_before_asking_its_model(
    fake: FakeGitHub, action: ActionRunner, tmp_path: Path
) -> None:
    """Why the example says `--skip-trust`: a fresh checkout is a folder nobody trusted."""
    cli("gemini")
    at_implementing(action, fake)
    command = example_command("gemini").replace("--skip-trust ", "")
    with ScriptedModel(GEMINI, []) as model:
        gemini_settings(tmp_path / "job" / "home")
        env = {
            "GOOGLE_GEMINI_BASE_URL": model.url,
            "GEMINI_API_KEY": KEY,
            **GEMINI_ENV,
            **offline(model),
        }
        run = agent_job(action, fake, tmp_path / "job", command, env)

    assert model.seen == []
    assert run.result["status"] == "failure"
    assert "not running in a trusted directory" in run.result["summary"], run.result


def test_the_installed_clis_are_the_versions_the_docstring_records() -> None:
    """What `npm ci` installed from the lock file (each CLI's own package.json)."""
    pinned = {
        "claude": ("@anthropic-ai/claude-code", "2.1.332"),
        "codex": ("@openai/codex", "0.171.0"),
        "gemini": ("@google/gemini-cli", "0.61.0"),
    }
    for name, (package, version) in pinned.items():
        cli(name)
        manifest = CLIS.parent / package / "package.json"
        assert json.loads(manifest.read_text(encoding="utf-8"))["version"] == version
    assert shutil.which("node"), "the CLIs run on node"
