"""Run the built image's entrypoint against the fake GitHub, the way the Actions runner would.

scripts/build-image.sh calls this after building the image; it can also be run alone:

    python3 scripts/image_smoke.py --image localhost/baton:ci [--runs 5] [--json FILE] -- \
        buildah --root DIR --runroot DIR --storage-driver vfs
    python3 scripts/image_smoke.py --engine docker --image baton:ci -- docker

Everything after `--` is the engine's command line (buildah's global options name the store
the image is in). What it does:

- starts the HTTP fake GitHub of the tests (tests/fakes/http_github.py) on 127.0.0.1;
- makes one working container from the image and runs the image's own ENTRYPOINT + CMD in it
  with `buildah run --network host` (the container shares the host's loopback, so it reaches
  the fake), with the environment and the /github mounts that the runner gives a Docker action;
- (b) a maintainer adds the trigger label: exit 0, `state=received`, `transitioned=true`,
  `agent=pm`, the issue carries `status:received` (trigger consumed) and one record comment by
  the bot;
- (a) each ignored event of the performance issue (an issue opened outside the workflow, a
  label that is not Baton's, a comment on an issue outside the workflow, an event type Baton
  does not handle, Baton's own status label): exit 0, the `decision` output says ignored,
  `transitioned=false`, and not one request reached the fake;
- times each ignored-event run beside a bare `python -c pass` in the same container, as the
  process alone inside the container (median of --runs runs, interleaved; peak RSS from the
  kernel's per-child accounting), and the first of them as the whole `buildah run` seen from
  the host, which adds the container's own start.

With `--engine docker` (GitHub's hosted runners, where Docker runs and root is not at hand) each
command is a fresh `docker run --rm --network host` of the image instead, with the same
environment and mounts: that is how the runner starts a Docker action.

Exit status 0 when every check holds; 1 with the reason otherwise. Stdlib only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]  # the fake and the payload builder

from action_harness import WORKFLOW_REF, parse_outputs  # noqa: E402
from baton.sim import payloads  # noqa: E402
from fakes.http_github import FakeGitHub  # noqa: E402

MOUNT = "/github"  # the runner mounts workspace, event and file commands under /github
TIMEOUT = 120

# Runs inside the container: the commands in turn, round after round, so that a slow moment of
# the machine hits them all alike; per command the median wall time and the peak resident
# memory of its process (os.wait4 gives each child's own rusage).
DRIVER = """
import json, os, statistics, subprocess, sys, time
jobs, runs = json.loads(sys.argv[1]), int(sys.argv[2])
walls = {name: [] for name, _, _ in jobs}
peaks = dict.fromkeys(walls, 0)
for _ in range(runs):
    for name, command, env in jobs:
        start = time.perf_counter()
        child = subprocess.Popen(
            command, env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        _, status, usage = os.wait4(child.pid, 0)
        walls[name].append(time.perf_counter() - start)
        peaks[name] = max(peaks[name], usage.ru_maxrss)
        if status:
            sys.exit(f"{name}: exit status {status}: {child.stderr.read().decode()}")
        child.stderr.close()
medians = {name: statistics.median(times) for name, times in walls.items()}
print(json.dumps({n: {"median_s": medians[n], "peak_kib": peaks[n]} for n in walls}))
"""


class SmokeFailure(Exception):
    pass


def check(condition: bool, message: str, said: str = "") -> None:
    if not condition:
        raise SmokeFailure(message + (f"\n--- what the run said ---\n{said}" if said else ""))


class Container:
    """One buildah working container of the image, with the runner's /github mounts."""

    def __init__(self, buildah: list[str], image: str, host_dir: Path) -> None:
        self.buildah = buildah
        self.host_dir = host_dir
        config = json.loads(self._buildah("inspect", "--type", "image", image).stdout)
        oci = config["OCIv1"]["config"]
        self.entrypoint: list[str] = oci.get("Entrypoint") or []
        self.cmd: list[str] = oci.get("Cmd") or []
        name = f"baton-smoke-{os.getpid()}"
        self._buildah("rm", name, check=False)  # a leftover of an interrupted earlier run
        self.name = self._buildah("from", "--pull=never", "--name", name, image).stdout.strip()
        for sub in ("workspace", "workflow", "file_commands", "home"):
            (host_dir / sub).mkdir(parents=True, exist_ok=True)

    def _buildah(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            [*self.buildah, *args], capture_output=True, text=True, timeout=TIMEOUT
        )
        if check and done.returncode:
            raise SmokeFailure(f"buildah {' '.join(args)} failed:\n{done.stderr}")
        return done

    def run(
        self, env: dict[str, str], command: list[str]
    ) -> tuple[float, subprocess.CompletedProcess[str]]:
        """`buildah run` the command; (wall seconds, CompletedProcess)."""
        args = [
            *self.buildah,
            "run",
            "--isolation",
            "chroot",
            "--network",
            "host",
            "--workingdir",
            f"{MOUNT}/workspace",
            "--volume",
            f"{self.host_dir}:{MOUNT}",
        ]
        for name, value in env.items():
            args += ["--env", f"{name}={value}"]
        args += [self.name, "--", *command]
        start = time.perf_counter()
        done = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT)
        return time.perf_counter() - start, done

    def remove(self) -> None:
        self._buildah("rm", self.name, check=False)


class DockerContainer(Container):
    """The image run by a Docker engine: a new container per command, removed when it ends."""

    def __init__(self, docker: list[str], image: str, host_dir: Path) -> None:
        self.docker = docker
        self.image = self.name = image
        self.host_dir = host_dir
        done = subprocess.run(
            [*docker, "image", "inspect", image], capture_output=True, text=True, timeout=TIMEOUT
        )
        if done.returncode:
            raise SmokeFailure(f"docker image inspect {image} failed:\n{done.stderr}")
        config = json.loads(done.stdout)[0]["Config"]
        self.entrypoint = config.get("Entrypoint") or []
        self.cmd = config.get("Cmd") or []
        for sub in ("workspace", "workflow", "file_commands", "home"):
            (host_dir / sub).mkdir(parents=True, exist_ok=True)

    def run(
        self, env: dict[str, str], command: list[str]
    ) -> tuple[float, subprocess.CompletedProcess[str]]:
        """`docker run --rm` the command; (wall seconds, CompletedProcess)."""
        args = [
            *self.docker,
            "run",
            "--rm",
            "--network",
            "host",
            "--workdir",
            f"{MOUNT}/workspace",
            "--volume",
            f"{self.host_dir}:{MOUNT}",
        ]
        for name, value in env.items():
            args += ["--env", f"{name}={value}"]
        args += ["--entrypoint", command[0], self.image, *command[1:]]
        start = time.perf_counter()
        done = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT)
        return time.perf_counter() - start, done

    def remove(self) -> None:
        pass  # each run removed its own container (--rm)


class Runner:
    """The runner's side of a Docker action: event file, file commands, environment."""

    def __init__(self, container: Container, fake: FakeGitHub) -> None:
        self.container = container
        self.fake = fake
        self.run_id = 1000

    def env(self, event_name: str, output: str = "output") -> dict[str, str]:
        self.run_id += 1
        return {
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "HOME": f"{MOUNT}/home",
            "GITHUB_WORKSPACE": f"{MOUNT}/workspace",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": f"{MOUNT}/workflow/event.json",
            "GITHUB_REPOSITORY": self.fake.repo_full_name,
            "GITHUB_API_URL": self.fake.url,
            "GITHUB_RUN_ID": str(self.run_id),
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_OUTPUT": f"{MOUNT}/file_commands/{output}",
            "GITHUB_STEP_SUMMARY": f"{MOUNT}/file_commands/summary",
            "GITHUB_WORKFLOW_REF": WORKFLOW_REF,
            "INPUT_GITHUB-TOKEN": self.fake.token,
            "INPUT_CONFIG": ".github/baton.yml",
            "INPUT_COMMAND": "run",
            "INPUT_DRY-RUN": "false",
            "INPUT_BOT-LOGIN": self.fake.bot_login,
        }

    def write_event(self, payload: dict[str, Any]) -> None:
        path = self.container.host_dir / "workflow" / "event.json"
        path.write_text(json.dumps(payload), encoding="utf-8")

    def act(self, event_name: str, payload: dict[str, Any]) -> dict[str, Any]:
        """One run of the image's ENTRYPOINT + CMD for an event, as the Action starts it."""
        self.write_event(payload)
        files = self.container.host_dir / "file_commands"
        for name in ("output", "summary"):
            (files / name).write_text("", encoding="utf-8")
        self.fake.reset_requests()
        seconds, done = self.container.run(
            self.env(event_name), [*self.container.entrypoint, *self.container.cmd]
        )
        output = (files / "output").read_text(encoding="utf-8")
        said = done.stdout + done.stderr + output + (files / "summary").read_text("utf-8")
        check(self.fake.token not in said, "the token appears in what the run said")
        check(done.returncode == 0, f"exit status {done.returncode}", said)
        outputs = parse_outputs(output)
        check("decision" in outputs, "no `decision` output", said)
        return {
            "seconds": seconds,
            "said": said,
            "outputs": outputs,
            "decision": json.loads(outputs["decision"]),
            "calls": [(c.method, c.path) for c in self.fake.requests],
        }


# The ignored events of the performance issue, each built on an issue outside the workflow
# (number 2) or, for the bot's own label, on the issue the transition just moved (number 1).
Event = tuple[str, dict[str, Any]]


def _opened(fake: FakeGitHub) -> Event:
    return "issues", payloads.opened(fake, 2)


def _foreign_label(fake: FakeGitHub) -> Event:
    fake.label_by(2, "bug", "maria")
    return "issues", payloads.labeled(fake, 2, "bug")


def _comment(fake: FakeGitHub) -> Event:
    return "issue_comment", payloads.comment_created(
        fake, fake.add_comment(2, "+1", user="bob")["id"]
    )


def _push(fake: FakeGitHub) -> Event:
    return "push", {"ref": "refs/heads/main", "sender": fake.user_json("alice")}


def _own_label(fake: FakeGitHub) -> Event:
    return "issues", payloads.labeled(fake, 1, "status:received", sender=fake.bot_login)


IGNORED: list[tuple[str, Callable[[FakeGitHub], Event]]] = [
    ("an issue opened outside the workflow", _opened),
    ("a label that is not Baton's", _foreign_label),
    ("a comment on an issue outside the workflow", _comment),
    ("an event type Baton does not handle", _push),
    ("Baton's own status label", _own_label),
]
BARE = ["python", "-c", "pass"]


def smoke(container: Container, runs: int) -> dict[str, Any]:
    with FakeGitHub() as fake:
        fake.set_permission("maria", "maintain")
        fake.add_issue("Export as CSV", "Please add a CSV export.", user="alice")
        fake.add_issue("Typo in the docs", "Teh README.", user="alice")
        runner = Runner(container, fake)
        results: dict[str, Any] = {"fake": fake.url}

        # (b) a maintainer adds the trigger label: issue 1 enters the workflow.
        fake.label_by(1, "baton", "maria")
        entered = runner.act("issues", payloads.labeled(fake, 1, "baton"))
        outputs = entered["outputs"]
        check(outputs.get("state") == "received", f"state {outputs.get('state')}", entered["said"])
        check(outputs.get("transitioned") == "true", "no transition", entered["said"])
        check(outputs.get("agent") == "pm", f"agent {outputs.get('agent')!r}", entered["said"])
        labels = fake.labels_of(1)
        check(labels == ["status:received"], f"labels after the transition: {labels}")
        records = [c for c in fake.comments(1) if c["user"]["login"] == fake.bot_login]
        check(len(records) == 1, f"{len(records)} bot comments, expected the one record")
        results["transition"] = {
            "seconds": entered["seconds"],
            "calls": len(entered["calls"]),
            "requests": [" ".join(call) for call in entered["calls"]],
        }

        # (a) events Baton ignores: exit 0, said so, transitioned=false, not one API call.
        events: dict[str, Event] = {}
        for kind, build in IGNORED:
            events[kind] = build(fake)
            step = runner.act(*events[kind])
            check(
                step["decision"].get("outcome") == "ignored", f"{kind}: not ignored", step["said"]
            )
            check(step["outputs"].get("transitioned") == "false", f"{kind}: moved", step["said"])
            check(step["calls"] == [], f"{kind}: API calls for an ignored event: {step['calls']}")
        results["ignored"] = list(events)

        # Start-up: each ignored event again (none changes anything), beside a bare interpreter,
        # as the process alone inside the container; and, for the bare interpreter and the first
        # ignored event, as the whole container run seen from the host (the container's own
        # start costs the same whatever runs in it, so one event shows it).
        bare = "python -c pass"
        jobs: list[tuple[str, list[str], dict[str, str]]] = [(bare, BARE, {})]
        for index, (kind, (event_name, payload)) in enumerate(events.items()):
            path = container.host_dir / "workflow" / f"timing-{index}.json"
            path.write_text(json.dumps(payload), encoding="utf-8")
            event_env = {
                "GITHUB_EVENT_NAME": event_name,
                "GITHUB_EVENT_PATH": f"{MOUNT}/workflow/{path.name}",
            }
            jobs.append((kind, [*container.entrypoint, *container.cmd], event_env))
        env = runner.env("push", output="timing-output")
        fake.reset_requests()
        walls: dict[str, list[float]] = {name: [] for name, _, _ in jobs[:2]}
        for _ in range(runs):
            for name, command, event_env in jobs[:2]:
                seconds, done = container.run({**env, **event_env}, command)
                check(done.returncode == 0, f"{name}: timing run failed", done.stderr)
                walls[name].append(seconds)
        driver = ["python", "-c", DRIVER, json.dumps(jobs), str(runs)]
        _, done = container.run(env, driver)
        check(done.returncode == 0, "timing inside the container failed", done.stderr)
        inside = json.loads(done.stdout.strip().splitlines()[-1])
        check(fake.requests == [], "the timing runs of ignored events called the API")
        timings = {
            name: {
                "container_run_s": statistics.median(walls[name]) if name in walls else None,
                "in_container_s": inside[name]["median_s"],
                "peak_rss_mb": inside[name]["peak_kib"] / 1024,
            }
            for name, _, _ in jobs
        }
        results["startup"] = {"runs": runs, "timings": timings}
        return results


def report(results: dict[str, Any]) -> None:
    print(f"fake GitHub at {results['fake']}")
    transition = results["transition"]
    print(
        f"(b) trigger label by a maintainer -> status:received: ok, "
        f"{transition['calls']} API calls ({transition['seconds']:.2f} s as one container run)"
    )
    for line in transition["requests"]:
        print(f"      {line}")
    print("(a) ignored, exit 0, 0 API calls: " + "; ".join(results["ignored"]))
    start = results["startup"]
    timings = start["timings"]
    bare = timings["python -c pass"]
    print(f"\nstart-up, median of {start['runs']} runs each:")
    print(f"  {'what runs':54} {'whole run':>11} {'in container':>12} {'ratio':>6} {'peak RSS':>9}")
    for kind, t in timings.items():
        name = kind if kind == "python -c pass" else f"baton run: {kind}"
        ratio = t["in_container_s"] / bare["in_container_s"]
        host = "" if t["container_run_s"] is None else f"{t['container_run_s']:.3f} s"
        print(
            f"  {name:54} {host:>11} {t['in_container_s']:>10.3f} s "
            f"{ratio:>5.1f}x {t['peak_rss_mb']:>6.1f} MB"
        )
    print("  (whole run: the container run seen from the host, with the container's start;")
    print("   in container: the process alone; ratio: in container, against python -c pass)")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--" not in argv:
        print(
            "usage: image_smoke.py [--engine buildah|docker] --image IMAGE [--runs N] -- ENGINE...",
            file=sys.stderr,
        )
        return 2
    split = argv.index("--")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", choices=("buildah", "docker"), default="buildah")
    parser.add_argument("--image", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv[:split])
    engine = argv[split + 1 :]
    kind = DockerContainer if args.engine == "docker" else Container
    # A Docker container runs as root and may leave root-owned files in the mounts, which the
    # runner's own user cannot delete: the directory is the OS's to clean up then.
    with tempfile.TemporaryDirectory(prefix="baton-smoke-", ignore_cleanup_errors=True) as tmp:
        container = None
        try:
            container = kind(engine, args.image, Path(tmp))
            print(f"ENTRYPOINT {container.entrypoint} CMD {container.cmd} in {container.name}")
            results = smoke(container, max(1, args.runs))
            report(results)
            if args.json:
                args.json.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
        except SmokeFailure as failure:
            print(f"image smoke test FAILED: {failure}", file=sys.stderr)
            return 1
        finally:
            if container is not None:
                container.remove()
    return 0


if __name__ == "__main__":
    sys.exit(main())
