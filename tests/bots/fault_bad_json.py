"""Plays randomly, then answers the chosen acts with a line that is not valid JSON.

Usage: fault_bad_json.py [WHEN=3]
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

from fault_common import Bot, arg, send_bytes


def fault(bot, msg, n):
    send_bytes(b'{"type": action\n')


Bot("fault-bad-json", fault, arg(1, "3")).run()
