"""``BotProcess``: a running bot seen as two byte streams with deadlines.

Like python-chess's transport layer this moves bytes and lines only; it knows
nothing of JSON or the game. Design points, all for speed and for safety against
hostile bots:

* No threads and no polling sleeps. The three pipe ends are raw non-blocking fds
  watched with ``select.poll``; a pidfd (Linux >= 5.3) wakes us when the bot's
  main process exits even if a grandchild still holds its stdout open.
* ``send`` tries one plain ``os.write`` first and only polls if the pipe is full,
  so a 1-2 KB request costs one syscall.
* ``readline`` keeps one ``bytearray``; a line is found with ``find`` starting
  where the previous search stopped, so bytes are scanned once. Reads are sized
  so the buffer never exceeds ``max_line_bytes + 1``: a bot that floods stdout
  without a newline gets ``LineTooLong`` at that point, not arena memory.
* While waiting for either direction we also drain stderr into a bounded tail,
  so a bot that floods stderr cannot block on it or bloat the arena.
* The main process is never reaped before ``kill``: exit statuses are peeked with
  ``waitid(WNOWAIT)``, which keeps the pid reserved for ``reaper.kill_tree``.
"""

from __future__ import annotations

import atexit
import os
import select
import shutil
import subprocess
import time
import warnings
import weakref
from collections.abc import Callable, Iterable
from types import TracebackType

from .errors import ChannelClosed, ChannelTimeout, LineTooLong
from .limits import Limits
from . import cgroups, orphans
from .reaper import kill_tree

_CHUNK = 65536
_POLLIN = select.POLLIN
_POLLOUT = select.POLLOUT
_STDERR_DRAIN_MAX = 1 << 20  # bytes read from stderr in one non-waiting drain
_MAX_WAIT_MS = 86_400_000.0  # poll() cap, so a deadline of math.inf means "a day at a time"
_LIVE: "weakref.WeakSet[BotProcess]" = weakref.WeakSet()  # for kill_all() at exit


class BotProcess:
    """A sandboxed bot: write bytes to its stdin, read lines from its stdout, kill it all.

    Not thread-safe: use one BotProcess from one thread at a time. After a
    ChannelTimeout during ``send`` or a LineTooLong the byte stream is out of step;
    the caller should give up on the bot and ``kill`` it.
    """

    def __init__(self, popen: subprocess.Popen[bytes], *, limits: Limits, token: str,
                 workdir: str | None, backend: str,
                 related: Callable[[], Iterable[int]] | None = None, cgroup: str | None = None) -> None:
        """Wrap a freshly started ``Popen`` (stdin/stdout/stderr pipes, bufsize=0).

        ``related`` is called once by ``kill`` and returns verified init pids of the bot's
        PID namespaces (bwrap), which the tree kill kills first and reaps. ``cgroup`` is the
        bot's pids cgroup (see :mod:`.cgroups`), removed by ``kill``.
        """
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        self._popen = popen
        self._related = related
        self._limits = limits
        self._token = token
        self._workdir = workdir
        self._backend = backend
        self._cgroup = cgroup
        self._in = popen.stdin.fileno()
        self._out = popen.stdout.fileno()
        self._err = popen.stderr.fileno()
        for fd in (self._in, self._out, self._err):
            os.set_blocking(fd, False)
        try:
            self._pidfd = os.pidfd_open(popen.pid)
        except (AttributeError, OSError):
            self._pidfd = -1
        self._rpoll = select.poll()  # readline: stdout, stderr, exit
        self._wpoll = select.poll()  # send and close: stdin, stderr, exit
        self._rpoll.register(self._out, _POLLIN)
        self._rpoll.register(self._err, _POLLIN)
        self._wpoll.register(self._in, _POLLOUT)
        self._wpoll.register(self._err, _POLLIN)
        if self._pidfd >= 0:
            self._rpoll.register(self._pidfd, _POLLIN)
            self._wpoll.register(self._pidfd, _POLLIN)
        self._buf = bytearray()
        self._scanned = 0  # bytes of _buf already known to hold no newline
        self._tail = bytearray()
        self._out_eof = False
        self._err_open = True
        self._exited = False  # pidfd reported the main process's exit
        self._stdin_open = True
        self._dead = False  # kill() has run
        _LIVE.add(self)

    # ----------------------------------------------------------------- facts
    @property
    def pid(self) -> int:
        """Pid of the process we started (the bot itself, or ``bwrap`` around it)."""
        return self._popen.pid

    @property
    def token(self) -> str:
        """Random tag in the bot's environment (``ARENA_SANDBOX``) marking all its processes."""
        return self._token

    @property
    def backend(self) -> str:
        """Name of the backend that started this bot."""
        return self._backend

    @property
    def workdir(self) -> str | None:
        """Host path of the bot's private writable directory (removed by ``kill``); None where
        the bot's ``/tmp`` is a tmpfs inside its sandbox (``bwrap``, ``docker``)."""
        return self._workdir

    @property
    def cgroup(self) -> str | None:
        """Path of the pids cgroup capping the bot's processes, or None where there is none."""
        return self._cgroup

    @property
    def limits(self) -> Limits:
        """The limits this bot runs under."""
        return self._limits

    @property
    def returncode(self) -> int | None:
        """Exit status once the main process has exited (negative: signal), else None."""
        if self._popen.returncode is not None:
            return self._popen.returncode
        try:
            res = os.waitid(os.P_PID, self._popen.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            return None
        if res is None:
            return None
        return res.si_status if res.si_code == os.CLD_EXITED else -res.si_status

    def wait_fds(self) -> tuple[int, ...]:
        """File descriptors whose readiness means ``readline`` may have news (for multiplexing)."""
        fds = [fd for fd, open_ in ((self._out, not self._out_eof), (self._err, self._err_open)) if open_]
        if self._pidfd >= 0 and not self._exited:
            fds.append(self._pidfd)
        return tuple(fds)

    def alive(self) -> bool:
        """True while the main process runs (does not reap it)."""
        return not self._dead and self.returncode is None

    def stderr_tail(self) -> str:
        """Last ``stderr_tail_bytes`` of the bot's stderr, decoded leniently."""
        self._drain_stderr()
        return self._tail.decode("utf-8", errors="replace")

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
                    off += os.write(self._in, view[off:])
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionResetError):
                    raise ChannelClosed("bot closed its stdin", self._returncode_soon(deadline)) from None
            if off >= total:
                return
            if self._exited:
                raise ChannelClosed("bot exited while we were sending", self.returncode)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChannelTimeout(f"bot did not read its stdin ({total - off} of {total} bytes unsent)")
            for fd, _ev in self._wpoll.poll(min(remaining * 1000.0, _MAX_WAIT_MS)):
                if fd == self._err:
                    self._read_stderr()
                elif fd == self._pidfd:
                    self._on_exit()

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
            # Past the deadline we still take what is already in the pipe (poll with 0):
            # a reply that arrived while the arena served another bot is not late.
            for fd, _ev in self._rpoll.poll(max(0.0, min(remaining * 1000.0, _MAX_WAIT_MS))):
                if fd == self._out:
                    self._read_stdout()
                elif fd == self._err:
                    self._read_stderr()
                else:
                    self._on_exit()
            i = buf.find(b"\n", self._scanned)
            if i >= 0:
                return self._take(i)
            if remaining <= 0 and not (self._out_eof or self._exited or self._dead):
                raise ChannelTimeout("no line from bot before the deadline")

    def _take(self, i: int) -> bytes:
        """Cut line ``buf[:i]`` and its newline off the buffer."""
        buf = self._buf
        line = bytes(buf[:i])
        del buf[:i + 1]
        self._scanned = 0
        return line

    def _too_long(self) -> None:
        """Drop the oversized partial line and raise; the stream is out of sync afterwards."""
        self._buf.clear()
        self._scanned = 0
        raise LineTooLong(f"bot wrote more than {self._limits.max_line_bytes} bytes without a newline")

    def _read_stdout(self) -> None:
        """One non-blocking read, sized so the buffer stays within max_line_bytes + 1."""
        want = min(_CHUNK, self._limits.max_line_bytes + 1 - len(self._buf))
        if want <= 0:
            return
        try:
            data = os.read(self._out, want)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if data:
            self._buf += data
        else:
            self._out_eof = True
            self._rpoll.unregister(self._out)

    def _last_line(self, deadline: float) -> bytes:
        """Stdout ended or the bot exited: hand out what is already in the pipe, then ChannelClosed."""
        limit = self._limits.max_line_bytes
        buf = self._buf
        while not self._out_eof and not self._dead:
            before = len(buf)
            self._read_stdout()
            i = buf.find(b"\n", self._scanned)
            if i >= 0:
                return self._take(i)
            self._scanned = len(buf)
            if self._scanned > limit:
                self._too_long()
            if len(buf) == before:  # EAGAIN (a grandchild holds the pipe) or EOF
                break
        if self._dead:
            raise ChannelClosed("bot was killed", self.returncode)
        if self._exited:
            raise ChannelClosed("bot exited", self.returncode)
        raise ChannelClosed("bot closed its stdout", self._returncode_soon(deadline))

    def _returncode_soon(self, deadline: float, wait: float = 1.0) -> int | None:
        """Exit status, waiting for an exit that EOF announced.

        The kernel closes a dying process's files before it reports the exit, and on a
        loaded machine the gap can exceed 50 ms, so wait up to ``wait`` seconds, bounded by
        ``deadline`` but never below 50 ms (the fault is already decided; only its words wait).
        """
        if self._pidfd >= 0 and not self._exited and not self._dead:
            timeout = min(wait, max(0.05, deadline - time.monotonic()))
            if timeout > 0:
                p = select.poll()
                p.register(self._pidfd, _POLLIN)
                if p.poll(timeout * 1000.0):
                    self._on_exit()
        return self.returncode

    # ---------------------------------------------------------------- stderr
    def _read_stderr(self) -> int:
        """Read one chunk of stderr into the bounded tail; returns bytes read (0: none or EOF)."""
        try:
            data = os.read(self._err, _CHUNK)
        except BlockingIOError:
            return 0
        except OSError:
            data = b""
        if not data:
            self._err_open = False
            self._rpoll.unregister(self._err)
            self._wpoll.unregister(self._err)
            return 0
        keep = self._limits.stderr_tail_bytes
        tail = self._tail
        if len(data) >= keep:
            tail[:] = data[len(data) - keep:] if keep else b""
        else:
            tail += data
            excess = len(tail) - keep
            if excess > 0:
                del tail[:excess]
        return len(data)

    def _drain_stderr(self) -> None:
        """Read whatever stderr holds right now, bounded so a flooder cannot pin us here."""
        got = 0
        while self._err_open and got < _STDERR_DRAIN_MAX:
            n = self._read_stderr()
            if n == 0:
                return
            got += n

    def _on_exit(self) -> None:
        """The pidfd fired: stop watching it (it would stay readable forever)."""
        if not self._exited:
            self._exited = True
            self._rpoll.unregister(self._pidfd)
            self._wpoll.unregister(self._pidfd)

    # -------------------------------------------------------------- shutdown
    def close_stdin(self) -> None:
        """Give the bot EOF on stdin (idempotent). ``close`` does it too; calling this first for
        every bot of a match lets them all exit at once instead of one after another."""
        if self._stdin_open:
            self._stdin_open = False
            self._wpoll.unregister(self._in)
            try:
                assert self._popen.stdin is not None
                self._popen.stdin.close()
            except OSError:
                pass

    def close(self, grace: float = 1.0) -> None:
        """Close stdin, let the bot exit on its own for up to ``grace`` seconds, then ``kill``."""
        if self._dead:
            return
        self.close_stdin()
        end = time.monotonic() + grace
        while not self._exited:
            remaining = end - time.monotonic()
            if remaining <= 0:
                break
            if self._pidfd < 0:  # no pidfd: modest polling is fine on this cold path
                if self.returncode is not None:
                    break
                time.sleep(min(0.005, remaining))
                continue
            for fd, _ev in self._wpoll.poll(min(remaining * 1000.0, _MAX_WAIT_MS)):
                if fd == self._err:
                    self._read_stderr()
                else:
                    self._on_exit()
        self.kill()

    def kill(self) -> None:
        """SIGKILL the bot and every process it started, reap them, remove its tmp dir. Idempotent."""
        if self._dead:
            return
        self._dead = True
        try:
            inits = list(self._related()) if self._related else []
            if not kill_tree(self._popen.pid, self._token, ns_inits=inits):
                warnings.warn(f"sandbox: processes of bot pid {self.pid} survived SIGKILL", RuntimeWarning)
        finally:
            try:
                self._popen.kill()
            except OSError:
                pass
            try:
                self._popen.wait(timeout=10)
            except subprocess.TimeoutExpired:
                warnings.warn(f"sandbox: bot pid {self.pid} did not die after SIGKILL", RuntimeWarning)
            self._drain_stderr()
            self.close_stdin()
            for stream in (self._popen.stdout, self._popen.stderr):
                if stream is not None:
                    stream.close()
            if self._pidfd >= 0:
                os.close(self._pidfd)
                self._pidfd = -1
            self._err_open = False
            self._out_eof = True
            if self._workdir:
                shutil.rmtree(self._workdir, ignore_errors=True)
            if self._cgroup and not cgroups.remove(self._cgroup):
                warnings.warn(f"sandbox: could not remove the cgroup {self._cgroup}", RuntimeWarning)
            orphans.unregister(self._token)
            _LIVE.discard(self)

    def __enter__(self) -> "BotProcess":
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
        if not getattr(self, "_dead", True):
            warnings.warn(f"BotProcess {self.pid} was not closed", ResourceWarning, source=self)
            try:
                self.kill()
            except Exception:
                pass

    def __repr__(self) -> str:
        state = "dead" if self._dead else ("running" if self.alive() else f"exited {self.returncode}")
        return f"<BotProcess pid={self.pid} backend={self._backend} {state}>"


def kill_all() -> None:
    """Kill every bot still running in this process (used at interpreter exit)."""
    for proc in list(_LIVE):
        try:
            proc.kill()
        except Exception:
            pass


atexit.register(kill_all)
