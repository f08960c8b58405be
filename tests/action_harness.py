"""Runs `baton` as the Action runs it: a subprocess with the environment GitHub sets, talking
to the fake GitHub over real HTTP. Shared by the integration tests and the benchmarks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from baton.sim import payloads
from fakes.http_github import Call, FakeGitHub

BATON = [sys.executable, "-m", "baton"]
WORKFLOW_REF = "octo/demo/.github/workflows/baton.yml@refs/heads/main"


def parse_outputs(text: str) -> dict[str, str]:
    """Read a GITHUB_OUTPUT file written with heredoc delimiters."""
    values: dict[str, str] = {}
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        name, _, delimiter = lines[index].partition("<<")
        body = []
        index += 1
        while lines[index] != delimiter:
            body.append(lines[index])
            index += 1
        values[name] = "\n".join(body)
        index += 1
    return values


def _where(call: Call) -> str:
    """A REST path, or `/graphql BatonRead`: GraphQL calls differ only by their operation."""
    return f"{call.path} {call.operation}" if call.operation else call.path


@dataclass
class Step:
    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    calls: list[tuple[str, str]]

    @property
    def decision(self) -> dict[str, Any]:
        return json.loads(self.outputs["decision"]) if "decision" in self.outputs else {}


class ActionRunner:
    def __init__(self, fake: FakeGitHub, workdir: Path, config: str | None = None) -> None:
        self.fake = fake
        self.workdir = workdir
        self.run_id = 100
        self.config = config

    def entered(self, title: str = "Export as CSV") -> tuple[int, Path]:
        """An issue alice opened and maria, a maintainer, labelled `baton`, and that event's
        payload written to a file, for a process started with `env("issues", path)`."""
        self.fake.set_permission("maria", "maintain")
        number = self.fake.add_issue(title, "Please.", user="alice")
        self.fake.label_by(number, "baton", "maria")
        event = self.workdir / "event.json"
        event.write_text(json.dumps(payloads.labeled(self.fake, number, "baton")), encoding="utf-8")
        return number, event

    def env(self, event_name: str, event_path: Path, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
        env.update(
            GITHUB_EVENT_NAME=event_name,
            GITHUB_EVENT_PATH=str(event_path),
            GITHUB_REPOSITORY=self.fake.repo_full_name,
            GITHUB_API_URL=self.fake.url,
            GITHUB_RUN_ID=str(self.run_id),
            GITHUB_RUN_ATTEMPT="1",
            GITHUB_OUTPUT=str(self.workdir / "output"),
            GITHUB_STEP_SUMMARY=str(self.workdir / "summary"),
            GITHUB_WORKFLOW_REF=WORKFLOW_REF,
        )
        env["INPUT_GITHUB-TOKEN"] = self.fake.token
        if self.config:
            env["INPUT_CONFIG"] = self.config
        env.update(extra)
        return env

    def invoke(
        self, args: list[str], event_name: str, payload: dict[str, Any], **extra: str
    ) -> Step:
        self.run_id += 1
        event_path = self.workdir / "event.json"
        event_path.write_text(json.dumps(payload), encoding="utf-8")
        for name in ("output", "summary"):
            (self.workdir / name).write_text("", encoding="utf-8")
        self.fake.reset_requests()
        done = subprocess.run(
            [*BATON, *args],
            env=self.env(event_name, event_path, **extra),
            capture_output=True,
            text=True,
            cwd=self.workdir,
            timeout=60,
            check=False,
        )
        return Step(
            returncode=done.returncode,
            stdout=done.stdout,
            stderr=done.stderr,
            outputs=parse_outputs((self.workdir / "output").read_text(encoding="utf-8")),
            summary=(self.workdir / "summary").read_text(encoding="utf-8"),
            calls=[(c.method, _where(c)) for c in self.fake.requests],
        )

    def run(self, event_name: str, payload: dict[str, Any], **extra: str) -> Step:
        return self.invoke(["run"], event_name, payload, **extra)

    def brief(self, *, state: str | None = None, handover: str | None = None, **extra: str) -> Step:
        """The agent job's `brief` step on the run Baton's last dispatch started: the issue,
        the state and the hand-over from the dispatch (each may be given otherwise), the
        briefing written to prompt.md."""
        name, payload = payloads.from_dispatch(self.fake, self.fake.dispatches[-1])
        inputs = payload["inputs"]
        prompt = self.workdir / "prompt.md"
        prompt.unlink(missing_ok=True)
        args = ["context", "--issue", str(inputs["issue"]), "--output", str(prompt)]
        args += ["--state", inputs.get("state", "") if state is None else state]
        args += ["--handover", inputs.get("handover", "") if handover is None else handover]
        return self.invoke(args, name, payload, **extra)

    def report(self, issue: int, result: dict[str, Any], **extra: str) -> Step:
        path = self.workdir / "result.json"
        path.write_text(json.dumps(result), encoding="utf-8")
        return self.invoke(
            ["report", "--issue", str(issue), "--result", str(path)],
            "workflow_dispatch",
            {},
            **extra,
        )
