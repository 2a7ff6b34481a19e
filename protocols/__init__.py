"""The protocols as sans-I/O state machines (docs/design.md §3), one module
per paper, and :mod:`.mutants`, the catalogue of their broken variants.
May import: only each other and ``rrcheck.errors``. The checker and the MPI
runtime drive the same objects; nothing here may import either.
"""
