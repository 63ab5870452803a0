"""The documentation as the docs tests read it: which Markdown files a reader is pointed at, their fenced
blocks, their links and the anchors GitHub makes for their headings.

Kept apart from the tests so that the link checker and the code-block runner agree on what is prose and
what is code (a link inside a code block is not a link; a fence inside a list item is still a block).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

ROOT = Path(__file__).resolve().parent.parent

FENCE = re.compile(r"^(?P<indent>\s*)(?P<marks>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
NOTE = re.compile(r"^\s*<!--\s*(.*?)\s*-->\s*$")
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
HTML_ANCHOR = re.compile(r"""<a\s[^>]*?\b(?:id|name)\s*=\s*["']([^"']+)["']""", re.I)
CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)  # closed by a run of as many backticks
MARKUP = re.compile(CODE_SPAN.pattern + r"|!?\[([^\]]*)\]\([^)]*\)|<[^>]*>")  # a code span, a link, an HTML tag
LINK = re.compile(r"(?P<image>!?)\[[^\]]*\]\(\s*<?(?P<target>[^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def docs_files(root: Path = ROOT) -> list[Path]:
    """README.md, docker/README.md and docs/*.md: every Markdown page the project publishes."""
    candidates = [root / "README.md", root / "docker" / "README.md", *sorted((root / "docs").glob("*.md"))]
    return [path for path in candidates if path.is_file()]


@dataclass(frozen=True)
class Block:
    """One fenced block: where its opening fence is, its language, the HTML comment right above it."""

    path: Path
    line: int
    lang: str
    note: str
    code: str


def split(text: str) -> tuple[list[Block], list[str]]:
    """The fenced blocks of ``text`` (``path`` left empty), and its lines with every fenced line blanked."""
    lines = text.splitlines()
    prose = list(lines)
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        indent, marks = len(opening["indent"]), opening["marks"]
        end = index + 1
        while end < len(lines) and not re.match(rf"^\s*{re.escape(marks[0])}{{{len(marks)},}}\s*$", lines[end]):
            end += 1
        note = NOTE.match(lines[index - 1]) if index else None
        code = "".join((line if line[:indent].strip() else line[indent:]) + "\n" for line in lines[index + 1:end])
        found.append(Block(Path(), index + 1, opening["lang"].lower(), note[1] if note else "", code))
        for blank in range(index, min(end + 1, len(lines))):
            prose[blank] = ""
        index = end + 1
    return found, prose


def blocks(path: Path) -> list[Block]:
    """The fenced blocks of the Markdown file ``path``."""
    return [Block(path, b.line, b.lang, b.note, b.code) for b in split(path.read_text(encoding="utf-8"))[0]]


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text lower-cased, punctuation but ``-`` and ``_`` dropped,
    each space a hyphen; markup goes first (a link's target, an HTML tag), but a code span keeps its text."""
    text = MARKUP.sub(lambda part: part[2] or part[3] or "", heading)
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor a link into this Markdown may name: its headings' (a repeated one gets ``-1``, ``-2``,
    ...) and explicit ``<a id=...>`` or ``<a name=...>`` ones."""
    seen: dict[str, int] = {}
    found: set[str] = set()
    for line in split(text)[1]:
        heading = HEADING.match(line)
        if heading:
            base = slug(heading[1])
            count = seen.get(base, 0)
            found.add(base if count == 0 else f"{base}-{count}")
            seen[base] = count + 1
        found.update(HTML_ANCHOR.findall(line))
    return found


def broken_links(paths: list[Path]) -> tuple[int, list[str]]:
    """How many relative links ``paths`` hold, and each one whose file or anchor is missing, as
    ``file:line: target (why)``. Links to other sites are not followed; a link to a file that is not
    Markdown (an image, a schema) needs only the file."""
    checked, broken = 0, []
    cache: dict[Path, set[str]] = {}
    for path in paths:
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        prose = "\n".join(split(path.read_text(encoding="utf-8"))[1])
        prose = CODE_SPAN.sub(lambda span: re.sub(r"[^\n]", " ", span[0]), prose)
        for link in LINK.finditer(prose):
            target = link["target"]
            if SCHEME.match(target):
                continue
            checked += 1
            where = f"{shown}:{prose.count(chr(10), 0, link.start('target')) + 1}: {target}"
            name, _, anchor = target.partition("#")
            file = (path.parent / unquote(name)).resolve() if name else path
            if not file.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and file.suffix == ".md" and not link["image"]:
                if file not in cache:
                    cache[file] = anchors(file.read_text(encoding="utf-8"))
                if unquote(anchor) not in cache[file]:
                    broken.append(f"{where} (no such anchor)")
    return checked, broken
