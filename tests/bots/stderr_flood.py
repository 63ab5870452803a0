"""Floods stderr from a thread (and per request) while still answering stdin lines."""
import os
import sys
import threading

CHUNK = b"E" * 32768 + b"\n"


def flood() -> None:
    while True:
        os.write(2, CHUNK)


threading.Thread(target=flood, daemon=True).start()
for raw in sys.stdin.buffer:
    for _ in range(8):
        os.write(2, CHUNK)
    os.write(1, b"pong " + raw)
