"""`python -m baton` and the `baton` console script.

`baton run` first asks `action.fast_path.triage` whether the event is certainly ignored;
that path imports neither pydantic, click nor PyGithub, so most events cost an interpreter
start and no API call. Any other `baton run` goes to `action.entry.run` without click (the
command takes no option, and the group's imports were a tenth of a transition's CPU), told
whether the payload passed triage already, so it is triaged once.
"""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:] == ["run"]:
        from baton.action.fast_path import triage

        triaged = triage()
        if triaged.exit_code is not None:
            sys.exit(triaged.exit_code)
        from baton.action import entry

        entry.main(triaged=triaged.passed)
    from baton.cli import cli

    cli()


if __name__ == "__main__":
    main()
