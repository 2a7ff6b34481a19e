"""rrcheck: model checking of rollback-recovery protocols for MPI.

The import names live under this one namespace while the source folders stay at
the top of the repository: ``rrcheck.protocols`` is ``protocols/``,
``rrcheck.checker`` is ``checker/``, ``rrcheck.runtime`` is ``runtime/`` and
``rrcheck.grouping`` is ``grouping/`` (setuptools ``package-dir``).
"""
import os as _os
from importlib.metadata import PackageNotFoundError, version

# An uninstalled checkout (python -m pytest before pip install): the source folders sit
# beside this package, so rrcheck.checker is ./checker as package-dir maps it when installed.
_root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
if _os.path.isfile(_os.path.join(_root, "pyproject.toml")) and _os.path.isdir(_os.path.join(_root, "checker")):
    __path__.append(_root)

try:
    __version__ = version("rrcheck")
except PackageNotFoundError:  # pragma: no cover - only from an uninstalled tree
    __version__ = "0+unknown"


def check(protocol: str | None = None, workload=None, *, mutant: str | None = None, procs: int | None = None,
          nodes: int | None = None, failures: int = 1, checkpoints: int = 0, crash_kinds=("process", "node"),
          at_sites: bool = False, properties=None, out=None, max_states: int | None = None,
          time_limit: float | None = None, anyway: bool = False, beyond_fault_model: bool = False):
    """Check a protocol (or a mutant) exhaustively on one workload, as
    ``rrcheck check PROTOCOL --workload W`` does.

    ``workload`` is a built-in name (``rrcheck list``), the path of a
    ``.toml``/``.json`` workload file, or the document of one as a dict
    (checker/model/workload_file.py gives the format). Returns a
    :class:`rrcheck.checker.invariants.verdict.Check`: ``.result.verdict`` is ``pass``,
    ``violation`` or ``incomplete``; ``.result.violation``, ``.result.witnesses``,
    ``.vacuous`` (why a pass exercised nothing, or None) and ``.counterexample``
    (a file under ``out``, if given). Bad input raises
    :class:`rrcheck.errors.UsageError`.

        >>> from rrcheck import check
        >>> c = check("sbml", "examples/race.toml", crash_kinds=("process",))
        >>> c.result.verdict
        'pass'
    """
    from pathlib import Path

    from rrcheck.checker.explicit import check as C
    from rrcheck.errors import UsageError
    from rrcheck.checker.model.scenarios import Scenario
    from rrcheck.protocols.mutants import MUTANTS
    if mutant:
        if mutant not in MUTANTS:
            raise UsageError(f"unknown mutant {mutant!r}")
        protocol = protocol or MUTANTS[mutant].protocol
    if workload is None:
        raise UsageError("give a workload: a name, a workload file or its document")
    if isinstance(workload, dict):
        import json
        path = _documents() / f"{workload.get('name') or 'workload'}.json"
        path.write_text(json.dumps(workload))
        workload = str(path)
    elif isinstance(workload, Path):
        workload = str(workload)
    sc = Scenario(workload, procs, nodes, failures, checkpoints, tuple(crash_kinds), at_sites=at_sites,
                  beyond_fault_model=beyond_fault_model)
    from rrcheck.checker.model.workloads import make
    make(sc.workload, sc.procs, sc.nodes)
    return C.run_check(protocol, sc, mutant, properties, Path(out) if out else None, max_states=max_states,
                       time_limit=time_limit, progress=False, anyway=anyway)


_DOCS = []


def _documents():
    """Where check() writes workload documents for the checker to read: one
    directory per process, removed when the interpreter exits."""
    import tempfile
    from pathlib import Path
    if not _DOCS:
        _DOCS.append(tempfile.TemporaryDirectory(prefix="rrcheck-workload-"))
    return Path(_DOCS[0].name)


def replay(path):
    """Re-execute a counterexample file: returns (reproduced, difference, replay)
    where ``difference`` says what differs from the recorded violation."""
    from rrcheck.checker.traces import counterexample as T
    cx = T.load(path)
    rep = T.replay(cx)
    diff = T.differences(cx.violation, rep.violation)
    return diff is None, diff, rep


__all__ = ["check", "replay", "__version__"]
