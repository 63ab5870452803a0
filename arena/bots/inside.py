"""Everything a bot names stays inside its directory, and the arena reads no file through a bot.

A bot directory comes from whoever submits it. Its manifest and its dependency files name
other files (``-r base.txt``, ``--find-links wheels``, ``file:./pkg``, ``cafile=``), and the
arena (or pip or npm, on its behalf, with the arena's rights) reads them. A name that is
absolute, climbs out with ``..``, starts with ``~``, lets a tool expand ``$VARIABLES``, or is a
symlink whose target lies outside would make the arena read a file of the machine and quote
it back in an error ("Invalid requirement: 'root:*:...'"). So every such name is checked
here, and refused in one line that names the bot's file, the line and the name as written,
never anything read from the target; and every bot file the arena opens is opened only if
its real path is inside the bot directory, with ``O_NOFOLLOW`` on the last step.
"""

from __future__ import annotations

import os
import re

from .errors import BotConfigError

SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
"""A URL's scheme (``https:``, ``git+file:``), as opposed to a path."""
MAX_CHARS = 32 << 20
"""Longest bot file the arena reads as a declaration (a lockfile of a large project is a few MiB)."""
ENV_VARIABLE = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_]")
"""``${VAR}`` (pip and npm expand it) or ``$VAR`` (shells do): either would put a value of the
arena's environment where a path of the bot should be."""


def real_root(directory: str) -> str:
    """The bot directory's real path (what paths inside it must start with)."""
    return os.path.realpath(directory)


def escape(directory: str, name: str, base: str = "") -> str | None:
    """Why ``name`` (relative to the folder ``base`` of the bot directory) does not stay inside the bot
    directory, or None when it does: after normalising, and after following every symlink on the way."""
    if not name:
        return None
    if "$" in name and ENV_VARIABLE.search(name):
        return "a $ variable (not expanded for bots)"
    if name.startswith("~"):
        return "a home directory"
    if os.path.isabs(name) or name.startswith("\\"):
        return "an absolute path"
    joined = os.path.normpath(os.path.join(base, name))
    if joined == ".." or joined.startswith(".." + os.sep):
        return "a path leading out of the bot directory"
    root = real_root(directory)
    real = os.path.realpath(os.path.join(directory, joined))
    if real != root and not real.startswith(root + os.sep):
        return "a symlink leading out of the bot directory"
    return None


def refuse(where: str, written: str, why: str, hint: str) -> BotConfigError:
    """The one-line refusal: ``<file>:<line>: names '<as written>', <why>; <hint>``."""
    return BotConfigError(f"{where}: names {written!r}, {why}; a bot may name only files inside its own "
                          f"directory, by relative paths ({hint})")


def check(directory: str, written: str, where: str, hint: str, name: str | None = None, base: str = "") -> None:
    """Refuse ``written`` (the path part ``name`` of it, if given) unless it stays inside the bot directory."""
    why = escape(directory, written if name is None else name, base)
    if why is not None:
        raise refuse(where, written, why, hint)


def url_path(value: str) -> str | None:
    """The local path a ``file:`` URL (or ``git+file:``, ``link:``...) names, or None for other URLs:
    ``file:///etc`` -> ``/etc``, ``file:./pkg`` -> ``./pkg``, ``file://localhost/x`` -> ``/x``."""
    lowered = value.lower()
    at = 0 if lowered.startswith("link:") else lowered.find("file:")  # also git+file:, name@file:
    if at < 0:
        return None
    rest = value[at + 5:]
    if rest.startswith("//"):
        rest = "/" + rest[2:].partition("/")[2]  # file://HOST/path: an absolute path
    return re.split(r"[#?]", rest, maxsplit=1)[0]


def check_file(directory: str, name: str, what: str) -> None:
    """Refuse the bot's file ``name`` if it (or a symlink on the way) leads out of the bot directory."""
    why = escape(directory, name)
    if why is not None:
        raise BotConfigError(f"{os.path.join(directory, name)}: {what} is {why}; a bot's files must be inside "
                             "its directory")


def open_text(directory: str, name: str, what: str) -> str:
    """The text of the bot's file ``name`` (relative to ``directory``), read only if it is inside the bot.

    ``what`` names the file in errors ("this requirements file"). A symlink inside the bot
    directory to another file inside it is fine; one leading out is refused before anything
    is read, so no message can hold a byte of the target.
    """
    path = os.path.join(directory, name)
    check_file(directory, name, what)
    real = os.path.realpath(path)
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with open(fd, encoding="utf-8") as f:
            text = f.read(MAX_CHARS + 1)
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
        raise BotConfigError(f"{path}: cannot read {what} ({reason}); it must be UTF-8 text") from None
    if len(text) > MAX_CHARS:
        raise BotConfigError(f"{path}: {what} is over {MAX_CHARS // (1 << 20)} MiB; a declaration that large is "
                             "not one the arena reads")
    return text
