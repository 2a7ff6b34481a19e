"""``python -m rrcheck`` is the ``rrcheck`` command."""
import sys

from rrcheck.checker.cli import main

sys.exit(main())
