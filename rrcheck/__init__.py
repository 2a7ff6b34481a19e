"""rrcheck: model checking of rollback-recovery protocols for MPI.

The import names live under this one namespace while the source folders stay at
the top of the repository: ``rrcheck.protocols`` is ``protocols/``,
``rrcheck.checker`` is ``checker/``, ``rrcheck.runtime`` is ``runtime/`` and
``rrcheck.grouping`` is ``grouping/`` (setuptools ``package-dir``).
"""
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("rrcheck")
except PackageNotFoundError:  # pragma: no cover - only from an uninstalled tree
    __version__ = "0+unknown"
