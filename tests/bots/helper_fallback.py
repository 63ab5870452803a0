"""Plays index 0 (always legal) and, from the act given as argv[1] on, writes a kit helper's
fallback line on stderr after a traceback-like line, as a helper does when the bot's code fails."""

import json
import sys

MARKER = "cabo-bot: fallback: "
start = int(sys.argv[1]) if len(sys.argv) > 1 else 1
acts = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        acts = 0
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "act":
        acts += 1
        if acts >= start:
            sys.stderr.write(f"KeyError: 'hel'\n{MARKER}act: KeyError: 'hel'; sent legal index 0\n")
            sys.stderr.flush()
        print(json.dumps({"type": "action", "id": msg["id"], "index": 0}), flush=True)
