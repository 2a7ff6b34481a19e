"""The stateful Hypothesis engine (docs/design.md §5): any system as a
``RuleBasedStateMachine`` (:mod:`.machine`) and ``rrcheck fuzz`` (:mod:`.fuzz`).
May import: the model, the invariants, the traces, the leaves.
Must never import another engine, the runtime or the CLI.
"""
