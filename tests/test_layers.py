"""The package's layers stay visible: no two subpackages import each other, and none takes another's private names.

A cycle between subpackages (``arena/X/...`` importing ``arena/Y/...`` and back) means neither can be
read, tested or replaced alone; a private name (``_x``) taken across packages is a public one in
disguise, which its owner may change without looking. Every import counts, also those inside a
function: a late import hides a dependency from the reader, it does not remove it.
"""

from __future__ import annotations

import ast
from pathlib import Path

ARENA = Path(__file__).resolve().parent.parent / "arena"


def _module(path: Path) -> tuple[str, str]:
    """The dotted name of the module at ``path`` and of the package it is in."""
    parts = list(path.relative_to(ARENA.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def imports() -> list[tuple[str, str, str, str | None]]:
    """Every import of an ``arena`` module in ``arena/``: (importing module, its package, imported module,
    the name taken from it, or None for ``import x``)."""
    found: list[tuple[str, str, str, str | None]] = []
    for path in sorted(ARENA.rglob("*.py")):
        if not (path.parent / "__init__.py").is_file():
            continue  # package data, such as the starter kits' templates
        module, package = _module(path)
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                found.extend((module, package, target, alias.name) for alias in node.names)
            elif isinstance(node, ast.Import):
                found.extend((module, package, alias.name, None) for alias in node.names)
    return [i for i in found if i[2] == "arena" or i[2].startswith("arena.")]


def _is_package(dotted: str) -> bool:
    return (ARENA.parent / dotted.replace(".", "/")).is_dir()


def _subpackage(dotted: str) -> str | None:
    """``X`` of ``arena.X...`` when ``arena/X/`` is a directory; None for the top-level modules."""
    parts = dotted.split(".")
    return parts[1] if len(parts) > 1 and (ARENA / parts[1]).is_dir() else None


def test_imports_are_found() -> None:
    # the checks below pass on nothing if this finds nothing: a known import of each kind
    found = {(module, target, name) for module, _, target, name in imports()}
    assert ("arena.tournament.driver", "arena.execute", "registered") in found
    assert ("arena.cluster.dask_executor", "arena.execute", "DeathLedger") in found


def test_no_two_subpackages_import_each_other() -> None:
    edges: dict[tuple[str, str], str] = {}
    for module, _, target, name in imports():
        if name is not None and _is_package(target) and _is_package(f"{target}.{name}"):
            target = f"{target}.{name}"  # from arena import cluster
        here, there = _subpackage(module), _subpackage(target)
        if here and there and here != there:
            edges.setdefault((here, there), f"{module} imports {target}")
    cycles = [f"arena/{a} <-> arena/{b}: {edges[a, b]}; {edges[b, a]}"
              for a, b in sorted(edges) if a < b and (b, a) in edges]
    assert cycles == []


def test_no_package_takes_another_ones_private_names() -> None:
    taken = [f"{module} takes {name} from {target}" for module, package, target, name in imports()
             if name is not None and name.startswith("_") and not name.startswith("__")
             and (target if _is_package(target) else target.rpartition(".")[0]) != package]
    assert taken == []


ALLOWED = {
    "execute": {"match", "bots", "sandbox", "game"},
}
"""Subpackages a package may import (top-level modules such as ``bounds`` are open to all). Executors play
matches and know nothing of tournaments: the tournament package imports them, never the reverse."""


def test_each_package_imports_only_the_layers_below_it() -> None:
    beyond = []
    for module, _, target, name in imports():
        if name is not None and _is_package(target) and _is_package(f"{target}.{name}"):
            target = f"{target}.{name}"
        here, there = _subpackage(module), _subpackage(target)
        if here in ALLOWED and there is not None and there != here and there not in ALLOWED[here]:
            beyond.append(f"{module} imports {target}")
    assert beyond == []
    users = {_subpackage(module) for module, _, target, _ in imports() if _subpackage(target) == "execute"}
    assert {"tournament", "cluster"} <= users  # the table is checked against imports that exist
