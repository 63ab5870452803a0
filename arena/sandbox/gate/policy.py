"""Where a dependency fetch may connect: the package indexes, and public addresses that are not this machine.

A destination is a host and port as the fetch asked the gate for them. The gate resolves
the host itself and hands back only the addresses it may connect to, so what is checked is
what is connected (no second lookup a DNS answer could change in between).

The package indexes are trusted *by name*, wherever this machine's resolver sends them
(only the organiser controls that): PyPI and the npm registry on port 443, every http(s)
index the machine's own package configuration names (``pip.conf``, ``/etc/npmrc``,
``PIP_INDEX_URL`` ...), and what the organiser lists in ``ARENA_FETCH_ALLOW``. Any other
host is connected only at addresses that are global and not this machine's.
"""

from __future__ import annotations

import ipaddress
import os
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from ..errors import SandboxError
from . import addresses
from .addresses import Address

ALLOW_VAR = "ARENA_FETCH_ALLOW"
"""The organiser's further indexes: ``host:port`` or URLs, separated by spaces or commas."""

INDEXES = ("pypi.org:443", "files.pythonhosted.org:443", "registry.npmjs.org:443")
"""The public indexes pip and npm fetch from by default."""


class Refused(Exception):
    """A destination the fetch may not reach; the message says why in a few words."""


@dataclass(frozen=True)
class Policy:
    """The rule the gate applies to each connection a fetch asks for."""

    named: frozenset[tuple[str, int]] = frozenset()
    """``(host, port)`` pairs connected wherever they resolve: the package indexes."""
    own: frozenset[Address] = field(default_factory=frozenset)
    """This machine's addresses, never connected unless named."""

    @classmethod
    def of_machine(cls, index_urls: Iterable[str] = (), environ: Mapping[str, str] | None = None) -> Policy:
        """The default indexes, ``index_urls`` (the machine's package configuration) and the organiser's
        ``ARENA_FETCH_ALLOW``; raises SandboxError naming a malformed entry of the latter."""
        environ = os.environ if environ is None else environ
        named = {_pair(entry) for entry in INDEXES}
        for url in index_urls:
            try:
                named.add(_pair(url))
            except ValueError:
                continue  # a machine value that is no http(s) URL: nothing to allow
        for entry in environ.get(ALLOW_VAR, "").replace(",", " ").split():
            try:
                named.add(_pair(entry))
            except ValueError as exc:
                raise SandboxError(f"{ALLOW_VAR}: {entry!r} {exc}; give host:port or an http(s) URL, "
                                   "e.g. mirror.example.org:443") from None
        return cls(frozenset(named), addresses.own_addresses())

    def destinations(self, host: str, port: int) -> list[Address]:
        """The addresses of ``host`` the fetch may connect to at ``port``, in the resolver's order; raises
        :class:`Refused` when there are none."""
        name = _normal(host)
        if not 0 < port < 65536:
            raise Refused(f"port {port} is not a TCP port")
        found = _resolve(name, port)
        if (name, port) in self.named:
            return found
        allowed, why = [], ""
        for address in found:
            reason = addresses.refusal(address, self.own)
            if reason is None:
                allowed.append(address)
            elif not why:
                why = f"{address} is {reason}" if str(address) == name else f"{name} resolves to {address}, {reason}"
        if not allowed:
            raise Refused(why)
        return allowed


def _resolve(name: str, port: int) -> list[Address]:
    """Every address ``name`` has (a literal address: itself), as the machine's resolver says."""
    try:
        literal = ipaddress.ip_address(name)
    except ValueError:
        pass
    else:
        return [literal]
    try:
        infos = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise Refused(f"{name} cannot be resolved ({exc})") from None
    found: list[Address] = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).partition("%")[0])
        if address not in found:
            found.append(address)
    if not found:
        raise Refused(f"{name} has no address")
    return found


def _normal(host: str) -> str:
    """A host as compared and resolved: lower case, no brackets, no trailing dot."""
    return host.strip().strip("[]").rstrip(".").lower()


def _pair(entry: str) -> tuple[str, int]:
    """``(host, port)`` of ``host:port``, ``host`` (443) or an http(s) URL; ValueError saying what is off."""
    text = entry.strip()
    if "://" in text:
        parts = urlsplit(text)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            raise ValueError("is not an http(s) URL")
        return _normal(parts.hostname), parts.port or (443 if parts.scheme.lower() == "https" else 80)
    if text.startswith("["):  # [v6] or [v6]:port
        host, _, rest = text[1:].partition("]")
        port = rest[1:] if rest.startswith(":") else ("443" if not rest else "")
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:  # a name, or a bare IPv6 address
        host, port = text, "443"
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError("is not host:port")
    return _normal(host), int(port)
