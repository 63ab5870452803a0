"""Plays one match at random, then exits when a second hello arrives (ignores process reuse).

The protocol asks every bot to accept a new hello after over; this one does not.
"""
import json
import random
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

hellos = 0
rng = random.Random(0)
for raw in sys.stdin:
    msg = json.loads(raw)
    if msg.get("type") == "hello":
        hellos += 1
        if hellos > 1:
            sys.exit(0)
        rng = random.Random(f"{msg.get('match')}/{msg.get('seat')}")
        print(json.dumps({"type": "ready", "name": "one-match"}), flush=True)
    elif msg.get("type") == "act":
        print(json.dumps({"type": "action", "id": msg["id"], "index": rng.randrange(len(msg["legal"]))}), flush=True)
