"""The numerics tier of `opgen check`: every recipe variant, and a generated golden.py, against a reference.

The rule, element by element, in the output dtype (the reference is rounded to it, nearest even):
- reference finite: the result must be finite and |got - expected| <= atol + rtol * |expected| (+ the
  reference's own error bound, nonzero only where float64 itself cannot resolve the value), with the
  spec's rtol/atol of the output dtype;
- reference +-inf: the result must be the same infinity; except that overflow is a rounding: where only
  rounding to the dtype made the reference infinite, a finite result is judged against the float64 value,
  and an infinite result counts as the least value that rounds to infinity;
- reference NaN where an input of the reference is NaN: the result must be NaN (NaN propagates);
- reference NaN from non-NaN inputs: an indeterminate form of the reference formula (torch evaluates
  inf * 0 at x = +-inf); no value is right there, so the element is counted `undefined`, not compared;
  so are the elements the reference itself marks undefined (references.py: 0 * inf in the compute dtype,
  a comparison closer than float32 rounding).
Metrics cover the compared elements: max_abs (inf for a NaN/inf mismatch), max_rel over nonzero finite
references, max_ulp over the dtype's ordered bit patterns (+0/-0 are 0 apart, NaN/NaN 0, NaN/number inf).
"""

from __future__ import annotations

import csv
import importlib.util
import io
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..errors import OpgenError
from ..plan import RenderPlan
from ..plan.registry.attrs import AttrValue, attr_settings, shown_attrs
from ..plan.registry.tensors import DtypeCombination
from ..plan.testcases.st_cases import read_st_value
from ..spec.models import OpSpec
from .axis_views import read_by_output, seen_by_output
from .emulator import emulate, numpy_dtype, unpack_mask
from .numerics_axis import axis_samples
from .numerics_optional import absent_marked, present_inputs, rounding_bound, row_combination, without
from .numerics_samples import RANDOM_ELEMENTS, checked_shape, edge_inputs, random_data, value_range
from .references import Reference, build_reference
from .tolerance import held_by, rounded_to, ulp_distance, within_tolerance

Array = npt.NDArray[Any]


@dataclass(frozen=True)
class NumericsResult:
    """One output of one variant (or SoC) on one sample of one dtype combination."""

    op: str
    variant: str
    socs: tuple[str, ...]
    dtypes: tuple[str, ...]  # the combination: inputs then outputs, def order
    sample: str  # "random", "edge", or "st:<testcase_name>" for a golden file
    output: str
    elements: int
    undefined: int  # reference NaN from non-NaN inputs: not compared
    failures: int
    max_abs: float
    max_rel: float
    max_ulp: float
    passed: bool
    reason: str  # names the worst element when failing


_Expected = tuple[tuple[Array, ...], Array, npt.NDArray[np.bool_]]  # outputs, error bound, undefined


@dataclass(frozen=True)
class _Case:
    op: str
    variant: str
    socs: tuple[str, ...]
    combination: DtypeCombination
    sample: str
    inputs: int  # how many of the combination's dtypes are inputs


def check_numerics(spec: OpSpec, plan: RenderPlan, *, seed: int = 0) -> list[NumericsResult]:
    """Every variant on its own, for every dtype combination, on random and edge samples."""
    reference = build_reference(spec, plan)
    if reference is None:
        return []
    if plan.split is not None:
        return _along_axis(spec, plan, reference, seed)
    results: list[NumericsResult] = []
    for combo in plan.combinations:
        rng = np.random.default_rng([seed, combo.index])
        random = [random_data(t, combo, (RANDOM_ELEMENTS,), value_range(spec, t, combo), rng) for t in plan.inputs]
        samples = {"random": random, "edge": edge_inputs(plan, combo, rng, spec)}
        for n, attrs in enumerate(attr_settings(spec)):
            label = "" if n == 0 else f" {shown_attrs(spec, attrs)}"
            for sample, drawn in samples.items():
                inputs = present_inputs(spec, plan, combo, drawn)
                expected = _reference(reference, inputs, attrs)
                absent = absent_marked(plan, combo, inputs)
                present = _widened(expected, rounding_bound(spec, plan, inputs)) if plan.absent else expected
                for variant, given, want in [(v, inputs, present) for v in plan.golden.variants] + [
                        (v, absent, expected) for v in plan.golden.absent_variants]:
                    if variant.socs and not any(combo in s.combinations for s in plan.socs
                                                if s.short_version in variant.socs):
                        continue  # no SoC running this variant registers the combination (per-SoC dtype lists)
                    if plan.choice and attrs[plan.choice.attr.name] != variant.value:
                        continue  # the string attr picks another variant at this setting
                    got = emulate(plan, variant, combo, given, attrs)
                    case = _Case(plan.op_type, variant.name, variant.socs, combo, sample + label, len(plan.inputs))
                    results += _judge(spec, plan, case, given, got, want, reference)
    return results


def _along_axis(spec: OpSpec, plan: RenderPlan, reference: Reference, seed: int) -> list[NumericsResult]:
    """An op split along an axis: its samples (`numerics_axis`), each variant against the reference."""
    results: list[NumericsResult] = []
    for combo in plan.combinations:
        rng = np.random.default_rng([seed, combo.index])
        for sample, inputs, attrs, axis in axis_samples(spec, plan, combo, rng):
            expected = _reference(reference, inputs, attrs)
            for variant in plan.golden.variants:
                got = emulate(plan, variant, combo, inputs, attrs)
                case = _Case(plan.op_type, variant.name, variant.socs, combo, sample, len(plan.inputs))
                results += _judge(spec, plan, case, inputs, got, expected, reference, axis)
    return results


def check_golden_file(golden_py: Path, spec: OpSpec, plan: RenderPlan, *,
                      seed: int = 0) -> list[NumericsResult]:
    """Import a generated golden.py on its own and run its kernel for each SoC on the ST cases, and on the
    edge sample of every dtype combination."""
    reference = build_reference(spec, plan)
    if reference is None:
        return []
    kernel = load_golden(golden_py, plan)
    samples: list[tuple[str, DtypeCombination, list[Array | None], dict[str, AttrValue]]] = []
    axes: dict[str, int] = {}  # an op split along an axis: each sample's
    for n, row in enumerate(csv.DictReader(io.StringIO(plan.st_csv))):
        names = read_st_value(row["input_dtypes"]) + read_st_value(row["output_dtypes"])
        combo = row_combination(plan, names)
        shapes, ranges = read_st_value(row["input_shapes"]), read_st_value(row["input_data_ranges"])
        rng = np.random.default_rng([seed, n])
        drawn = [None if shape is None else random_data(t, combo, checked_shape(tuple(shape)), tuple(bounds), rng)
                 for t, shape, bounds in zip(plan.inputs, shapes, ranges, strict=True)]
        arrays = [a for a in drawn if a is not None]
        given = present_inputs(spec, plan, combo, arrays) if len(arrays) == len(drawn) else drawn
        attrs = read_st_value(row["attributes"])
        samples.append((f"st:{row['testcase_name']}", combo, list(given), attrs))
        if plan.split is not None:
            axes[f"st:{row['testcase_name']}"] = int(attrs[plan.split.axis])
    picks: list[dict[str, AttrValue]] = [{plan.choice.attr.name: v.value} for v in plan.choice.values] \
        if plan.choice else [{}]
    for combo in plan.combinations:
        rng = np.random.default_rng([seed, combo.index])
        if plan.split is not None:  # its own shapes and axis values, random and edge
            for label, arrays, attrs, axis in axis_samples(spec, plan, combo, rng):
                samples.append((label, combo, list[Array | None](arrays), attrs))
                axes[label] = axis
            continue
        edge = present_inputs(spec, plan, combo, edge_inputs(plan, combo, rng, spec))
        samples += [(" ".join(["edge", *(f"{k}={v!r}" for k, v in picked.items())]), combo,
                     list[Array | None](edge), picked) for picked in picks]
        if plan.absent:
            samples.append((f"edge without {plan.absent.tensor.name}", combo, without(plan, edge), {}))
    results: list[NumericsResult] = []
    for sample, combo, given, attrs in samples:
        inputs = absent_marked(plan, combo, given) if any(a is None for a in given) else [
            a for a in given if a is not None]
        expected = _reference(reference, inputs, attrs)
        if plan.absent and all(a is not None for a in given):
            expected = _widened(expected, rounding_bound(spec, plan, inputs))
        for soc in (s for s in plan.socs if combo in s.combinations):
            variant = plan.choice.pick(attrs.get(plan.choice.attr.name, plan.choice.attr.value)).variant \
                if plan.choice else soc.variant
            case = _Case(plan.op_type, variant, (soc.short_version,), combo, sample, len(plan.inputs))
            try:
                with np.errstate(all="ignore"):  # edge values overflow on purpose
                    returned = kernel(*(None if a is None else a.copy() for a in given), **attrs,
                                      short_soc_version=soc.short_version, output_dtypes=_output_dtypes(plan, combo))
            except Exception as exc:  # the golden is user-editable code: report, do not crash the check
                results.append(_broken(case, plan, f"golden raised {type(exc).__name__}: {exc}"))
                continue
            got = tuple(returned) if isinstance(returned, (tuple, list)) else (returned,)
            got_arrays = tuple(np.asarray(g) for g in got)
            results += _judge(spec, plan, case, inputs, got_arrays, expected, reference, axes.get(sample))
    return results


def load_golden(golden_py: Path, plan: RenderPlan) -> Callable[..., Any]:
    """The `__golden__["kernel"]` function of a golden.py, imported without touching sys.modules."""
    module_spec = importlib.util.spec_from_file_location(f"_opgen_golden_{plan.name}", golden_py)
    if module_spec is None or module_spec.loader is None:
        raise OpgenError("cannot import the golden file", where=str(golden_py))
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    golden = getattr(module, "__golden__", None)
    table = golden.get("kernel") if isinstance(golden, dict) else None
    name = None
    if isinstance(table, dict):
        name = table.get(plan.op_type) or table.get(plan.name)
        name = name or (next(iter(table.values())) if len(table) == 1 else None)
    kernel = getattr(module, name, None) if isinstance(name, str) else None
    if not callable(kernel):
        raise OpgenError(f'__golden__["kernel"] names no function for {plan.op_type}', where=str(golden_py))
    return kernel  # type: ignore[no-any-return]


def _reference(reference: Reference, inputs: Sequence[Array], attrs: Mapping[str, AttrValue] | None = None
               ) -> _Expected:
    """The reference outputs (NaN where no value is right), its own error bound, and where that is."""
    with np.errstate(all="ignore"):
        outputs, bound, undefined = reference.fn(inputs, attrs)
    # an exact integer reference stays integer unless some element of it has no right value
    return (tuple(np.where(undefined, np.nan, o) if undefined.any() else o for o in outputs), bound,
            undefined.ravel())


def _widened(expected: _Expected, bound: Array) -> _Expected:
    return expected[0], np.asarray(expected[1]) + bound, expected[2]


def _judge(spec: OpSpec, plan: RenderPlan, case: _Case, inputs: Sequence[Array], got: tuple[Array, ...],
           expected: _Expected, reference: Reference, axis: int | None = None) -> list[NumericsResult]:
    """`axis`: an op split along it, whose output elements read its inputs as `axis_views` says."""
    results = []
    for k, tensor in enumerate(plan.outputs):
        dtype_name = tensor.dtypes[case.combination.index].name
        dtype, raw = numpy_dtype(dtype_name), np.asarray(expected[0][k])
        have = got[k] if k < len(got) else np.zeros(0)
        if have.dtype != dtype or have.shape != raw.shape:
            problem = f"returned {have.dtype}{list(have.shape)}, expected {dtype}{list(raw.shape)}"
            results.append(_broken(case, plan, problem, tensor.name))
            continue
        views = _element_views(plan, inputs, raw.shape, axis)
        input_nan = np.zeros(raw.size, dtype=np.bool_)
        for i in reference.reads:
            t, array = plan.inputs[i], inputs[i]
            if t.is_mask:
                continue
            nan = np.isnan(np.asarray(array).astype(np.float64))
            input_nan |= (np.broadcast_to(nan, raw.shape) if axis is None else
                          read_by_output(nan, raw.shape, axis)).ravel()
        input_nan &= ~expected[2]
        tol = spec.golden.tolerances.get(dtype_name) or spec.golden.tolerances[case.combination.key.name]
        ok, diff = within_tolerance(have, raw, tol.rtol, tol.atol, input_nan=input_nan, bound=expected[1])
        results.append(_result(case, tensor.name, have, raw, ok, diff, input_nan, views, tol.rtol, tol.atol,
                               _nan_hint(reference)))
    return results


def _result(case: _Case, output: str, have: Array, raw: Array, ok: npt.NDArray[np.bool_], diff: Array,
            input_nan: npt.NDArray[np.bool_], views: dict[str, Array], rtol: float,
            atol: float, nan_hint: str = "") -> NumericsResult:
    with np.errstate(all="ignore"):
        b = rounded_to(np.asarray(raw).astype(np.float64).ravel(), have.dtype)
        want = held_by(np.asarray(raw), have.dtype).reshape(np.shape(raw)) if have.dtype.kind in "iu" else \
            np.asarray(raw).astype(have.dtype)
    compared = ~(np.isnan(b) & ~input_nan)
    with np.errstate(all="ignore"):
        rel = np.where(np.isfinite(b) & (b != 0), diff / np.abs(b), 0.0)
    ulp = ulp_distance(have.ravel(), want.ravel())
    failures = int(np.count_nonzero(~ok))
    reason = ""
    if failures:
        worst = _worst(ok, diff, views)
        where = tuple(int(i) for i in np.unravel_index(worst, want.shape))
        shown = ", ".join(f"{name}={_show(v[worst])}" for name, v in views.items())
        reason = (f"{case.op} variant {case.variant} ({', '.join(case.socs)}), dtypes {_combo(case)}, "
                  f"{case.sample} sample, output {output}: {failures} of {b.size} elements break "
                  f"|got - expected| <= {atol:g} + {rtol:g}*|expected|; worst at index {where}: {shown}: "
                  f"got {_show(have.ravel()[worst])}, expected {_show(want.ravel()[worst])}")
        got_nan = bool(np.isnan(have.ravel()[worst].astype(np.float64)))
        if nan_hint and got_nan != bool(np.isnan(b[worst])) and any(np.isnan(v[worst]) for v in views.values()):
            reason += f"; {nan_hint}"
    return NumericsResult(
        op=case.op, variant=case.variant, socs=case.socs, dtypes=case.combination.names, sample=case.sample,
        output=output, elements=int(b.size), undefined=int(np.count_nonzero(~compared)), failures=failures,
        max_abs=_max(diff, compared), max_rel=_max(rel, compared), max_ulp=_max(ulp, compared),
        passed=failures == 0, reason=reason,
    )


def _nan_hint(reference: Reference) -> str:
    """Which NaN behaviour the reference assumed, and the spec line that assumes the other."""
    grad = reference.resolved.grad
    if grad is None:
        return ""
    if reference.resolved.nan == "passthrough":
        return (f"the reference assumed golden.reference.nan: passthrough (a NaN {grad} gives NaN everywhere); "
                "if the kernel selects, so a masked-out NaN gives 0, write nan: select")
    return (f"the reference assumed golden.reference.nan: select (a NaN {grad} gives 0 where the derivative "
            f"is 0, as torch's backwards); if the kernel multiplies (mask * {grad}), so NaN passes through, "
            "write nan: passthrough")


def _worst(ok: npt.NDArray[np.bool_], diff: Array, views: dict[str, Array]) -> int:
    """The failing element furthest off; among ties, the one with the smallest inputs (the telling one)."""
    off = np.where(ok, -1.0, diff)
    ties = np.flatnonzero(off == off.max())
    size = np.zeros(ties.size)
    for values in views.values():
        size = np.maximum(size, np.nan_to_num(np.abs(values[ties]), nan=np.inf))
    return int(ties[np.argmin(size)])


def _broken(case: _Case, plan: RenderPlan, problem: str, output: str | None = None) -> NumericsResult:
    name = output or ", ".join(t.name for t in plan.outputs)
    reason = (f"{case.op} variant {case.variant} ({', '.join(case.socs)}), dtypes {_combo(case)}, "
              f"{case.sample} sample, output {name}: {problem}")
    return NumericsResult(case.op, case.variant, case.socs, case.combination.names, case.sample, name,
                          elements=0, undefined=0, failures=1, max_abs=np.inf, max_rel=np.inf, max_ulp=np.inf,
                          passed=False, reason=reason)


def _element_views(plan: RenderPlan, inputs: Sequence[Array], shape: tuple[int, ...],
                   axis: int | None = None) -> dict[str, Array]:
    """Each read input's value at every output element (masks as their bits), flat."""
    views: dict[str, Array] = {}
    for t, array in zip(plan.inputs, inputs, strict=True):
        if not t.read_by_kernel:
            continue
        if t.is_mask:
            views[t.name] = unpack_mask(array, shape).reshape(-1).astype(np.uint8)
        else:
            seen = np.broadcast_to(np.asarray(array), shape) if axis is None else seen_by_output(array, shape, axis)
            views[t.name] = seen.reshape(-1).astype(np.float64)
    return views


def _combo(case: _Case) -> str:
    names = case.combination.names
    return f"({', '.join(names[: case.inputs])} -> {', '.join(names[case.inputs :])})"


def _max(values: Array, where: npt.NDArray[np.bool_]) -> float:
    return float(np.max(values, where=where, initial=0.0))


def _show(value: Any) -> str:
    return str(int(value)) if isinstance(value, np.integer) else f"{float(value):.9g}"


def _output_dtypes(plan: RenderPlan, combo: DtypeCombination) -> list[str]:
    """What the ops-test-kit hands a golden as `output_dtypes`: the outputs' dtype names."""
    return [t.dtypes[combo.index].name for t in plan.outputs]
