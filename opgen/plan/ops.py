"""How each recipe op is spelled in an AscendC kernel, an atvoss DAG and NumPy."""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.recipe import OPS


@dataclass(frozen=True)
class OpSpelling:
    ascendc: str  # classic kernel API
    vec: str  # atvoss Vec:: functor
    numpy: str  # expression over {0}, {1}, ... (args) in the golden and the emulator


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
}
assert set(SPELLINGS) == set(OPS), "every recipe op needs a spelling"
