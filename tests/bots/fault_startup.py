"""Fails the start of a match.

Usage: fault_startup.py [MODE=silent] [STATUS=4]
MODE: ``silent`` (reads hello, never answers), ``exit`` (exits at once, before hello),
``garbage`` (answers hello with a message that is not ``ready``).
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

import time

from fault_common import MARKER, arg, log, send

mode = arg(1, "silent")
log(f"{MARKER} fault-startup mode {mode}")
if mode == "exit":
    raise SystemExit(int(arg(2, "4")))
line = sys.stdin.buffer.readline()
if mode == "garbage":
    send({"type": "steady", "name": "fault-startup"})
elif mode != "silent":
    raise SystemExit(f"fault_startup: unknown mode {mode!r}")
for _ in sys.stdin.buffer:  # never answers anything
    pass
time.sleep(3600)
