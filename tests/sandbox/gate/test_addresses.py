"""The fetch gate's judgement of an address: global and not this machine's, or refused with the reason."""

from __future__ import annotations

import ipaddress

import pytest

from arena.sandbox.gate import addresses


@pytest.mark.parametrize("text, said", [
    ("127.0.0.1", "loopback"), ("127.8.9.10", "loopback"), ("::1", "loopback"),
    ("::ffff:127.0.0.1", "loopback address (inside ::ffff:7f00:1)"),
    ("2002:7f00:1::", "loopback address (inside 2002:7f00:1::)"),
    ("64:ff9b::a00:1", "private or reserved address (inside 64:ff9b::a00:1)"),
    ("0.0.0.0", "unspecified"), ("::", "unspecified"),
    ("10.1.2.3", "private"), ("172.16.0.1", "private"), ("192.168.1.1", "private"), ("fd00::2", "private"),
    ("169.254.169.254", "link-local"), ("fe80::1", "link-local"),
    ("100.64.0.1", "not a global address"), ("224.0.0.1", "multicast"),
])
def test_an_address_on_this_machine_or_its_networks_is_refused_with_the_reason(text: str, said: str) -> None:
    why = addresses.refusal(ipaddress.ip_address(text))
    assert why is not None and said in why, why


@pytest.mark.parametrize("text", ["1.1.1.1", "151.101.0.223", "2a04:4e42::223", "64:ff9b::101:101"])
def test_a_global_address_is_allowed(text: str) -> None:
    assert addresses.refusal(ipaddress.ip_address(text)) is None


def test_a_global_address_of_this_machine_itself_is_refused() -> None:
    own = frozenset({ipaddress.ip_address("151.101.0.223")})
    assert addresses.refusal(ipaddress.ip_address("151.101.0.223"), own) == "an address of this machine"
    assert addresses.refusal(ipaddress.ip_address("::ffff:151.101.0.223"), own) is not None


def test_the_machines_own_addresses_include_its_loopback() -> None:
    own = addresses.own_addresses()
    assert ipaddress.ip_address("127.0.0.1") in own
