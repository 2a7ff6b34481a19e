"""The consistency properties (docs/design.md §4), the same functions for every engine.

Owns: the general properties, each protocol family's own (one submodule each,
registered when this package is imported), the :class:`Judge` that applies them
and counts the witnesses of a non-vacuous pass, and the verdict of a run
(:mod:`.verdict`).
May import: the model (``rrcheck.checker.model``), ``rrcheck.protocols`` and
``rrcheck.errors``. Must never be imported by the model or the protocols.
"""
# each family registers its own properties when imported, in the order rrcheck list shows them
from rrcheck.checker.invariants import send_deterministic  # noqa: F401,I001
from rrcheck.checker.invariants import app_level  # noqa: F401
from rrcheck.checker.invariants import hmpl  # noqa: F401
from rrcheck.checker.invariants import correlated_set  # noqa: F401
from rrcheck.checker.invariants.general import (DESCRIPTIONS, GENERAL, OWN, Judge, Property, Violation,  # noqa: F401
                                                applicable, contradicted, properties_for, register)

PROPERTIES = GENERAL + tuple(OWN)
