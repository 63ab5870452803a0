"""Plays at random and says on stderr what it does, naming the match: for the tests of bots' logs.

Per match (it accepts a new hello after over): ``<match> hello`` before ``ready``,
``<match> act <n>`` before the reply to its n-th act of that match, and ``<match> eof``
when stdin closes. Arguments ``key=value``: ``flood=MIB`` writes MIB MiB more to stderr
before each reply (lines of ``x``); ``ready_after=SECONDS`` sleeps before ``ready``;
``ready_when=PATH`` also waits until PATH exists before ``ready``; ``mark=PATH`` creates PATH once
it has written ``ready`` (so one writer's start ends after another's, whatever the machine's speed);
``after_over=SECONDS`` answers ``over`` with ``<match> over``, sleeps, then ``<match> late``
(what a bot writing about its last match while the next hello waits does).
"""
import json
import os
import random
import sys
import time

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

options = dict(arg.split("=", 1) for arg in sys.argv[1:])
flood = b"x" * 1023 + b"\n"
flood *= int(float(options.get("flood", "0")) * 1024)
ready_after = float(options.get("ready_after", "0"))
ready_when = options.get("ready_when")
mark = options.get("mark")
after_over = options.get("after_over")
err = sys.stderr.buffer

match, acts, rng = "?", 0, random.Random(0)
for raw in sys.stdin:
    msg = json.loads(raw)
    if msg.get("type") == "hello":
        match, acts = msg["match"], 0
        rng = random.Random(f"{match}/{msg['seat']}")
        err.write(f"{match} hello\n".encode())
        err.flush()
        time.sleep(ready_after)
        while ready_when is not None and not os.path.exists(ready_when):
            time.sleep(0.01)
        print(json.dumps({"type": "ready", "name": "log-writer"}), flush=True)
        if mark is not None:
            open(mark, "a").close()
    elif msg.get("type") == "act":
        acts += 1
        err.write(flood + f"{match} act {acts}\n".encode())
        err.flush()
        print(json.dumps({"type": "action", "id": msg["id"], "index": rng.randrange(len(msg["legal"]))}), flush=True)
    elif msg.get("type") == "over" and after_over is not None:
        err.write(f"{match} over\n".encode())
        err.flush()
        time.sleep(float(after_over))
        err.write(f"{match} late\n".encode())
        err.flush()
err.write(f"{match} eof\n".encode())
err.flush()
