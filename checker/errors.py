"""Errors a user can cause: one sentence, exit status 2 (STYLE: "Errors the user can cause are a UsageError")."""


class UsageError(Exception):
    """Bad input from the user: an unknown name, a malformed file, a missing tool."""
