"""Errors a user can cause: one sentence, exit status 2 (STYLE: "Errors the user can cause are a UsageError")."""


class UsageError(Exception):
    """Bad input from the user: an unknown name, a malformed file, a missing tool."""


class ModelError(Exception):
    """A protocol model (or the system model) raised during a search: a bug in the
    model, or a mutant that breaks one of its assertions, not bad input. ``events``
    lead from the initial state to the action that raised (empty if unknown)."""

    def __init__(self, message: str, events: list | None = None):
        super().__init__(message)
        self.events = events or []


class FingerprintCollision(Exception):
    """Two states met under one 64-bit fingerprint (``--workers``, ``--fingerprints``):
    the search has no verdict; exit status 3, as for an incomplete one."""
