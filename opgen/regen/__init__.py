"""`opgen regen`: re-render an op after a spec change and three-way merge it into the tree the user edited.

state → plan (pure per-file decisions, merge) → apply (all-or-nothing) → report; command wires them to the CLI.
"""
