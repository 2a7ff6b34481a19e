"""``python -m checker`` is ``rrcheck`` (handy with PYTHONPATH in a work tree)."""
import sys

from checker.cli import main

sys.exit(main())
