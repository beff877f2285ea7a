"""ST cases for the ops-test-kit CSV: one row per dtype combination and test shape."""

from __future__ import annotations

import csv
import io

from ..spec.models import OpSpec
from .tensors import DtypeCombination, TensorPlan

ST_COLUMNS = (
    "testcase_name", "op_name", "input_dtypes", "input_ori_shapes", "output_ori_shapes", "input_ori_formats",
    "output_ori_formats", "attributes", "input_shapes", "output_dtypes", "output_shapes", "input_formats",
    "output_formats", "input_data_ranges", "precision_tolerances", "absolute_precision", "soc_series",
)
INT_RANGE = 100


def st_csv(spec: OpSpec, tensors: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...]) -> str:
    """The whole CSV text; values are Python literals as the test kit reads them."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(ST_COLUMNS)
    inputs = [t for t in tensors if t.role == "input"]
    outputs = [t for t in tensors if t.role == "output"]
    for combo in combos:
        key = combo.key.name
        tolerance = spec.golden.tolerances[key]
        for j, shape in enumerate(spec.tests.shapes):
            shapes_in = tuple(tuple(shape) for _ in inputs)
            shapes_out = tuple(tuple(shape) for _ in outputs)
            ranges = tuple(_data_range(spec, t, combo.index) for t in inputs)
            writer.writerow([
                f"{spec.snake_name}_{key}_{j:03d}", spec.snake_name,
                repr(tuple(t.dtypes[combo.index].name for t in inputs)), repr(shapes_in), repr(shapes_out),
                repr(tuple(t.formats[combo.index] for t in inputs)),
                repr(tuple(t.formats[combo.index] for t in outputs)), "{}", repr(shapes_in),
                repr(tuple(t.dtypes[combo.index].name for t in outputs)), repr(shapes_out),
                repr(tuple(t.formats[combo.index] for t in inputs)),
                repr(tuple(t.formats[combo.index] for t in outputs)), repr(ranges),
                repr(tuple((tolerance.rtol, tolerance.rtol) for _ in outputs)), repr(tolerance.atol), "",
            ])
    return buffer.getvalue()


def _data_range(spec: OpSpec, tensor: TensorPlan, k: int) -> tuple[float, float]:
    dtype = tensor.dtypes[k]
    if tensor.is_mask or dtype.name == "bool":
        return (0, 1)
    if dtype.is_float:
        domain = next((t.domain for t in spec.inputs if t.name == tensor.name), None)
        return domain or spec.tests.value_range
    low = 0 if dtype.name.startswith("uint") else -INT_RANGE
    return (low, INT_RANGE)
