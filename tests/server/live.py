"""Helpers of the server tests: a ladder file, bots, authors, and a real `arena serve LADDER.yaml` process."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 30.0


def copy_bot(home: Path, name: str, stderr: str | None = None, build: str | None = None) -> Path:
    """A copy of bots/random named ``name`` under ``home`` (with the shared lib beside it); ``stderr``: a line it
    writes to stderr in every match; ``build``: a build command instead of its own."""
    if not (home / "lib").exists():
        shutil.copytree(ROOT / "bots" / "lib", home / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    target = home / name
    shutil.copytree(ROOT / "bots" / "random", target, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = target / "bot.yaml"
    text = manifest.read_text().replace("name: random", f"name: {name}")
    if build is not None:
        text = "\n".join(f"build: {json.dumps(build)}" if line.startswith("build:") else line
                         for line in text.splitlines()) + "\n"
    manifest.write_text(text)
    if stderr is not None:
        bot = target / "bot.py"
        bot.write_text(bot.read_text().replace("import cabo_bot  # noqa: E402", "import cabo_bot  # noqa: E402\n"
                                               f"sys.stderr.write({stderr!r} + '\\n'); sys.stderr.flush()", 1))
    return target


def write_ladder(tmp_path: Path, extra: str = "") -> Path:
    """A ladder with no bots of its own, fast: no sandbox, bots' builds trusted."""
    lines = ["name: lad", "schedule: ladder", "seats: [2, 3]", "seed: 5", "time: {move_ms: 2000, startup_ms: 10000}",
             "sandbox: none", "unsandboxed_builds: true", "workers: 2", "placement_matches: 2",
             f"output: {tmp_path / 'out'}", "bots: []"]
    path = tmp_path / "ladder.yaml"
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """``arena ARGS`` in this process: exit code, stdout, stderr."""
    result = CliRunner().invoke(main, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


def add_author(ladder: Path, name: str, organiser: bool = False) -> str:
    code, out, err = cli("author", "add", str(ladder), name, *(["--organiser"] if organiser else []))
    assert code == 0, err
    tokens = [line[len("token: "):] for line in out.splitlines() if line.startswith("token: ")]
    assert len(tokens) == 1, out
    return tokens[0]


def api(base: str, token: str | None, method: str, path: str, body: bytes | None = None,
        headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
    """Status, decoded JSON (or text) and headers of one request."""
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base + path, data=body, method=method, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            status, raw, got = answer.status, answer.read(), dict(answer.headers)
    except urllib.error.HTTPError as exc:
        status, raw, got = exc.code, exc.read(), dict(exc.headers)
    try:
        return status, json.loads(raw), got
    except ValueError:
        return status, raw.decode("utf-8", "replace"), got


class ServerProcess:
    """``arena serve LADDER.yaml --port 0`` in a process of its own; ``url`` once it listens."""

    def __init__(self, ladder: Path, log: Path) -> None:
        self.log = open(log, "ab")  # noqa: SIM115: closed in stop()
        self.proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", str(ladder), "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=self.log, cwd=ROOT, start_new_session=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().decode()
        assert "serving ladder" in line, f"the server did not start: {line!r}; see {log}"
        self.url = line.split(" at ", 1)[1].split("/ ", 1)[0]
        self.port = int(self.url.rsplit(":", 1)[1])

    def kill(self) -> None:
        """SIGKILL, as a crash or an out-of-memory kill would."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self.log.close()


def wait_for(what: str, test: Any, seconds: float = 600.0) -> Any:
    """Poll ``test()`` until it is truthy; its value. ``seconds`` only bounds a broken server."""
    due = time.monotonic() + seconds
    while True:
        value = test()
        if value:
            return value
        assert time.monotonic() < due, f"still waiting after {seconds:.0f} s for {what}"
        time.sleep(0.2)
