"""Round trips, deadlines, EOF and line-length handling of BotProcess, under every backend."""

from __future__ import annotations

import json
import time

import pytest

from arena.sandbox import ChannelClosed, ChannelTimeout, Limits, LineTooLong

from .conftest import Launcher, Waits, soon


def test_echo_round_trip(launch: Launcher) -> None:
    bot = launch("echo.py")
    for i in range(200):
        payload = json.dumps({"seq": i, "pad": "x" * 1500}).encode()
        bot.send(payload + b"\n", soon(5))
        assert bot.readline(soon(5)) == payload
    assert bot.alive()


def test_lines_split_and_joined_correctly(launch: Launcher) -> None:
    bot = launch("echo.py")
    bot.send(b"one\ntwo\nthr", soon(5))
    assert bot.readline(soon(5)) == b"one"
    bot.send(b"ee\n\n", soon(5))
    assert bot.readline(soon(5)) == b"two"
    assert bot.readline(soon(5)) == b"three"
    assert bot.readline(soon(5)) == b""


def test_readline_deadline_honoured(launch: Launcher) -> None:
    bot = launch("echo.py")
    bot.send(b"hello\n", soon(5))
    assert bot.readline(soon(5)) == b"hello"
    bot.send(b"noreply\n", soon(5))
    waits = Waits(bot)
    start = waits.since
    with pytest.raises(ChannelTimeout):
        bot.readline(start + 0.3)
    assert time.monotonic() - start >= 0.3  # it waited for a reply until the deadline...
    assert waits.calls and waits.all_end_by(start + 0.3)  # ...and no wait could block past it
    bot.send(b"again\n", soon(5))  # the channel is still usable after a timeout
    assert bot.readline(soon(5)) == b"again"


def test_deadline_in_the_past_does_not_block(launch: Launcher) -> None:
    bot = launch("silent.py")
    waits = Waits(bot)
    with pytest.raises(ChannelTimeout):
        bot.readline(waits.since - 1)
    assert waits.none_block()  # it only looked at what had arrived


def test_silent_bot_times_out_at_startup(launch: Launcher) -> None:
    bot = launch("silent.py")
    waits = Waits(bot)
    with pytest.raises(ChannelTimeout):
        bot.readline(waits.since + 0.4)
    assert waits.all_end_by(waits.since + 0.4)


def test_eof_gives_channel_closed_with_returncode(launch: Launcher) -> None:
    bot = launch("echo.py")
    bot.send(b"bye\nexit 7\n", soon(5))
    assert bot.readline(soon(5)) == b"bye"  # output written before exit is not lost
    with pytest.raises(ChannelClosed) as info:
        bot.readline(soon(5))
    assert info.value.returncode == 7
    assert not bot.alive()
    with pytest.raises(ChannelClosed):  # and it stays closed
        bot.readline(soon(5))


def test_send_to_exited_bot_raises_channel_closed(launch: Launcher) -> None:
    bot = launch("echo.py")
    bot.send(b"exit 3\n", soon(5))
    with pytest.raises(ChannelClosed):
        bot.readline(soon(5))
    with pytest.raises(ChannelClosed):
        for _ in range(100):
            bot.send(b"x" * 4096 + b"\n", soon(1))


def test_stdout_flood_without_newline_raises_line_too_long(launch: Launcher) -> None:
    limit = 256 * 1024
    bot = launch("stdout_flood.py", limits=Limits(max_line_bytes=limit))
    with pytest.raises(LineTooLong):
        bot.readline(soon(5))
    assert len(bot._buf) <= limit + 1  # noqa: SLF001 - memory stayed bounded
    assert bot._buf.__alloc__() <= 2 * (limit + 1) + 65536  # noqa: SLF001


def test_default_line_limit_is_one_mebibyte(launch: Launcher) -> None:
    bot = launch("stdout_flood.py")
    with pytest.raises(LineTooLong, match=str(1 << 20)):
        bot.readline(soon(5))


def test_long_line_within_limit_is_accepted(launch: Launcher) -> None:
    bot = launch("echo.py", limits=Limits(max_line_bytes=200_000))
    line = b"y" * 200_000
    bot.send(line + b"\n", soon(5))
    assert bot.readline(soon(5)) == line
    bot.send(line + b"z\n", soon(5))
    with pytest.raises(LineTooLong):
        bot.readline(soon(5))


def test_stderr_flood_is_bounded_and_reads_still_work(launch: Launcher) -> None:
    bot = launch("stderr_flood.py", limits=Limits(stderr_tail_bytes=4096, log_bytes=16384))
    for i in range(20):
        bot.send(b"ping %d\n" % i, soon(5))
        assert bot.readline(soon(5)) == b"pong ping %d" % i
    tail = bot.stderr_tail()
    assert 0 < len(tail) <= 4096
    assert set(tail) <= {"E", "\n"}
    assert bot._tail.__alloc__() <= 2 * 16384 + 65536  # noqa: SLF001  (the log's end is kept too)
    lost, data = bot.stderr_since(0)
    assert len(data) == 16384 and lost + len(data) == bot.stderr_total > 20 * 8 * 32769


def test_never_reading_bot_makes_send_time_out(launch: Launcher) -> None:
    bot = launch("never_reads.py")
    assert bot.readline(soon(5)) == b"ready"
    waits = Waits(bot)
    with pytest.raises(ChannelTimeout):
        bot.send(b"z" * (4 << 20), waits.since + 0.3)
    assert waits.calls and waits.all_end_by(waits.since + 0.3)
