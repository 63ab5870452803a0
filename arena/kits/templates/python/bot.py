"""__BOT_NAME__: a Cabo Arena bot (protocol v1), made from the arena's Python starter kit.

The arena starts this file (``run`` in bot.yaml) and talks to it in JSON lines on
stdin and stdout. ``cabo_bot.run`` (cabo_bot.py, beside this file) does all of that
talking: this file only decides. Each decision gets

- ``state``: everything this seat may know now (docs/protocol.md, section 5),
- ``legal``: the actions it may choose from (section 6), never empty,
- ``events``: what happened since the last decision (section 7),

and returns the index of one entry of ``legal``. Keep decisions fast (``move_ms``,
1 s by default) and log with ``cabo_bot.log`` (stderr): stdout is the protocol's.
"""

import cabo_bot  # beside this file: Python puts the script's own directory first on sys.path

CABO_AT = 6
"""Call Cabo when the hand is believed to be worth at most this much."""
TAKE_AT = 3
"""Take the top of the discard pile when it is worth at most this much."""
LAST_TURN = 40
"""Call Cabo anyway once a round has had this many turns, so that rounds end."""


class Policy:
    """One match: a new Policy is made for every ``hello``, so nothing leaks between matches."""

    name = "__BOT_NAME__"

    def __init__(self, hello):
        self.seat = hello["seat"]
        self.values = hello["values"]  # card code -> points: depends on the preset and its options

    def act(self, state, legal, events):
        kinds = [action["do"] for action in legal]
        worth = self.worth(state)
        if state["phase"] == "turn":
            known_total = sum(w for w in worth.values())
            if "cabo" in kinds and (known_total <= CABO_AT or state["turn"] >= LAST_TURN):
                return kinds.index("cabo")
            discard = state["discard"]
            if "take" in kinds and discard and self.values[discard[-1]] <= min(TAKE_AT, max(worth.values()) - 1):
                return kinds.index("take")
            return kinds.index("draw") if "draw" in kinds else 0
        if state["phase"] == "drawn":
            held = self.values[state["held"]]
            swaps = [(worth[action["slot"]], index) for index, action in enumerate(legal) if action["do"] == "swap"]
            if swaps and max(swaps)[0] > held:
                return max(swaps)[1]  # replace the card believed to be worst
            for index, action in enumerate(legal):
                if action["do"] == "peek" and state["hands"][self.seat][action["slot"]] == "?":
                    return index  # a power: look at one of our unknown cards
            if "discard" in kinds:
                return kinds.index("discard")
        # look_initial, claim (index 0 is "pass"), rey, or nothing better: the first legal action
        return 0

    def worth(self, state):
        """Slot -> the value of our card there: its value if we know it, else the mean of the unseen cards."""
        unseen = cabo_bot.unseen_cards(state, self.values)
        guess = sum(self.values[code] for code in unseen) / len(unseen) if unseen else 5.0
        hand = state["hands"][self.seat]
        return {slot: guess if card == "?" else self.values[card] for slot, card in enumerate(hand) if card is not None}


if __name__ == "__main__":
    cabo_bot.run(Policy)
