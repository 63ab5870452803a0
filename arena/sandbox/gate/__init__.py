"""The fetch gate: a dependency fetch reaches the package indexes and nothing on this machine or its networks.

A fetch step (``Step.network``: ``pip download``, ``npm ci --ignore-scripts``) runs with no
network of its own under every walled-in backend: a fresh network namespace (``bwrap``) or
``network_mode=none`` (``docker``), where only the step's own loopback exists. Its one way
out is the relay (``relay.py`` or ``relay.js``, run by the interpreter that runs the fetch),
which carries connections to the gate's Unix socket, bound into the sandbox; the gate
(:mod:`.proxy`) resolves each destination itself and connects only to what
:mod:`.policy` allows. This holds whatever a bot's files say, since it does not read them.
Under ``none`` the fetch shares the host's network: the relay still points pip and npm at
the gate, but nothing stops a program that ignores its proxy settings.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import tempfile
from collections.abc import Iterator
from typing import IO

from ..errors import SandboxError
from ..pkgconfig import for_install
from ..steps import Step
from .policy import ALLOW_VAR, INDEXES, Policy, Refused
from .proxy import Gate, Ledger

__all__ = ["ALLOW_VAR", "INDEXES", "Gate", "Ledger", "Policy", "Refused", "gated"]

RELAYS = {"python": "relay.py", "node": "relay.js"}
"""The relay script for each kind of interpreter a fetch runs under."""
REFUSED = "the arena refused"
"""How the log's account of refused connections begins (the install's error reads it)."""
SHOWN_REFUSALS = 10
"""Refused destinations listed in a step's log; more are counted."""


@contextlib.contextmanager
def gated(step: Step, log: IO[str]) -> Iterator[Step]:
    """Run a gate for ``step`` while the block runs: yields the step as the backend must run it (the relay
    before its command, the gate's folder readable). Afterwards the log says what the gate refused."""
    if step.relay is None or step.relay[0] not in RELAYS:
        raise SandboxError(f"{step.label or step.argv[0]}: a step with the network needs a relay "
                           f"(one of {', '.join(RELAYS)}), got {step.relay!r}")
    kind, interpreter = step.relay
    policy = Policy.of_machine(for_install().urls)
    folder = tempfile.mkdtemp(prefix="arena-gate-")
    try:
        os.chmod(folder, 0o755)
        script = os.path.join(folder, RELAYS[kind])
        shutil.copyfile(os.path.join(os.path.dirname(__file__), RELAYS[kind]), script)
        os.chmod(script, 0o644)
        gate = Gate(policy, os.path.join(folder, "gate.sock"))
        gate.start()
        try:
            yield dataclasses.replace(step, argv=(interpreter, script, gate.path, "--", *step.argv),
                                      readable=(*step.readable, folder))
        finally:
            gate.close()
            _account(gate.ledger, log)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _account(ledger: Ledger, log: IO[str]) -> None:
    """The refusals, last in the step's log, where the error quoting its end shows them."""
    if not ledger.refused:
        return
    distinct = list(dict.fromkeys(ledger.refused))
    log.write(f"\n{REFUSED} {len(ledger.refused)} connection(s) of this fetch, which may reach only "
              "the package indexes and public addresses (docs/sandbox.md#the-fetch-gate):\n")
    for line in distinct[:SHOWN_REFUSALS]:
        log.write(f"  {line}\n")
    if len(distinct) > SHOWN_REFUSALS:
        log.write(f"  ... and {len(distinct) - SHOWN_REFUSALS} more\n")
    log.flush()
