"""Plays randomly, then on the chosen acts answers late: after the arena gave up, or after a sleep.

Usage: fault_timeout.py [WHEN=3] [FACTOR=late] [PHASES]

FACTOR ``late``: the answer waits for the arena's next line, which the arena sends only once
the request has timed out (or, having forfeited the bot, it sends none and kills it), so the
answer is late on any machine, however slow; it then carries the right id, and the bot plays on.
FACTOR a number: sleeps FACTOR x move_ms before answering; below 1 that makes a slow bot that is
in time as long as the rest of the answer takes less than the other part of move_ms.
A comma list gives each faulting act its own FACTOR in turn, the last one for the rest
(``3.5,late``: the first one sleeps, the later ones are late).
PHASES (comma list, e.g. ``look_initial,claim``) restricts counting and sleeping to those phases.
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

import time

from fault_common import Bot, arg

FACTORS = arg(2, "late").split(",")
faulted: dict[str, int] = {}  # faults so far in each match (a process may serve several)


def fault(bot, msg, n):
    match = str(bot.hello.get("match"))
    factor = FACTORS[min(faulted.get(match, 0), len(FACTORS) - 1)]
    faulted[match] = faulted.get(match, 0) + 1
    if factor == "late":
        bot.next_line()  # the arena moved on: the request timed out (or stdin ended)
    else:
        time.sleep(bot.move_ms * float(factor) / 1000.0)
    bot.answer(msg)


Bot("fault-timeout", fault, arg(1, "3"), arg(3, "")).run()
