"""The compute recipe language: one vector step per line, `out = op(arg, ...)`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ArgKind = Literal["tensor", "scalar", "either"]  # either: a value name or a number
COMPARISONS = ("gt", "ge", "lt", "le", "eq", "ne")


@dataclass(frozen=True)
class OpSignature:
    """What a recipe op takes and gives (a value, or a mask only select reads); the plan maps it to AscendC
    and atvoss calls."""

    args: tuple[ArgKind, ...]
    doc: str
    gives_mask: bool = False


OPS: dict[str, OpSignature] = {
    "add": OpSignature(("tensor", "tensor"), "a + b"),
    "sub": OpSignature(("tensor", "tensor"), "a - b"),
    "mul": OpSignature(("tensor", "tensor"), "a * b"),
    "div": OpSignature(("tensor", "tensor"), "a / b"),
    "max": OpSignature(("tensor", "tensor"), "max(a, b)"),
    "min": OpSignature(("tensor", "tensor"), "min(a, b)"),
    "adds": OpSignature(("tensor", "scalar"), "a + c"),
    "muls": OpSignature(("tensor", "scalar"), "a * c"),
    "maxs": OpSignature(("tensor", "scalar"), "max(a, c)"),
    "mins": OpSignature(("tensor", "scalar"), "min(a, c)"),
    "exp": OpSignature(("tensor",), "e ** a"),
    "log": OpSignature(("tensor",), "natural log of a"),
    "abs": OpSignature(("tensor",), "|a|"),
    "sqrt": OpSignature(("tensor",), "square root of a"),
    "reciprocal": OpSignature(("tensor",), "1 / a"),
    "relu": OpSignature(("tensor",), "max(a, 0)"),
    "neg": OpSignature(("tensor",), "-a (muls by -1: exact)"),
    "sign": OpSignature(("tensor",), "-1, 0 or 1 as a is negative, zero or positive (NaN gives 0, as torch)"),
    "tanh": OpSignature(("tensor",), "hyperbolic tangent of a"),
    "sigmoid": OpSignature(("tensor",), "1 / (1 + e ** -a)"),
    "erf": OpSignature(("tensor",), "the error function of a"),
    "log1p": OpSignature(("tensor",), "log(1 + a), computed as log(adds(a, 1))"),
    "softplus": OpSignature(("tensor",), "log(1 + e ** a), computed as relu(a) + log(1 + e ** -|a|)"),
    "fill": OpSignature(("scalar",), "a tensor of c"),
    **{name: OpSignature(("tensor", "either"), f"the mask a {sign} b (b a value or a number); NaN compares "
                         "false but for ne", gives_mask=True)
       for name, sign in zip(COMPARISONS, (">", ">=", "<", "<=", "==", "!="), strict=True)},
    "select": OpSignature(("tensor", "tensor", "either"), "mask ? a : b, mask an input mask (one bit or byte "
                          "per element) or a comparison; b a value or a number"),
}

_STEP = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([a-z_][a-z0-9_]*)\s*\((.*)\)\s*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Step:
    """One parsed recipe step; args are value names (str) or constants (float)."""

    out: str
    op: str
    args: tuple[str | float, ...]

    def __str__(self) -> str:
        shown = ", ".join(a if isinstance(a, str) else repr(a) for a in self.args)
        return f"{self.out} = {self.op}({shown})"

    @property
    def tensor_args(self) -> tuple[str, ...]:
        return tuple(a for a in self.args if isinstance(a, str))


def parse_step(text: str) -> Step:
    """Parse `out = op(a, b)`; ValueError says what is wrong and the accepted form."""
    match = _STEP.match(text)
    if not match:
        raise ValueError(f"step {text!r} is not of the form `out = op(arg, ...)`")
    out, op, raw_args = match.groups()
    if op not in OPS:
        raise ValueError(f"step {text!r}: unknown op {op!r}; known ops: {', '.join(sorted(OPS))}")
    args: list[str | float] = []
    for raw in (a.strip() for a in raw_args.split(",")) if raw_args.strip() else ():
        args.append(_parse_arg(raw, text))
    signature = OPS[op].args
    if len(args) != len(signature):
        raise ValueError(f"step {text!r}: {op} takes {len(signature)} argument(s), got {len(args)}")
    for arg, kind in zip(args, signature, strict=True):
        if kind == "tensor" and not isinstance(arg, str):
            raise ValueError(f"step {text!r}: {op} needs a value name where {arg!r} stands")
        if kind == "scalar" and isinstance(arg, str):
            raise ValueError(f"step {text!r}: {op} needs a number where {arg!r} stands")
    return Step(out, op, tuple(args))


def _parse_arg(raw: str, text: str) -> str | float:
    if _NAME.match(raw):
        return raw
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"step {text!r}: argument {raw!r} is neither a value name nor a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"step {text!r}: constant {raw!r} must be finite")
    return value
