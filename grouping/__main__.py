"""``python -m rrcheck.grouping group ...``: the ``rrcheck group`` subcommand on its own."""

import argparse
import sys

from rrcheck.errors import UsageError
from rrcheck.grouping import cli


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rrcheck.grouping")
    cli.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    try:
        return cli.run(args)
    except UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
