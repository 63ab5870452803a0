#!/usr/bin/env bash
# Build the local image the docker build-step tests compile C in: cabo-arena-gcc:bookworm (or $1).
#
# It is cabo-arena-base:bookworm (docker/make-base-image.sh) plus Debian's gcc and libc6-dev,
# installed with apt-get from the Debian mirror the base image names; the build runs with
# --network=host, as an engine started with --bridge=none has no other network. Idempotent:
# does nothing if the image exists, unless FORCE=1. Env: BASE=<image> to start from another base.
set -euo pipefail

IMAGE=${1:-cabo-arena-gcc:bookworm}
BASE=${BASE:-cabo-arena-base:bookworm}

if [ "${FORCE:-0}" != 1 ] && docker image inspect "$IMAGE" >/dev/null 2>&1; then
    echo "$IMAGE exists (FORCE=1 rebuilds it)"
    exit 0
fi
docker image inspect "$BASE" >/dev/null 2>&1 || {
    echo "no $BASE on the engine: make it first with docker/make-base-image.sh" >&2
    exit 1
}
docker build --network=host -q -t "$IMAGE" - >/dev/null <<DOCKERFILE
FROM $BASE
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends gcc libc6-dev \
    && apt-get clean && rm -rf /var/lib/apt/lists/*
DOCKERFILE
echo "built $IMAGE from $BASE"
