"""SQL only in the stores: every statement the arena runs is in a module whose one concern is a database.

``arena/tournament/store/`` owns ``results.sqlite`` (results, the ladder's tables, the layout) and
``arena/server/store.py`` the submission server's ``server.sqlite``. Everything else asks them typed
questions, so a layout change touches one package and a damaged file is refused the same way whoever
reads it. Read from the syntax tree, so a comment or a docstring that mentions SQL is no finding.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORES = ("arena/tournament/store/", "arena/server/store.py")
STATEMENTS = {"execute", "executemany", "executescript"}
"""A DB-API connection's or cursor's ways to run SQL."""
SQL_WORDS = ("SELECT ", "INSERT ", "UPDATE ", "DELETE ", "CREATE TABLE", "PRAGMA ")


def findings(path: Path) -> list[str]:
    """What in ``path`` speaks SQL: a statement call, an ``import sqlite3``, a string that begins like SQL."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in STATEMENTS:
            out.append(f"{node.lineno}: .{node.func.attr}(...)")
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "sqlite3" for a in node.names):
            out.append(f"{node.lineno}: import sqlite3")
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == "sqlite3":
            out.append(f"{node.lineno}: from sqlite3 import ...")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and \
                node.value.lstrip().startswith(SQL_WORDS):  # as the stores write SQL: keywords in capitals
            out.append(f"{node.lineno}: {node.value.strip()[:40]!r}")
    return out


def test_no_sql_outside_the_stores():
    found = {}
    for path in sorted((ROOT / "arena").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name.startswith(STORES) or "/kits/" in name:  # kits: bots an author copies, not the arena
            continue
        if hits := findings(path):
            found[name] = hits
    assert not found, "SQL outside a store module:\n" + "\n".join(f"{k}: {v}" for k, v in found.items())


def test_the_check_finds_each_kind_of_sql(tmp_path):
    """The test above would pass on a tree it cannot read: it must see each of the forms it forbids."""
    sample = tmp_path / "leaky.py"
    sample.write_text("import sqlite3\nfrom sqlite3 import connect\n"
                      "def f(db):\n    db.execute('x')\n    db.executemany('x', [])\n"
                      "    q = 'SELECT * FROM matches'\n    return q\n")
    assert [hit.split(":")[0] for hit in findings(sample)] == ["1", "2", "4", "5", "6"]


def test_the_stores_are_where_the_sql_is():
    """Sanity: the allowed modules do run SQL (else the allow-list names the wrong files)."""
    assert findings(ROOT / "arena" / "server" / "store.py")
    assert findings(ROOT / "arena" / "tournament" / "store" / "results.py")
