"""The correlated-set protocol's reading of NoInTransitInGroup: Theorem 1 of
Bouteiller, Herault, Bosilca, Dongarra, "Correlated set coordination in fault
tolerant message logging protocols" (CCPE 2013, §3.2.1): "there is no
recovery set containing an in-transit message between two processes of the
same correlated set", so internal messages need no payload copy. The check is
the general one; a violation on a correlated set is reported under the
theorem's name."""
from rrcheck.checker.invariants.general import Property, register

register(Property(
    "Theorem1",
    "Bouteiller et al. 2013 §3.2.1, Theorem 1 (“There is no recovery set containing an in-transit message between "
    "two processes of the same correlated set”), as we check it: at a rollback of a correlated set, no internal "
    "message is in transit at its recovery line (the correlated-set reading of NoInTransitInGroup)",
    ("correlated-set",), refines="NoInTransitInGroup"))
