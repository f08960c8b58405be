"""Point a release tag's action.yml at the image the release published, by digest.

.github/workflows/release.yml runs this in two jobs, so that the job that may write to the
repository runs nothing else (see the workflow's header for the whole design):

    python3 scripts/pin_release.py commit --tag vX.Y.Z --image ghcr.io/OWNER/REPO \\
        --digest sha256:HEX

rewrites action.yml's `image: Dockerfile` to `image: docker://IMAGE@DIGEST`, commits that on
top of HEAD (the tagged commit) and prints `commit=SHA` for $GITHUB_OUTPUT. The commit is
reproducible: its author, committer and dates are fixed, the date taken from HEAD, so every job
that runs this on the same tag and digest makes the same SHA.

    python3 scripts/pin_release.py push --tag vX.Y.Z --commit SHA [--remote origin]

moves the tag on the remote to SHA, which must be here already (made by `commit`, so a job
cannot push a commit other than the one that was tried) and whose parent must be the commit the
tag names on the remote: a compare-and-swap, so a tag moved by someone meanwhile is left alone.
A tag that already names SHA is fine (a re-run). A token in GITHUB_TOKEN authenticates the git
calls, as an HTTP header given to git through its environment, never on a command line.

Exit status 0 when done; 1 with the reason otherwise. Stdlib only.
"""

from __future__ import annotations

import argparse
import base64
import os
import re
import subprocess
import sys
from pathlib import Path

ACTION = "action.yml"
BUILD_LINE = "  image: Dockerfile\n"
IMAGE = re.compile(r"[a-z0-9.-]+(?::[0-9]+)?(?:/[a-z0-9._-]+)+")  # lower case, no tag
DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
SHA = re.compile(r"[0-9a-f]{40}")
# The identity GitHub shows for GITHUB_TOKEN's own commits.
BOT = ("github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com")


class Refused(Exception):
    pass


def git(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["git", *args],
        env={**os.environ, **(env or {})},
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if done.returncode:
        raise Refused(f"git {args[0]} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def pinned_action(text: str, image: str, digest: str) -> str:
    """action.yml with its Dockerfile build replaced by the published image."""
    if not IMAGE.fullmatch(image):
        raise Refused(f"{image!r} is not an image name in lower case without a tag")
    if not DIGEST.fullmatch(digest):
        raise Refused(f"{digest!r} is not a digest (sha256: and 64 hex digits)")
    if text.count(BUILD_LINE) != 1:
        raise Refused(f"{ACTION} does not build `image: Dockerfile` once; already pinned?")
    return text.replace(BUILD_LINE, f"  image: docker://{image}@{digest}\n")


def commit(tag: str, image: str, digest: str) -> str:
    path = Path(ACTION)
    path.write_text(pinned_action(path.read_text(encoding="utf-8"), image, digest), "utf-8")
    git("add", ACTION)
    tree = git("write-tree")
    parent = git("rev-parse", "HEAD^{commit}")
    date = git("log", "-1", "--format=%cd", "--date=raw", parent)
    name, email = BOT
    identity = {
        "GIT_AUTHOR_NAME": name,
        "GIT_AUTHOR_EMAIL": email,
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_NAME": name,
        "GIT_COMMITTER_EMAIL": email,
        "GIT_COMMITTER_DATE": date,
    }
    message = (
        f"Release {tag}: action.yml runs the published image\n\n"
        f"image: docker://{image}@{digest}\n\n"
        f"Built from {parent} by the release workflow, which moved the tag here so that jobs\n"
        f"using {tag} pull this image instead of building the Dockerfile.\n"
    )
    sha = git("commit-tree", "--no-gpg-sign", tree, "-p", parent, env=identity, stdin=message)
    git("update-ref", "-m", f"pin_release: {tag}", "HEAD", sha)
    return sha


def _auth() -> dict[str, str]:
    token = os.environ.get("GITHUB_TOKEN", "")
    if not token:
        return {}
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return {
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.extraheader",
        "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {basic}",
    }


def push(tag: str, sha: str, remote: str) -> str:
    if not SHA.fullmatch(sha):
        raise Refused(f"{sha!r} is not a full commit SHA")
    try:
        parent = git("rev-parse", "--verify", "--quiet", f"{sha}^1")
    except Refused:
        raise Refused(
            f"{sha} was not made here: this job's commit differs from the one tried"
        ) from None
    ref = f"refs/tags/{tag}"
    auth = _auth()
    listed: dict[str, str] = {}  # ref -> object; `^{}`: the commit an annotated tag names
    for line in git("ls-remote", remote, ref, f"{ref}^{{}}", env=auth).splitlines():
        oid, name = line.split("\t")
        listed[name] = oid
    if ref not in listed:
        raise Refused(f"{remote} has no tag {tag}")
    current = listed.get(f"{ref}^{{}}", listed[ref])
    if current == sha:
        return f"{tag} already names {sha}"
    if current != parent:
        raise Refused(
            f"{tag} names {current} on {remote}, not {parent}, the commit this release was "
            "built from: someone moved it; nothing pushed"
        )
    git("push", f"--force-with-lease={ref}:{listed[ref]}", remote, f"{sha}:{ref}", env=auth)
    return f"{tag} moved from {parent} to {sha}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    make = steps.add_parser("commit", help="rewrite action.yml and commit it on top of HEAD")
    make.add_argument("--tag", required=True)
    make.add_argument("--image", required=True)
    make.add_argument("--digest", required=True)
    move = steps.add_parser("push", help="move the tag on the remote to the release commit")
    move.add_argument("--tag", required=True)
    move.add_argument("--commit", required=True)
    move.add_argument("--remote", default="origin")
    args = parser.parse_args(argv)
    try:
        if args.step == "commit":
            print(f"commit={commit(args.tag, args.image, args.digest)}")
        else:
            print(push(args.tag, args.commit, args.remote))
    except Refused as refusal:
        print(f"::error::pin_release {args.step}: {refusal}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
