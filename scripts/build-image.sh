#!/usr/bin/env bash
# Builds the Action's Docker image for real, then runs it against the fake GitHub of the tests.
# .ci/run runs it, here and on GitHub's hosted runners, which differ in what they offer:
#
# - A Docker engine answers (`docker info`; GitHub's runners, user `runner`, no root needed):
#   `docker build` of the Dockerfile as it is (FROM python:3.12-slim), then
#   scripts/image_smoke.py runs the image with `docker run`, and the sizes and start-up
#   figures are printed as below.
# - No Docker engine (this project's machine: root, no daemon), with root on Debian/Ubuntu:
#
#   1. installs buildah and debootstrap with apt-get when they are missing;
#   2. makes a Python base with debootstrap (Debian bookworm: python3, pip, venv, ca-certificates,
#      with a virtualenv on PATH standing in for python:3.12-slim's /usr/local), kept as a
#      tarball in the cache directory and reused while its recipe is unchanged;
#   3. imports that tarball as a local image in a buildah store of its own (also in the cache;
#      overlay storage when the kernel allows it, else vfs);
#   4. builds the Dockerfile with `buildah build --isolation chroot`, its FROM replaced by that
#      base (`--from`; the Dockerfile itself keeps `FROM python:3.12-slim` for GitHub); PyPI is
#      reached from inside the build through the host's CA bundle and the host's own pip index
#      settings, bind-mounted for the RUN steps only (nothing of them stays in the image);
#   5. runs the image's ENTRYPOINT and CMD with `buildah run` against the fake GitHub
#      (scripts/image_smoke.py): an event Baton ignores (no API call at all) and a maintainer's
#      trigger label (-> status:received), checking exit codes, outputs and the fake's state;
#   6. prints the image size, the build time and the start-up time of the ignored-event run
#      beside a bare `python -c pass` in the same image.
#
# The buildah way needs root (debootstrap, chroot) and a network that reaches Debian's mirror
# and PyPI; the Docker way needs the engine and its registries.
# Environment:
#   BATON_IMAGE_ENGINE docker or buildah (default: docker when a Docker engine answers).
#   BATON_IMAGE_CACHE  where the base and the buildah store live (default /var/tmp/baton-image);
#                      delete it for a cold run. Kept outside the repository.
#   BATON_IMAGE_RUNS   start-up timing repeats (default 5).
#   BATON_IMAGE_STORAGE  overlay or vfs (default: overlay when it can be mounted, else vfs).
#   PYTHON             the host interpreter that runs the smoke test (default python3, >= 3.11).
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE=${BATON_IMAGE_CACHE:-/var/tmp/baton-image}
RUNS=${BATON_IMAGE_RUNS:-5}
PYTHON=${PYTHON:-python3}
SUITE=bookworm
PACKAGES=python3,python3-pip,python3-venv,ca-certificates
VENV=/opt/python
BASE_TAG=localhost/baton-base:$SUITE
IMAGE=localhost/baton:ci
# Bump when the recipe of the base changes in a way the variables above do not show.
RECIPE="v2 $SUITE $PACKAGES $VENV"

say() { printf '\n== [%6s s] %s\n' "$(since "$started")" "$*"; }
die() { printf 'build-image: %s\n' "$*" >&2; exit 1; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
# One line from the smoke test's figures: the slowest ignored event against a bare interpreter.
startup_summary() {
    "$PYTHON" - "$CACHE/smoke.json" <<'PY'
import json, sys
timings = json.load(open(sys.argv[1]))["startup"]["timings"]
bare = timings.pop("python -c pass")["in_container_s"]
worst = max(t["in_container_s"] for t in timings.values())
print(f"{worst * 1000:.0f} ms at most for an ignored event vs {bare * 1000:.0f} ms for python -c pass"
      f" ({worst / bare:.1f}x), inside the container")
PY
}

started=$(now)
mkdir -p "$CACHE"

# --------------------------------------------------------------------------- 0. the engine
# A docker client alone is not enough (this machine has one and no daemon): the engine must
# answer. `timeout` because a client pointed at an unreachable remote host can hang.
ENGINE=${BATON_IMAGE_ENGINE:-auto}
if [[ $ENGINE == auto ]]; then
    if command -v docker >/dev/null && timeout 30 docker info >/dev/null 2>&1; then
        ENGINE=docker
    else
        ENGINE=buildah
    fi
fi
[[ $ENGINE == docker || $ENGINE == buildah ]] || die "BATON_IMAGE_ENGINE must be docker or buildah"

if [[ $ENGINE == docker ]]; then
    IMAGE=baton:ci
    base=$(awk 'toupper($1) == "FROM" { print $2; exit }' Dockerfile)
    say "building the Dockerfile as $IMAGE with Docker $(docker version --format '{{.Server.Version}}')"
    t=$(now)
    docker build --progress plain --pull --tag "$IMAGE" --file Dockerfile .
    build_seconds=$(since "$t")

    # Sizes as `docker image inspect` reports them (the base pulled on its own: BuildKit may
    # keep the one it built from out of the image list).
    say "image size"
    docker pull --quiet "$base" >/dev/null
    raw_total=$(docker image inspect --format '{{.Size}}' "$IMAGE")
    raw_base=$(docker image inspect --format '{{.Size}}' "$base")
    echo "whole image:       $(mb "$raw_total")"
    echo "added to $base: $(mb $((raw_total - raw_base)))"

    say "running the image's entrypoint against the fake GitHub (scripts/image_smoke.py)"
    "$PYTHON" scripts/image_smoke.py --engine docker --image "$IMAGE" --runs "$RUNS" \
        --json "$CACHE/smoke.json" -- docker
    startup=$(startup_summary)
    say "image check passed in $(since "$started") s"
    echo "image $IMAGE: $(mb "$raw_total"); the Dockerfile's layers" \
        "$(mb $((raw_total - raw_base))); build $build_seconds s"
    echo "start-up: $startup"
    exit 0
fi

[[ $EUID -eq 0 ]] || die "no Docker engine answers, and buildah needs root (debootstrap, chroot): use sudo"

# The storage driver: overlay when this kernel lets us mount an overlay here (each build step
# and container is then a thin layer), else vfs, which needs no kernel support but copies the
# whole root filesystem for every step and container (on this 2-core machine: a build ~10x
# slower). BATON_IMAGE_STORAGE=vfs or overlay forces one.
overlay_works() {
    local probe
    probe=$(mktemp -d "$CACHE/overlay-probe.XXXXXX")
    mkdir "$probe/lower" "$probe/upper" "$probe/work" "$probe/merged"
    if mount -t overlay overlay \
        -o "lowerdir=$probe/lower,upperdir=$probe/upper,workdir=$probe/work" "$probe/merged" \
        2>/dev/null; then
        umount "$probe/merged"
        rm -rf "$probe"
        return 0
    fi
    rm -rf "$probe"
    return 1
}
DRIVER=${BATON_IMAGE_STORAGE:-auto}
if [[ $DRIVER == auto ]]; then
    if overlay_works; then DRIVER=overlay; else DRIVER=vfs; fi
fi
[[ $DRIVER == overlay || $DRIVER == vfs ]] || die "BATON_IMAGE_STORAGE must be overlay or vfs"
# Every buildah call uses a store of its own under the cache (one per driver): nothing here
# touches a store the machine may use for something else.
BUILDAH=(buildah --root "$CACHE/storage-$DRIVER" --runroot "$CACHE/runroot-$DRIVER"
    --storage-driver "$DRIVER")
buildah_() { "${BUILDAH[@]}" "$@"; }

# --------------------------------------------------------------------------- 1. the tools
missing=()
command -v buildah >/dev/null || missing+=(buildah)
command -v debootstrap >/dev/null || missing+=(debootstrap)
if ((${#missing[@]})); then
    say "installing ${missing[*]} with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "$(buildah --version); debootstrap $(dpkg-query -W -f '${Version}' debootstrap);" \
    "storage driver $DRIVER"

# --------------------------------------------------------------------------- 2. the base rootfs
# The Debian mirror this machine's apt already uses for $SUITE (deb822 or one-line sources);
# none found: debootstrap's own default.
apt_mirror() {
    local file
    for file in /etc/apt/sources.list.d/*.sources; do
        [[ -f $file ]] || continue
        awk -v suite="$SUITE" '
            function flush() { if (uri != "" && ok) print uri; uri = ""; ok = 0 }
            /^[[:space:]]*$/ { flush(); next }
            tolower($1) == "uris:" { uri = $2 }
            tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) ok = 1 }
            END { flush() }
        ' "$file"
    done
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk -v suite="$SUITE" '$1 == "deb" { sub(/\[[^]]*\][[:space:]]*/, ""); if ($3 == suite) print $2 }'
}

base_tar=$CACHE/base-$SUITE.tar
if [[ -f $base_tar && "$(cat "$base_tar.recipe" 2>/dev/null)" == "$RECIPE" ]]; then
    say "base rootfs: reusing $base_tar"
else
    mirror=$(apt_mirror | grep -m1 -E '^https?://' || true)
    say "base rootfs: debootstrap $SUITE (${mirror:-debootstrap default mirror}) into the cache"
    t=$(now)
    rootfs=$CACHE/rootfs.tmp
    rm -rf "$rootfs" "$base_tar.tmp"
    debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$rootfs" ${mirror:+"$mirror"} \
        >"$CACHE/debootstrap.log" 2>&1 || {
        tail -n 30 "$CACHE/debootstrap.log" >&2
        die "debootstrap failed (log: $CACHE/debootstrap.log)"
    }
    # The virtualenv plays python:*-slim's /usr/local: `python` and `pip` on PATH, installs
    # allowed (Debian's own interpreter refuses pip installs, PEP 668).
    chroot "$rootfs" /usr/bin/python3 -m venv "$VENV"
    # An empty site config for the build to bind-mount its pip settings over: a mount over a
    # file that exists leaves nothing behind in the image (a new mount point would stay as an
    # empty file).
    touch "$rootfs$VENV/pip.conf"
    # What a slim image leaves out: apt's caches and lists, docs, man pages, translations.
    chroot "$rootfs" apt-get clean
    rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/log/* \
        "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
        "$rootfs"/usr/share/locale/* "$rootfs"/tmp/* "$rootfs"/root/.cache
    tar --numeric-owner --xattrs -C "$rootfs" -cf "$base_tar.tmp" .
    rm -rf "$rootfs"
    mv "$base_tar.tmp" "$base_tar"
    echo "$RECIPE" >"$base_tar.recipe"
    echo "debootstrap and trim: $(since "$t") s, $(du -h "$base_tar" | cut -f1) tarball"
fi

# --------------------------------------------------------------------------- 3. the base image
base_id=$(sha256sum "$base_tar" | cut -c1-16)
if [[ "$(buildah_ inspect --type image --format '{{index .ImageAnnotations "baton.base"}}' \
    "$BASE_TAG" 2>/dev/null || true)" == "$base_id" ]]; then
    say "base image: reusing $BASE_TAG"
else
    say "base image: importing the rootfs as $BASE_TAG"
    ctr=$(buildah_ from scratch)
    buildah_ add --quiet "$ctr" "$base_tar" / >/dev/null
    buildah_ config \
        --env PATH="$VENV/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        --env LANG=C.UTF-8 \
        --cmd python3 \
        --annotation baton.base="$base_id" \
        "$ctr"
    buildah_ commit --quiet --rm "$ctr" "$BASE_TAG" >/dev/null
fi

# --------------------------------------------------------------------------- 4. the build
# pip inside the build: the host's CA bundle (a TLS-inspecting proxy's CA may be in it) and the
# host's own index settings, when they are URLs the build can reach (file:// indexes and local
# find-links dirs are the host's business). Both are bind mounts for the RUN steps only.
host_ca=""
for candidate in "${PIP_CERT:-}" "${SSL_CERT_FILE:-}" "${REQUESTS_CA_BUNDLE:-}" \
    /etc/ssl/certs/ca-certificates.crt; do
    if [[ -n $candidate && -f $candidate ]]; then host_ca=$candidate; break; fi
done
[[ -n $host_ca ]] || die "no CA bundle found on the host (set PIP_CERT)"

pip_setting() { # the host's value of a pip setting: PIP_<NAME> first, then pip's config files
    local env_name
    env_name=PIP_$(tr 'a-z-' 'A-Z_' <<<"$1")
    if [[ -n ${!env_name:-} ]]; then echo "${!env_name}"; return; fi
    "$PYTHON" -m pip config get "global.$1" 2>/dev/null ||
        "$PYTHON" -m pip config get "install.$1" 2>/dev/null || true
}
remote_urls() { tr -s '[:blank:]' '\n' | grep -E '^https?://' | paste -sd ' ' || true; }

pip_conf=$CACHE/pip.conf
{
    echo "# Generated by scripts/build-image.sh for the RUN steps of the image build."
    echo "[global]"
    echo "cert = /etc/ssl/certs/ca-certificates.crt"
    index=$(pip_setting index-url | remote_urls)
    extra=$(pip_setting extra-index-url | remote_urls)
    trusted=$(pip_setting trusted-host | tr '\n' ' ')
    [[ -z $index ]] || echo "index-url = ${index%% *}"
    [[ -z $extra ]] || echo "extra-index-url = $extra"
    [[ -z ${trusted// /} ]] || echo "trusted-host = $trusted"
} >"$pip_conf"
echo "pip in the build: CA bundle $host_ca; settings passed on:"
grep -v '^#' "$pip_conf" | sed 's/^/    /'

say "building the Dockerfile as $IMAGE (FROM replaced by $BASE_TAG)"
t=$(now)
buildah_ build --isolation chroot --layers --pull=never --from "$BASE_TAG" \
    --volume "$host_ca:/etc/ssl/certs/ca-certificates.crt:ro" \
    --volume "$pip_conf:$VENV/pip.conf:ro" \
    --tag "$IMAGE" --file Dockerfile .
build_seconds=$(since "$t")
buildah_ rmi --prune >/dev/null 2>&1 || true # layers of earlier builds that no tag names

# --------------------------------------------------------------------------- 5. the sizes
# Compressed (what a pull downloads) and uncompressed (on disk once pulled), for the whole image
# and for the layers the Dockerfile adds on top of its base: the image pushed to an OCI layout
# with gzip layers, each layer measured as stored and as unpacked.
say "image size"
image_id=$(buildah_ inspect --type image --format '{{.FromImageID}}' "$IMAGE")
sizes_file=$CACHE/sizes-$DRIVER
if [[ "$(head -n1 "$sizes_file" 2>/dev/null)" != "$image_id" ]]; then
    layout=$CACHE/layout
    rm -rf "$layout" && mkdir -p "$layout"
    buildah_ push --quiet --compression-format gzip "$IMAGE" "oci:$layout" >/dev/null
    { echo "$image_id"; "$PYTHON" - "$layout" <<'PY'
import gzip, json, sys
from pathlib import Path

root = Path(sys.argv[1])
blob = lambda digest: root / "blobs" / Path(*digest.split(":"))  # noqa: E731
index = json.loads((root / "index.json").read_text())
manifest = json.loads(blob(index["manifests"][0]["digest"]).read_text())
packed, unpacked = [], []
for layer in manifest["layers"]:
    packed.append(layer["size"])
    with gzip.open(blob(layer["digest"])) as stream:
        unpacked.append(sum(iter(lambda: len(stream.read(1 << 20)), 0)))
print(sum(packed), sum(packed[1:]), sum(unpacked), sum(unpacked[1:]))  # [0] is the base
PY
    } >"$sizes_file.tmp"
    mv "$sizes_file.tmp" "$sizes_file"
    rm -rf "$layout"
else
    echo "(the image is unchanged since it was last measured)"
fi
read -r gz_total gz_added raw_total raw_added < <(tail -n1 "$sizes_file")
echo "whole image:       $(mb "$raw_total") unpacked, $(mb "$gz_total") compressed"
echo "added to the base: $(mb "$raw_added") unpacked, $(mb "$gz_added") compressed"

# --------------------------------------------------------------------------- 6. the image, run
say "running the image's entrypoint against the fake GitHub (scripts/image_smoke.py)"
"$PYTHON" scripts/image_smoke.py --image "$IMAGE" --runs "$RUNS" --json "$CACHE/smoke.json" -- \
    "${BUILDAH[@]}"

startup=$(startup_summary)
say "image check passed in $(since "$started") s"
echo "image $IMAGE: $(mb "$raw_total") unpacked ($(mb "$gz_total") compressed); the Dockerfile's" \
    "layers $(mb "$raw_added") ($(mb "$gz_added")); build $build_seconds s"
echo "start-up: $startup"
