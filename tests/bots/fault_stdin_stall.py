"""Shrinks its stdin pipe to one page, then on the chosen act answers and stops reading
stdin for FACTOR x move_ms, so an arena message larger than a page is written only in part.

Usage: fault_stdin_stall.py [WHEN=3] [FACTOR=3]
Any line from the arena that is not JSON (a torn message glued to the next one) is
reported on stderr as CORRUPT-LINE-FROM-ARENA and the bot exits with status 86.
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

import fcntl
import time

from fault_common import Bot, arg

fcntl.fcntl(0, fcntl.F_SETPIPE_SZ, 4096)  # the smallest pipe: one page


def fault(bot, msg, n):
    bot.answer(msg)
    time.sleep(bot.move_ms * float(arg(2, "3")) / 1000.0)


bot = Bot("fault-stdin-stall", fault, arg(1, "3"))
bot.strict = True
bot.run()
