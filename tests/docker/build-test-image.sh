#!/usr/bin/env bash
# Build the local image the docker sandbox tests run: cabo-arena-test:latest (or $1).
#
# No registry is needed: every program is a statically linked C binary, packed into a
# tarball and loaded with `docker import`. The image holds
#   /bot/bot         the repo's C random bot (bots/c-random/bot.c)
#   /bot/echo        channel test partner (echo.c)
#   /bot/forkbomb    fork bomb (forkbomb.c)
#   /bot/memhog      memory hog (memhog.c)
#   /bot/network     network probe (network.c)
#   /bot/ignore_eof  ignores stdin EOF and SIGTERM (ignore_eof.c)
#   /bot/stderr_flood floods stderr from a child, answers like echo, ignores EOF (stderr_flood.c)
#   /tmp             empty (the sandbox mounts a tmpfs there)
# The image is labelled with a hash of its sources and rebuilt only when they change
# (FORCE=1 rebuilds anyway). Needs gcc with a static libc (Debian: gcc, libc6-dev) and a
# docker client that reaches the engine (see start-dockerd.sh).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
IMAGE=${1:-cabo-arena-test:latest}
PROGRAMS=(echo forkbomb memhog network ignore_eof stderr_flood)
LABEL=cabo-arena-test.sources

HASH=$(cat "$ROOT/bots/c-random/bot.c" "$HERE"/*.c "$HERE"/*.h "$HERE/build-test-image.sh" | sha256sum | cut -c1-16)
OLD=$(docker image inspect -f '{{.Id}} {{index .Config.Labels "'"$LABEL"'"}}' "$IMAGE" 2>/dev/null || true)
if [ "${FORCE:-0}" != 1 ] && [ "${OLD#* }" = "$HASH" ]; then
    echo "$IMAGE is up to date (sources $HASH)"
    exit 0
fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/root/bot" "$TMP/root/tmp"
chmod 1777 "$TMP/root/tmp"
gcc -O2 -std=c99 -static -o "$TMP/root/bot/bot" "$ROOT/bots/c-random/bot.c"
for name in "${PROGRAMS[@]}"; do
    gcc -O2 -std=gnu99 -Wall -Wextra -static -o "$TMP/root/bot/$name" "$HERE/$name.c"
done
chmod 755 "$TMP/root/bot" "$TMP/root/bot"/*
tar -C "$TMP/root" --numeric-owner --owner=0 --group=0 -cf "$TMP/image.tar" .
docker import --change "LABEL $LABEL=$HASH" --change 'WORKDIR /tmp' --change 'CMD ["/bot/bot"]' \
    "$TMP/image.tar" "$IMAGE" >/dev/null
OLD_ID=${OLD%% *}
if [ -n "$OLD_ID" ] && [ "$OLD_ID" != "$(docker image inspect -f '{{.Id}}' "$IMAGE")" ]; then
    docker image rm "$OLD_ID" >/dev/null 2>&1 || true   # the previous build, now untagged
fi
echo "built $IMAGE (sources $HASH)"
