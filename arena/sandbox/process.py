"""``BotProcess``: the channel over three pipes to a local process (``none``, ``bwrap``).

The line buffer, deadlines and stderr tail are :class:`~arena.sandbox.channel.Channel`'s;
this class supplies the pipes and the process around them:

* The three pipe ends are raw non-blocking fds watched with ``select.poll``; a pidfd
  (Linux >= 5.3) wakes us when the bot's main process exits even if a grandchild
  still holds its stdout open.
* Stdout is read in chunks sized so the line buffer stays within ``max_line_bytes + 1``;
  what does not fit stays in the pipe, so a bot that outruns us blocks on its own write.
* The main process is never reaped before ``kill``: exit statuses are peeked with
  ``waitid(WNOWAIT)``, which keeps the pid reserved for ``reaper.kill_tree``.
"""

from __future__ import annotations

import os
import select
import shutil
import subprocess
import time
import warnings
from collections.abc import Callable, Iterable

from .channel import CHUNK, Channel
from .errors import ChannelClosed
from .limits import Limits
from . import cgroups, orphans
from .reaper import kill_tree

_POLLIN = select.POLLIN
_POLLOUT = select.POLLOUT


class BotProcess(Channel):
    """A bot started as a local process tree, reached through its stdin/stdout/stderr pipes."""

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
        self._err_open = True
        super().__init__(self._in, limits=limits, token=token, backend=backend, label=f"pid={popen.pid}",
                         workdir=workdir)

    # ----------------------------------------------------------------- facts
    @property
    def pid(self) -> int:
        """Pid of the process we started (the bot itself, or ``bwrap`` around it)."""
        return self._popen.pid

    @property
    def cgroup(self) -> str | None:
        """Path of the pids cgroup capping the bot's processes, or None where there is none."""
        return self._cgroup

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
        """Stdout and stderr while open, and the pidfd until the exit: ``readline``'s news."""
        fds = [fd for fd, open_ in ((self._out, not self._out_eof), (self._err, self._err_open)) if open_]
        if self._pidfd >= 0 and not self._exited:
            fds.append(self._pidfd)
        return tuple(fds)

    # ------------------------------------------------------------- the pipes
    def _wait_send(self, timeout_ms: float) -> None:
        """Poll stdin for room, reading stderr and noting the exit meanwhile."""
        for fd, _ev in self._wpoll.poll(timeout_ms):
            if fd == self._err:
                self._read_stderr()
            elif fd == self._pidfd:
                self._on_exit()

    def _pull(self, timeout_ms: float) -> int:
        """Poll stdout, stderr and the pidfd; returns the stdout bytes read.

        Stdout gets one non-blocking read, sized so the buffer stays within
        ``max_line_bytes + 1`` (read here, not in a helper: this is the hot path).
        """
        got = 0
        for fd, _ev in self._rpoll.poll(timeout_ms):
            if fd == self._out:
                want = min(CHUNK, self._cap - len(self._buf))
                if want <= 0:
                    continue
                try:
                    data = os.read(fd, want)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if data:
                    self._buf += data
                    got = len(data)
                else:
                    self._out_eof = True
                    self._rpoll.unregister(fd)
            elif fd == self._err:
                self._read_stderr()
            else:
                self._on_exit()
        return got

    def _read_stderr(self) -> int:
        """Read one chunk of stderr into the bounded tail; returns bytes read (0: none or EOF)."""
        try:
            data = os.read(self._err, CHUNK)
        except BlockingIOError:
            return 0
        except OSError:
            data = b""
        if not data:
            self._err_open = False
            self._rpoll.unregister(self._err)
            self._wpoll.unregister(self._err)
            return 0
        self._keep_stderr(data)
        return len(data)

    def _pull_stderr(self) -> int:
        """One non-blocking read of stderr while it is open."""
        return self._read_stderr() if self._err_open else 0

    def _on_exit(self) -> None:
        """The pidfd fired: stop watching it (it would stay readable forever)."""
        if not self._exited:
            self._exited = True
            self._rpoll.unregister(self._pidfd)
            self._wpoll.unregister(self._pidfd)

    def _closed(self, what: str, wait: float) -> ChannelClosed:
        """ChannelClosed with the exit status, waiting on the pidfd for an exit that EOF announced."""
        if self._pidfd >= 0 and not self._exited and not self._dead:
            p = select.poll()
            p.register(self._pidfd, _POLLIN)
            if p.poll(wait * 1000.0):
                self._on_exit()
        return ChannelClosed(what, self.returncode)

    # -------------------------------------------------------------- shutdown
    def _shut_stdin(self) -> None:
        """Close our end of the stdin pipe."""
        self._wpoll.unregister(self._in)
        try:
            assert self._popen.stdin is not None
            self._popen.stdin.close()
        except OSError:
            pass

    def _wait_exit(self, timeout_ms: float) -> bool:
        """Wait on the pidfd (draining stderr); without one, peek at the status every 5 ms."""
        if self._pidfd < 0:  # modest polling is fine on this cold path
            if self.returncode is not None:
                return False
            time.sleep(min(0.005, timeout_ms / 1000.0))
            return True
        self._wait_send(timeout_ms)  # stdin is closed: this waits for stderr and the exit only
        return True

    def _end(self) -> None:
        """SIGKILL the bot and every process it started, reap them, remove its tmp dir and cgroup."""
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
