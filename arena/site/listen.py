"""The HTTP server under both ``arena serve`` commands: uvicorn on a socket bound first, with deadlines on its clients.

:func:`serve` binds the socket before anything else (so that ``--port 0`` can say which port it got), prints
the line saying where it serves, and runs uvicorn until Ctrl-C; :class:`Listening` is the same server for a
thread of one's own (the tests).

uvicorn's HTTP/1.1 protocol (h11) waits as long as a client likes: for one that connects and says nothing, one
that trickles the head of its request, one that stops taking its answer. :class:`Guarded` is that protocol with
deadlines, so that such clients cost little and never stop the server answering the others:

* a client has ``TIMEOUT`` seconds from connecting, or from the end of its last request, to send the head of the
  next one (request line and headers), however steadily it trickles it; a body is the application's to time;
* then, while the server has more to send than the connection's buffers hold, ``TIMEOUT`` seconds to take each
  ``PIECE`` of it (on Linux, where the kernel says what it still holds for the client), and ``TIMEOUT`` plus a
  second per ``MIN_RATE`` bytes for the whole answer;
* at most ``max_connections`` connections are open: a new one past them closes the oldest one still waiting for
  its request; only when every one is being answered does uvicorn answer the new one 503.

On Ctrl-C, a connection still being answered has ``TIMEOUT`` seconds more, then it too is closed.

A client that goes away or misses a deadline is closed without a word. One that sends nonsense gets its 400 (414
or 431 when its request line or headers grow past ``MAX_HEAD`` before they end), one past the limit its 503: no traceback, and no
log line (uvicorn's warnings about clients are dropped; its errors, such as an application's traceback, are not).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, ClassVar, overload

import click
import h11
import uvicorn
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol, RequestResponseCycle
from uvicorn.server import ServerState

TIMEOUT = 5.0
"""Seconds a client has to send the head of its request, and to take each piece of the answer."""
MIN_RATE = 128 * 1024
"""Bytes a second a client must take an answer at, at least: it has ``TIMEOUT`` plus a second per 128 KiB
(1 Mbit/s) for the whole answer, so a reader that trickles cannot hold a connection for long."""
PIECE = 64 * 1024
"""Bytes a client must take in each ``TIMEOUT`` while the server waits to send it more."""
MAX_CONNECTIONS = 256
"""Open connections (waiting for their request or being answered) at most; far below the usual 1024 files."""
MAX_HEAD = 16 * 1024
"""Bytes the head of a request (request line and headers) may take when it arrives in pieces (h11's own default)."""
BACKLOG = 2048
"""Connections the kernel holds for the server before it accepts them."""
KEEP_ALIVE = 5
"""Seconds an idle connection is kept open after an answer (uvicorn's keep-alive)."""
LOOPBACK = ("127.0.0.1", "::1", "localhost")

CLIENTS = logging.getLogger("uvicorn.error.clients")
"""The protocol's logger: uvicorn's, without its warnings about what a client did (a malformed request, one past
the limit, an upgrade it does not speak): a client's mistakes are its own business, and a flood of them would
fill the organiser's terminal."""
CLIENTS.addFilter(lambda record: record.levelno != logging.WARNING)

_arrivals = itertools.count()  # the order in which connections began to wait for a request


@dataclass
class Limits:
    """What a client may cost (see the module docstring); read as each deadline is set, so a change applies
    to the deadlines set after it (``max_connections`` is also uvicorn's, fixed when the server is made)."""

    timeout: float = TIMEOUT
    min_rate: float = MIN_RATE
    max_connections: int = MAX_CONNECTIONS


class _Connection(h11.Connection):
    """h11's server side, telling its protocol when an answer starts and how long it says it is."""

    def __init__(self, answering: Callable[[int], None]) -> None:
        super().__init__(h11.SERVER, max_incomplete_event_size=MAX_HEAD)
        self._answering = answering

    @overload
    def send(self, event: h11.ConnectionClosed) -> None: ...
    @overload
    def send(self, event: h11.Request | h11.InformationalResponse | h11.Response | h11.Data | h11.EndOfMessage
             ) -> bytes: ...
    @overload
    def send(self, event: h11.Event) -> bytes | None: ...

    def send(self, event: h11.Event) -> bytes | None:
        if isinstance(event, h11.Response):
            length = [value for name, value in event.headers if name == b"content-length"]
            self._answering(int(length[0]) if length and length[0].isdigit() else 0)
        return super().send(event)


class Guarded(H11Protocol):
    """uvicorn's h11 protocol with the deadlines of the module docstring (``limits``: set by :func:`guarded`)."""

    limits: ClassVar[Limits] = Limits()

    def __init__(self, config: Config, server_state: ServerState, app_state: dict[str, Any],
                 _loop: asyncio.AbstractEventLoop | None = None) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.logger = CLIENTS
        self.conn = _Connection(self._answering)
        self._waiting: int | None = None
        """While waiting for the head of a request: when it began to (an arrival number, oldest lowest)."""
        self._timers: dict[str, asyncio.TimerHandle] = {}

    # the deadlines

    def _start(self, name: str, delay: float, callback: Callable[[], None]) -> None:
        self._stop(name)
        self._timers[name] = self.loop.call_later(delay, callback)

    def _stop(self, name: str) -> None:
        timer = self._timers.pop(name, None)
        if timer is not None:
            timer.cancel()

    def _await_request(self) -> None:
        self._waiting = next(_arrivals)
        self._start("request", self.limits.timeout, self._drop)

    def _answering(self, length: int) -> None:
        """An answer of ``length`` bytes starts: all of it is due in ``TIMEOUT`` plus a second per ``MIN_RATE``."""
        cycle: RequestResponseCycle | None = self.cycle  # None: a 400 to the first request, answered by uvicorn
        self._start("answer", self.limits.timeout + length / self.limits.min_rate, lambda: self._answer_due(cycle))

    def _answer_due(self, cycle: RequestResponseCycle | None) -> None:
        if (cycle is not None and not cycle.response_complete) or self.transport.get_write_buffer_size():
            self._drop()  # not all of it handed over, or not all of it taken

    def _unsent(self) -> int | None:
        """Bytes of the answer the client has not taken yet: in this connection's buffer and in the kernel's
        (None where the kernel does not say: it may hold megabytes, and tell of room only once much is taken)."""
        held = _kernel_unsent(self.transport.get_extra_info("socket"))
        return None if held is None else held + self.transport.get_write_buffer_size()

    def _watch_stall(self, unsent: int | None) -> None:
        if unsent is not None:
            self._start("stall", self.limits.timeout, lambda: self._stall_due(unsent))

    def _stall_due(self, before: int) -> None:
        unsent = self._unsent()
        if unsent is None or before - unsent < min(PIECE, before):
            self._drop()  # the client took less than a piece in TIMEOUT seconds
        else:
            self._watch_stall(unsent)

    def _drop(self) -> None:
        """Close the connection at once, whatever it still had to send, and make room for another at once."""
        for name in list(self._timers):
            self._stop(name)
        self._waiting = None
        self.connections.discard(self)
        self.transport.abort()

    def _make_room(self) -> None:
        """Past ``max_connections``, close the connections that have waited longest for their request."""
        while len(self.connections) > self.limits.max_connections:
            waiting = {other._waiting: other for other in self.connections
                       if isinstance(other, Guarded) and other is not self and other._waiting is not None}
            if not waiting:
                return  # every one is being answered: uvicorn answers this one 503
            waiting[min(waiting)]._drop()

    # uvicorn's protocol

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._await_request()
        self._make_room()

    def connection_lost(self, exc: Exception | None) -> None:
        for name in list(self._timers):
            self._stop(name)
        self._waiting = None
        super().connection_lost(exc)

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle:  # the head of a request is in: now its answer
            self._waiting = None
            self._stop("request")
        elif self._waiting is None and self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self._await_request()  # the last request is answered and all in: the next one's head is due

    def shutdown(self) -> None:
        """Ctrl-C: an idle connection is closed now, one being answered (or sending its request) in ``TIMEOUT``
        seconds at most, quietly, so that the server stops soon and with nothing left to cancel."""
        super().shutdown()
        if not self.transport.is_closing():
            self._start("shutdown", self.limits.timeout, self._drop)

    def pause_writing(self) -> None:
        super().pause_writing()
        self._watch_stall(self._unsent())

    def resume_writing(self) -> None:
        super().resume_writing()
        self._stop("stall")

    def send_400_response(self, msg: str) -> None:
        pending, _ = self.conn.trailing_data
        if len(pending) <= MAX_HEAD:
            super().send_400_response(msg)
            return
        status = HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE if b"\n" in pending else HTTPStatus.REQUEST_URI_TOO_LONG
        body = f"{status.phrase}\n".encode()
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close")]
        for event in (h11.Response(status_code=status.value, headers=headers, reason=status.phrase.encode()),
                      h11.Data(data=body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event))
        self.transport.close()


def _kernel_unsent(sock: Any) -> int | None:
    """Bytes the kernel holds for ``sock`` that the other end has not acknowledged (Linux: ``SIOCOUTQ``)."""
    try:
        import fcntl
        import termios

        return int(struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0])
    except (ImportError, AttributeError, OSError, ValueError):
        return None


def guarded(limits: Limits) -> type[Guarded]:
    """The protocol class of one server, with its ``limits``."""

    class Bound(Guarded):
        pass

    Bound.limits = limits
    return Bound


class Listening:
    """``app`` served by uvicorn with :class:`Guarded` on ``host:port``, the socket bound at once (an ``OSError``
    if it cannot be); ``serve_forever`` runs it until ``shutdown`` (from another thread) or Ctrl-C."""

    def __init__(self, app: Any, host: str, port: int, *, limits: Limits | None = None, backlog: int = BACKLOG,
                 keep_alive: int = KEEP_ALIVE) -> None:
        self.limits = limits if limits is not None else Limits()
        self._socket = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        try:
            self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self._socket.bind((host, port))
            self._socket.listen(backlog)  # connections wait in the backlog until uvicorn takes them: ready now
        except OSError:
            self._socket.close()
            raise
        self.server_address: tuple[Any, ...] = self._socket.getsockname()
        self._server = uvicorn.Server(uvicorn.Config(
            app, http=guarded(self.limits), ws="none", log_level="warning", server_header=False, backlog=backlog,
            limit_concurrency=self.limits.max_connections + 1,  # uvicorn answers 503 once this many are open
            timeout_keep_alive=keep_alive))
        self._stopped = threading.Event()
        self._stopped.set()

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), int(self.server_address[1])
        return f"http://{f'[{host}]' if ':' in host else host}:{port}/"

    @property
    def connections(self) -> int:
        """Connections open now (waiting for a request or being answered)."""
        return len(self._server.server_state.connections)

    def serve_forever(self, poll_interval: float = 0.1) -> None:
        """Serve until ``shutdown``, even one called before this started (uvicorn looks for it every 0.1 s,
        whatever ``poll_interval`` says: it is there for callers of a ``socketserver``)."""
        self._stopped.clear()
        try:
            self._server.run(sockets=[self._socket])
        finally:
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop ``serve_forever`` (from another thread) and wait until it has."""
        self._server.should_exit = True
        self._stopped.wait()

    def server_close(self) -> None:
        self._socket.close()


def serve(app: Any, host: str, port: int, banner: Callable[[str], str], *, note: str | None = None,
          say: Callable[[str], None] = lambda line: click.echo(line, err=True), limits: Limits | None = None) -> None:
    """Serve ``app`` on ``host:port`` until Ctrl-C: print ``banner(url)`` once it listens (for ``port`` 0, the port
    it got), and ``say`` the ``note`` when it listens beyond this machine."""
    try:
        server = Listening(app, host, port, limits=limits)
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    click.echo(banner(server.url))
    if note is not None and host not in LOOPBACK:
        say(note)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
