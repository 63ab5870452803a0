"""The organiser's package configuration, as a sandboxed install step needs to see it.

pip and npm run inside the bot's sandbox (:mod:`arena.sandbox.steps`), where ``HOME`` is a
private ``/tmp`` and nothing of the host exists but what is bound in. They must still
install from the index, wheel folders, certificates and constraints the machine is
configured for, so an install step gets, read-only:

* pip's configuration files (``/etc/xdg/pip/pip.conf`` and ``$XDG_CONFIG_DIRS/pip``,
  ``/etc/pip.conf``, ``~/.config/pip/pip.conf``, ``~/.pip/pip.conf``) and npm's
  (``~/.npmrc``, ``/etc/npmrc``, ``/usr/etc/npmrc``, and what ``npm_config_userconfig`` or
  ``npm_config_globalconfig`` name);
* the local paths these files and the ``PIP_*`` and ``npm_config_*`` variables name (a
  ``find-links`` folder, a ``file://`` index, a constraints file, a certificate);

and the variables themselves. A user's file is found through a variable pointing at it
(``PIP_CONFIG_FILE``, ``npm_config_userconfig``), since the sandbox's ``HOME`` is not the
arena's. Never bound, whatever a configuration names: ``/``, the arena's home itself and
the folders above it, ``/root``, ``/run`` and ``/var/run`` (the Docker socket), and the
arena's cache (other bots' environments).
"""

from __future__ import annotations

import configparser
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from urllib.parse import unquote, urlparse

PIP_PREFIX = "PIP_"
NPM_PREFIX = "npm_config_"

_PIP_GLOBAL = ("/etc/xdg/pip/pip.conf", "/etc/pip.conf")
_NPM_FILES = ("/etc/npmrc", "/usr/etc/npmrc")


@dataclass(frozen=True)
class PackageConfig:
    """What an install step needs of the machine's package configuration."""

    paths: tuple[str, ...]
    """Files and folders to bind read-only at the same path."""
    env: tuple[tuple[str, str], ...]
    """Variables to set in the step's environment."""
    urls: tuple[str, ...] = ()
    """The http(s) URLs the configuration names (its indexes and registries), which the fetch gate allows."""


def for_install(environ: Mapping[str, str] | None = None, never: Iterable[str] = ()) -> PackageConfig:
    """The configuration files, the local paths they name and the variables; ``never``: more folders
    that must not be bound (the arena's cache), besides those of the module docstring."""
    environ = os.environ if environ is None else environ
    home = environ.get("HOME") or os.path.expanduser("~")
    env = {k: v for k, v in environ.items() if k.startswith(PIP_PREFIX) or k.lower().startswith(NPM_PREFIX)}
    if environ.get("XDG_CONFIG_DIRS"):
        env["XDG_CONFIG_DIRS"] = environ["XDG_CONFIG_DIRS"]
    pip_files = [*_PIP_GLOBAL, *(os.path.join(d, "pip", "pip.conf")
                                 for d in environ.get("XDG_CONFIG_DIRS", "").split(":") if os.path.isabs(d))]
    user = [p for p in (os.path.join(environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config"), "pip",
                                     "pip.conf"), os.path.join(home, ".pip", "pip.conf")) if os.path.isfile(p)]
    if user and "PIP_CONFIG_FILE" not in env:
        env["PIP_CONFIG_FILE"] = user[0]  # the file pip reads for the user when HOME is the arena's
    if env.get("PIP_CONFIG_FILE"):
        pip_files.append(env["PIP_CONFIG_FILE"])
    npm_files = list(_NPM_FILES)
    npm_user = _npm_var(env, "userconfig") or os.path.join(home, ".npmrc")
    if os.path.isfile(npm_user):
        env.setdefault("npm_config_userconfig", npm_user)
        npm_files.append(npm_user)
    if _npm_var(env, "globalconfig"):
        npm_files.append(_npm_var(env, "globalconfig") or "")
    found = [p for p in (*pip_files, *npm_files) if os.path.isfile(p)]
    values = [v for p in found for v in _values(p)] + list(env.values())
    named = [path for value in values for path in _local_paths(value)]
    never = tuple(never)
    paths = [p for p in dict.fromkeys(os.path.abspath(p) for p in (*found, *named))
             if os.path.exists(p) and not _refused(p, home, never)]
    urls = [word for value in values for word in value.split() if re.match(r"https?://", word, re.I)]
    return PackageConfig(tuple(paths), tuple(sorted(env.items())), tuple(dict.fromkeys(urls)))


def _npm_var(env: Mapping[str, str], name: str) -> str | None:
    """An ``npm_config_<name>`` variable, in any case (npm reads them case-insensitively)."""
    return next((v for k, v in env.items() if k.lower() == NPM_PREFIX + name), None)


def _values(path: str) -> list[str]:
    """Every value of an ini-style file (pip.conf and .npmrc alike); none if it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return []
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    try:
        parser.read_string(text if re.match(r"\s*\[", text) else "[npmrc]\n" + text)
    except configparser.Error:
        return []
    return [value.strip().strip('"') for section in parser.sections() for value in parser[section].values()]


def _local_paths(value: str) -> list[str]:
    """Absolute paths and ``file://`` URLs among the words of a value. A local index's ``simple`` folder
    counts as the folder above it: its pages link to the packages beside it (``../../files/...``)."""
    out = []
    for word in value.split():
        url = word.startswith("file:")
        if url:
            word = unquote(urlparse(word).path)
        if os.path.isabs(word):
            path = os.path.normpath(word)
            out.append(os.path.dirname(path) if url and os.path.basename(path) == "simple" else path)
    return out


def _refused(path: str, home: str, never: Iterable[str]) -> bool:
    """Whether binding ``path`` would show a forbidden folder: ``/``, the home or ``/root`` or a folder
    above them, anything of ``/run``, ``/var/run`` or ``never``. A file or folder inside the home that the
    configuration names (``~/.npmrc``, a wheel folder) is allowed."""
    real = os.path.realpath(path)
    closed = [os.path.realpath(p) for p in ("/run", "/var/run", *never)]
    for folder in [os.path.realpath(p) for p in (home, "/root")] + closed:
        if folder == real or folder.startswith(real.rstrip("/") + "/"):
            return True
    return any(real.startswith(folder + "/") for folder in closed)
