"""A dependency fetch reaches nothing on this machine, however a bot's files spell the address.

The attacks are the ones that passed the URL checks before the fetch gate: pip
percent-decodes a host (``127%2e0%2e0%2e1``), npm reads ``\\`` as ``/`` and maps
full-width digits to ASCII. Each bot here names a listener on this machine's loopback (IPv4
and IPv6) in one such spelling; the URL checks are switched off unless a test says
otherwise, so what is measured is the gate alone: the listeners count every connection,
and must count none. An index the organiser allows (``ARENA_FETCH_ALLOW``) that redirects to
a local address, and a name that resolves to 127.0.0.1 (an ``/etc/hosts`` entry in the
test's own mount namespace), are refused alike. The same runs through ``arena bot check``,
``arena run`` and ``arena submit``.
"""

from __future__ import annotations

import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from arena.bots import BotConfigError, build_bot, deps, load_bot
from arena.sandbox.gate import ALLOW_VAR

from .conftest import RANDOM_BOT, need_node, readable
from .conftest import python_bot as wheel_bot
from .test_hostile_installs import bwrap_or_skip
from .test_sandboxes import base_image, node_image  # noqa: F401 - fixtures of the docker twins

ARENA = str(Path(sys.executable).with_name("arena"))


class Listener:
    """A TCP listener that accepts and counts every connection, on its own thread."""

    def __init__(self, host: str) -> None:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.sock = socket.socket(family)
        self.sock.bind((host, 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.seen: list[bytes] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            conn.settimeout(2)
            try:
                self.seen.append(conn.recv(200))
            except OSError:
                self.seen.append(b"")
            conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def listeners() -> Iterator[dict[str, Listener]]:
    """Loopback listeners, IPv4 and (where the host has it) IPv6."""
    found = {"v4": Listener("127.0.0.1")}
    try:
        found["v6"] = Listener("::1")
    except OSError:
        pass
    yield found
    for listener in found.values():
        listener.close()


@pytest.fixture
def gate_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The URL checks off: only the gate stands between the fetch and the listeners."""
    monkeypatch.setattr(deps, "_refuse_local_host", lambda where, url: None)


PIP_ATTACKS = [
    "--index-url http://127%2e0%2e0%2e1:{v4}/simple/",
    "--index-url https://127%2e0%2e0%2e1:{v4}/simple/",
    "--find-links http://127%2e0%2e0%2e1:{v4}/",
    "--extra-index-url http://%31%32%37.0.0.1:{v4}/simple/",
    "-i http://[::1]:{v6}/simple/",
    "-i http://[::ffff:127.0.0.1]:{v4}/simple/",
    "-i http://[0:0:0:0:0:ffff:7f00:1]:{v4}/simple/",
    "-i http://localhost:{v4}/simple/",
    "-i http://0x7f000001:{v4}/simple/",
    "-i http://2130706433:{v4}/simple/",
    "-i http://127.1:{v4}/simple/",
    "-i http://0.0.0.0:{v4}/simple/",
]
"""Each asks pip for the bot's package from a listener; an http one comes with ``--trusted-host`` for its
host as written (else pip would not try it at all, and the test would prove nothing)."""


def trusted(line: str) -> str:
    """``--trusted-host`` for the http URL in ``line``, spelled as the line spells it."""
    url = line.split()[-1]
    if not url.startswith("http://"):
        return ""
    return f"--trusted-host {url[len('http://'):].partition('/')[0]}\n"


def attack_pip(directory: Path, lines: str, ports: dict[str, Listener]) -> Path:
    """A wheel bot whose requirements ask for its package from the listeners in the spelling ``lines``."""
    bot = wheel_bot(directory)
    if "{v6}" in lines and "v6" not in ports:
        pytest.skip("no IPv6 loopback here")
    text = lines.format(**{name: listener.port for name, listener in ports.items()})
    (bot / "requirements.txt").write_text(trusted(text) + text + "\ncabodep\n")
    return bot


def assert_untouched(ports: dict[str, Listener]) -> None:
    for name, listener in ports.items():
        assert listener.seen == [], f"the {name} listener was reached: {listener.seen}"


@pytest.mark.parametrize("lines", PIP_ATTACKS)
def test_no_spelling_of_a_loopback_index_reaches_it_through_pip(
        tmp_path: Path, own_cache: Path, listeners: dict[str, Listener], gate_alone: None, lines: str) -> None:
    backend = bwrap_or_skip()
    bot = attack_pip(tmp_path / "bot", lines, listeners)
    with pytest.raises(BotConfigError) as failed:
        build_bot(load_bot(str(bot)), backend)
    assert "the arena refused connections the fetch asked for" in str(failed.value), str(failed.value)
    assert_untouched(listeners)


def node_attack(directory: Path, resolved: str | None = None, npmrc: str | None = None) -> Path:
    """A Node bot whose lockfile fetches one package from ``resolved`` (or from the registry an ``.npmrc``
    names)."""
    directory.mkdir(parents=True)
    (directory / "package.json").write_text(json.dumps(
        {"name": "gated", "version": "1.0.0", "private": True, "dependencies": {"x": "1.0.0"}}))
    (directory / "package-lock.json").write_text(json.dumps({
        "name": "gated", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
        "packages": {"": {"name": "gated", "version": "1.0.0", "dependencies": {"x": "1.0.0"}},
                     "node_modules/x": {"version": "1.0.0",
                                        "resolved": resolved or "https://registry.npmjs.org/x/-/x-1.0.0.tgz",
                                        "integrity": "sha512-" + "A" * 86 + "=="}}}))
    if npmrc is not None:
        (directory / ".npmrc").write_text(npmrc)
    (directory / "bot.js").write_text("")
    (directory / "bot.yaml").write_text("name: gated\nrun: [node, bot.js]\n")
    return readable(directory)


NPM_ATTACKS = [
    {"resolved": "http://127.0.0.1:{v4}\\@registry.npmjs.org/x/-/x-1.0.0.tgz"},
    {"resolved": "http://127%2e0%2e0%2e1:{v4}/x/-/x-1.0.0.tgz"},
    {"resolved": "http://[::1]:{v6}/x/-/x-1.0.0.tgz"},
    {"npmrc": "registry=http://\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11:{v4}/\n"},
    {"npmrc": "registry=http://localhost:{v4}/\n"},
]


@pytest.mark.parametrize("attack", NPM_ATTACKS, ids=lambda a: next(iter(a.values()))[:40])
def test_no_spelling_of_a_loopback_registry_reaches_it_through_npm(
        tmp_path: Path, own_cache: Path, listeners: dict[str, Listener], gate_alone: None,
        attack: dict[str, str]) -> None:
    backend = bwrap_or_skip()
    need_node()
    if any("{v6}" in value for value in attack.values()) and "v6" not in listeners:
        pytest.skip("no IPv6 loopback here")
    ports = {name: listener.port for name, listener in listeners.items()}
    bot = node_attack(tmp_path / "bot", **{key: value.format(**ports) for key, value in attack.items()})
    with pytest.raises(BotConfigError) as failed:
        build_bot(load_bot(str(bot)), backend)
    assert "the arena refused connections the fetch asked for" in str(failed.value), str(failed.value)
    assert_untouched(listeners)


def test_the_url_checks_still_refuse_these_spellings_early_in_one_line(tmp_path: Path) -> None:
    """The gate is what holds; the checks give the author a clear line before anything runs."""
    bot = wheel_bot(tmp_path / "py")
    (bot / "requirements.txt").write_text("--index-url http://127%2e0%2e0%2e1:9/simple/\ncabodep\n")
    with pytest.raises(BotConfigError, match=r"requirements.txt:1: .*a URL on this machine or its private network"):
        load_bot(str(bot))
    need_node()
    for key, value in (("resolved", "http://127.0.0.1:9\\@registry.npmjs.org/x/-/x-1.0.0.tgz"),
                       ("npmrc", "registry=http://\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11:9/\n")):
        with pytest.raises(BotConfigError, match="this machine or its private network") as refused:
            load_bot(str(node_attack(tmp_path / key, **{key: value})))
        assert "\n" not in str(refused.value)


class _Redirect(http.server.BaseHTTPRequestHandler):
    """An index that sends every request on to ``target``."""

    target = ""
    asked: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the library's name
        self.asked.append(self.path)
        self.send_response(302)
        self.send_header("Location", self.target + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_a_redirect_from_an_allowed_index_to_a_local_address_is_refused(
        tmp_path: Path, own_cache: Path, listeners: dict[str, Listener], monkeypatch: pytest.MonkeyPatch) -> None:
    backend = bwrap_or_skip()
    _Redirect.target, _Redirect.asked = f"http://127.0.0.1:{listeners['v4'].port}", []
    index = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Redirect)
    threading.Thread(target=index.serve_forever, args=(0.05,), daemon=True).start()
    try:
        monkeypatch.setenv(ALLOW_VAR, f"127.0.0.1:{index.server_address[1]}")  # the organiser's own mirror
        bot = wheel_bot(tmp_path / "bot")
        (bot / "requirements.txt").write_text(f"--index-url http://127.0.0.1:{index.server_address[1]}/simple/\n"
                                              f"--trusted-host 127.0.0.1\ncabodep\n")
        monkeypatch.setattr(deps, "_refuse_local_host", lambda where, url: None)
        with pytest.raises(BotConfigError, match="the arena refused connections"):
            build_bot(load_bot(str(bot)), backend)
    finally:
        index.shutdown()
        index.server_close()
    assert _Redirect.asked, "the allowed index was never asked: the test tested nothing"
    assert_untouched(listeners)


def run(*args: str, cwd: Path, env: dict[str, str] | None = None, prefix: tuple[str, ...] = ()) -> tuple[int, str]:
    done = subprocess.run([*prefix, ARENA, *args], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={**os.environ, **(env or {})})
    return done.returncode, done.stdout + done.stderr


def test_a_name_resolving_to_loopback_is_refused_through_bot_check(
        tmp_path: Path, own_cache: Path, listeners: dict[str, Listener]) -> None:
    """``arena bot check`` in a mount namespace of its own whose ``/etc/hosts`` sends a name to 127.0.0.1:
    the URL check cannot know (names are not resolved); the gate resolves it and refuses."""
    bwrap_or_skip()
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare to give the arena a hosts file of its own")
    hosts = tmp_path / "hosts"
    hosts.write_text(Path("/etc/hosts").read_text() + "\n127.0.0.1 index.gate-test.example\n")
    bot = wheel_bot(tmp_path / "bot")
    (bot / "requirements.txt").write_text(f"-i http://index.gate-test.example:{listeners['v4'].port}/simple/\n"
                                          "--trusted-host index.gate-test.example\ncabodep\n")
    script = f'mount --bind "{hosts}" /etc/hosts && exec "$@"'
    code, out = run("bot", "check", str(bot), "--sandbox", "bwrap", cwd=tmp_path,
                    prefix=("unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh"))
    assert code != 0 and "index.gate-test.example resolves to 127.0.0.1, a loopback address" in out, out
    assert "finding 1: its dependencies asked for an address the fetch may not reach" in out, out
    assert "Traceback" not in out
    assert_untouched(listeners)


@pytest.fixture
def own_name() -> Iterator[tuple[str, Listener]]:
    """This machine's host name, which resolves to one of its own addresses, and a listener there: a
    spelling no URL check can judge without resolving it."""
    from arena.sandbox.gate import addresses

    name = socket.gethostname()
    try:
        address = socket.getaddrinfo(name, None, socket.AF_INET, socket.SOCK_STREAM)[0][4][0]
    except OSError:
        pytest.skip(f"this machine's name {name!r} does not resolve")
    import ipaddress

    if addresses.refusal(ipaddress.ip_address(address), addresses.own_addresses()) is None:
        pytest.skip(f"this machine's name resolves to {address}, a public address of another machine")
    listener = Listener(address)
    yield name, listener
    listener.close()


def test_arena_run_and_arena_submit_reach_no_listener_of_this_machine(
        tmp_path: Path, own_cache: Path, own_name: tuple[str, Listener]) -> None:
    """A tournament and a ladder submission under bwrap, the URL checks on (as users run them), the index
    named by this machine's own host name: refused, no traceback, 0 connections."""
    bwrap_or_skip()
    name, listener = own_name
    bot = wheel_bot(tmp_path / "bots" / "attacker")
    (bot / "requirements.txt").write_text(f"-i http://{name}:{listener.port}/simple/\n--trusted-host {name}\ncabodep\n")
    config = tmp_path / "t.yaml"
    config.write_text(yaml.safe_dump({"name": "gated", "sandbox": "bwrap", "cycles": 1, "seats": 2,
                                      "bots": [str(bot), str(RANDOM_BOT)], "output": str(tmp_path / "out")}))
    code, out = run("run", str(config), "--no-report", cwd=tmp_path)
    assert "Traceback" not in out and "the arena refused" in out, out
    assert listener.seen == []

    from ..server.live import ServerProcess, add_author, cli

    ladder = tmp_path / "ladder.yaml"
    ladder.write_text(yaml.safe_dump({"name": "gated-ladder", "schedule": "ladder", "sandbox": "bwrap", "bots": [],
                                      "output": str(tmp_path / "ladder-out")}))
    token = add_author(ladder, "ann")
    server = ServerProcess(ladder, tmp_path / "server.log")
    try:
        code, out, err = cli("submit", "--server", server.url, "--token", token, str(bot))
    finally:
        server.stop()
    assert code != 0 and "Traceback" not in out + err and "the arena refused" in out + err, out + err
    assert listener.seen == []


@pytest.mark.parametrize("kind, attack", [
    ("pip", PIP_ATTACKS[0]), ("pip", "-i http://[::1]:{v6}/simple/"),
    ("npm", NPM_ATTACKS[0]), ("npm", NPM_ATTACKS[3]),
], ids=["pip-percent", "pip-v6", "npm-backslash", "npm-fullwidth"])
def test_under_docker_the_fetch_reaches_no_loopback_listener_either(
        tmp_path: Path, own_cache: Path, listeners: dict[str, Listener], gate_alone: None,
        request: pytest.FixtureRequest, kind: str, attack: object) -> None:
    """The container has no network (``none``): its only way out is the gate's socket."""
    from arena.sandbox import DockerBackend

    image = request.getfixturevalue("node_image" if kind == "npm" else "base_image")
    if kind == "pip":
        bot = attack_pip(tmp_path / "bot", str(attack), listeners)
    else:
        need_node()
        ports = {name: listener.port for name, listener in listeners.items()}
        bot = node_attack(tmp_path / "bot", **{k: v.format(**ports) for k, v in dict(attack).items()})  # type: ignore[call-overload]
    with open(bot / "bot.yaml", "a") as manifest:
        manifest.write(f"image: {image}\n")
    with pytest.raises(BotConfigError) as failed:
        build_bot(load_bot(str(bot)), DockerBackend())
    assert "the arena refused connections the fetch asked for" in str(failed.value), str(failed.value)
    assert_untouched(listeners)


@pytest.mark.parametrize("line", ["--trusted-host mirror.example.org:8080", "--trusted-host=mirror.example.org:8080",
                                  "--trusted mirror.example.org:8080"])
def test_a_trusted_host_with_its_port_is_an_options_value_not_a_requirement(tmp_path: Path, line: str) -> None:
    """pip's ``--trusted-host host:port`` names no file nor package: it was once read as a URL to build."""
    bot = wheel_bot(tmp_path / "bot")
    (bot / "requirements.txt").write_text(f"{line}\n--no-index --find-links wheels\ncabodep\n")
    load_bot(str(bot))  # no error
