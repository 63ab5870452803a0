"""Which addresses a dependency fetch may connect to: global ones that are not this machine's.

The gate decides on the address it will connect to, after resolving the name itself, so
no spelling of a URL (percent-encoded, full-width, an IPv4 address written in IPv6) and no
name that resolves to a private address reaches this machine or its networks. An IPv6
address that carries an IPv4 one (mapped, 6to4, NAT64, Teredo) is judged by that too.
"""

from __future__ import annotations

import ipaddress
import re

Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def refusal(address: Address, own: frozenset[Address] = frozenset()) -> str | None:
    """Why the fetch must not connect to ``address`` (a few words), or None when it may; ``own``: this
    machine's addresses (:func:`own_addresses`)."""
    for inner in _embedded(address):
        why = refusal(inner, own)
        if why:
            return f"{why} (inside {address})"
    if address.is_loopback:
        return "a loopback address"
    if address in own:
        return "an address of this machine"
    if address.is_unspecified:
        return "the unspecified address, which means this machine"
    if address.is_link_local:
        return "a link-local address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_private:
        return "a private or reserved address"
    if not address.is_global:
        return "not a global address"
    return None


def _embedded(address: Address) -> list[Address]:
    """IPv4 addresses an IPv6 one carries, which routers or the kernel may deliver to."""
    if not isinstance(address, ipaddress.IPv6Address):
        return []
    found: list[Address] = []
    if address.ipv4_mapped:
        found.append(address.ipv4_mapped)
    if address.sixtofour:
        found.append(address.sixtofour)
    if address.teredo:
        found += list(address.teredo)
    if any(address in net for net in _NAT64):
        found.append(ipaddress.IPv4Address(int(address) & 0xFFFFFFFF))
    return found


def own_addresses() -> frozenset[Address]:
    """Every address of this machine's interfaces, as the kernel has them now: a global address of the
    machine itself is as local as 127.0.0.1."""
    found: set[Address] = set()
    try:
        with open("/proc/net/fib_trie", encoding="ascii") as f:
            text = f.read()
        found.update(ipaddress.IPv4Address(a) for a in re.findall(r"\|-- (\S+)\n\s+/32 host LOCAL", text))
    except (OSError, ValueError):
        pass
    try:
        with open("/proc/net/if_inet6", encoding="ascii") as f:
            for line in f:
                found.add(ipaddress.IPv6Address(int(line.split()[0], 16)))
    except (OSError, ValueError, IndexError):
        pass
    return frozenset(found)
