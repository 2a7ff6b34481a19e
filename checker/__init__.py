"""The checker: the system model and the engines that search it.

Rooms, lowest first (docs/design.md §1): ``model`` (the system, workloads,
scenarios), ``invariants`` (properties, Judge, verdicts), ``traces``
(counterexample files, replay and their drawings), and the engines side by
side: ``explicit``, ``stateful``, ``symbolic``, ``tla``. Each room imports only
its own modules and the rooms below it; tests/test_layers.py holds that.
"""
