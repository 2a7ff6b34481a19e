"""Every file the suite reads or writes, at the edge (docs/design.md §8).

Reading: a file is opened once, refused unless it is a regular file (a FIFO
would block, a device never ends), and read through a cap, so neither
``/dev/zero`` nor a growing file can exhaust memory; JSON integers longer than
any count rrcheck writes are refused before Python converts them.

Writing: output paths checked before any work, files written whole or not at
all, with the user's umask; a write that fails (a full disk, a quota, an I/O
error) is one line naming what was not written.

- ``-`` is standard output.
- A symlink is written through: its target is replaced, the link stays.
- A device, a FIFO or a socket (``/dev/null``, ``/dev/full``) is written
  in place, never replaced by a file.
- A regular file is replaced atomically (a temporary file beside it, then
  ``os.replace``); a new file gets ``0666 & ~umask`` (normally 0644), an
  existing one keeps its mode.
"""
from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import stat
import sys
import tempfile
from pathlib import Path

from rrcheck.errors import UsageError

STDOUT = "-"
MAX_DIGITS = 19   # an integer rrcheck writes fits in 64 bits


def read_capped(path: str | Path, limit: int, label: str) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    A FIFO, a device, a socket or a directory is refused (``label`` names the
    file to the user), as is a file longer than ``limit``; other errors (no
    such file, permission) are raised as the ``OSError`` they are."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                    else "a socket" if stat.S_ISSOCK(st.st_mode) else "a device")
            raise UsageError(f"{label}: {kind}, not a regular file; give the path of a file")
        os.set_blocking(fd, True)
        chunks, got = [], 0
        while got <= limit:
            b = os.read(fd, min(1 << 20, limit + 1 - got))
            if not b:
                break
            chunks.append(b)
            got += len(b)
        if got > limit:
            raise UsageError(f"{label}: larger than {limit:,} bytes, more than any such file rrcheck reads; "
                             "give the right file")
        return b"".join(chunks)
    finally:
        os.close(fd)


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-')):,} digits (at most {MAX_DIGITS})")
    return int(text)


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def loads_json(data: bytes | str):
    """JSON as the suite reads it: integers of at most 19 digits, no NaN or
    Infinity. Raises ``ValueError`` (``json.JSONDecodeError``, ``UnicodeDecodeError``
    and ``RecursionError`` are subclasses or siblings callers catch) with the reason."""
    text = data.decode() if isinstance(data, bytes) else data
    return json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)


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


WRITE_ERRORS = {errno.ENOSPC: "the disk is full", errno.EDQUOT: "the disk quota is used up",
                errno.EIO: "an I/O error", errno.EROFS: "a read-only file system",
                errno.EBADF: "it is closed"}


class OutputError(UsageError):
    """An output that could not be written; ``why`` says in a few words why."""

    def __init__(self, message: str, why: str):
        super().__init__(message)
        self.why = why

    def __reduce__(self):  # raised in a worker process, reported by its coordinator
        return type(self), (str(self), self.why)


def not_written(path, e: OSError, kept: str = "") -> OutputError:
    """The one line for an output that could not be written."""
    why = WRITE_ERRORS.get(e.errno, e.strerror or str(e))
    where = "standard output" if str(path) == STDOUT else str(path)
    return OutputError(f"{where}: not written ({why}){kept or '; free space there or choose another path'}", why)


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` whole or not at all (see the module's rules);
    a failed write raises :func:`not_written`'s error, leaving nothing half-written
    (a regular file keeps its old contents)."""
    try:
        _write(path, data)
    except OSError as e:
        raise not_written(path, e) from None


class StdoutFailed(OSError):
    """Standard output could not be written (a full disk under ``> FILE``),
    told apart from the errors of the files a command reads and writes."""


class GuardedStdout:
    """Standard output whose write errors are :class:`StdoutFailed` (the
    command line wraps ``sys.stdout`` in it while a command runs)."""

    def __init__(self, f):
        self._f = f

    def _guard(self, call, *a):
        try:
            return call(*a)
        except (BrokenPipeError, StdoutFailed):
            raise
        except OSError as e:
            raise StdoutFailed(e.errno, e.strerror) from None

    def write(self, text):
        if self._f is None:  # started with standard output closed (`>&-`)
            raise StdoutFailed(errno.EBADF, "standard output is closed")
        return self._guard(self._f.write, text)

    def flush(self):
        return None if self._f is None else self._guard(self._f.flush)

    def __getattr__(self, name):
        return getattr(self._f, name)


class Stream:
    """The lines of a long result (``check --all``, ``campaign``) on standard
    output as they come; if standard output fails (a full disk, not a closed
    pipe), every line, those already printed too, goes to a temporary file,
    the work goes on, and :meth:`close` names the file in its one line."""

    def __init__(self, name: str = "result"):
        self.name, self.lines, self.kept, self.path, self.error = name, [], None, None, None

    def print(self, line: str = "") -> None:
        self.lines.append(line)
        if self.kept is not None:
            self.kept.write(line + "\n")
            self.kept.flush()
            return
        try:
            print(line, flush=True)
        except BrokenPipeError:
            raise
        except OSError as e:
            self.error = e
            mute_stdout()
            try:
                fd, self.path = tempfile.mkstemp(prefix=f"rrcheck-{self.name.replace(' ', '-')}-", suffix=".txt")
                self.kept = os.fdopen(fd, "w")
                self.kept.write("\n".join(self.lines) + "\n")
                self.kept.flush()
            except OSError:
                raise not_written(STDOUT, e, f"; the {self.name} is lost as well (no room for a temporary "
                                             "file)") from None

    def close(self) -> None:
        if self.error is not None:
            self.kept.close()
            raise not_written(STDOUT, self.error, f"; the {self.name} is kept in {self.path}")


def emit(text: str, name: str = "result") -> None:
    """Print the result of long work; if standard output fails, keep it in a
    temporary file the error line names (:class:`Stream`)."""
    s = Stream(name)
    s.print(text.rstrip("\n"))
    s.close()


@contextlib.contextmanager
def kept(name: str = "result"):
    """Standard output of the block gathered and printed with :func:`emit` at
    its end, so that a full disk cannot lose the result of long work."""
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        yield
    emit(buf.getvalue(), name)


def mute_stdout() -> None:
    """Point standard output at /dev/null so that what is still buffered for
    a full or closed output is not written (nor reported again) at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # a captured stdout (tests) has no descriptor
        pass


def _write(path: str | Path, data: bytes) -> None:
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
