"""`arena author add|list|remove`: a token shown once and stored only as its hash; bad input in one line."""

from __future__ import annotations

import hashlib
import re

from arena.server.store import ServerDB

from .live import ROOT, add_author, cli, write_ladder


def test_a_token_is_printed_once_and_only_its_hash_is_kept(tmp_path):
    ladder = write_ladder(tmp_path)
    code, out, _ = cli("author", "add", str(ladder), "ann")
    assert code == 0
    token = re.fullmatch(r"added the author ann; their token, shown this once:\ntoken: (\S+)\n", out).group(1)
    assert len(token) >= 43
    stored = b"".join(p.read_bytes() for p in (tmp_path / "out").glob("server.sqlite*"))
    assert token.encode() not in stored and hashlib.sha256(token.encode()).hexdigest().encode() in stored
    db = ServerDB(tmp_path / "out")
    try:
        assert db.author_of_token(token).name == "ann"
        assert db.author_of_token(token[:-1]) is None and db.author_of_token("") is None
    finally:
        db.close()


def test_list_and_remove(tmp_path):
    ladder = write_ladder(tmp_path)
    listed = cli("author", "list", str(ladder))  # a read: nothing is created
    assert listed[1] == f"no authors yet ({tmp_path / 'out'} has no server.sqlite): `arena author add LADDER NAME` adds one\n"
    assert not (tmp_path / "out").exists()
    ann, org = add_author(ladder, "ann"), add_author(ladder, "org", organiser=True)
    assert ann != org
    db = ServerDB(tmp_path / "out")
    try:
        assert db.claim("ann-bot", "ann") == "ann" and db.claim("ann-bot", "org") == "ann"
    finally:
        db.close()
    code, out, _ = cli("author", "list", str(ladder))
    assert code == 0
    assert re.fullmatch(r"ann: bots ann-bot; added \S+ \S+ UTC\norg \(organiser\): bots none; added \S+ \S+ UTC\n", out)
    code, out, _ = cli("author", "token", str(ladder), "ann")  # a lost token: a new one, the bots kept
    again = re.fullmatch(r"a new token for ann \(the old one no longer works\), shown this once:\ntoken: (\S+)\n",
                         out).group(1)
    db = ServerDB(tmp_path / "out")
    try:
        assert code == 0 and db.author_of_token(ann) is None and db.author_of_token(again).name == "ann"
        assert db.owned("ann") == ["ann-bot"]
    finally:
        db.close()
    assert cli("author", "token", str(ladder), "nobody")[0] == 1
    ann = again
    assert cli("author", "remove", str(ladder), "ann")[:2] == \
        (0, "removed ann: their token no longer works; their bots stay in the ladder, theirs: an author added "
            "later under this name owns none of them\n")
    db = ServerDB(tmp_path / "out")
    try:
        assert db.author_of_token(ann) is None and db.owner("ann-bot") == "ann (removed)"
    finally:
        db.close()


def test_an_author_added_later_under_a_removed_name_owns_none_of_its_bots(tmp_path):
    """Names outlive their authors: the second ann is another person, and the first ann's bots stay hers."""
    ladder = write_ladder(tmp_path)
    add_author(ladder, "ann")
    db = ServerDB(tmp_path / "out")
    try:
        assert db.claim("ann-bot", "ann") == "ann"
    finally:
        db.close()
    assert cli("author", "remove", str(ladder), "ann")[0] == 0
    second = add_author(ladder, "ann")
    db = ServerDB(tmp_path / "out")
    try:
        assert db.author_of_token(second).name == "ann" and db.owned("ann") == []
        assert db.claim("ann-bot", "ann") == "ann (removed)"  # an upload of it would be 403
    finally:
        db.close()
    with_old = ServerDB(tmp_path / "old")  # a store whose removal kept the bare name (an older arena)
    try:
        with with_old.write() as raw:
            raw.execute("INSERT INTO owners VALUES ('bob-bot', 'bob', 0)")
        with_old.add_author("bob")
        assert with_old.owner("bob-bot") == "bob (removed)" and with_old.owned("bob") == []
    finally:
        with_old.close()


def test_bad_input_is_one_line(tmp_path):
    ladder = write_ladder(tmp_path)
    add_author(ladder, "ann")
    league = tmp_path / "league.yaml"
    league.write_text(f"name: l\nseats: 2\nseed: 1\nsandbox: none\noutput: {tmp_path / 'l'}\nbots: [{ROOT}/bots/random, {ROOT}/bots/c-random]\n")
    for args, said in [
        (["add", str(ladder), "ann"], "Error: the author name ann is taken; choose another or remove it first"),
        (["add", str(ladder), "../x"], "Error: '../x' is not an author name: use 1 to 64 letters, digits, '_', '.' "
                                       "or '-', starting with a letter or digit"),
        (["remove", str(ladder), "bob"], "Error: no author named bob; `arena author list` shows them"),
        (["add", str(league), "ann"], "Error: league.yaml is not a ladder (schedule: round_robin); bots are "
                                      "submitted only to a file with schedule: ladder"),
    ]:
        code, out, err = cli("author", *args)
        assert (code, err) == (1, said + "\n"), err
    assert not (tmp_path / "l").exists()
