"""Errors raised by the rules engine."""

from __future__ import annotations


class IllegalAction(ValueError):
    """An action that is not among the seat's legal actions; the message says why."""
