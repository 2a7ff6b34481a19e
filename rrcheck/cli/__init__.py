"""The ``rrcheck`` command: one dispatcher over the engines, which never import it
(the top layer, docs/design.md §1; nothing but ``rrcheck.__main__`` imports it).

    rrcheck list | check | check-workload | replay | fuzz     the model (rrcheck.cli.check, .fuzz)
    rrcheck run | check-trace | campaign                      real MPI (rrcheck.runtime.cli)
    rrcheck group                                             forming groups (rrcheck.grouping.cli)

Exit status: 0 as expected (a pass; for ``--all`` every protocol passes and
every mutant is caught; for ``replay`` the same violation reproduced), 1 a
violation or a surprise, 2 a usage error (one line on stderr), 3 incomplete,
130 interrupted.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys

from rrcheck.errors import FingerprintCollision, ModelError, UsageError
from rrcheck.files import STDOUT, GuardedStdout, StdoutFailed, mute_stdout, not_written


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, status 2
        self.exit(2, f"rrcheck: {message} (see `rrcheck {self.prog.split()[-1]} --help`)\n"
                  if " " in self.prog else f"rrcheck: {message} (see `rrcheck --help`)\n")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("rrcheck")
    except PackageNotFoundError:  # an uninstalled tree
        return "0+unknown"


class RaisingParser(Parser):
    """The command line's parser for the API (:func:`rrcheck.check`): a bad
    value is the same :class:`UsageError`, raised instead of printed."""

    def error(self, message: str):
        raise UsageError(message)


def parser(cls: type = Parser) -> argparse.ArgumentParser:
    from rrcheck.cli import check, fuzz, predict, prove, tla
    from rrcheck.grouping import cli as grouping_cli
    from rrcheck.runtime import cli as runtime_cli
    p = cls(prog="rrcheck", description="Model checking of rollback-recovery protocols.")
    p.add_argument("--version", action="version", version=f"rrcheck {_version()}")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=cls)
    check.add_parsers(sub)
    fuzz.add_parser(sub)
    prove.add_parser(sub)
    predict.add_parser(sub)
    tla.add_parser(sub)
    runtime_cli.add_parsers(sub)
    grouping_cli.add_parser(sub)
    return p


def _interrupt(signum, frame):
    """Ctrl-C (or SIGTERM, SIGHUP) as KeyboardInterrupt where the signal arrives;
    inside a garbage-collector callback (Hypothesis registers one), where Python
    would print the exception and drop it, the same a moment later (SIGALRM)."""
    import gc
    import signal
    callbacks = {getattr(cb, "__code__", None) for cb in gc.callbacks}
    while frame is not None:
        if frame.f_code in callbacks:
            signal.setitimer(signal.ITIMER_REAL, 0.05)
            return
        frame = frame.f_back
    raise KeyboardInterrupt


def _terminal() -> None:
    """Standard streams a command can always write to: a terminal or pipe
    that cannot encode a character shows a replacement, not a traceback."""
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and hasattr(stream, "reconfigure") and \
                (getattr(stream, "encoding", "") or "").lower().replace("-", "") != "utf8":
            stream.reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    _terminal()
    if sys.stderr is None:  # `2>&-`: nowhere to say anything, but no traceback
        sys.stderr = open(os.devnull, "w")
    try:
        os.getcwd()
    except FileNotFoundError:
        print("rrcheck: the current directory no longer exists; cd to one that does and run the command again",
              file=sys.stderr)
        return 2
    # Ctrl-C, a kill or a closed terminal all end a command the same way: every
    # process it started is ended and what was finished is kept
    import signal
    import threading
    before = {sig: signal.signal(sig, _interrupt)
              for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGALRM)} \
        if threading.current_thread() is threading.main_thread() else {}
    real_stdout, sys.stdout = sys.stdout, GuardedStdout(sys.stdout)
    try:
        try:
            args = parser().parse_args(argv)
        except SystemExit as e:  # --help, --version or a usage line: said; a full disk shows here
            sys.stdout.flush()
            raise e
        code = args.func(args)
        sys.stdout.flush()  # a full disk under `> FILE` shows here, while it can still be said
        return code
    except UsageError as e:
        print(f"rrcheck: {e}", file=sys.stderr)
        return 2
    except ModelError as e:
        where = (f" after the events {json.dumps(e.events)}" if e.events else
                 "; the breadth-first search on one worker says where")
        print(f"rrcheck: {e}{where}: a bug in the model (or a mutant that breaks one of its assertions), "
              "not in the input", file=sys.stderr)
        return 1
    except FingerprintCollision as e:
        print(f"rrcheck: {e}: two states share a 64-bit fingerprint, so this search has no verdict; run it "
              "again without --workers, --fingerprints and --mpi, which keeps whole states", file=sys.stderr)
        return 3
    except KeyboardInterrupt as e:
        explored = getattr(e, "result", None)  # a search says how far it went
        print(f"rrcheck: {explored.reason}" if explored is not None and explored.reason else "rrcheck: interrupted",
              file=sys.stderr)
        return 130
    except ctypes.ArgumentError as e:
        if "KeyboardInterrupt" not in str(e):
            raise
        # Ctrl-C while Z3's ctypes layer converts an argument arrives wrapped in this
        print("rrcheck: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `rrcheck list | head`
        mute_stdout()
        return 0
    except StdoutFailed as e:
        mute_stdout()
        print(f"rrcheck: {not_written(STDOUT, e, '; send it to another file')}", file=sys.stderr)
        return 2
    except OSError as e:  # a file the command read or wrote: the machine, not a bug
        where = f"{e.filename}: " if e.filename else ""
        print(f"rrcheck: {where}{e.strerror or e}; free space or check the path and try again", file=sys.stderr)
        return 2
    finally:
        sys.stdout = real_stdout
        if before:
            signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in before.items():
            signal.signal(sig, handler)
