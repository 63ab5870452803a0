"""Match jobs that can travel to another machine, and how a worker plays them.

A :class:`arena.match.runner.MatchJob` made by the driver names its bots by host paths
(``BotSpec.directory``) and carries the driver's private paths. A :class:`RemoteJob` names
each directory bot by version instead (its archive digest, :mod:`.archive`) and carries no
host path; the worker unpacks the archive into its own cache (once), loads and builds the bot
there (:func:`arena.bots.build_bot`: the same environment cache and build lock as at home),
resolves the sandbox itself, and hides its own scratch directory from the bots.

What a worker receives per match: rules, time control, limits, the bots' files and, because
it must deal the cards, the match's deal seed. No opaque id key and no results travel.
"""

from __future__ import annotations

import dataclasses
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

from ..bots import BotConfigError, BotSpec, build_bot, build_outputs, load_bot
from ..bots import cache as bot_cache
from ..match.runner import MatchJob, MatchOutcome, play_batch
from ..sandbox import get_backend, resolve_backend
from .archive import Archive, pack, unpack

CACHE_DIR = "cluster-bots"
"""Folder of the arena's cache (:func:`arena.bots.cache.root`) where a worker unpacks bot versions."""


@dataclass(frozen=True)
class RemoteJob:
    """A match job without host paths: directory bots are named by archive digest."""

    job: MatchJob
    """The job; its directory bots have ``directory=None`` and ``private`` is empty."""
    digests: tuple[str | None, ...]
    """Per seat, the archive digest of the bot's files (None: a command-line bot, run as given)."""


class Packer:
    """The driver's side: each bot directory packed once per run, jobs made portable."""

    def __init__(self) -> None:
        self.archives: dict[str, Archive] = {}
        """By digest."""
        self._by_dir: dict[str, str] = {}

    def digest(self, spec: BotSpec) -> str | None:
        if spec.directory is None:
            return None
        digest = self._by_dir.get(spec.directory)
        if digest is None:
            archive = pack(spec.directory, build_outputs(spec))
            self.archives.setdefault(archive.digest, archive)
            digest = self._by_dir[spec.directory] = archive.digest
        return digest

    def portable(self, job: MatchJob) -> RemoteJob:
        digests = tuple(self.digest(spec) for spec in job.bots)
        bots = tuple(spec if d is None else dataclasses.replace(spec, directory=None, python=None)
                     for spec, d in zip(job.bots, digests))
        return RemoteJob(dataclasses.replace(job, bots=bots, private=()), digests)


_specs: dict[tuple[str, str], BotSpec] = {}
"""Bots loaded and built by this worker process: (digest, name) -> spec (equal specs share warm processes)."""
_lock = threading.Lock()


def cache_dir() -> Path:
    """Where this machine keeps unpacked bot versions."""
    return bot_cache.root() / CACHE_DIR


def local_spec(remote: BotSpec, digest: str | None, archives: Mapping[str, Archive], sandbox: str = "none") -> BotSpec:
    """The bot as this machine runs it: unpacked, loaded from its own manifest, built under ``sandbox`` (the
    match's: the worker refuses the batch earlier when it cannot run it)."""
    if digest is None:
        return remote
    with _lock:
        spec = _specs.get((digest, remote.name))
        if spec is not None:
            return spec
        archive = archives.get(digest)
        if archive is None:
            raise BotConfigError(f"bot {remote.name!r}: archive {digest[:12]} did not reach this worker")
        directory = unpack(archive, cache_dir())
        try:
            spec = load_bot(directory, name=remote.name)
        except BotConfigError:  # a manifest under another name than bot.yaml: the driver's reading of it
            spec = dataclasses.replace(remote, directory=directory)
        build_bot(spec, get_backend(sandbox))
        _specs[(digest, remote.name)] = spec
        return spec


def local_job(remote: RemoteJob, archives: Mapping[str, Archive], private: Sequence[str]) -> MatchJob:
    """The job as this machine plays it."""
    bots = tuple(local_spec(spec, d, archives, remote.job.sandbox) for spec, d in zip(remote.job.bots, remote.digests))
    return dataclasses.replace(remote.job, bots=bots, private=tuple(private))


def sandbox_missing(name: str) -> str | None:
    """Why this machine cannot run bots under the sandbox ``name`` (None: it can)."""
    try:
        resolve_backend(name)
    except Exception as exc:  # SandboxUnavailable, or anything that keeps it from working here
        return str(exc)
    return None


def play_remote(batch: Sequence[tuple[int, RemoteJob]], archives: Mapping[str, Archive], private: Sequence[str],
                started: Callable[[int], None], stopped: Callable[[], bool] = lambda: False,
                play: Callable[[Sequence[MatchJob]], Iterator[MatchOutcome]] = play_batch,
                ) -> Iterator[tuple[int, MatchOutcome | None, str]]:
    """Play a batch here: ``(index, outcome, error)`` per match as it ends (as
    :func:`arena.execute.worker.play_messages` does, an arena failure in one match is reported
    for it and the rest go on); ``started(index)`` before each match; ``stopped()`` ends it early."""
    from ..execute import Done, Started
    from ..execute.worker import play_messages

    pending: list[tuple[int, MatchJob]] = []
    failures: list[tuple[int, str]] = []
    for index, remote in batch:
        try:
            pending.append((index, local_job(remote, archives, private)))
        except Exception as exc:  # a bot that cannot be unpacked or built here: this match fails, not the worker
            failures.append((index, f"on this worker: {exc}"))
    for index, error in failures:
        yield index, None, error
    messages = play_messages(pending, lambda jobs: play(jobs))  # type: ignore[arg-type,return-value]
    try:
        for message in messages:
            if isinstance(message, Started):
                if stopped():
                    return
                started(message.index)
            elif isinstance(message, Done):
                yield message.index, message.outcome, message.error
    finally:
        messages.close()


def worker_private() -> list[str]:
    """Paths of this machine that bots must not read: the Dask worker's scratch space (where it may spill
    the jobs it holds); the sandbox hides the worker's working directory on its own."""
    paths: list[str] = []
    try:
        from distributed import get_worker
        paths.append(get_worker().local_directory)
    except (ImportError, ValueError):
        pass
    return paths
