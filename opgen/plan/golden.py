"""The recipe as NumPy statements: printed into tests/assets/golden.py and run by the emulator."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.recipe import Step
from .ops import SPELLINGS


@dataclass(frozen=True)
class GoldenVariant:
    name: str
    socs: tuple[str, ...]  # short SoC versions (golden kwarg short_soc_version) that run it
    lines: tuple[str, ...]  # `value = expr` statements over the input names, `cdt` and `shape`


def golden_lines(steps: tuple[Step, ...]) -> tuple[str, ...]:
    lines = []
    for step in steps:
        args = [a if isinstance(a, str) else f"cdt({a!r})" for a in step.args]
        lines.append(f"{step.out} = {SPELLINGS[step.op].numpy.format(*args)}")
    return tuple(lines)
