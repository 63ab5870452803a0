"""bots/lib/cabo_bot.py: the run loop and the helpers."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from arena.game import make_rules

from .driver import BOTS, BOT_PYTHON

sys.path.insert(0, str(BOTS / "lib"))
import cabo_bot  # noqa: E402

HELLO = {"type": "hello", "protocol": 1, "match": "m-1", "seat": 1, "players": 2,
         "rules": {"preset": "standard", "options": {}}, "values": make_rules("standard").value_map(),
         "time": {"move_ms": 1000, "startup_ms": 10000}}


def drive(factory: Any, messages: list[Any], name: str | None = None) -> list[dict[str, Any]]:
    data = "".join((m if isinstance(m, str) else json.dumps(m)) + "\n" for m in messages).encode()
    out = io.StringIO()
    cabo_bot.run(factory, name=name, stdin=io.BytesIO(data), stdout=out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


class Recorder:
    name = "recorder"
    made: list["Recorder"] = []

    def __init__(self, hello: dict[str, Any]) -> None:
        self.hello = hello
        self.calls: list[tuple[str, Any]] = []
        Recorder.made.append(self)

    def act(self, state: dict[str, Any], legal: list[Any], events: list[Any]) -> Any:
        self.calls.append(("act", state.get("turn")))
        return state.get("answer", len(legal) - 1)

    def update(self, events: list[Any]) -> None:
        self.calls.append(("update", len(events)))

    def over(self, result: dict[str, Any]) -> None:
        self.calls.append(("over", result))


def test_run_loop() -> None:
    Recorder.made = []
    act = {"type": "act", "id": 3, "state": {"turn": 0}, "events": [], "legal": [{"do": "a"}, {"do": "b"}]}
    replies = drive(Recorder, [
        {"type": "mystery"}, "not json", "[1, 2]",
        HELLO, act, {"type": "update", "events": [{}, {}]},
        {**act, "id": 4, "state": {"turn": 1, "answer": {"do": "a"}}},   # an action object -> its index
        {**act, "id": 5, "state": {"turn": 2, "answer": 7}},             # bad index -> 0
        {**act, "id": 6, "state": {"turn": 3, "answer": True}},          # bool is not an index -> 0
        {"type": "over", "result": {"places": [1, 2]}},
        {**HELLO, "match": "m-2"}, {**act, "id": 7},
    ])
    assert replies == [
        {"type": "ready", "name": "recorder"},
        {"type": "action", "id": 3, "index": 1},
        {"type": "action", "id": 4, "index": 0},
        {"type": "action", "id": 5, "index": 0},
        {"type": "action", "id": 6, "index": 0},
        {"type": "ready", "name": "recorder"},
        {"type": "action", "id": 7, "index": 1},
    ]
    first, second = Recorder.made
    assert first.calls == [("act", 0), ("update", 2), ("act", 1), ("act", 2), ("act", 3), ("over", {"places": [1, 2]})]
    assert second.hello["match"] == "m-2" and second.calls == [("act", 0)]


def test_failing_policy_still_answers(capfd: pytest.CaptureFixture[str]) -> None:
    """... and says so on stderr: the traceback, then one marker line per act answered with index 0."""
    class Broken:
        def __init__(self, hello: dict[str, Any]) -> None:
            pass

        def act(self, state: Any, legal: Any, events: Any) -> int:
            raise RuntimeError("boom")

    def bad_factory(hello: dict[str, Any]) -> Any:
        raise RuntimeError("no policy")

    act = {"type": "act", "id": 1, "state": {}, "events": [], "legal": [{}, {}]}
    assert drive(Broken, [HELLO, act], name="x") == [{"type": "ready", "name": "x"},
                                                      {"type": "action", "id": 1, "index": 0}]
    err = capfd.readouterr().err
    assert "RuntimeError: boom\ncabo-bot: fallback: act: RuntimeError: boom; sent legal index 0\n" in err
    assert drive(bad_factory, [HELLO, act], name="y")[1] == {"type": "action", "id": 1, "index": 0}
    err = capfd.readouterr().err
    assert "RuntimeError: no policy" in err
    assert err.endswith("cabo-bot: fallback: no policy (it could not be made at hello, see above); sent legal index 0\n")
    drive(Recorder, [HELLO, {**act, "state": {"turn": 0, "answer": 7}}, {**act, "state": {"turn": 1, "answer": 1}}])
    marks = [line for line in capfd.readouterr().err.splitlines() if line.startswith("cabo-bot: fallback: ")]
    assert marks == ["cabo-bot: fallback: act: ValueError: index 7 out of range 0..1; sent legal index 0"]


def test_stray_prints_go_to_stderr(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "printer" / "bot.py"
    bot.parent.mkdir(parents=True)
    bot.write_text(textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(BOTS / 'lib')!r})
        import cabo_bot

        class Policy:
            def __init__(self, hello):
                print("debug: hello")
            def act(self, state, legal, events):
                print("debug: act")
                return 0

        cabo_bot.run(Policy)
    """))
    messages = [HELLO, {"type": "act", "id": 9, "state": {}, "events": [], "legal": [{}]}]
    proc = subprocess.run([BOT_PYTHON, str(bot)], input="".join(json.dumps(m) + "\n" for m in messages),
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 0
    assert [json.loads(line) for line in proc.stdout.splitlines()] == [
        {"type": "ready", "name": "printer"}, {"type": "action", "id": 9, "index": 0}]
    assert "debug: act" in proc.stderr


def test_card_helpers() -> None:
    assert cabo_bot.is_moon(["QH", "KS", "QC", "KC"])
    assert not cabo_bot.is_moon(["QH", "KS", "QC", "KH"])
    assert not cabo_bot.is_moon(["QH", "KS", "QC", "KC", "AS"])
    assert cabo_bot.rank_of("TH") == "T"
    state = {"hands": [["AS", "?", None], ["?", "KD"]], "discard": ["2C", "3C"], "held": "4C"}
    unseen = cabo_bot.unseen_cards(state, list(HELLO["values"]))
    assert len(unseen) == 52 - 5
    assert not {"AS", "KD", "2C", "3C", "4C"} & set(unseen)


def test_knowledge_follows_events() -> None:
    know = cabo_bot.Knowledge({**HELLO, "players": 3, "seat": 0})
    know.update([
        {"type": "round_start", "seat": 0, "round": 1, "slots": [4, 4, 4]},
        {"type": "look_initial", "seat": 1, "slots": [0, 1]},
        {"type": "spy", "seat": 0, "target": 2, "slot": 3, "card": "5H"},
        {"type": "swap", "seat": 2, "slot": 0, "from": "deck", "discarded": "9C"},
        {"type": "blind_swap", "seat": 1, "slot": 0, "target": 0, "their": 2, "discarded": "JH"},
        {"type": "claim", "seat": 2, "slot": 1, "card": "9D", "ok": True},
        {"type": "claim", "seat": 2, "slot": 2, "card": "4D", "ok": False},
        {"type": "penalty", "seat": 2, "slot": 4},
        {"type": "multi", "seat": 1, "slots": [1, 3], "into": 1, "from": "discard", "revealed": ["7S", "7D"],
         "ok": True},
    ])
    assert know.owner_knows(0, 2) is False and know.is_dumped(0, 2)   # seat 1 gave away a card it knew
    assert know.knowers[1][0] == frozenset()                           # what it got back, nobody knows
    assert know.knowers[2][3] == frozenset({0})
    assert know.owner_knows(2, 0)
    assert know.knowers[2][1] is None and know.knowers[2][2] == know.everyone
    assert know.knowers[2][4] == frozenset() and know.occupied(2) == [0, 2, 3, 4]
    assert know.knowers[1][1] == know.everyone and know.knowers[1][3] is None
    # sync repairs a layout the events did not explain, and adds what the state shows
    know.sync({"seat": 0, "hands": [["AS", "?", "?", None], ["?", "?", None, None], ["?", "?"]]})
    assert know.knowers[0][0] == frozenset({0}) and know.knowers[0][3] is None
    assert len(know.knowers[2]) == 2


@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_python_bots_import_lib_from_any_cwd(bot: str, tmp_path: Path) -> None:
    proc = subprocess.run([BOT_PYTHON, str(BOTS / bot / "bot.py")], input=json.dumps(HELLO) + "\n",
                          capture_output=True, text=True, timeout=30, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"type": "ready", "name": bot}
