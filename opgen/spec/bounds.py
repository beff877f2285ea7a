"""Numbers of a spec bounded by the type they land in: attr literals, recipe constants, test data, UB."""

from __future__ import annotations

import math

from .dtypes import DTYPES
from .issues import SpecIssue
from .models import OpSpec
from .socs import SOCS

FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38}
INT64 = (-(1 << 63), (1 << 63) - 1)
MAX_TEST_ELEMENTS = 1 << 22  # per test shape: the numerics check and the ST rows materialise every element
MAX_TEST_ELEMENTS_TOTAL = 1 << 24
KIB = 1024


def number_issues(spec: OpSpec) -> list[SpecIssue]:
    return [*_attr_defaults(spec), *_recipe_constants(spec), *_test_data(spec)]


def _attr_defaults(spec: OpSpec) -> list[SpecIssue]:
    """Each attr value the spec gives (def default, proto default, checked value) in the attr's type."""
    issues = []
    for i, attr in enumerate(spec.attrs):
        for field in ("default", "proto_default", "check_value"):
            value = getattr(attr, field)
            problem = None if value is None else _attr_value_problem(attr.type, value)
            if problem:
                issues.append(SpecIssue(("attrs", i, field), problem))
    return issues


def _attr_value_problem(kind: str, value: bool | int | float | str) -> str | None:
    shown = ("true" if value else "false") if isinstance(value, bool) else repr(value)  # as YAML spells it
    if kind == "string":
        return None if isinstance(value, str) else f"{shown} is not a string; a string attr takes one of its values"
    if isinstance(value, str):
        return f"{shown} is a string; a {kind} attr takes a {'true/false' if kind == 'bool' else 'number'}"
    if kind == "bool" and not isinstance(value, bool):
        return f"{shown} is not a bool; write true or false"
    if kind == "int" and (isinstance(value, bool) or not isinstance(value, int)):
        return f"{shown} is not an integer; an int attr takes a whole number like 0"
    if kind == "int" and not INT64[0] <= value <= INT64[1]:
        return f"{value} does not fit the int64_t an Int attr holds"
    if kind == "float" and isinstance(value, bool):
        return f"{shown} is not a number; a float attr takes a number like 1.0"
    if kind == "float" and not (math.isfinite(value) and abs(value) <= FLOAT_MAX["float32"]):
        return f"{value!r} is not a finite float32; use a finite number within +-3.4e38"
    return None


def _dtype_limits(name: str) -> tuple[float, float]:
    dtype = DTYPES[name]
    if dtype.is_float:
        return -FLOAT_MAX[name], FLOAT_MAX[name]
    if name in ("bool", "uint1"):
        return 0, 1
    bits = dtype.size_bits
    return (0, (1 << bits) - 1) if name.startswith("uint") else (-(1 << (bits - 1)), (1 << (bits - 1)) - 1)


def _recipe_constants(spec: OpSpec) -> list[SpecIssue]:
    """float32 compute takes float32 constants (and those its native_dtypes hold); native compute takes constants
    every key dtype holds."""
    count = spec.combination_count
    dtypes = ["float32", *spec.compute.native_dtypes] if spec.compute.dtype == "float32" else \
        sorted(set(spec.outputs[0].dtype_column(count)))
    issues = []
    for variant, steps in spec.compute.variants.items():
        for j, step in enumerate(steps):
            for arg in step.args:
                if not isinstance(arg, float):
                    continue
                bad = [d for d in dtypes if not _dtype_limits(d)[0] <= arg <= _dtype_limits(d)[1]]
                if bad:
                    issues.append(SpecIssue(("compute", "variants", variant, j), f"{step}: constant {arg!r} does "
                                            f"not fit {', '.join(bad)}; use a value the compute dtype holds"))
    return issues


def _test_data(spec: OpSpec) -> list[SpecIssue]:
    issues = []
    for j, shape in enumerate(spec.tests.shapes):
        if math.prod(shape) > MAX_TEST_ELEMENTS:  # per shape; then all shapes together
            issues.append(SpecIssue(("tests", "shapes", j), f"{math.prod(shape)} elements; a test shape has at most "
                                    f"{MAX_TEST_ELEMENTS} (the check materialises every element)"))
    total = sum(math.prod(shape) for shape in spec.tests.shapes)
    if total > MAX_TEST_ELEMENTS_TOTAL:
        issues.append(SpecIssue(("tests", "shapes"), f"{total} elements in all; the test shapes together have at "
                                f"most {MAX_TEST_ELEMENTS_TOTAL}; use fewer or smaller shapes"))
    count = spec.combination_count
    floats = sorted({d for t in spec.inputs for d in t.dtype_column(count) if DTYPES[d].is_float})
    low, high = spec.tests.value_range
    for name in floats:
        if max(abs(low), abs(high)) > FLOAT_MAX[name]:
            issues.append(SpecIssue(("tests", "value_range"), f"[{low}, {high}] exceeds what {name} inputs hold "
                                    f"(+-{FLOAT_MAX[name]:g}); narrow the range"))
            break
    return issues


def ub_issues(spec: OpSpec) -> list[SpecIssue]:
    """A tile of TILE_ALIGN elements must fit each SoC's UB: else tiling fails on every shape at run time."""
    from ..plan.kernel.budget import platform_element_bits
    from ..plan.kernel.classic_tiling import TILE_ALIGN

    issues = []
    reported: set[int] = set()
    for i, case in platform_element_bits(spec):
        soc = SOCS[spec.platforms[i].soc]
        need = case.bits * TILE_ALIGN // 8
        free = soc.ub_bytes - case.ub_fixed_bytes
        if need > free and i not in reported:
            reported.add(i)
            issues.append(SpecIssue(("platforms", i, "compute_variant"), f"the recipe does not fit {soc.name}'s UB "
                                    f"({free // KIB} KiB free for tiles): one {case.dtype.name} element takes "
                                    f"{case.bits} bits of queues and live values, so the smallest tile ({TILE_ALIGN} "
                                    f"elements) needs {need // KIB} KiB; keep fewer values live at once (use each "
                                    "value soon after computing it) or split the op"))
    return issues
