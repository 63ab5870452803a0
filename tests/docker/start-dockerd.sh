#!/usr/bin/env bash
# Start a Docker engine for the docker sandbox tests, if none answers yet.
#
# Idempotent: exits 0 at once when `docker info` already answers (on DOCKER_HOST or the
# default socket). Otherwise starts Debian's dockerd (apt-get install docker.io) in the
# background without touching the host's firewall or bridges (bots run with no network
# at all, so none is needed), waits up to ${DOCKERD_WAIT:-60} s, and exits non-zero with
# the tail of the log if the engine does not come up.
#
# Env: DOCKERD_LOG (default /tmp/dockerd.log), DOCKERD_WAIT (seconds, default 60).
set -euo pipefail

LOG=${DOCKERD_LOG:-/tmp/dockerd.log}
WAIT=${DOCKERD_WAIT:-60}
SOCK=/var/run/docker.sock

engine_answers() {
    timeout 10 docker info >/dev/null 2>&1
}

if ! command -v docker >/dev/null 2>&1; then
    echo "start-dockerd: no docker client on PATH (Debian: apt-get install docker.io)" >&2
    exit 1
fi
if engine_answers; then
    exit 0
fi
if [ -n "${DOCKER_HOST:-}" ] && [ "${DOCKER_HOST}" != "unix://${SOCK}" ]; then
    echo "start-dockerd: DOCKER_HOST=${DOCKER_HOST} does not answer; not starting a local engine for it" >&2
    exit 1
fi
if ! command -v dockerd >/dev/null 2>&1; then
    echo "start-dockerd: dockerd not found (Debian: apt-get install docker.io)" >&2
    exit 1
fi
if [ "$(id -u)" != 0 ]; then
    echo "start-dockerd: must run as root to start dockerd" >&2
    exit 1
fi

# A dockerd of ours that is still starting: wait for it instead of starting a second one.
if ! pgrep -x dockerd >/dev/null 2>&1; then
    rm -f /var/run/docker.pid
    nohup dockerd --iptables=false --bridge=none --host="unix://${SOCK}" >"$LOG" 2>&1 </dev/null &
    disown || true
fi

for _ in $(seq 1 "$WAIT"); do
    if engine_answers; then
        exit 0
    fi
    sleep 1
done
echo "start-dockerd: the engine did not answer within ${WAIT} s; last lines of $LOG:" >&2
tail -n 30 "$LOG" >&2 || true
exit 1
