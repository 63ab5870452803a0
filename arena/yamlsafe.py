"""The one way the arena reads a YAML file: bounded in size, in values and in depth.

Tournament, ladder and bot files may come from strangers. YAML lets a 2 KB file
describe billions of values with anchors and aliases ("billion laughs"), and a
merge key (``<<``) copies what an alias refers to, so a plain ``yaml.safe_load``
can grow without bound. Here the file is refused when it is larger than
:data:`MAX_BYTES`, and the composer counts every node it makes *plus* every value
an alias repeats (its anchor's whole subtree, known when the anchor was composed);
it stops past :data:`MAX_VALUES` before anything is constructed, so memory never
grows with the expansion. Nesting deeper than :data:`MAX_DEPTH` is refused too
(the composer recurses once per level). Ordinary anchors, aliases and merges, a
few hundred values each, load as before.

Every problem is a :class:`YamlError` whose message is one line naming the file
(and the line, when YAML knows it).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

MAX_BYTES = 1024 * 1024
"""Largest YAML file read (1 MiB); a tournament or bot file is a few KB."""
MAX_VALUES = 100_000
"""Most values (scalars, lists and mappings, keys included) a file may hold once its aliases are expanded."""
MAX_DEPTH = 100
"""Deepest nesting of lists and mappings."""
MAX_INT_CHARS = 100
"""Longest integer, as written: no setting takes more than 20 digits, and Python refuses to print an
integer of more than 4300 (a ``0x`` or ``0b`` one is read without that limit, then breaks every message)."""


class YamlError(ValueError):
    """A YAML file that cannot be read: one line naming the file, and its line when known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line
        """1-based line of the problem, when known."""


@dataclass(frozen=True)
class Document:
    """A loaded file: its Python data, and its node tree (which knows the line of every value)."""

    data: Any
    """What ``yaml.safe_load`` would return."""
    root: yaml.Node | None
    """The composed node tree, merge keys *not* flattened (so each key is where it was written); None for
    an empty file."""


class _Bounded(yaml.SafeLoader):
    """A safe loader whose composer counts values, aliases expanded, and refuses past the bounds."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.values = 0
        """Values composed so far, each alias counted as the values it repeats."""
        self.aliases = False
        """Whether the document uses an alias (for the wording of the refusal)."""
        self.depth = 0
        self.sizes: dict[int, int] = {}
        """id of an anchored node -> values in its subtree (aliases inside it expanded)."""

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]
        mark: Any = event.start_mark
        if isinstance(event, yaml.AliasEvent):
            anchored = self.anchors.get(event.anchor)
            if anchored is not None:  # an undefined alias: the composer's own error follows
                self.aliases = True
                size = self.sizes.get(id(anchored))
                if size is None:
                    raise _Refused(f"alias *{event.anchor} refers to a value that contains it", mark)
                self.count(size, event)
            return super().compose_node(parent, index)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Refused(f"lists and mappings nested over {MAX_DEPTH} deep", mark)
        before = self.values
        self.count(1, event)
        node = super().compose_node(parent, index)
        self.depth -= 1
        if getattr(event, "anchor", None) is not None:
            self.sizes[id(node)] = self.values - before
        return node

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        if len(str(node.value)) > MAX_INT_CHARS:
            raise _Refused(f"an integer written with over {MAX_INT_CHARS} characters; no setting takes one",
                           node.start_mark)
        return int(super().construct_yaml_int(node))

    def count(self, values: int, event: yaml.Event) -> None:
        self.values += values
        if self.values > MAX_VALUES:
            if self.aliases:
                raise _Refused(f"YAML aliases expand to over {MAX_VALUES:,} values; write the values out or use "
                               "fewer aliases", event.start_mark)
            raise _Refused(f"holds over {MAX_VALUES:,} values; a tournament or bot file needs far fewer",
                           event.start_mark)


_Bounded.add_constructor("tag:yaml.org,2002:int", _Bounded.construct_yaml_int)


class _Refused(Exception):
    """Raised inside the loader past a bound; turned into a :class:`YamlError` with the file and line."""

    def __init__(self, message: str, mark: Any) -> None:
        super().__init__(message)
        self.message = message
        self.mark = mark

    def error(self, shown: str) -> YamlError:
        line = int(self.mark.line) + 1
        return YamlError(f"{shown}:{line}: {self.message}", line)


def read(path: str | os.PathLike[str], shown: str | None = None, kind: str = "YAML file") -> Document:
    """Read and load the YAML file at ``path``, named ``shown`` in messages, which call it a ``kind``
    where it matters ("is a directory, not a tournament file")."""
    shown = str(path) if shown is None else shown
    return load(read_text(path, shown, kind), shown)


def read_text(path: str | os.PathLike[str], shown: str, kind: str = "YAML file") -> str:
    """The text of a regular file of at most :data:`MAX_BYTES` bytes of UTF-8; never reads more than that."""
    try:
        fd = os.open(Path(path), os.O_RDONLY | os.O_NONBLOCK)  # a FIFO must not block the open
    except FileNotFoundError:
        raise YamlError(f"{shown}: no such file") from None
    except IsADirectoryError:
        raise YamlError(f"{shown}: is a directory, not a {kind}") from None
    except OSError as exc:
        raise YamlError(f"{shown}: cannot read the file: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise YamlError(f"{shown}: is a directory, not a {kind}")
        if not stat.S_ISREG(mode):
            raise YamlError(f"{shown}: not a regular file")
        with os.fdopen(fd, "rb") as stream:
            fd = -1
            raw = stream.read(MAX_BYTES + 1)
    except OSError as exc:
        raise YamlError(f"{shown}: cannot read the file: {exc.strerror or exc}") from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(raw) > MAX_BYTES:
        raise YamlError(f"{shown}: larger than {MAX_BYTES // 1024} KiB, the most a YAML file may hold here; "
                        "this file should be a few KB")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlError(f"{shown}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def load(text: str, shown: str) -> Document:
    """Load one YAML document from ``text`` within the bounds; ``shown`` names it in messages."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        raise YamlError(f"{shown}: larger than {MAX_BYTES // 1024} KiB, the most a YAML file may hold here")
    root = _compose(text, shown)
    if root is None:
        return Document(None, None)
    loader = _Bounded(text)
    try:
        data = loader.get_single_data()  # composes again (bounded again): constructing flattens merges in place
    except _Refused as exc:
        raise exc.error(shown) from None
    except yaml.YAMLError as exc:
        raise _error(shown, exc) from None
    except ValueError as exc:  # an integer of more digits than Python converts, for one
        raise YamlError(f"{shown}: not a usable YAML value: {exc}") from None
    finally:
        loader.dispose()
    return Document(data, root)


def _compose(text: str, shown: str) -> yaml.Node | None:
    try:
        loader = _Bounded(text)  # reading checks the characters: a NUL is a YAML error here
    except yaml.YAMLError as exc:
        raise _error(shown, exc) from None
    try:
        return loader.get_single_node()
    except _Refused as exc:
        raise exc.error(shown) from None
    except yaml.YAMLError as exc:
        raise _error(shown, exc) from None
    finally:
        loader.dispose()


def _error(shown: str, exc: yaml.YAMLError) -> YamlError:
    """YAML's own complaint, with its line, on one line."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    parts = [p for p in (getattr(exc, "context", None), getattr(exc, "problem", None)) if p]
    detail = " ".join(("; ".join(str(p) for p in parts) or str(exc)).split())
    if mark is None:
        return YamlError(f"{shown}: not valid YAML: {detail}")
    line = int(mark.line) + 1
    return YamlError(f"{shown}:{line}: not valid YAML: {detail} (column {int(mark.column) + 1})", line)
