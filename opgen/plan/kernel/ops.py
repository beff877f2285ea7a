"""How each recipe op is spelled in an AscendC kernel, an atvoss DAG and NumPy."""

from __future__ import annotations

from dataclasses import dataclass

from ...spec.recipe import OPS


@dataclass(frozen=True)
class OpSpelling:
    ascendc: str  # classic kernel API
    vec: str  # atvoss Vec:: functor ("" where arch35 lowers the op)
    numpy: str  # expression over {0}, {1}, ... (args) in the golden and the emulator
    tmp_factor: tuple[int, int] = (0, 0)  # adv_api sharedTmpBuffer: value-sized elements per element, float/half


# CMPMODE / atvoss compare-mode values (AscendC kernel_utils_mode.h)
COMPARE_MODES: dict[str, tuple[str, int, str]] = {
    "lt": ("LT", 0, "np.less"), "gt": ("GT", 1, "np.greater"), "eq": ("EQ", 2, "np.equal"),
    "le": ("LE", 3, "np.less_equal"), "ge": ("GE", 4, "np.greater_equal"), "ne": ("NE", 5, "np.not_equal"),
}

SPELLINGS: dict[str, OpSpelling] = {
    "add": OpSpelling("Add", "Add", "np.add({0}, {1})"),
    "sub": OpSpelling("Sub", "Sub", "np.subtract({0}, {1})"),
    "mul": OpSpelling("Mul", "Mul", "np.multiply({0}, {1})"),
    "div": OpSpelling("Div", "Div", "np.divide({0}, {1})"),
    "max": OpSpelling("Max", "Max", "np.maximum({0}, {1})"),
    "min": OpSpelling("Min", "Min", "np.minimum({0}, {1})"),
    "adds": OpSpelling("Adds", "Adds", "np.add({0}, {1})"),
    "muls": OpSpelling("Muls", "Muls", "np.multiply({0}, {1})"),
    "maxs": OpSpelling("Maxs", "Maxs", "np.maximum({0}, {1})"),
    "mins": OpSpelling("Mins", "Mins", "np.minimum({0}, {1})"),
    "exp": OpSpelling("Exp", "Exp", "np.exp({0})"),
    "log": OpSpelling("Ln", "Log", "np.log({0})"),
    "abs": OpSpelling("Abs", "Abs", "np.abs({0})"),
    "sqrt": OpSpelling("Sqrt", "Sqrt", "np.sqrt({0})"),
    "reciprocal": OpSpelling("Reciprocal", "Reciprocal", "np.reciprocal({0})"),
    "relu": OpSpelling("Relu", "Relu", "np.maximum({0}, np.zeros_like({0}))"),
    "fill": OpSpelling("Duplicate", "Duplicate", "np.full(shape, {0})"),
    "select": OpSpelling("Select", "Select", "np.where({0}, {1}, {2})"),
    # adv_api (classic only; factors from the host Get<Op>TmpBufferFactorSize / Get<Op>MaxMinTmpSize)
    "tanh": OpSpelling("Tanh", "", "np.tanh({0})", (1, 4)),
    "sigmoid": OpSpelling("Sigmoid", "", "np.reciprocal(np.add(np.exp(np.negative({0})), {0}.dtype.type(1)))", (1, 1)),
    "sign": OpSpelling("Sign", "", "np.where(np.greater({0}, 0), {0}.dtype.type(1), np.where(np.less({0}, 0), "
                       "{0}.dtype.type(-1), {0}.dtype.type(0)))", (3, 3)),  # NaN -> 0, as AscendC and torch
    "erf": OpSpelling("Erf", "Erf", "np.vectorize(math.erf, otypes=[{0}.dtype])({0})", (3, 8)),
    **{op: OpSpelling("Compare", "Compare", f"{numpy}({{0}}, {{1}})") for op, (_, _, numpy) in COMPARE_MODES.items()},
    # along the axis attr {1} (the split family addresses halves in place: no AscendC or Vec:: call)
    "first_half": OpSpelling("", "", "np.split({0}, 2, axis={1})[0]"),
    "second_half": OpSpelling("", "", "np.split({0}, 2, axis={1})[1]"),
    "join_halves": OpSpelling("", "", "np.concatenate([{0}, {1}], axis={2})"),
    "reduce_sum": OpSpelling("", "", "np.sum({0}, axis={1}, keepdims=True)"),
}
LOWERED_EVERYWHERE = frozenset({"neg", "log1p", "softplus"})  # see lowering.py
assert set(SPELLINGS) | LOWERED_EVERYWHERE == set(OPS), "every recipe op needs a spelling or a lowering"
