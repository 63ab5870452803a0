"""Card identities and codes for both decks.

A card is an integer id into its deck; codes (rank then suit) are what bots see.
Values live in :mod:`arena.game.rules` because they depend on the preset's options.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Deck:
    """One physical deck: card ids are indices into ``codes``."""

    name: str
    """Deck name, for messages."""
    ranks: str
    """Rank characters in ascending order."""
    suits: str
    """Suit characters."""
    codes: tuple[str, ...]
    """Two-character code of each card id, rank then suit."""

    @classmethod
    def build(cls, name: str, ranks: str, suits: str) -> "Deck":
        return cls(name, ranks, suits, tuple(r + s for r in ranks for s in suits))

    def __len__(self) -> int:
        return len(self.codes)

    def rank(self, card: int) -> str:
        """Rank character of a card id."""
        return self.codes[card][0]


FRENCH = Deck.build("french", "A23456789TJQK", "SHDC")
SPANISH = Deck.build("spanish", "1234567SCR", "OCEB")
