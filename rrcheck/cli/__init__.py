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
import json
import sys

from rrcheck import __version__
from rrcheck.errors import FingerprintCollision, ModelError, UsageError


class Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, status 2
        self.exit(2, f"rrcheck: {message} (see `rrcheck {self.prog.split()[-1]} --help`)\n"
                  if " " in self.prog else f"rrcheck: {message} (see `rrcheck --help`)\n")


def parser() -> argparse.ArgumentParser:
    from rrcheck.cli import check, fuzz, predict, prove, tla
    from rrcheck.grouping import cli as grouping_cli
    from rrcheck.runtime import cli as runtime_cli
    p = Parser(prog="rrcheck", description="Model checking of rollback-recovery protocols.")
    p.add_argument("--version", action="version", version=f"rrcheck {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True, parser_class=Parser)
    check.add_parsers(sub)
    fuzz.add_parser(sub)
    prove.add_parser(sub)
    predict.add_parser(sub)
    tla.add_parser(sub)
    runtime_cli.add_parsers(sub)
    grouping_cli.add_parser(sub)
    return p


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # Ctrl-C, a kill or a closed terminal all end a command the same way: every
    # process it started is ended and what was finished is kept
    import signal
    import threading
    before = {sig: signal.signal(sig, _interrupt) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)} \
        if threading.current_thread() is threading.main_thread() else {}
    try:
        return args.func(args)
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
    except KeyboardInterrupt:
        print("rrcheck: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `rrcheck list | head`
        sys.stderr.close()
        return 0
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
