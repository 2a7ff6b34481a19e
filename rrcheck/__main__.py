"""``python -m rrcheck`` is the ``rrcheck`` command."""
import sys

from rrcheck.cli import main

sys.exit(main())
