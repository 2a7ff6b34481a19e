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
          nodes: int | None = None, failures: int | None = None, checkpoints: int | None = None,
          crash_kinds=None, at_sites: bool = False, properties=None, out=None, max_states: int | None = None,
          time_limit: float | None = None, anyway: bool = False, beyond_fault_model: bool = False,
          scenario: int | None = None):
    """Check a protocol (or a mutant) exhaustively, as ``rrcheck check``
    does with the same options: the same parser, defaults and validation
    (rrcheck.cli.check.checks), so ``check("sbml", "ring")`` searches what
    ``rrcheck check sbml --workload ring`` searches. An option left ``None``
    takes the protocol's default scenario's value.

    ``workload`` is a built-in name (``rrcheck list``), the path of a
    ``.toml``/``.json`` workload file (docs/workloads.md), or the document of
    one as a dict; without it (and without ``scenario``), each of the
    protocol's default scenarios is checked and a list is returned. Returns a
    :class:`rrcheck.checker.invariants.verdict.Check`: ``.result.verdict`` is
    ``pass``, ``violation`` or ``incomplete``; ``.result.violation``,
    ``.result.witnesses``, ``.vacuous`` (why a pass exercised nothing, or None)
    and ``.counterexample`` (a file under ``out``, if given; none is written
    without it). Bad input raises :class:`rrcheck.errors.UsageError` with the
    command line's message.

        >>> from rrcheck import check
        >>> c = check("sbml", "examples/race.toml", crash_kinds=("process",))
        >>> c.result.verdict
        'pass'
    """
    from pathlib import Path

    from rrcheck.cli import RaisingParser, parser
    from rrcheck.cli.check import checks
    if isinstance(workload, dict):
        import json
        path = _documents() / f"{workload.get('name') or 'workload'}.json"
        path.write_text(json.dumps(workload))
        workload = str(path)
    argv = ["check"] + ([protocol] if protocol else []) + ["--no-progress"]
    options = {"--mutant": mutant, "--workload": workload, "--procs": procs, "--nodes": nodes,
               "--failures": failures, "--checkpoints": checkpoints, "--max-states": max_states,
               "--time-limit": time_limit, "--scenario": scenario,
               "--crash-kinds": ",".join(crash_kinds) if crash_kinds is not None and not isinstance(crash_kinds, str)
               else crash_kinds}
    for flag, value in options.items():
        if value is not None:
            argv += [flag, str(value) if not isinstance(value, Path) else str(value)]
    for flag, on in (("--at-sites", at_sites), ("--anyway", anyway), ("--beyond-fault-model", beyond_fault_model)):
        if on:
            argv.append(flag)
    for prop in properties or ():
        argv += ["--property", prop]
    args = parser(RaisingParser).parse_args(argv)
    args.out = str(out) if out is not None else None  # the API writes no counterexample unless asked
    done = list(checks(args))
    return done[0] if len(done) == 1 else done


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
    from rrcheck.errors import UsageError
    cx = T.load(path)
    try:
        rep = T.replay(cx)
    except UsageError as e:
        raise UsageError(f"{path}: {e}") from None
    diff = T.differences(cx.violation, rep.violation)
    return diff is None, diff, rep


__all__ = ["check", "replay", "__version__"]
