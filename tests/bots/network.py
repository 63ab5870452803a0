"""Tries to reach the network and prints one JSON line saying what worked. Argv: PORT.

* tcp_host: TCP connect to 127.0.0.1:PORT, where the test listens on the HOST's loopback
  (works without isolation, fails inside a network namespace).
* udp_route: UDP connect() to 1.1.1.1:53. For UDP, connect only looks up a route and
  sends no packet, so this probes reachability without generating traffic.
* bind_any: bind a TCP socket to 0.0.0.0:0 and listen.
"""
import json
import socket
import sys


def attempt(fn) -> str:
    try:
        fn()
        return "ok"
    except OSError as exc:
        return f"error: {exc}"


def tcp_host() -> None:
    with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=2):
        pass


def udp_route() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("1.1.1.1", 53))


def bind_any() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("0.0.0.0", 0))
        s.listen(1)


result = {"tcp_host": attempt(tcp_host), "udp_route": attempt(udp_route), "bind_any": attempt(bind_any)}
sys.stdout.write(json.dumps(result) + "\n")
sys.stdout.flush()
sys.stdin.read()
