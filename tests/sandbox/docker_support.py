"""What the container tests share: the engine fixture, looking for containers a test left behind, and for images."""

from __future__ import annotations

import os
import socket
from typing import Any

import pytest

from arena.sandbox import DockerBackend
from arena.sandbox import docker as docker_sandbox


@pytest.fixture(scope="module")
def engine() -> Any:
    """A docker SDK client, or skip (with the reason) when no engine answers."""
    ok, why = DockerBackend().available()
    if not ok:
        pytest.skip(f"no Docker engine to test against: {why}")
    return docker_sandbox.connect()


def leftovers(client: Any) -> list[str]:
    """Labelled containers of this process or of a dead process on this host."""
    host = docker_sandbox.this_host()
    found = []
    for info in client.api.containers(all=True, filters={"label": "cabo-arena"}):
        owner = (info.get("Labels") or {}).get("cabo-arena.owner", "")
        owner_host, _, pid = owner.rpartition(":")
        if owner_host == host and (pid == str(os.getpid()) or not os.path.exists(f"/proc/{pid}")):
            found.append(f"{info['Id'][:12]} {info['State']} owner={owner}")
    return found


def has_image(engine: Any, image: str) -> bool:
    """Whether ``image`` is on the engine."""
    from docker.errors import ImageNotFound

    try:
        engine.api.inspect_image(image)
    except ImageNotFound:
        return False
    return True


def host_addresses() -> list[str]:
    """This host's non-loopback IPv4 addresses (a listener there is what a bot must not reach)."""
    found: set[str] = set()
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect(("1.1.1.1", 53))  # route lookup only, nothing is sent
            found.add(s.getsockname()[0])
    except OSError:
        pass
    try:
        found.update(info[4][0] for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET))
    except OSError:
        pass
    return sorted(ip for ip in found if not ip.startswith("127."))
