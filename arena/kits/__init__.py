"""Starter kits: ``arena bot new`` writes a small, complete, commented bot in one language.

The templates are package data (``templates/<language>/``), so the command works from
an installed arena as well as from a checkout, and the bot it writes needs nothing
outside its own directory (the Python kit carries its own copy of ``cabo_bot.py``), so
it can live anywhere. In a template, ``__BOT_NAME__`` becomes the bot's name and
``__BOT_DIR__`` its directory's name (quoted for a shell if it must be); ``gitignore``
is written as ``.gitignore`` (packaging leaves dot-files out).
"""

from __future__ import annotations

import os
import re
import shlex
from importlib import resources
from pathlib import Path

from ..bots.spec import KIT_LANGUAGES, NAME_RE

LANGUAGES = KIT_LANGUAGES
"""The kits there are, by ``--lang`` (named in :mod:`arena.bots.spec`, whose messages point to them)."""
NAME_MARK = "__BOT_NAME__"
DIR_MARK = "__BOT_DIR__"
_RENAMED = {"gitignore": ".gitignore"}


class KitError(ValueError):
    """A directory or name a kit cannot be written to; the message says why, and nothing was written."""


def kit_files(language: str) -> dict[str, str]:
    """File name -> template text of one kit."""
    if language not in LANGUAGES:
        raise KitError(f"no starter kit for {language!r}; expected one of {' | '.join(LANGUAGES)}")
    root = resources.files(__name__).joinpath("templates", language)
    return {_RENAMED.get(entry.name, entry.name): entry.read_text(encoding="utf-8")
            for entry in sorted(root.iterdir(), key=lambda e: e.name) if entry.is_file()}


def bot_name(directory: Path, name: str | None) -> str:
    """``name`` checked, else one made from the directory's name (``My Bot`` -> ``my-bot``)."""
    if name is not None:
        if not NAME_RE.match(name):
            raise KitError(f"bot name {name!r} must be 1-64 of a-z 0-9 - _ . starting with a letter or digit")
        return name
    base = directory.resolve().name
    made = re.sub(r"[^a-z0-9_.-]+", "-", base.lower()).strip("-._")[:64]
    if not NAME_RE.match(made):
        raise KitError(f"{directory}: cannot make a bot name from {base!r}; give one with --name "
                       "(1-64 of a-z 0-9 - _ . starting with a letter or digit)")
    return made


def new_bot(directory: Path, language: str, name: str | None = None) -> tuple[str, list[str]]:
    """Write the ``language`` kit into ``directory`` (new, or empty); return the bot's name and the files.

    Files are made readable by others: under the bwrap sandbox the bot runs as another user.
    """
    files = kit_files(language)
    final = bot_name(directory, name)
    if directory.exists() and not directory.is_dir():
        raise KitError(f"{directory}: exists and is not a directory; choose a new directory")
    if directory.is_dir() and any(directory.iterdir()):
        raise KitError(f"{directory}: exists and is not empty; choose a new directory (nothing was written)")
    folder = shlex.quote(directory.resolve().name)  # the README's commands and YAML read it as one word
    try:
        created = not directory.exists()
        directory.mkdir(parents=True, exist_ok=True)
        if created:
            os.chmod(directory, 0o755)
        for file_name, text in files.items():
            path = directory / file_name
            path.write_text(text.replace(NAME_MARK, final).replace(DIR_MARK, folder), encoding="utf-8")
            os.chmod(path, 0o644)
    except OSError as exc:
        raise KitError(f"{directory}: cannot write the kit: {exc.strerror or exc}") from None
    return final, list(files)
