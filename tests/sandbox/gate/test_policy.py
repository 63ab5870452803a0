"""Where the fetch gate lets a fetch connect: the indexes by name, other hosts at global addresses only."""

from __future__ import annotations

import ipaddress

import pytest

from arena.sandbox.errors import SandboxError
from arena.sandbox.gate import ALLOW_VAR, INDEXES, Policy, Refused


def policy(**environ: str) -> Policy:
    return Policy.of_machine(environ=environ)


@pytest.mark.parametrize("host, port, said", [
    ("127.0.0.1", 443, "127.0.0.1 is a loopback address"),
    ("[::1]", 80, "::1 is a loopback address"),
    ("::ffff:127.0.0.1", 80, "loopback"),
    ("localhost", 8080, "localhost resolves to"),
    ("LOCALHOST.", 8080, "localhost resolves to"),
    ("127.1", 80, "127.1 resolves to 127.0.0.1, a loopback address"),
    ("0x7f000001", 80, "resolves to 127.0.0.1"),
    ("2130706433", 80, "resolves to 127.0.0.1"),
    ("169.254.169.254", 80, "link-local"),
    ("10.0.0.7", 3141, "private"),
    ("pypi.org", 80, ""),  # the index by name on 443 only; on 80 its address is judged
    ("no-such-host.invalid", 443, "cannot be resolved"),
    ("1.1.1.1", 0, "not a TCP port"),
])
def test_local_destinations_are_refused_however_they_are_spelled(host: str, port: int, said: str) -> None:
    try:
        found = policy().destinations(host, port)
    except Refused as exc:
        assert said in str(exc)
    else:  # only pypi.org:80 may pass, and only where it resolves to global addresses
        assert host == "pypi.org" and all(a.is_global for a in found), found


def test_a_global_literal_address_is_connected_as_it_is() -> None:
    assert policy().destinations("1.1.1.1", 443) == [ipaddress.ip_address("1.1.1.1")]


def test_the_indexes_are_trusted_by_name_on_their_port_wherever_they_resolve() -> None:
    named = policy().named
    for entry in INDEXES:
        host, _, port = entry.partition(":")
        assert (host, int(port)) in named


def test_the_organiser_names_more_indexes_and_a_bad_entry_is_one_clear_error() -> None:
    allowed = policy(**{ALLOW_VAR: "127.0.0.1:3141, http://[::1]:8080/simple mirror.example.org"})
    assert allowed.destinations("127.0.0.1", 3141) == [ipaddress.ip_address("127.0.0.1")]
    assert allowed.destinations("::1", 8080) == [ipaddress.ip_address("::1")]
    assert ("mirror.example.org", 443) in allowed.named
    with pytest.raises(Refused):
        allowed.destinations("127.0.0.1", 3142)  # the port is part of what is allowed
    with pytest.raises(SandboxError, match=rf"{ALLOW_VAR}: 'ftp://x/' is not an http\(s\) URL"):
        policy(**{ALLOW_VAR: "ftp://x/"})
    with pytest.raises(SandboxError, match=rf"{ALLOW_VAR}: 'host:port' is not host:port"):
        policy(**{ALLOW_VAR: "host:port"})


def test_the_machines_package_configuration_names_indexes_too() -> None:
    machine = Policy.of_machine(["http://10.0.0.5:3141/root/pypi/+simple/", "file:///opt/wheels", "not a url"],
                                environ={})
    assert machine.destinations("10.0.0.5", 3141) == [ipaddress.ip_address("10.0.0.5")]
