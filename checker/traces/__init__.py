"""What a check leaves behind and how it is shown: counterexample files, their
schema and replay (:mod:`.counterexample`), ``--explain`` (:mod:`.explain`), the
space-time diagram (:mod:`.render`) and the HTML viewer (:mod:`.viewer`).
May import: the model, the invariants, ``rrcheck.protocols`` and the leaves.
Must never import an engine (every engine writes these files, so they stand below them).
"""
