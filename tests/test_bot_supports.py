"""The manifest's ``supports``: parsing, every error, and a BotSpec that stays a dict key."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from arena.bots import BotConfigError, load_bot
from arena.bots.supports import Supports


def manifest(tmp_path: Path, supports: str | None) -> Path:
    (tmp_path / "bot.yaml").write_text('name: picky\nrun: ["{python}", "bot.py"]\n'
                                       + (f"supports: {supports}\n" if supports is not None else ""))
    (tmp_path / "bot.py").write_text("")
    return tmp_path


def supports(tmp_path: Path, text: str | None) -> Supports:
    return load_bot(str(manifest(tmp_path, text))).supports


def error(tmp_path: Path, text: str) -> str:
    with pytest.raises(BotConfigError) as info:
        load_bot(str(manifest(tmp_path, text)))
    return str(info.value)


def test_nothing_declared_plays_every_preset_and_table_size(tmp_path: Path) -> None:
    for text in (None, "null", "{}"):
        found = supports(tmp_path, text)
        assert not found.declared and found == Supports()
        assert found.presets() == ("standard", "espanola") and found.table_sizes() == (2, 3, 4, 5)
        assert found.plays("espanola", 5) and found.text() == "every preset, 2-5 seats"


def test_declared_presets_and_sizes(tmp_path: Path) -> None:
    found = supports(tmp_path, "{rules: [espanola, standard, espanola], seats: [4, 2, 4]}")
    assert found.rules == ("standard", "espanola") and found.seats == (2, 4)  # preset order, sorted, deduplicated
    assert found.plays("standard", 4) and not found.plays("standard", 3)
    only = supports(tmp_path, "{rules: standard, seats: 2}")  # a single value stands for a list of one
    assert only == Supports(rules=("standard",), seats=(2,))
    assert only.text() == "standard, 2 seats" and only.short() == "rules [standard], seats [2]"
    assert not only.plays("espanola", 2)
    assert only.why_not("espanola", 3) == "its manifest supports standard, 2 seats, not espanola at 3 seats"
    assert supports(tmp_path, "{seats: [2, 3]}") == Supports(seats=(2, 3))


@pytest.mark.parametrize("text,words", [
    ("[standard]", "field 'supports' must be a mapping such as {rules: [standard], seats: [2, 3]}, got a list"),
    ("standard", "field 'supports' must be a mapping"),
    ("{rules: [standard], colour: red}", "supports: unknown key 'colour'; allowed: rules, seats"),
    ("{rules: [poker]}", "supports.rules: unknown rule preset 'poker'; expected standard | espanola"),
    ("{rules: [1]}", "supports.rules: unknown rule preset 1"),
    ("{rules: []}", "supports.rules: an empty list plays nothing"),
    ("{seats: [2, 6]}", "supports.seats: 6 is not a table size; expected integers from 2 to 5"),
    ("{seats: 1}", "supports.seats: 1 is not a table size"),
    ("{seats: [true]}", "supports.seats: true is not a table size"),
    ("{seats: ['2']}", "supports.seats: '2' is not a table size"),
    ("{seats: [[2]]}", "supports.seats: a list is not a table size"),
    ("{seats: []}", "supports.seats: an empty list plays nothing; list at least one, e.g. [2]"),
])
def test_bad_supports_name_the_file_and_what_would_be_right(tmp_path: Path, text: str, words: str) -> None:
    message = error(tmp_path, text)
    assert message.startswith(f"{tmp_path / 'bot.yaml'}: ") and words in message, message
    assert "\n" not in message


def test_spec_with_supports_is_hashable_picklable_and_compares_by_value(tmp_path: Path) -> None:
    spec = load_bot(str(manifest(tmp_path, "{rules: [standard], seats: [2]}")))
    again = pickle.loads(pickle.dumps(spec))
    assert again == spec and hash(again) == hash(spec) and {spec: 1}[again] == 1
    assert spec != load_bot(str(manifest(tmp_path, "{rules: [standard], seats: [3]}")))
