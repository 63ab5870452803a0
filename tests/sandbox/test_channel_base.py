"""The shared channel over the smallest transport: a socketpair, the test playing the bot.

What a backend must supply is only the transport; these tests pin down the part every
backend shares (line buffer, deadlines, bounds, end of stream, kill) without a process.
"""

from __future__ import annotations

import gc
import os
import select
import socket
import time

import pytest

from arena.sandbox import Channel, ChannelClosed, ChannelTimeout, Limits, LineTooLong
from arena.sandbox import channel as channel_module

from .conftest import Waits, soon


class PairChannel(Channel):
    """A channel whose bot is the other end of a socketpair (``self.bot``)."""

    def __init__(self, limits: Limits = Limits()) -> None:
        self.arena, self.bot = socket.socketpair()
        self.arena.setblocking(False)
        self.ended = 0
        fd = self.arena.fileno()
        self._rpoll = select.poll()
        self._rpoll.register(fd, select.POLLIN)
        super().__init__(fd, limits=limits, token="pair", backend="pair", label="pair")

    @property
    def pid(self) -> int:
        return 0

    @property
    def returncode(self) -> int | None:
        return 0 if self._exited else None

    def wait_fds(self) -> tuple[int, ...]:
        return () if self._exited else (self._wfd,)

    def _wait_send(self, timeout_ms: float) -> None:
        p = select.poll()
        p.register(self._wfd, select.POLLOUT)
        p.poll(timeout_ms)

    def _pull(self, timeout_ms: float) -> int:
        if self._exited or not self._rpoll.poll(timeout_ms):
            return 0
        want = self._cap - len(self._buf)
        if want <= 0:
            return 0
        data = os.read(self._wfd, want)
        if not data:
            self._out_eof = self._exited = True
        self._buf += data
        return len(data)

    def _pull_stderr(self) -> int:
        return 0

    def _closed(self, what: str, wait: float) -> ChannelClosed:
        return ChannelClosed(what, self.returncode)

    def _shut_stdin(self) -> None:
        self.arena.shutdown(socket.SHUT_WR)

    def _wait_exit(self, timeout_ms: float) -> bool:
        return bool(self._pull(timeout_ms)) or self._exited

    def _end(self) -> None:
        self.ended += 1
        self.arena.close()
        self.bot.close()


def test_lines_are_cut_from_one_buffer_across_reads() -> None:
    pair = PairChannel()
    try:
        pair.bot.sendall(b"one\ntw")
        assert pair.readline(soon(5)) == b"one"
        with pytest.raises(ChannelTimeout):
            pair.readline(soon(0.05))
        pair.bot.sendall(b"o\n\nthree\n")
        assert [pair.readline(soon(5)) for _ in range(3)] == [b"two", b"", b"three"]
        pair.send(b"hello\n", soon(5))
        assert pair.bot.recv(100) == b"hello\n"
    finally:
        pair.kill()


def test_a_line_that_already_arrived_is_taken_past_the_deadline() -> None:
    pair = PairChannel()
    try:
        pair.bot.sendall(b"late\n")
        assert pair.readline(time.monotonic() - 1.0) == b"late"
        waits = Waits(pair)
        with pytest.raises(ChannelTimeout):
            pair.readline(waits.since - 1.0)
        assert waits.calls and waits.none_block()  # past its deadline it only looks at what arrived
    finally:
        pair.kill()


def test_the_buffer_stays_within_the_line_limit() -> None:
    pair = PairChannel(Limits(max_line_bytes=1000))
    try:
        pair.bot.sendall(b"x" * 5000)
        with pytest.raises(LineTooLong, match="1000"):
            pair.readline(soon(5))
        assert len(pair._buf) <= 1001  # noqa: SLF001
    finally:
        pair.kill()


def test_lines_written_before_the_end_come_before_channel_closed() -> None:
    pair = PairChannel()
    try:
        pair.bot.sendall(b"last\nwords\n")
        pair.bot.shutdown(socket.SHUT_WR)
        assert pair.readline(soon(5)) == b"last"
        assert pair.readline(soon(5)) == b"words"
        with pytest.raises(ChannelClosed, match="bot exited") as info:
            pair.readline(soon(5))
        assert info.value.returncode == 0 and not pair.alive()
    finally:
        pair.kill()


def test_a_bot_that_does_not_read_makes_send_time_out() -> None:
    pair = PairChannel()
    try:
        waits = Waits(pair)
        with pytest.raises(ChannelTimeout, match="did not read its stdin"):
            pair.send(b"z" * (8 << 20), waits.since + 0.2)
        assert waits.calls and waits.all_end_by(waits.since + 0.2)
    finally:
        pair.kill()


def test_kill_is_idempotent_and_the_channel_stays_closed() -> None:
    pair = PairChannel()
    pair.kill()
    pair.kill()
    pair.close()
    assert pair.ended == 1 and not pair.alive() and "closed" in repr(pair)
    with pytest.raises(ChannelClosed, match="killed"):
        pair.readline(soon(1))
    with pytest.raises(ChannelClosed, match="stdin is closed"):
        pair.send(b"x\n", soon(1))


def test_close_gives_eof_and_waits_for_the_bot_to_go() -> None:
    pair = PairChannel()
    pair.close_stdin()
    pair.bot.settimeout(5)
    assert pair.bot.recv(10) == b""  # the bot sees EOF on its stdin
    pair.bot.shutdown(socket.SHUT_WR)  # and "exits"
    waits = Waits(pair)
    pair.close(grace=5)
    assert pair.returncode == 0 and pair.ended == 1  # its exit was seen: not killed when the grace ran out
    assert [name for name, _, _ in waits.calls].count("_wait_exit") == 1  # the first wait saw it go


def test_a_forgotten_channel_is_killed_with_a_warning() -> None:
    pair = PairChannel()
    ends: list[int] = []
    arena, bot = pair.arena, pair.bot
    pair._end = lambda: ends.append(1)  # type: ignore[method-assign]  # noqa: SLF001
    with pytest.warns(ResourceWarning, match="PairChannel pair was not closed"):
        del pair
        gc.collect()
    assert ends == [1]
    arena.close()
    bot.close()


def test_a_forked_child_does_not_kill_its_parents_bots_at_exit() -> None:
    pair = PairChannel()
    try:
        pid = os.fork()
        if pid == 0:  # the child: what atexit would run there
            channel_module.kill_all()
            os._exit(pair.ended)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert pair.ended == 0 and pair.alive()
    finally:
        pair.kill()


def test_stderr_is_counted_and_its_end_handed_out_in_pieces() -> None:
    """One bounded buffer serves both the fault tail and the log: a count and the last max(...) bytes."""
    pair = PairChannel(Limits(stderr_tail_bytes=8, log_bytes=32))
    try:
        assert (pair.stderr_total, pair.stderr_since(0)) == (0, (0, b""))
        pair._keep_stderr(b"0123456789")  # noqa: SLF001  (what a transport does with stderr it read)
        mark = pair.stderr_total
        assert mark == 10 and pair.stderr_since(0) == (0, b"0123456789") and pair.stderr_since(mark) == (0, b"")
        pair._keep_stderr(b"abcdefghij" * 5)  # noqa: SLF001
        assert pair.stderr_total == 60
        assert pair.stderr_since(mark) == (50 - 32, (b"abcdefghij" * 5)[-32:])  # the buffer kept only 32
        assert pair.stderr_tail() == "cdefghij"  # a fault shows only stderr_tail_bytes
        assert len(pair._tail) == 32  # noqa: SLF001
    finally:
        pair.kill()
