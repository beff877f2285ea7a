"""The compute recipe language: one vector step per line, `out = op(arg, ...)`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

ArgKind = Literal["tensor", "scalar", "either", "axis"]  # either: a value name or a number; axis: an int attr
COMPARISONS = ("gt", "ge", "lt", "le", "eq", "ne")


@dataclass(frozen=True)
class OpSignature:
    """What a recipe op takes and gives (a value, or a mask only select reads); the plan maps it to AscendC
    and atvoss calls."""

    args: tuple[ArgKind, ...]
    doc: str
    gives_mask: bool = False
    along: Literal["", "half", "join", "reduce"] = ""  # what the step does along its axis attr


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
    "first_half": OpSignature(("tensor", "axis"), "the first half of input a along the axis attr (a's length "
                              "there must be even); the kernel addresses it in place", along="half"),
    "second_half": OpSignature(("tensor", "axis"), "the second half of input a along the axis attr",
                               along="half"),
    "join_halves": OpSignature(("tensor", "tensor", "axis"), "a then b along the axis attr: the output, of the "
                               "split input's shape", along="join"),
    "reduce_sum": OpSignature(("tensor", "axis"), "the sum of a along the axis attr, kept as a length-1 axis that "
                              "an elementwise step broadcasts back", along="reduce"),
}

_STEP = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*([a-z_][a-z0-9_]*)\s*\((.*)\)\s*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class AttrRef:
    """An attr named where a constant can stand: the kernel reads it from the tiling (classic) or a DAG Var."""

    name: str
    kind: str  # the attr's type: float or int

    def __str__(self) -> str:
        return self.name


Arg = str | float | AttrRef  # a value name, a constant, or an attr


@dataclass(frozen=True)
class Step:
    """One parsed recipe step; args are value names (str), constants (float) or attrs (AttrRef)."""

    out: str
    op: str
    args: tuple[Arg, ...]

    def __str__(self) -> str:
        shown = ", ".join(repr(a) if isinstance(a, float) else str(a) for a in self.args)
        return f"{self.out} = {self.op}({shown})"

    @property
    def tensor_args(self) -> tuple[str, ...]:
        return tuple(a for a in self.args if isinstance(a, str))


def parse_step(text: str, attrs: Mapping[str, str] | None = None) -> Step:
    """Parse `out = op(a, b)`; ValueError says what is wrong and the accepted form.

    `attrs` maps the op's attr names to their types: a name in a constant's place (or in a comparison's or
    select's value-or-number place) that is an attr becomes an AttrRef."""
    match = _STEP.match(text)
    if not match:
        raise ValueError(f"step {text!r} is not of the form `out = op(arg, ...)`")
    out, op, raw_args = match.groups()
    if op not in OPS:
        raise ValueError(f"step {text!r}: unknown op {op!r}; known ops: {', '.join(sorted(OPS))}")
    raws = [a.strip() for a in raw_args.split(",")] if raw_args.strip() else []
    signature = OPS[op].args
    if len(raws) != len(signature):
        raise ValueError(f"step {text!r}: {op} takes {len(signature)} argument(s), got {len(raws)}")
    args: list[Arg] = []
    for raw, kind in zip(raws, signature, strict=True):
        parsed = _parse_arg(raw, text)
        if kind == "axis":
            args.append(_axis_arg(parsed, attrs, text))
            continue
        arg: Arg = parsed
        if kind == "tensor" and not isinstance(arg, str):
            raise ValueError(f"step {text!r}: {op} needs a value name where {arg!r} stands")
        if isinstance(arg, str) and kind != "tensor" and attrs is not None and arg in attrs:
            arg = _attr_arg(arg, attrs[arg], text)
        if kind == "tensor" and attrs is not None and isinstance(arg, str) and arg in attrs:
            raise ValueError(f"step {text!r}: {op} needs a value where attr {arg!r} stands; an attr can stand "
                             "only where a number can (e.g. muls(x, scale))")
        if kind == "scalar" and isinstance(arg, str):
            known = ", ".join(n for n, t in (attrs or {}).items() if t in NUMERIC_ATTR_TYPES) or "none"
            raise ValueError(f"step {text!r}: {op} needs a number or a numeric attr where {arg!r} stands "
                             f"(numeric attrs: {known})")
        args.append(arg)
    return Step(out, op, tuple(args))


NUMERIC_ATTR_TYPES = ("float", "int")


def _attr_arg(name: str, kind: str, text: str) -> AttrRef:
    """A float or int attr as a step's number; bool and string attrs pick the math through variants."""
    if kind not in NUMERIC_ATTR_TYPES:
        raise ValueError(f"step {text!r}: attr {name!r} is a {kind}, not a number; only float and int attrs "
                         "can stand where a number can (a string attr picks a compute variant)")
    return AttrRef(name, kind)


def _axis_arg(arg: str | float, attrs: Mapping[str, str] | None, text: str) -> AttrRef:
    """The attr naming the axis (upstream's `dim`), an int; its value may be negative (from the last axis)."""
    known = ", ".join(n for n, t in (attrs or {}).items() if t == "int") or "none"
    if not isinstance(arg, str) or (attrs is not None and attrs.get(arg) != "int"):
        raise ValueError(f"step {text!r}: the axis is named by an int attr, not {arg!r} (int attrs: {known}); add "
                         "one such as `{name: dim, type: int, default: -1}`")
    return AttrRef(arg, "int")


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
