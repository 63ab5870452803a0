"""Bot files by content: what a build wrote, symlinks, skipped folders, plain-words differences."""

from __future__ import annotations

import os

from arena.bots import files


def test_digests_are_by_content_and_cover_the_shared_lib(tmp_path):
    bot, lib = tmp_path / "bot", tmp_path / "lib"
    (bot / "sub").mkdir(parents=True)
    lib.mkdir()
    (bot / "a.py").write_text("a")
    (bot / "sub" / "b.txt").write_text("b")
    (lib / "helper.py").write_text("h")
    (bot / "__pycache__").mkdir()
    (bot / "__pycache__" / "a.pyc").write_bytes(b"x")
    (bot / "replays").mkdir()  # `arena play` run from inside the bot directory
    (bot / "replays" / "play-7.jsonl").write_text("{}")
    (bot / "sub" / "replays").mkdir()  # deeper down it is the bot's own folder
    (bot / "sub" / "replays" / "data").write_text("d")
    os.symlink("a.py", bot / "link")
    first = files.digests(str(bot))
    assert set(first) == {"a.py", "sub/b.txt", "sub/replays/data", "link", "../lib/helper.py"}
    assert first["link"] == "symlink:a.py"
    os.utime(bot / "a.py", (1, 1))
    assert files.digests(str(bot)) == first
    (bot / "a.py").write_text("A")
    assert files.difference(first, files.digests(str(bot))) == ["a.py changed"]
    assert files.digests(str(bot), exclude=["a.py"]).keys() == first.keys() - {"a.py"}


def test_changed_by_names_files_a_step_created_or_rewrote(tmp_path):
    (tmp_path / "keep").write_text("k")
    (tmp_path / "rewrite").write_text("1")
    before = files.stamps(str(tmp_path))
    (tmp_path / "rewrite").write_text("2")
    (tmp_path / "new").write_text("n")
    assert files.changed_by(before, files.stamps(str(tmp_path))) == {"rewrite", "new"}


def test_difference_in_plain_words():
    assert files.difference({"a": "1", "b": "2"}, {"b": "3", "c": "4"}) == ["a removed", "b changed", "c added"]
