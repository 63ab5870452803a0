"""``Channel``: a running bot seen as lines in, lines out, with deadlines; one for every backend.

The channel owns everything that does not depend on how the bot is reached: the
stdout line buffer and its bound, the deadlines, the bounded stderr tail, the
exceptions, closing and the kill-at-exit registry. A backend's subclass supplies the
transport: the file descriptor it writes to, how it waits and pulls bytes into the
line buffer and the tail (two pipes, or one socket carrying Docker's framed
streams), how it learns of the bot's exit and its status, and how it kills and
cleans up. Design points, all for speed and for safety against hostile bots:

* No threads and no polling sleeps: transports use raw non-blocking fds and
  ``select.poll``.
* ``send`` tries one plain ``os.write`` first and only waits if the fd is full,
  so a 1-2 KB request costs one syscall.
* ``readline`` keeps one ``bytearray``; a line is found with ``find`` starting
  where the previous search stopped, so bytes are scanned once. Transports read
  so the buffer never exceeds ``max_line_bytes + 1``: a bot that floods stdout
  without a newline gets ``LineTooLong`` at that point, not arena memory.
* While waiting in either direction the transport also drains stderr into the
  bounded tail, so a bot that floods stderr cannot block on it or bloat the arena.
  The tail is one buffer of the last ``max(log_bytes, stderr_tail_bytes)`` bytes and
  a count of every stderr byte taken in, so a caller can take the bot's log in pieces
  (:meth:`Channel.stderr_since`) with no syscall and no copy while there is nothing new.
"""

from __future__ import annotations

import abc
import atexit
import os
import time
import warnings
import weakref
from types import TracebackType

from .errors import ChannelClosed, ChannelTimeout, LineTooLong
from .limits import Limits

CHUNK = 65536
"""Bytes asked for by one read of a pipe or socket."""
_DRAIN_MAX = 1 << 20  # bytes read by one non-waiting stderr drain, so a flooder cannot pin us there
_MAX_WAIT_MS = 86_400_000.0  # poll() cap, so a deadline of math.inf means "a day at a time"
_LIVE: "weakref.WeakSet[Channel]" = weakref.WeakSet()  # for kill_all() at exit


class Channel(abc.ABC):
    """A sandboxed bot: write bytes to its stdin, read lines from its stdout, kill it all.

    ``send``/``readline`` take ``time.monotonic()`` deadlines and raise ChannelTimeout,
    ChannelClosed (with ``returncode`` when known) and LineTooLong; past its deadline
    ``readline`` still takes a line that has already arrived. Not thread-safe: use one
    channel from one thread at a time. After a ChannelTimeout during ``send`` or a
    LineTooLong the byte stream is out of step; the caller should ``kill`` the bot.
    """

    def __init__(self, wfd: int, *, limits: Limits, token: str, backend: str, label: str,
                 workdir: str | None = None) -> None:
        """Go live; a subclass calls this last, once its transport is set up.

        ``wfd`` is the non-blocking fd that leads to the bot's stdin; ``label`` names
        the bot in warnings and ``repr``.
        """
        self._wfd = wfd
        self._limits = limits
        self._token = token
        self._backend = backend
        self._label = label
        self._workdir = workdir
        self._cap = limits.max_line_bytes + 1  # _buf never grows beyond this
        self._buf = bytearray()  # stdout not yet handed out as lines
        self._scanned = 0  # bytes of _buf already known to hold no newline
        self._tail = bytearray()  # last _keep bytes of stderr
        self._keep = max(limits.log_bytes, limits.stderr_tail_bytes)
        self._err_total = 0  # stderr bytes taken in since the start
        self._out_eof = False  # no more stdout will come
        self._exited = False  # the bot's main process is known to have exited
        self._stdin_open = True
        self._creator = os.getpid()  # a forked child must not kill its parent's bots
        self._dead = False  # kill() has run
        _LIVE.add(self)

    # ----------------------------------------------------------------- facts
    @property
    def token(self) -> str:
        """Random tag in the bot's environment (``ARENA_SANDBOX``) marking all its processes."""
        return self._token

    @property
    def backend(self) -> str:
        """Name of the backend that started this bot."""
        return self._backend

    @property
    def limits(self) -> Limits:
        """The limits this bot runs under."""
        return self._limits

    @property
    def workdir(self) -> str | None:
        """Host path of the bot's private writable directory (removed by ``kill``); None where
        the bot's ``/tmp`` is a tmpfs inside its sandbox (``bwrap``, ``docker``)."""
        return self._workdir

    @property
    @abc.abstractmethod
    def pid(self) -> int:
        """Host pid of the process started for the bot (0 if unknown)."""

    @property
    @abc.abstractmethod
    def returncode(self) -> int | None:
        """Exit status once the bot's main process has exited, else None."""

    @abc.abstractmethod
    def wait_fds(self) -> tuple[int, ...]:
        """File descriptors whose readiness means ``readline`` may have news (for multiplexing)."""

    def alive(self) -> bool:
        """True while the bot's main process runs."""
        return not self._dead and self.returncode is None

    def stderr_tail(self, since: int = 0) -> str:
        """Last ``stderr_tail_bytes`` of the bot's stderr after its first ``since`` bytes, decoded leniently."""
        self._drain_stderr()
        keep = min(self._limits.stderr_tail_bytes, max(0, self._err_total - since))
        tail = self._tail
        return tail[max(0, len(tail) - keep):].decode("utf-8", errors="replace") if keep else ""

    @property
    def stderr_total(self) -> int:
        """Bytes of stderr taken in so far (what the bot wrote, as far as the arena has read it)."""
        return self._err_total

    def stderr_since(self, mark: int) -> tuple[int, bytes]:
        """Stderr taken in after the first ``mark`` bytes: ``(lost, data)``, where ``data`` is what
        the tail still holds of it and ``lost`` the bytes of it that the tail no longer holds."""
        new = self._err_total - mark
        if new <= 0:
            return 0, b""
        held = min(new, len(self._tail))
        return new - held, bytes(self._tail[len(self._tail) - held:])

    def drain_stderr(self) -> None:
        """Take in the stderr that is waiting now (a match boundary), so ``stderr_total`` counts it."""
        if not self._dead:
            self._drain_stderr()

    # ------------------------------------------------------------------ send
    def send(self, data: bytes, deadline: float) -> None:
        """Write all of ``data`` to the bot's stdin by ``deadline`` (a ``time.monotonic()``)."""
        if self._dead or not self._stdin_open:
            raise ChannelClosed("bot's stdin is closed", self.returncode)
        view = memoryview(data)
        total = len(view)
        off = 0
        while True:
            if off < total:
                try:
                    off += os.write(self._wfd, view[off:])
                except BlockingIOError:
                    pass
                except OSError:  # EPIPE, ECONNRESET: the bot (or the engine) closed its end
                    raise self._ended("bot closed its stdin", deadline) from None
            if off >= total:
                return
            if self._exited:
                raise self._ended("bot exited while we were sending", deadline)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChannelTimeout(f"bot did not read its stdin ({total - off} of {total} bytes unsent)")
            self._wait_send(min(remaining * 1000.0, _MAX_WAIT_MS))

    # -------------------------------------------------------------- readline
    def readline(self, deadline: float) -> bytes:
        """Return the next stdout line without its newline; never waits past ``deadline``."""
        buf = self._buf
        i = buf.find(b"\n", self._scanned)
        if i >= 0:
            return self._take(i)
        limit = self._limits.max_line_bytes
        while True:
            self._scanned = len(buf)
            if self._scanned > limit:
                self._too_long()
            if self._out_eof or self._exited or self._dead:
                return self._last_line(deadline)
            remaining = deadline - time.monotonic()
            # Past the deadline we still take what has already arrived (wait 0):
            # a reply that came while the arena served another bot is not late.
            got = self._pull(max(0.0, min(remaining * 1000.0, _MAX_WAIT_MS)))
            i = buf.find(b"\n", self._scanned)
            if i >= 0:
                return self._take(i)
            if remaining <= 0 and not got and not (self._out_eof or self._exited or self._dead):
                raise ChannelTimeout("no line from bot before the deadline")

    def _take(self, i: int) -> bytes:
        """Cut line ``buf[:i]`` and its newline off the buffer."""
        buf = self._buf
        line = bytes(buf[:i])
        del buf[:i + 1]
        self._scanned = 0
        return line

    def _too_long(self) -> None:
        """Drop the oversized partial line and raise."""
        self._buf.clear()
        self._scanned = 0
        raise LineTooLong(f"bot wrote more than {self._limits.max_line_bytes} bytes without a newline")

    def _last_line(self, deadline: float) -> bytes:
        """Stdout ended or the bot exited: hand out lines that already arrived, then ChannelClosed."""
        what = "bot exited" if self._exited else "bot closed its stdout"
        limit = self._limits.max_line_bytes
        buf = self._buf
        while not self._dead:
            got = self._pull(0.0)
            i = buf.find(b"\n", self._scanned)
            if i >= 0:
                return self._take(i)
            self._scanned = len(buf)
            if self._scanned > limit:
                self._too_long()
            if not got:  # nothing more now (a grandchild may hold the pipe open) or ever
                break
        if self._dead:
            raise ChannelClosed("bot was killed", self.returncode)
        raise self._ended(what, deadline)

    def _ended(self, what: str, deadline: float) -> ChannelClosed:
        """ChannelClosed for a stream that ended, with the exit status if it comes soon.

        A dying process's files close before its exit is reported (and an engine records
        the exit after the stream ends); on a loaded machine the gap can exceed 50 ms, so
        wait up to a second, bounded by ``deadline`` but never below 50 ms (the fault is
        already decided; only its words wait).
        """
        return self._closed(what, min(1.0, max(0.05, deadline - time.monotonic())))

    # ---------------------------------------------------------------- stderr
    def _keep_stderr(self, data: bytes | bytearray) -> None:
        """Append to the bounded stderr tail and count the bytes."""
        self._err_total += len(data)
        keep = self._keep
        tail = self._tail
        if len(data) >= keep:
            tail[:] = data[len(data) - keep:] if keep else b""
        else:
            tail += data
            excess = len(tail) - keep
            if excess > 0:
                del tail[:excess]

    def _drain_stderr(self) -> None:
        """Take in whatever stderr holds right now, bounded so a flooder cannot pin us here."""
        got = 0
        while got < _DRAIN_MAX:
            n = self._pull_stderr()
            if n == 0:
                return
            got += n

    # -------------------------------------------------------------- shutdown
    def close_stdin(self) -> None:
        """Give the bot EOF on stdin (idempotent). ``close`` does it too; calling this first for
        every bot of a match lets them all exit at once instead of one after another."""
        if self._stdin_open:
            self._stdin_open = False
            self._shut_stdin()

    def close(self, grace: float = 1.0) -> None:
        """Close stdin, let the bot exit on its own for up to ``grace`` seconds, then ``kill``."""
        if self._dead:
            return
        self.close_stdin()
        end = time.monotonic() + grace
        while not self._exited:
            remaining = end - time.monotonic()
            if remaining <= 0 or not self._wait_exit(min(remaining * 1000.0, _MAX_WAIT_MS)):
                break
        self.kill()

    def kill(self) -> None:
        """Kill the bot and everything it started, and release what it held. Idempotent."""
        if self._dead:
            return
        self._dead = True
        try:
            self._end()
        finally:
            _LIVE.discard(self)

    def __enter__(self) -> "Channel":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        """Graceful close on normal exit; immediate kill when an exception is propagating."""
        if exc_type is None:
            self.close()
        else:
            self.kill()

    def __del__(self) -> None:
        # A forgotten bot must not outlive its handle; say so, as Popen does.
        if not getattr(self, "_dead", True) and getattr(self, "_creator", None) == os.getpid():
            warnings.warn(f"{type(self).__name__} {self._label} was not closed", ResourceWarning, source=self)
            try:
                self.kill()
            except Exception:
                pass

    def __repr__(self) -> str:
        if self._dead:
            state = f"closed, exit {self.returncode}"
        else:
            state = "running" if self.alive() else f"exited {self.returncode}"
        return f"<{type(self).__name__} {self._label} backend={self._backend} {state}>"

    # ------------------------------------------------------ the transport's part
    @abc.abstractmethod
    def _wait_send(self, timeout_ms: float) -> None:
        """Wait up to ``timeout_ms`` for room towards stdin, taking in stderr and news of an exit."""

    @abc.abstractmethod
    def _pull(self, timeout_ms: float) -> int:
        """Wait up to ``timeout_ms`` for bytes or an exit and take them in (stdout into ``_buf``,
        at most up to ``_cap``; stderr into the tail; set ``_out_eof``/``_exited``).

        Returns how many of the bytes taken in may bring a line nearer: after the deadline
        ``readline`` goes on pulling while this is not 0.
        """

    @abc.abstractmethod
    def _pull_stderr(self) -> int:
        """Take in stderr that is already there without waiting; bytes read, 0 for none."""

    @abc.abstractmethod
    def _closed(self, what: str, wait: float) -> ChannelClosed:
        """The ChannelClosed for an ended stream, waiting up to ``wait`` seconds for the exit
        status if the bot has not been seen to exit yet."""

    @abc.abstractmethod
    def _shut_stdin(self) -> None:
        """Give the bot EOF on its stdin (called once)."""

    @abc.abstractmethod
    def _wait_exit(self, timeout_ms: float) -> bool:
        """Wait up to ``timeout_ms`` for the bot to exit after EOF on stdin; False: stop waiting."""

    @abc.abstractmethod
    def _end(self) -> None:
        """Kill everything the bot started and release fds, directories and containers (once)."""


def kill_all() -> None:
    """Kill every bot this process still runs (used at interpreter exit)."""
    me = os.getpid()
    for channel in list(_LIVE):
        if channel._creator != me:
            continue
        try:
            channel.kill()
        except Exception:
            pass


atexit.register(kill_all)
