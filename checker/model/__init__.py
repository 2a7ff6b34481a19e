"""The system model (docs/design.md §2): ground every engine stands on.

Owns: the global state and its scheduler events (:mod:`.system`), ghost
histories (:mod:`.ghost`), application programs and workloads (:mod:`.program`,
:mod:`.workloads`, :mod:`.workload_file`), failure-free runs and determinism
classes (:mod:`.classify`), scenarios and the default catalogue (:mod:`.scenarios`).
May import: ``rrcheck.protocols`` and ``rrcheck.errors``.
Must never import: the invariants, traces, any engine, the runtime or the CLI.
"""
