"""Links inside a bot's files: where one leads, followed as the kernel follows it, so that none leads out.

A bot's directory may hold symbolic links, and a snapshot (and an archive of it) keeps them as links. A link
that leads out of the bot (``/etc/shadow``, ``../../secret``, or a chain of links that ends outside) would let
the bot read, at play time, a file of whoever runs it: the submission server refuses such an upload, and a
local ``arena submit`` refuses the same directory the same way.
"""

from __future__ import annotations

from collections.abc import Mapping

MAX_LINK_HOPS = 40
"""Links followed while resolving one link, as Linux does, before calling it a loop."""


def resolve_link(link: str, target: str, links: Mapping[str, str]) -> str | None:
    """Why following ``link`` (a path in the tree) to ``target`` goes wrong, following the tree's other
    ``links`` as the kernel would (``L/..`` is the folder above where ``L`` points, not above ``L``):
    ``leaves`` or ``loops``; None when it ends inside the tree."""
    resolved = link.split("/")[:-1]
    pending = target.split("/")[::-1]
    hops = 0
    while pending:
        part = pending.pop()
        if part in ("", "."):
            continue
        if part == "..":
            if not resolved:
                return "leaves"
            resolved.pop()
            continue
        resolved.append(part)
        here = "/".join(resolved)
        if here in links:
            hops += 1
            if hops > MAX_LINK_HOPS:
                return "loops"
            resolved.pop()
            if links[here].startswith("/"):
                return "leaves"
            pending.extend(links[here].split("/")[::-1])
    return None


def leaving_link(links: Mapping[str, str]) -> tuple[str, str] | None:
    """The first link (path -> target, in the tree's own names) that leads out of the tree, with its target;
    None when every link ends inside it."""
    for name in sorted(links):
        target = links[name]
        if target.startswith("/") or resolve_link(name, target, links):
            return name, target
    return None
