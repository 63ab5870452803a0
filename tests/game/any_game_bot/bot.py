"""A bot for any game: it answers the protocol by choosing one of the legal actions, and knows no rules.

Seeded from ``hello``'s match id and seat, so a match replays identically. It shows what a game
asks of its bots: only the protocol (``hello``/``ready``, ``act``/``action``), never the game.
"""

import json
import random
import sys

rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        rng = random.Random(f"{message['match']}/{message['seat']}")
        print(json.dumps({"type": "ready", "name": "any-game"}), flush=True)
    elif message["type"] == "act":
        index = rng.randrange(len(message["legal"]))
        print(json.dumps({"type": "action", "id": message["id"], "index": index}), flush=True)
