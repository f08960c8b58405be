# The image behind action.yml. Every issue event starts a container from it, so it is kept
# small and quick to start: a slim Python base, the dependencies in their own layer (built
# before the code is copied, so a change to src/ reuses it), no pip cache, no dev tools and
# never a token — GitHub passes the token to the container at run time as INPUT_GITHUB-TOKEN.
#
# Actions runs Docker actions as root with the workspace mounted at /github/workspace and that
# as the working directory, so relative paths such as `.github/baton.yml` resolve in the user's
# repository; the image needs no user of its own.
#
# One stage is enough: every dependency installs from a wheel (no compiler, no build tools to
# leave behind), pip keeps no cache and builds Baton's own wheel in a temporary directory, so a
# second stage would save only the 0.4 MB copy of src/ below. scripts/build-image.sh builds
# and runs this file for real without a Docker engine (buildah; `--from` puts a local Debian
# Python base in place of python:3.12-slim) and prints the size and start-up cost that
# benchmarks/image.md records.
#
# tests/test_packaging.py replays the FROM/ENV/WORKDIR/COPY/RUN steps below in a fresh
# virtualenv and runs the ENTRYPOINT, so keep to those instructions and to relative paths.
#
# The base is pinned by digest, its tag beside it for readers and Dependabot (which moves both
# together): a tag can be re-pushed, a digest names one image for good.
FROM python:3.12-slim@sha256:78387bc3881b8273120a12ebe6c1ab22b018ccc2c9adf565ae1ac9b536e184ea

# No .pyc written at run time (the container is thrown away; pip compiles them at install time,
# which is what makes the start fast), unbuffered logs, no pip self-check on every install.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /opt/baton

# The dependencies alone, from the lock compiled from pyproject.toml (exact versions, and the
# sha256 of every file PyPI has for them: pip refuses any other file). This layer changes only
# when the lock does; the lock stays in the image as the list of what it holds.
COPY requirements.txt ./
RUN pip install --no-cache-dir --require-hashes --requirement requirements.txt

# Then Baton itself, without touching the dependencies again. Its wheel is built by setuptools
# in pip's isolated build environment (pyproject's build-system), which leaves nothing behind.
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
RUN pip install --no-cache-dir --no-deps . \
    && rm -rf build src/*.egg-info

LABEL org.opencontainers.image.title="baton" \
      org.opencontainers.image.description="Walks GitHub issues through a state machine of AI-agent work, with humans in the loop." \
      org.opencontainers.image.licenses="MIT"

# action.yml passes the command (run, report, context, agent, sweep) as the only argument;
# `docker run IMAGE` alone handles the event it is given, like the Action does by default.
ENTRYPOINT ["baton"]
CMD ["run"]
