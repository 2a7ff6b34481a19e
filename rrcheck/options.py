"""Option values, each refused in one usage line that says what is expected
(argparse types every command line uses: rrcheck/cli, runtime/cli.py,
grouping/cli.py)."""
from __future__ import annotations

import argparse
import math


def nonneg(name: str, least: int = 0):
    """An argparse type: an integer of at least ``least``, else one usage line."""
    def parse(text: str) -> int:
        digits = text.strip().lstrip("+-")
        if len(digits) > 19:
            raise argparse.ArgumentTypeError(f"{name} takes a whole number that fits 64 bits, not one of "
                                             f"{len(digits):,} digits")
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} takes a whole number, not {text!r}") from None
        if v < least:
            raise argparse.ArgumentTypeError(f"{name} must be at least {least}, not {v}")
        return v
    return parse


# a search with more failures than this never ends anyway
MAX_FAILURES = 1_000


def bounded(name: str, least: int, most: int, why: str):
    """:func:`nonneg` with a ceiling, refused in one line that says why."""
    lower = nonneg(name, least)

    def parse(text: str) -> int:
        if text.strip().lstrip("+").isdigit() and len(text.strip().lstrip("+")) > 19:
            raise argparse.ArgumentTypeError(f"{name} must be at most {most:,} ({why}), not {text.strip()[:12]}…")
        v = lower(text)
        if v > most:
            raise argparse.ArgumentTypeError(f"{name} must be at most {most:,} ({why}), not {v}")
        return v
    return parse


def positive_float(name: str, unit: str = "seconds"):
    """An argparse type: a positive, finite number (of ``unit``)."""
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} takes a number of {unit}, not {text!r}") from None
        if not v > 0 or math.isinf(v):
            raise argparse.ArgumentTypeError(f"{name} must be a positive number of {unit}, not {text}")
        return v
    return parse


def gib(name: str):
    """An argparse type: a positive number of gibibytes, returned in bytes."""
    number = positive_float(name, "GiB")
    return lambda text: max(1, round(number(text) * 2**30))
