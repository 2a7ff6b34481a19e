"""Writing what a user asked for: output paths checked before any work, files
written whole or not at all, with the user's umask.

- ``-`` is standard output.
- A symlink is written through: its target is replaced, the link stays.
- A device, a FIFO or a socket (``/dev/null``, ``/dev/full``) is written
  in place, never replaced by a file.
- A regular file is replaced atomically (a temporary file beside it, then
  ``os.replace``); a new file gets ``0666 & ~umask`` (normally 0644), an
  existing one keeps its mode.
"""
from __future__ import annotations

import os
import stat
import sys
import tempfile
from pathlib import Path

from rrcheck.errors import UsageError

STDOUT = "-"


def _umask() -> int:
    old = os.umask(0o022)
    os.umask(old)
    return old


def _existing_ancestor(p: Path) -> Path:
    while not p.exists():
        if p.parent == p:
            break
        p = p.parent
    return p


def check_file(path: str | Path, what: str = "output", inputs: tuple = ()) -> Path | str:
    """A path a file will be written to, checked now: ``-``, a writable device,
    a file that exists and is writable, or a new file in a directory that is
    (or can be made) writable, and never one of ``inputs``. Returns it absolute (or ``-``)."""
    if str(path) == STDOUT:
        return STDOUT
    if str(path) == "":
        raise UsageError(f"{what}: an empty path; give a file name or - for standard output")
    p = Path(path).expanduser().absolute()
    target = Path(os.path.realpath(p))
    if target.exists():
        if target.is_dir():
            raise UsageError(f"{what} {path}: is a directory; give a file name")
        for inp in inputs:
            if os.path.exists(inp) and os.path.samefile(target, inp):
                raise UsageError(f"{what} {path}: is the input {inp}, which it would overwrite; choose another path")
        if not os.access(target, os.W_OK):
            raise UsageError(f"{what} {path}: not writable; choose another path")
        if not stat.S_ISREG(target.stat().st_mode):
            return p  # a device or a FIFO: written in place
    anc = _existing_ancestor(target.parent)
    if not anc.is_dir():
        raise UsageError(f"{what} {path}: {anc} is not a directory; choose another path")
    if not os.access(anc, os.W_OK | os.X_OK):
        raise UsageError(f"{what} {path}: cannot write in {anc} (permission denied); choose another path")
    _probe(target.parent, what, path)
    return p


def check_dir(path: str | Path, what: str = "--out") -> Path:
    """A directory outputs will be written into, checked now and returned absolute."""
    if str(path) in ("", STDOUT):
        raise UsageError(f"{what}: give a directory path")
    p = Path(path).expanduser().absolute()
    target = Path(os.path.realpath(p))
    if target.exists() and not target.is_dir():
        raise UsageError(f"{what} {path}: exists and is not a directory; choose another path")
    anc = _existing_ancestor(target)
    if not anc.is_dir():
        raise UsageError(f"{what} {path}: {anc} is not a directory; choose another path")
    if not os.access(anc, os.W_OK | os.X_OK):
        raise UsageError(f"{what} {path}: cannot write in {anc} (permission denied); choose another path")
    _probe(target, what, path)
    return p


def _probe(target: Path, what: str, path) -> None:
    """Make the directory and a file in it, then remove both: what the permission
    bits do not tell (a root user, a read-only or pseudo file system) shows now."""
    made: list[Path] = []
    try:
        missing = []
        d = target
        while not d.exists():
            missing.append(d)
            d = d.parent
        for m in reversed(missing):
            m.mkdir()
            made.append(m)
        with tempfile.TemporaryFile(dir=target):
            pass
    except OSError as e:
        raise UsageError(f"{what} {path}: cannot write there ({e.strerror}); choose another path") from None
    finally:
        for m in reversed(made):
            try:
                m.rmdir()
            except OSError:
                pass


def write_text(path: str | Path, text: str) -> None:
    write_bytes(path, text.encode())


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (see the module's rules)."""
    if str(path) == STDOUT:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    target = Path(os.path.realpath(Path(path).expanduser()))
    mode = 0o666 & ~_umask()
    if target.exists():
        st = target.stat()
        if not stat.S_ISREG(st.st_mode):
            with open(target, "wb", buffering=0) as f:  # a device: write in place
                f.write(data)
            return
        mode = stat.S_IMODE(st.st_mode)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
