"""Plays randomly, then answers the chosen acts with a line that is not valid JSON.

Usage: fault_bad_json.py [WHEN=3] [KIND=broken]
KIND: broken (a truncated object) or deep (arrays nested 200,000 deep, well under 1 MiB,
which blows a naive parser's recursion limit).
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

from fault_common import Bot, arg, send_bytes


def fault(bot, msg, n):
    if arg(2, "broken") == "deep":
        send_bytes(b"[" * 200_000 + b"]" * 200_000 + b"\n")
    else:
        send_bytes(b'{"type": action\n')


Bot("fault-bad-json", fault, arg(1, "3")).run()
