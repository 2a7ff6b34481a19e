"""The reference implementation over real MPI (docs/design.md §7).

The sans-I/O protocol objects of protocols/ run unchanged over mpi4py: a rank
(runtime/rank.py) executes their effects on real messages, stable storage is
files (runtime/storage.py), failures are soft crashes or real kills under ULFM,
and every run writes a journal of the model's scheduler events that
``rrcheck check-trace`` replays on checker/model/system.py with the same invariants
(runtime/check.py).

May import: the checker's model, invariants and traces, ``rrcheck.protocols``
and the leaves. Must never be imported by the checker (it stands above it) nor
import the CLI; :mod:`.predict` stands above the rest of the runtime.
"""
