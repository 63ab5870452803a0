"""``arena submit --server`` and ``arena retire --server``: the submission server's client, standard library only.

It says what a local ``arena submit`` says, with the same exit codes, so an author's scripts
work either way; every failure to reach or be served by the server is one line
(:class:`ServerError`), never a traceback.
"""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .archive import pack

TIMEOUT = 60.0
"""Seconds to wait for one answer of the server."""
POLL = 0.5
"""Seconds between two looks at a queued or running check."""


class ServerError(Exception):
    """The server could not be reached or refused the request; one line."""


class Client:
    """Requests to one server with one token."""

    def __init__(self, server: str, token: str) -> None:
        parts = urllib.parse.urlsplit(server)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ServerError(f"--server {server}: give the server's address as http://HOST:PORT "
                              "(or https://HOST behind a proxy)")
        self.base = server.rstrip("/")
        self.token = token

    def call(self, method: str, path: str, body: bytes | None = None,
             content_type: str | None = None) -> dict[str, Any]:
        """The JSON answer of ``method path``, or :class:`ServerError` naming what went wrong."""
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        if content_type:
            headers["Content-Type"] = content_type
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                return dict(json.loads(answer.read()))
        except urllib.error.HTTPError as exc:
            raise ServerError(self._refusal(exc)) from None
        except urllib.error.URLError as exc:
            if body is not None and isinstance(exc.reason, (ConnectionResetError, BrokenPipeError)):
                raise ServerError(f"the server at {self.base} closed the connection while the bot's files "
                                  f"({len(body) / 2**20:.1f} MB packed) were being sent: they may be larger than the "
                                  "ladder takes (its submission.max_mb); leave build outputs and data out") from None
            reason = exc.reason.strerror if isinstance(exc.reason, OSError) and exc.reason.strerror else exc.reason
            raise ServerError(f"cannot reach the server at {self.base}: {reason}; is `arena serve LADDER.yaml` "
                              "running there?") from None
        except (socket.timeout, TimeoutError):
            raise ServerError(f"the server at {self.base} did not answer within {TIMEOUT:.0f} s; try again") from None
        except (ConnectionError, OSError) as exc:
            raise ServerError(f"the connection to {self.base} failed: {exc.strerror or exc}; try again") from None
        except ValueError:
            raise ServerError(f"{self.base} answered something that is not the submission server's JSON; "
                              "check --server") from None

    def _refusal(self, exc: urllib.error.HTTPError) -> str:
        try:
            said = str(json.loads(exc.read()).get("error") or "")
        except (ValueError, AttributeError, OSError):
            said = ""
        said = " ".join(said.split()) or str(exc.reason)
        if exc.code == 401:
            return f"the server refused the token: {said}"
        if exc.code == 429:
            return f"{said} (HTTP 429)"
        return f"{said} (HTTP {exc.code})"


def submit(client: Client, bot_dir: Path, name: str | None, echo: Callable[[str], None],
           err: Callable[[str], None]) -> int:
    """Upload the bot in ``bot_dir``, follow its check, print what a local ``arena submit`` prints; its exit code
    (0 entered or unchanged, 1 refused). A refusal before the check (no token, 403, 413, 429, 503): ServerError."""
    data = pack(bot_dir)
    query = "?" + urllib.parse.urlencode({"name": name}) if name else ""
    sub = client.call("POST", f"/api/bots{query}", data, "application/gzip")
    shown, said_ahead = 0, None
    sub_id = urllib.parse.quote(str(sub["id"]), safe="")
    while True:
        if sub.get("status") == "queued" and sub.get("ahead") != said_ahead:
            said_ahead = sub.get("ahead")
            if said_ahead:
                echo(f"queued, {said_ahead} ahead")
        lines = list(sub.get("output") or [])
        for line in lines[shown:]:
            echo(str(line))
        shown = max(shown, len(lines))
        if sub.get("status") == "done":
            message, code = str(sub.get("message") or ""), int(sub.get("exit") or 0)
            (echo if code == 0 else err)(message)
            return code
        time.sleep(POLL)
        sub = client.call("GET", f"/api/submissions/{sub_id}")


def retire(client: Client, name: str) -> str:
    """Retire ``name`` through the server; what a local ``arena retire`` prints."""
    return str(client.call("POST", f"/api/bots/{urllib.parse.quote(name, safe='')}/retire")["message"])
