"""The fixed value function ``V`` the luck terms are measured with: the part of a seat's match total that a
few features of the true hands predict.

``V(seat) = w . x``, where ``x`` are features of the true state (the seat's effective sum: its cards, the
cards still to be dealt to it at the deck's mean, less what a held card improves on its worst; its card count;
how far above or below the lowest other hand it is; whether it holds a power card it just drew) and ``w`` one
weight vector per preset and table size. A luck term is ``w . (x(actual) - E[x])``, so over a match a seat's
luck is ``w . D``, ``D`` the sum of its feature deltas (a card dealt or given as a penalty moves the effective
sums alone: :mod:`.meter`). ``bench/fit_values.py`` fits ``w`` offline, on self-play of the bundled bots, as
the least-squares regression of round scores on each round's ``D`` (the ``w`` whose terms remove the most
variance from them), and ships it as a versioned file. The file's hash is the model's identity: it is stored
with every measured match, and a model is never fitted on the results it judges.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

VALUES_DIR = Path(__file__).parent / "values"
DEFAULT_FILE = VALUES_DIR / "cabo-v2.json"
FEATURES = ("effective", "cards", "above_lowest", "below_lowest", "power")
"""The features' names, in the order of every weight vector."""


class ValueFileError(ValueError):
    """A value file that cannot be read; the message names the file and what is wrong."""


def features(effective: float, cards: int, lowest_other: float, power: bool) -> tuple[float, ...]:
    """``x`` of one seat (:data:`FEATURES`); ``power``: it holds a card just drawn from the pile that has a
    power (what the card is worth is then its power's, not its value)."""
    gap = effective - lowest_other
    return (effective, float(cards), gap if gap > 0 else 0.0, gap if gap < 0 else 0.0, 1.0 if power else 0.0)


def dot(weights: Sequence[float], x: Sequence[float]) -> float:
    """``w . x``: a seat's ``V``, or its luck from a feature delta."""
    return sum(a * b for a, b in zip(weights, x))


@dataclass(frozen=True)
class ValueModel:
    """``w`` per (preset, table size), the file's version and hash."""

    version: str
    weights: Mapping[tuple[str, int], tuple[float, ...]]
    digest: str
    """sha256 of the file's bytes: which ``V`` measured a match."""

    def weights_for(self, preset: str, players: int) -> tuple[float, ...]:
        """The weights of a table; a table the file has no weights for is measured with the nearest size of its
        preset (still unbiased: only less luck is removed), else with zero weights (no luck is taken out)."""
        sizes = sorted((size for name, size in self.weights if name == preset), key=lambda s: (abs(s - players), s))
        return self.weights[(preset, sizes[0])] if sizes else (0.0,) * len(FEATURES)


def load(path: Path = DEFAULT_FILE) -> ValueModel:
    """The model in ``path`` (``{"version", "features", "weights": {"PRESET/SIZE": [..]}}``)."""
    try:
        raw = Path(path).read_bytes()
        data = json.loads(raw)
    except (OSError, ValueError) as exc:
        raise ValueFileError(f"{path}: cannot read a value file: {exc}") from None
    if not isinstance(data, dict) or data.get("features") != list(FEATURES) or not isinstance(data.get("weights"), dict):
        raise ValueFileError(f"{path}: a value file needs \"features\": {list(FEATURES)} and \"weights\"")
    weights: dict[tuple[str, int], tuple[float, ...]] = {}
    for key, row in data["weights"].items():
        preset, _, size = str(key).partition("/")
        if not size.isdigit() or not isinstance(row, list) or len(row) != len(FEATURES) or \
                not all(isinstance(v, (int, float)) for v in row):
            raise ValueFileError(f"{path}: weights {key!r} must be \"PRESET/SIZE\": {len(FEATURES)} numbers")
        weights[(preset, int(size))] = tuple(float(v) for v in row)
    return ValueModel(str(data.get("version", "")), weights, hashlib.sha256(raw).hexdigest())


def dumps(version: str, weights: Mapping[tuple[str, int], Sequence[float]], fitted_on: str) -> str:
    """A value file's text (sorted, so the same fit gives the same bytes and hash)."""
    return json.dumps({"version": version, "features": list(FEATURES), "fitted_on": fitted_on,
                       "weights": {f"{p}/{n}": [round(v, 6) for v in w] for (p, n), w in sorted(weights.items())}},
                      indent=1) + "\n"
