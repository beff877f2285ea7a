"""ST cases for the ops-test-kit CSV, computed once here and printed as the CSV text.

Rows, per dtype combination: the spec's test shapes; the 5-D and 6-D shapes upstream's ST lists carry;
edge values (NaN, ±inf, -0.0, the dtype's smallest subnormal, mixed into the range as the kit spells it:
`(low, high, nan, -0.0, inf)`, and each alone), integer limits for integer dtypes; and per SoC a shape large
enough to split over every vector core with at least two UB tiles each (`soc_series` names the SoC).
The golden is run on every row by `opgen check` (numerics tier), so its behaviour on the edge rows is
checked against the independent reference.
"""

from __future__ import annotations

import ast
import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ...spec.choice import choice_attr, choice_label, choice_options
from ...spec.models import OpSpec
from ...spec.socs import SOCS
from ..kernel.broadcast import BroadcastPlan, broadcast_st_shapes
from ..kernel.classic_tiling import ClassicDtypeCase, classic_case, classic_tiling
from ..kernel.split import SplitKernel
from ..registry.attrs import AttrValue, attr_settings
from ..registry.soc_columns import combination_series, supported
from ..registry.tensors import DtypeCombination, TensorPlan

ST_COLUMNS = (
    "testcase_name", "op_name", "input_dtypes", "input_ori_shapes", "output_ori_shapes", "input_ori_formats",
    "output_ori_formats", "attributes", "input_shapes", "output_dtypes", "output_shapes", "input_formats",
    "output_formats", "input_data_ranges", "precision_tolerances", "absolute_precision", "soc_series",
)
INT_RANGE = 100
HIGH_RANKS = ((3, 5, 7, 4, 16), (2, 3, 5, 3, 2, 24))  # 5-D and 6-D, as upstream's ST rows
TILES_PER_CORE = 2
SPAN_COLUMNS = 1000  # last dim of the multi-core rows: a multiple of 8, not of a tile, so tails remain
SUBNORMAL = {"float32": 1.0e-45, "float16": 6.0e-08, "bfloat16": 1.0e-40}  # rounds to the smallest subnormal
_NAMES = {"nan": math.nan, "inf": math.inf}


@dataclass(frozen=True)
class StRow:
    name: str
    combo: DtypeCombination
    shape: tuple[int, ...]
    ranges: tuple[tuple[float, ...] | None, ...]  # per input: (low, high, special values...); None: absent
    soc_series: str = ""
    input_shapes: tuple[tuple[int, ...], ...] = ()  # per input where they differ (broadcast), else `shape`
    absent: str = ""  # the optional input this row leaves out (None in every column), if any
    attrs: tuple[tuple[str, AttrValue], ...] = ()  # every attr's value (the defaults but on the attrs rows)


def st_csv(spec: OpSpec, tensors: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...],
           classic_cases: tuple[ClassicDtypeCase, ...], brc: BroadcastPlan | None = None,
           split: SplitKernel | None = None) -> str:
    """The whole CSV text; values are Python literals as the test kit reads them (nan and inf by name).

    `classic_cases`: the classic tiling's rows, what one element takes in UB per SoC and output dtype (empty: arch35).
    """
    inputs = [t for t in tensors if t.role == "input"]
    outputs = [t for t in tensors if t.role == "output"]
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(ST_COLUMNS)
    rows = split_rows(spec, tensors, combos, split) if split else st_rows(spec, tensors, combos, classic_cases, brc)
    for row in rows:
        k = row.combo.index
        tolerance = spec.golden.tolerances[row.combo.key.name]
        given = row.input_shapes or tuple(row.shape for _ in inputs)
        shapes_in = tuple(None if t.name == row.absent else shape for t, shape in zip(inputs, given, strict=True))
        shapes_out = tuple(row.shape for _ in outputs)
        writer.writerow([
            row.name, spec.snake_name, repr(_present(row, inputs, [t.dtypes[k].name for t in inputs])),
            repr(shapes_in), repr(shapes_out), repr(_present(row, inputs, [t.formats[k] for t in inputs])),
            repr(tuple(t.formats[k] for t in outputs)), repr(dict(row.attrs)), repr(shapes_in),
            repr(tuple(t.dtypes[k].name for t in outputs)), repr(shapes_out),
            repr(_present(row, inputs, [t.formats[k] for t in inputs])), repr(tuple(t.formats[k] for t in outputs)),
            repr(row.ranges), repr(tuple((tolerance.rtol, tolerance.rtol) for _ in outputs)), repr(tolerance.atol),
            row.soc_series,
        ])
    return buffer.getvalue()


def _present(row: StRow, inputs: list[TensorPlan], cells: list[Any]) -> tuple[Any, ...]:
    """A row's per-input cells, None for the input it leaves out (as upstream MishGrad's ST rows)."""
    return tuple(None if t.name == row.absent else cell for t, cell in zip(inputs, cells, strict=True))


def st_rows(spec: OpSpec, tensors: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...],
            classic_cases: tuple[ClassicDtypeCase, ...], brc: BroadcastPlan | None = None) -> list[StRow]:
    inputs = [t for t in tensors if t.role == "input"]
    rule = spec.constraints.last_dim_multiple_of
    multiple = rule.multiple if rule else 1
    rows: list[StRow] = []
    defaults, *others = attr_settings(spec)
    choice = choice_attr(spec)
    # an attr choosing the math: every value gets the shapes and edges (its own kernel path)
    picks = [(f"_{choice_label(choice.name, v)}" if v != choice.default else "", {**defaults, choice.name: v})
             for v, _ in choice_options(choice)] if choice else [("", defaults)]
    others = [o for o in others if not choice or o[choice.name] == choice.default]
    for combo in combos:
        key = combo.key.name
        plain = tuple(_data_range(spec, t, combo.index) for t in inputs)
        shapes = [tuple(s) for s in spec.tests.shapes]
        shapes += [_fit(s, multiple) for s in HIGH_RANKS if len(s) <= spec.constraints.max_rank]
        for suffix, picked in picks:
            label, attrs = f"{combo.label}{suffix}", tuple(picked.items())
            rows += [StRow(f"{spec.snake_name}_{label}_{j:03d}", combo, s, plain, attrs=attrs)
                     for j, s in enumerate(shapes)]
            rows += [StRow(f"{spec.snake_name}_{label}_{case}", combo, out, plain, input_shapes=ins, attrs=attrs)
                     for case, ins, out in (broadcast_st_shapes(spec, [t.name for t in inputs], brc) if brc else ())]
            edge_shape = _fit((4, 64), multiple)
            for edge, values in _edge_sets(key, spec.tests.value_range):
                ranges = tuple(values if _is_data(t, combo) else plain[i] for i, t in enumerate(inputs))
                rows.append(StRow(f"{spec.snake_name}_{label}_edge_{edge}", combo, edge_shape, ranges, attrs=attrs))
        label = combo.label
        for name in absent_inputs(spec, inputs):
            without = tuple(None if t.name == name else r for t, r in zip(inputs, plain, strict=True))
            rows += [StRow(f"{spec.snake_name}_{label}_without_{name}_{j:03d}", combo, s, without,
                           absent=name) for j, s in enumerate(shapes)]
        rows += [StRow(f"{spec.snake_name}_{label}_attrs_{n}", combo, shapes[0], plain, attrs=tuple(other.items()))
                 for n, other in enumerate(others)]
    series = combination_series(spec.platforms, combos)  # rows of a combination only some SoCs support
    rows = [replace(r, soc_series=series[r.combo.index]) if r.combo.index in series else r for r in rows]
    for platform in spec.platforms:
        soc = SOCS[platform.soc]
        combo = supported(platform, combos)[0]
        tile = _tile_elements(soc.ub_bytes, tensors, combo, classic_case(classic_cases, soc.name, combo.key.name))
        elements = soc.vector_cores * TILES_PER_CORE * tile
        columns = _fit((SPAN_COLUMNS,), multiple)[0]
        shape = (-(-elements // columns) + 1, columns)
        cores = f"{soc.vector_cores}_core{'s' if soc.vector_cores > 1 else ''}"
        rows.append(StRow(f"{spec.snake_name}_{combo.key.name}_{soc.name}_{cores}", combo, shape,
                          tuple(_data_range(spec, t, combo.index) for t in inputs),
                          repr((soc.short_version,))))
    return [replace(r, attrs=r.attrs or tuple(defaults.items())) for r in rows]


def split_rows(spec: OpSpec, tensors: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...],
               split: SplitKernel) -> list[StRow]:
    """An op split along an axis, per dtype combination: the spec's shapes at the axis attr's default and its axis
    cases at theirs, each input at its own shape, then the edge values on a (4, 64) shape."""
    inputs = tuple(t for t in tensors if t.role == "input")
    defaults = {a.name: a.default for a in spec.def_attrs}
    rows: list[StRow] = []
    for combo in combos:
        plain = tuple(_data_range(spec, t, combo.index) for t in inputs)
        for j, (shape, axis) in enumerate(split.cases):
            rows.append(StRow(f"{spec.snake_name}_{combo.label}_{j:03d}", combo, shape, plain,
                              input_shapes=split.input_shapes(inputs, shape, axis),
                              attrs=tuple({**defaults, split.axis: axis}.items())))
        edge_shape = (4, 64)
        for edge, values in _edge_sets(combo.key.name, spec.tests.value_range):
            rows.append(StRow(f"{spec.snake_name}_{combo.label}_edge_{edge}", combo, edge_shape,
                              tuple(values for _ in inputs), input_shapes=split.input_shapes(inputs, edge_shape, -1),
                              attrs=tuple({**defaults, split.axis: -1}.items())))
    return rows


def absent_inputs(spec: OpSpec, inputs: Sequence[TensorPlan]) -> tuple[str, ...]:
    """The optional inputs the kernel reads that have an absent path (compute.absent)."""
    return tuple(t.name for t in inputs if t.optional and t.read_by_kernel and t.name in spec.compute.absent)


def _is_data(t: TensorPlan, combo: DtypeCombination) -> bool:
    return not t.is_mask and t.dtypes[combo.index].name != "bool"


def _edge_sets(dtype: str, value_range: tuple[float, float]) -> list[tuple[str, tuple[float, ...]]]:
    """(label, range with specials) rows for one dtype: floats get NaN/inf/-0.0/subnormal, integers their limits."""
    if dtype in SUBNORMAL:
        low, high = value_range
        tiny = SUBNORMAL[dtype]
        return [("mixed", (low, high, math.nan, -0.0, math.inf, -math.inf, tiny)), ("nan", (math.nan, math.nan)),
                ("pos_inf", (math.inf, math.inf)), ("neg_inf", (-math.inf, -math.inf)), ("neg_zero", (-0.0, -0.0)),
                ("subnormal", (tiny, tiny))]
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(np.dtype(dtype))
        return [("limits", (int(info.min), int(info.max)))]
    return []


def _tile_elements(ub_bytes: int, tensors: tuple[TensorPlan, ...], combo: DtypeCombination,
                   case: ClassicDtypeCase | None) -> int:
    """Elements of one UB tile: the classic tiling's own formula for its row, or (arch35) at most UB over one
    buffer per tensor the kernel moves, an upper bound, so the row has at least TILES_PER_CORE tiles per core."""
    if case is None:
        return ub_bytes * 8 // sum(t.dtypes[combo.index].size_bits for t in tensors if t.read_by_kernel)
    return classic_tiling(1, case.bits, 1, ub_bytes, case.ub_fixed_bytes).tile_data_num


def _fit(shape: Sequence[int], multiple: int) -> tuple[int, ...]:
    return (*shape[:-1], -(-shape[-1] // multiple) * multiple)


def _data_range(spec: OpSpec, tensor: TensorPlan, k: int) -> tuple[float, float]:
    dtype = tensor.dtypes[k]
    if tensor.is_mask or dtype.name == "bool":
        return (0, 1)
    if dtype.is_float:
        domain = next((t.domain for t in spec.inputs if t.name == tensor.name), None)
        return domain or spec.tests.value_range
    low = 0 if dtype.name.startswith("uint") else -INT_RANGE
    return (low, INT_RANGE)


def read_st_value(text: str) -> Any:
    """A cell of the ST CSV as the test kit reads it: a Python literal in which `nan` and `inf` are names."""
    tree = ast.parse(text.strip(), mode="eval")

    def value(node: ast.AST) -> Any:
        if isinstance(node, ast.Name) and node.id in _NAMES:
            return _NAMES[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = value(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(value(e) for e in node.elts)
        if isinstance(node, ast.Dict):
            return {value(k): value(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None}
        if isinstance(node, ast.Constant):
            return node.value
        raise ValueError(f"not a literal: {ast.unparse(node)}")

    return value(tree.body)
