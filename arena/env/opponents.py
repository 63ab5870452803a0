"""The seats an environment plays itself: arena bot directories (processes under the sandbox, as in a
tournament) or Python callables.

A bot opponent is started once and serves match after match (a new ``hello`` each, as a tournament's
process does), and is started again after a fault. A callable opponent is asked with the very ``act``
message a bot would be sent and answers with an index into its ``legal`` list.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from ..bots import BotConfigError, BotSpec, build_bot, load_bot
from ..bots.launch import launch_spec
from ..match.link import BotLink, TimeControl
from ..sandbox import Limits, SandboxError
from ..sandbox.backends import Backend, resolve_backend
from .checks import integer

__all__ = ["BotOpponent", "CallableOpponent", "Opponent", "Policy", "opponent_of", "random_policy"]

Policy = Callable[[Mapping[str, Any]], int]
"""A Python opponent: the ``act`` message in, the index of its choice in the message's ``legal`` out."""


def random_policy(seed: int | str = 0) -> Policy:
    """A uniformly random legal choice, from its own stream (``seed``: an int from 0 up or a str, so that no
    two seeds share a stream): the in-process twin of ``bots/random``."""
    stream = random.Random(seed if isinstance(seed, str) else integer("seed", seed, 0, extra=" or a str"))
    return lambda message: stream.randrange(len(message["legal"]))


@dataclass
class CallableOpponent:
    """A seat played by ``policy`` (see :data:`Policy`)."""

    policy: Policy
    name: str = "policy"


@dataclass
class BotOpponent:
    """A seat played by an arena bot directory, under ``sandbox``, with a tournament's time limits and resource
    limits; built (its dependencies installed, its build run) when the environment is made."""

    spec: BotSpec
    backend: Backend
    time: TimeControl = field(default_factory=TimeControl)
    limits: Limits = field(default_factory=Limits)
    link: BotLink | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    def started(self) -> BotLink:
        """Its process: the running one, or a new one."""
        if self.link is None or not self.link.process.alive():
            self.link = BotLink(self.spec.name, self.backend.start(launch_spec(self.spec, self.limits)), self.time)
        return self.link

    def stop(self) -> None:
        """Kill its process (a faulted process is never asked again: a late reply must not count as an answer)."""
        if self.link is not None:
            self.link.kill()
            self.link = None


Opponent = CallableOpponent | BotOpponent


def opponent_of(given: Any, sandbox: str = "auto", time: TimeControl | None = None,
                limits: Limits | None = None) -> Opponent:
    """An opponent from a bot directory (a path), a callable policy, or an opponent already made; a bot is
    built here, so that a bad one fails when the environment is made, in one line naming it."""
    if isinstance(given, (CallableOpponent, BotOpponent)):
        return given
    if callable(given):
        return CallableOpponent(given, getattr(given, "__name__", "policy"))
    if isinstance(given, (str, Path)):
        try:
            backend = resolve_backend(sandbox)[0]
            spec = load_bot(str(Path(given).expanduser()))
            build_bot(spec, backend)
        except (BotConfigError, SandboxError) as exc:
            raise ValueError(f"opponent {given}: {exc}") from None
        return BotOpponent(spec, backend, time or TimeControl(), limits or Limits())
    raise ValueError(f"an opponent is a bot directory (a path) or a callable taking the act message and "
                     f"returning an index into its legal list, not {type(given).__name__}")
