"""What the container tests share: looking for containers a test left behind, and for images."""

from __future__ import annotations

import os
from typing import Any

from arena.sandbox import docker as docker_sandbox


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
