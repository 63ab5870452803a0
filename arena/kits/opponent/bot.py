"""The default opponent of `arena bot check` and `arena submit` in an installed arena: uniform random
over the legal actions, seeded from the match id and seat as the bundled bots/random is, and
needing nothing but the standard library (it ships inside the package, away from bots/lib)."""

import json
import random
import sys

rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind == "hello":
        rng = random.Random(f"{message.get('match')}/{message.get('seat')}")
        print(json.dumps({"type": "ready", "name": "random"}), flush=True)
    elif kind == "act":
        print(json.dumps({"type": "action", "id": message["id"], "index": rng.randrange(len(message["legal"]))}),
              flush=True)
