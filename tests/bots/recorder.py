"""Plays at random and keeps every line the arena sends it in DIR/<pid>.jsonl: what a bot really sees.

Usage: recorder.py DIR
"""
import json
import os
import random
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

log = os.open(os.path.join(sys.argv[1], f"{os.getpid()}.jsonl"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
rng = random.Random(0)
for raw in sys.stdin.buffer:
    os.write(log, raw)
    msg = json.loads(raw)
    if msg.get("type") == "hello":
        rng = random.Random(f"{msg.get('match')}/{msg.get('seat')}")
        print(json.dumps({"type": "ready", "name": "recorder"}), flush=True)
    elif msg.get("type") == "act":
        print(json.dumps({"type": "action", "id": msg["id"], "index": rng.randrange(len(msg["legal"]))}), flush=True)
