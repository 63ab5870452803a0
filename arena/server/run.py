"""Running the submission server: its app on the HTTP server both ``arena serve`` commands share
(:mod:`arena.site.listen`: uvicorn on a socket bound first, so that ``--port 0`` can say which port it got)."""

from __future__ import annotations

from collections.abc import Callable

import click

from ..tournament.config import TournamentConfig
from ..tournament.store import StoreMismatch
from .store import AuthorError

LIMIT_CONCURRENCY = 200
"""Connections open at once; past it the oldest one waiting for its request is closed, or (when all of them
are being answered) uvicorn answers 503 at once rather than queueing without end."""


def serve_ladder(config: TournamentConfig, host: str, port: int, say: Callable[[str], None]) -> None:
    """Serve ``config``'s report and submission API on ``host:port`` until Ctrl-C."""
    from ..site.listen import Limits, serve
    from .app import create_app

    try:
        app = create_app(config)
    except (AuthorError, StoreMismatch) as exc:
        raise click.ClickException(str(exc)) from None
    serve(app, host, port, lambda url: f"serving ladder {config.name} at {url} (authors: /submit.html; Ctrl-C stops)",
          note=f"note: listening on {host} in plain HTTP: put it behind a TLS proxy before it faces the internet "
               "(docs/server.md)", say=say, limits=Limits(max_connections=LIMIT_CONCURRENCY))
