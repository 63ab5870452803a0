"""The docker transport's demultiplexing, without an engine: frames written to a socket pair."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest

from arena.sandbox import Limits
from arena.sandbox.channel import LineTooLong
from arena.sandbox.docker import ContainerProcess


class FakeApi:
    """Answers every engine call the way an engine that has nothing to say would."""

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: {"StatusCode": 0, "State": {"Pid": 0, "OOMKilled": False}}


def frame(stream: int, payload: bytes) -> bytes:
    """One frame of docker's attach stream: stream (1 stdout, 2 stderr), three zero bytes, the size."""
    return bytes([stream, 0, 0, 0]) + len(payload).to_bytes(4, "big") + payload


def test_stderr_framed_behind_an_overlong_line_still_reaches_the_tail():
    """The flood fills the line buffer and then the raw buffer before LineTooLong is raised; the
    stderr after it must still be read (it was stuck for good until the raw buffer was drained first)."""
    ours, engine = socket.socketpair()
    data = frame(1, b"x" * 150_000 + b"\n") + frame(2, b"e" * 200 + b"TAIL-END\n")
    sender = threading.Thread(target=engine.sendall, args=(data,))
    sender.start()
    time.sleep(0.2)  # let the whole flood wait in the socket, as on a loaded machine
    proc = ContainerProcess(FakeApi(), "c" * 64, None, ours, limits=Limits(max_line_bytes=4096, stderr_tail_bytes=64),
                            token="t")
    try:
        with pytest.raises(LineTooLong):
            proc.readline(time.monotonic() + 60)
        end = time.monotonic() + 60  # a bound only a broken channel reaches
        while not (tail := proc.stderr_tail()).endswith("TAIL-END\n") and time.monotonic() < end:
            time.sleep(0.01)
        assert tail.endswith("TAIL-END\n") and len(tail) <= 64
    finally:
        sender.join(5)
        proc._dead = True  # nothing to kill: no container behind the fake engine
        ours.close()
        engine.close()
