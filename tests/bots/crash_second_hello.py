"""Plays one match at random, then fails to start the next: on its second ``hello`` it writes
about its first match on stderr and exits, as a bot with a bug in its between-matches code does."""
import json
import random
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

match, hellos, rng = "?", 0, random.Random(0)
for raw in sys.stdin:
    msg = json.loads(raw)
    if msg.get("type") == "hello":
        hellos += 1
        if hellos > 1:
            sys.stderr.write(f"{match} recap: what I held at the end\n")
            sys.stderr.flush()
            sys.exit(3)
        match = msg["match"]
        print(json.dumps({"type": "ready", "name": "crash-second-hello"}), flush=True)
    elif msg.get("type") == "act":
        print(json.dumps({"type": "action", "id": msg["id"], "index": rng.randrange(len(msg["legal"]))}), flush=True)
    elif msg.get("type") == "over":
        sys.stderr.write(f"{match} over\n")
        sys.stderr.flush()
