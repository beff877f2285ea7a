"""The kernel tier: compile every generated kernel in AscendC CPU-debug mode and run it on opgen's CPU model.

Kept apart from the other check tiers because it alone builds C++ against asc-devkit and (with --allow-exec)
executes tree code; README.md says what each module does.
"""
