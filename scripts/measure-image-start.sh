#!/usr/bin/env bash
# What a job pays for its image before Baton starts: the Dockerfile built (what
# `image: Dockerfile` makes every job do) against the prebuilt image pulled by digest and run
# (what a release's `image: docker://...@sha256:...` makes it do). benchmarks/image.md has the
# figures.
#
# Run scripts/build-image.sh first (root, buildah): this reuses its cache, its base image and
# its pip settings, and times, each --runs times:
#   1. `buildah build --no-cache`: every layer of the Dockerfile built again, dependencies from
#      PyPI (a GitHub runner keeps no layer cache between jobs, so this is the per-job build);
#   2. `buildah build` with every layer cached (nothing changed: what a warm cache would save);
#   3. a pull of the prebuilt image into a store that has only its base, from an OCI layout on
#      this disk (GHCR stands in: the Dockerfile's layers, 14.9 MB compressed, are unpacked; the
#      network is not timed);
#   4. a container made from the pulled image running an event Baton ignores, removed after.
# Environment: BATON_IMAGE_CACHE and BATON_IMAGE_STORAGE as for build-image.sh; RUNS (default 3).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${BATON_IMAGE_CACHE:-/var/tmp/baton-image}
DRIVER=${BATON_IMAGE_STORAGE:-overlay}
RUNS=${RUNS:-3}
BASE_TAG=localhost/baton-base:bookworm
IMAGE=localhost/baton:ci
VENV=/opt/python

[[ $EUID -eq 0 ]] || { echo "measure-image-start: needs root, like build-image.sh" >&2; exit 1; }
[[ -f $CACHE/pip.conf ]] || { echo "measure-image-start: run build-image.sh first" >&2; exit 1; }
# build-image.sh's store, and one of this script's own that starts with the base alone.
BUILT=(buildah --root "$CACHE/storage-$DRIVER" --runroot "$CACHE/runroot-$DRIVER"
    --storage-driver "$DRIVER")
FRESH_DIR=$CACHE/measure-store
FRESH=(buildah --root "$FRESH_DIR/storage" --runroot "$FRESH_DIR/runroot" --storage-driver "$DRIVER")
now() { date +%s.%N; }
took() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

build() {
    "${BUILT[@]}" build --isolation chroot --layers --pull=never --from "$BASE_TAG" \
        --volume /etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro \
        --volume "$CACHE/pip.conf:$VENV/pip.conf:ro" \
        --tag "$IMAGE" --file Dockerfile "$@" . >/dev/null 2>&1
}

layouts=$CACHE/measure-layouts
rm -rf "$layouts" && mkdir -p "$layouts"
"${BUILT[@]}" push --quiet "$BASE_TAG" "oci:$layouts/base:base" >/dev/null
echo "storage $DRIVER, $RUNS runs each"

for i in $(seq "$RUNS"); do
    t=$(now); build --no-cache; cold=$(took "$t")
    t=$(now); build; warm=$(took "$t")
    rm -rf "$layouts/baton"
    "${BUILT[@]}" push --quiet "$IMAGE" "oci:$layouts/baton:baton" >/dev/null

    rm -rf "$FRESH_DIR"
    "${FRESH[@]}" pull --quiet "oci:$layouts/base:base" >/dev/null
    t=$(now); id=$("${FRESH[@]}" pull --quiet "oci:$layouts/baton:baton"); pull=$(took "$t")

    files=$(mktemp -d)
    echo '{"ref": "refs/heads/main"}' >"$files/event.json"
    : >"$files/output"
    t=$(now)
    ctr=$("${FRESH[@]}" from --pull=never "$id")
    "${FRESH[@]}" run --isolation chroot --volume "$files:/github/files" \
        --env GITHUB_EVENT_NAME=push --env GITHUB_EVENT_PATH=/github/files/event.json \
        --env GITHUB_OUTPUT=/github/files/output --env GITHUB_REPOSITORY=octo/repo \
        --env GITHUB_API_URL=http://127.0.0.1:9 "$ctr" -- baton run >/dev/null
    "${FRESH[@]}" rm "$ctr" >/dev/null
    run=$(took "$t")
    # outputs are written as `name<<DELIMITER`, the value on the next line
    grep -A1 '^transitioned' "$files/output" | grep -qx false ||
        { echo "the ignored event did not end as one" >&2; exit 1; }
    rm -rf "$files" "$FRESH_DIR"
    echo "run $i: build, nothing cached ${cold} s | build, all cached ${warm} s |" \
        "pull, base present ${pull} s | container + ignored event ${run} s"
done
rm -rf "$layouts"
