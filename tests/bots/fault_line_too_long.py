"""Plays randomly, then answers the chosen act with one line longer than 1 MiB.

Usage: fault_line_too_long.py [WHEN=3] [BYTES=1572864]
The line is a well-formed action object padded with a long string, so only its size is wrong.
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

import json

from fault_common import Bot, arg, send_bytes


def fault(bot, msg, n):
    pad = "x" * int(arg(2, str(3 << 19)))
    send_bytes((json.dumps({"type": "action", "id": msg.get("id"), "index": 0, "pad": pad}) + "\n").encode())


Bot("fault-line-too-long", fault, arg(1, "3")).run()
