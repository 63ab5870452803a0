"""Running the submission server: uvicorn on a socket bound here, so that ``--port 0`` can say which port it got."""

from __future__ import annotations

import socket
from collections.abc import Callable

import click

from ..tournament.config import TournamentConfig
from ..tournament.store import StoreMismatch
from .store import AuthorError

LIMIT_CONCURRENCY = 200
"""Connections answered at once; past it uvicorn answers 503 at once rather than queueing without end."""
BACKLOG = 2048
"""Connections the kernel holds for the server before it accepts them."""
KEEP_ALIVE = 5
"""Seconds an idle connection is kept open."""


def serve_ladder(config: TournamentConfig, host: str, port: int, say: Callable[[str], None]) -> None:
    """Serve ``config``'s report and submission API on ``host:port`` until Ctrl-C."""
    import uvicorn

    from .app import create_app

    try:
        app = create_app(config)
    except (AuthorError, StoreMismatch) as exc:
        raise click.ClickException(str(exc)) from None
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(BACKLOG)  # connections wait in the backlog until uvicorn takes them: ready once printed
    except OSError as exc:
        sock.close()
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    bound = sock.getsockname()
    shown = f"[{bound[0]}]" if ":" in str(bound[0]) else str(bound[0])
    click.echo(f"serving ladder {config.name} at http://{shown}:{bound[1]}/ (authors: /submit.html; Ctrl-C stops)")
    if host not in ("127.0.0.1", "::1", "localhost"):
        say(f"note: listening on {host} in plain HTTP: put it behind a TLS proxy before it faces the internet "
            "(docs/server.md)")
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", limit_concurrency=LIMIT_CONCURRENCY,
                                           timeout_keep_alive=KEEP_ALIVE, server_header=False))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
