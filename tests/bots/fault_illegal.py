"""Plays randomly, then answers the chosen acts with an action that is not in ``legal``.

Usage: fault_illegal.py [WHEN=3] [MODE=index]
MODE: ``index`` (index len(legal)), ``negative`` (index -1), ``bool`` (index true),
``fly`` (action {"do": "fly"}), ``type`` (a reply whose type is not "action").
"""
import sys

sys.dont_write_bytecode = True  # keep tests/bots free of __pycache__

from fault_common import Bot, arg, send


def fault(bot, msg, n):
    rid, legal = msg["id"], msg.get("legal") or []
    mode = arg(2, "index")
    if mode == "index":
        send({"type": "action", "id": rid, "index": len(legal)})
    elif mode == "negative":
        send({"type": "action", "id": rid, "index": -1})
    elif mode == "bool":
        send({"type": "action", "id": rid, "index": True})
    elif mode == "fly":
        send({"type": "action", "id": rid, "action": {"do": "fly"}})
    elif mode == "type":
        send({"type": "move", "id": rid, "index": 0})
    else:
        raise SystemExit(f"fault_illegal: unknown mode {mode!r}")


Bot("fault-illegal", fault, arg(1, "3")).run()
