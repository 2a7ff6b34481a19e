"""The explicit engine (docs/design.md §5): breadth-first, depth-first and
random search with the reductions (:mod:`.explore`), on several workers
(:mod:`.parallel`) or MPI ranks (:mod:`.distributed`), saved and resumed
(:mod:`.resume`); :mod:`.check` runs one check and the main job's plan.
May import: the model, the invariants, the traces, the leaves (``rrcheck.errors``,
``rrcheck.files``, ``rrcheck.mpi``). Must never import another engine, the
runtime or the CLI; only the runtime's prediction and the CLI import it.
"""
