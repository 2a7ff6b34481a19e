"""The TLA+ bridge (DESIGN §1, checker/tla): the specs of specs/ checked by
TLC on rrcheck's scenarios, with rrcheck's verdicts, counts and counterexample
files.

- :mod:`.model` writes a scenario's workload as the constants of a generated
  ``MC`` module and ``.cfg``;
- :mod:`.run` finds Java and ``tla2tools.jar`` and runs TLC under a
  timeout in its own directory, parsing its ``-tool`` messages;
- :mod:`.values` reads TLC's values and sees TLC's and the Python model's
  states the same way;
- :mod:`.follow` maps a TLC trace onto the Python model's scheduler events, so
  ``rrcheck replay`` re-executes it, or says where the model cannot follow;
- :mod:`.itf` writes a counterexample as an ITF trace (``replay --itf``).

May import: the model, the invariants, the traces and the leaves.
Must never import another engine, the runtime or the CLI.
"""
from rrcheck.checker.tla.model import SPECS, SPECIFIED, spec_of
from rrcheck.checker.tla.run import TlaCheck, run_tla

__all__ = ["SPECS", "SPECIFIED", "spec_of", "TlaCheck", "run_tla"]
