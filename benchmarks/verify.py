"""`baton verify`'s figures (issue 26): its own time over the bare test command, and reading a
JUnit file of 10,000 tests into evidence (time, evidence size).

    python benchmarks/verify.py [--quick]

prints a Markdown section; docs/evidence.md quotes it. Wall times are medians of interleaved
runs on whatever machine runs it; no test asserts a time.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests")]

from baton.core.model.evidence import Evidence  # noqa: E402
from baton.core.rules.evidence import judge  # noqa: E402
from baton.evidence import junit  # noqa: E402
from baton.evidence.verify import cleaner, write  # noqa: E402
from support.scratch_repo import PYTEST, ScratchRepo  # noqa: E402

TINY_JUNIT = 'printf \'<testsuite><testcase name="t"/></testsuite>\' > "$BATON_JUNIT"'
MESSAGE = "AssertionError: assert {'id': 7, 'name': 'widget'} == {'id': 7, 'name': 'gadget'}"


def _cpu_and_wall(run: Callable[[], object]) -> tuple[float, float]:
    """CPU seconds of the processes `run` started and waited for (user and system), and wall
    seconds: on a shared machine the CPU time is the figure that does not move with the load."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    run()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def _repo(root: Path, command: str, tests: int) -> ScratchRepo:
    repo = ScratchRepo(root)
    body = "".join(f"\n\ndef test_{i}():\n    assert {i} == {i}\n" for i in range(tests))
    config = f"tests:\n  command: '{command.replace(chr(39), chr(39) * 2)}'\n  timeout: 10m\n"
    repo.commit("base", {".github/baton.yml": config, "tests/test_many.py": body})
    return repo


def _shell(command: str, cwd: Path, junit_path: Path) -> None:
    env = {**os.environ, "BATON_JUNIT": str(junit_path)}
    subprocess.run(["bash", "-c", command], cwd=cwd, env=env, check=False, capture_output=True)


def _verify(cwd: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "baton", "verify", "--output", os.devnull],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )


def overhead(times: int) -> list[str]:
    """`baton verify` against the command alone, interleaved, for a trivial command and for
    pytest running 50 tests: CPU (user and system, every process) and wall time."""
    rows = [
        "| command | bare: CPU, wall | `baton verify`: CPU, wall | Baton's own CPU |",
        "|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as folder:
        for name, command in [("printf one test case", TINY_JUNIT), ("pytest, 50 tests", PYTEST)]:
            repo = _repo(Path(folder) / name.split()[0], command, 50)
            out = Path(folder) / "bare.xml"
            bare = [_cpu_and_wall(partial(_shell, command, repo.root, out)) for _ in range(times)]
            full = [_cpu_and_wall(partial(_verify, repo.root)) for _ in range(times)]
            b_cpu, b_wall = (statistics.median(x) for x in zip(*bare, strict=True))
            f_cpu, f_wall = (statistics.median(x) for x in zip(*full, strict=True))
            rows.append(
                f"| {name} | {b_cpu * 1000:.0f} ms, {b_wall * 1000:.0f} ms "
                f"| {f_cpu * 1000:.0f} ms, {f_wall * 1000:.0f} ms "
                f"| {(f_cpu - b_cpu) * 1000:.0f} ms |"
            )
    return rows


def _big_junit(tests: int) -> bytes:
    cases = []
    for i in range(tests):
        head = (
            f'<testcase classname="tests.test_module_{i // 100}" name="test_case_{i}" time="0.001"'
        )
        if i % 10 == 0:
            cases.append(
                f'{head}><failure message="{MESSAGE}">{MESSAGE}\n'
                + "  at line\n" * 20
                + "</failure></testcase>"
            )
        else:
            cases.append(head + "/>")
    suite = f'<testsuites><testsuite name="pytest" tests="{tests}">' + "".join(cases)
    return (suite + "</testsuite></testsuites>").encode()


def parse_10k(times: int) -> list[str]:
    """Reading 10,000 test cases (one in ten failing, with a message) into evidence."""
    data = _big_junit(10_000)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "junit.xml"
        path.write_bytes(data)
        out = Path(folder) / "baton-evidence.json"
        clean = cleaner(os.environ)

        def once() -> None:
            read = junit.read(path, clean)
            verdict, reason = judge(read.tests, set(), 1, problem=read.problem)
            evidence = Evidence(
                verdict=verdict, reason=reason, commit="0" * 40, exit_status=1, tests=read.tests
            )
            write(evidence, out)

        cpu = []
        wall = []
        for _ in range(times):
            start_cpu, start = time.process_time(), time.perf_counter()
            once()
            cpu.append(time.process_time() - start_cpu)
            wall.append(time.perf_counter() - start)
        size = out.stat().st_size
    return [
        "| JUnit read | evidence written | read, judge, write: CPU, wall |",
        "|---|---|---|",
        f"| {len(data) / 1e6:.2f} MB, 10,000 tests | {size / 1e6:.2f} MB "
        f"| {statistics.median(cpu) * 1000:.0f} ms, {statistics.median(wall) * 1000:.0f} ms |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    times = 3 if parser.parse_args().quick else 11
    print("## `baton verify`\n")
    print(f"Medians of {times} runs; `uptime`'s load: {os.getloadavg()[0]:.1f}.\n")
    print("\n".join(overhead(times)) + "\n")
    print("\n".join(parse_10k(times)))


if __name__ == "__main__":
    main()
