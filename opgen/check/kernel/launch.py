"""One launch of a kernel executable on the CPU model: inputs with the dtype's edge values, GM between guard bytes,
the outputs compared with the golden within the spec's tolerances. Shared by the classic and the arch35 DAG rows."""

from __future__ import annotations

import math
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import ml_dtypes
import numpy as np
import numpy.typing as npt

from ...plan import RenderPlan
from ...plan.registry.attrs import AttrValue, shown_attrs
from ...plan.registry.tensors import DtypeCombination
from ...plan.testcases.golden import GoldenVariant
from ...spec.models import OpSpec
from ..axis_views import read_by_output
from ..emulator import emulate, numpy_dtype
from ..numerics_optional import absent_marked
from ..numerics_samples import edge_values, input_domain, within_domain
from ..tolerance import within_tolerance
from ..trust import run_tree_code

RUN_TIMEOUT = 300.0
ALLOCATION_ALIGN = 32  # GE rounds a tensor's memory up to this and adds as much again (in_allocation_padding)
UNMODELLED_EXIT = 3  # the model's Unmodelled(): the kernel reached an operand form or mode it does not cover
UNMODELLED_MARK = "opgen cpu model: not modelled: "
# arches whose half/bfloat16 results saturate (NaN -> 0, +-inf -> +-largest finite, asc-devkit's SetSaturationFlag
# page): 3002 because the 310B runtime offers the saturation overflow mode alone (runtime
# src/runtime/config/mini_v3/dev_info_reg.cc: supportOverflowMode = OVERFLOW_MODE_SATURATION), 3510 because its
# default CTRL register saturates (asc-devkit SetCtrlSpr). A result there matches either the golden or the golden
# saturated: a select or a move keeps an inf the arithmetic would have saturated.
SATURATING_ARCHES = frozenset({3002, 3510})
SATURATED = "half/bfloat16 results may saturate: NaN as 0, inf as the largest finite value"


@dataclass(frozen=True)
class Launch:
    """What one launch hands the kernel: its cores, the tiling key, the tiling data, the workspace bytes (None: the
    plan's)."""

    cores: int
    key: int
    tiling: bytes
    workspace: int | None = None


Shape = tuple[int, ...]


@dataclass(frozen=True)
class Shapes:
    """A launch's input shapes, in def order; every output has their broadcast shape, or `joined` (a split kernel's
    output, its split input's shape)."""

    inputs: tuple[Shape, ...]
    absent: str = ""  # an optional input the launch leaves out (a null GM address: its path must not read it)
    joined: Shape | None = None

    @staticmethod
    def same(shape: Shape, count: int) -> Shapes:
        return Shapes((shape,) * count)

    @property
    def output(self) -> Shape:
        if self.joined is not None:
            return self.joined
        return tuple(int(d) for d in np.broadcast_shapes(*self.inputs))

    @property
    def label(self) -> str:
        """`3x1001`, or each input's shape where they differ (`1x1001,3x1001`)."""
        shown = {"x".join(map(str, s)) for s in self.inputs}
        label = shown.pop() if len(shown) == 1 else ",".join("x".join(map(str, s)) for s in self.inputs)
        return f"{label} without {self.absent}" if self.absent else label


class GoldenPick(Protocol):
    """The golden variant a launch runs: by its attr values, and `absent` the optional input it leaves out."""

    def __call__(self, attrs: Mapping[str, AttrValue], absent: str = "") -> GoldenVariant: ...


@dataclass(frozen=True)
class LaunchCost:
    """What the model counted for one launch (cpu_model/cost.h): every core together."""

    vector_instructions: int  # calls of the vector instructions (intrinsics named v*: compute, conversions, compares,
    #                           selects, duplicates, register loads/stores)
    gm_ub_bytes: int  # bytes moved between GM and UB, both ways
    ub_extent: int  # bytes from the lowest to the highest TPipe buffer set up in UB
    calls: tuple[tuple[str, int], ...]  # every counted intrinsic's calls


@dataclass(frozen=True)
class ShapeRun:
    shapes: Shapes
    cores: int
    max_abs: float
    max_rel: float
    problems: tuple[str, ...]
    unmodelled: tuple[str, ...] = ()  # what the model aborted on (the launch proves nothing)
    asserts: int = 0  # asc-devkit CPU-debug assertions passed over (the NPU build has none)
    assert_text: str = ""  # the first one's message
    excused: int = 0  # elements not held to the golden (`nonfinite_excused`)
    padded: tuple[str, ...] = ()  # tensors written past their end inside GE's allocation (`padding_tolerated`)
    inputs: tuple[npt.NDArray[Any], ...] = ()  # what the launch was given
    outputs: tuple[npt.NDArray[Any], ...] = ()  # what the kernel wrote (empty when it did not finish)
    cost: LaunchCost | None = None
    mismatched: int = 0  # output elements not within the tolerances of the golden
    nonfinite: int = 0  # of those, an inf or NaN against another value (max_abs and max_rel are then inf)


def run_shape(executable: Path, spec: OpSpec, plan: RenderPlan, combo: DtypeCombination, golden: GoldenVariant,
               shapes: Shapes, guard: int, launch: Launch, rng: np.random.Generator,
               attrs: Mapping[str, AttrValue], *, saturating: bool = False,
               given: Sequence[npt.NDArray[Any]] | None = None, nonfinite_excused: bool = False,
               padding_tolerated: bool = False) -> ShapeRun:
    """One launch; `attrs`: the values the tiling data carries to the kernel (and the emulator computes with);
    `saturating`: half/bfloat16 results may also equal the golden saturated (`SATURATING_ARCHES`); `given`: the
    inputs of another launch to repeat (else drawn from `rng`); `nonfinite_excused`: an element reading an inf or
    NaN input, or one made inf or NaN where the golden is finite, may differ (counted in `excused`: a spec lists
    upstream's other behaviour there); `padding_tolerated`:
    writes past an output's end inside the padding GE allocates are counted (`padded`), not problems."""
    shape = shapes.output
    inputs = list(given) if given is not None else draw_inputs(spec, plan, combo, shapes, rng)
    files = {f"in_{t.name}.bin": a.tobytes() for t, a in zip(plan.inputs, inputs, strict=True)
             if t.name != shapes.absent}
    files["tiling.bin"] = launch.tiling
    shown = shown_attrs(spec, attrs)
    where = f"{shapes.label} on {launch.cores} core(s)" + (f" with {shown}" if shown else "")
    with tempfile.TemporaryDirectory(prefix="opgen-run-out-") as out_dir:
        outs = {t.name: Path(out_dir) / f"out_{t.name}.bin" for t in plan.outputs}
        lines = [f"cores {launch.cores}", f"tiling_key {launch.key}", "tiling tiling.bin",
                 f"guard {guard}",
                 f"workspace {plan.workspace_bytes if launch.workspace is None else launch.workspace}"]
        lines += [f"absent {t.name}" if t.name == shapes.absent else f"input {t.name} in_{t.name}.bin"
                  for t in plan.inputs]
        lines += [f"output {t.name} {int(np.prod(shape)) * numpy_dtype(t.dtypes[combo.index].name).itemsize} "
                  f"{outs[t.name]}" for t in plan.outputs]
        files["manifest.txt"] = ("\n".join(lines) + "\n").encode()
        done = run_tree_code([str(executable), "manifest.txt"], timeout=RUN_TIMEOUT, files=files)
        unmodelled = [line.removeprefix(UNMODELLED_MARK) for line in done.stderr.splitlines()
                      if line.startswith(UNMODELLED_MARK)]
        if done.returncode == UNMODELLED_EXIT and unmodelled:
            return ShapeRun(shapes, launch.cores, 0.0, 0.0, (), tuple(unmodelled))
        if done.timed_out or done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
            checks = [line.rsplit("] ", 1)[-1] for line in done.stdout.splitlines() if line.startswith("[ERROR]")]
            after = f", after asc-devkit's CPU-debug check: {checks[0]}" if checks else ""
            return ShapeRun(shapes, launch.cores, math.inf, math.inf,  # no output: nothing bounds its error
                            (f"{where}: the kernel did not finish: {done.failure or tail}{after}",))
        overruns = [line for line in done.stdout.splitlines() if line.startswith("overrun ")]
        padded = [line for line in overruns if padding_tolerated and in_allocation_padding(line)]
        problems = [_overrun(line, where) for line in overruns if line not in padded]
        asserts = sum(int(line.split()[1]) for line in done.stdout.splitlines() if line.startswith("asserts "))
        errors = [line for line in done.stdout.splitlines() if line.startswith("[ERROR]")]
        cost = launch_cost(done.stdout)
        got = tuple(np.fromfile(outs[t.name], dtype=numpy_dtype(t.dtypes[combo.index].name)).reshape(shape)
                    for t in plan.outputs)
    emulated, compared = inputs, inputs
    if shapes.absent:  # the emulator reads NaN there (a path reading it would show it); no element reads it
        emulated = absent_marked(plan, combo, [None if t.name == shapes.absent else a
                                               for t, a in zip(plan.inputs, inputs, strict=True)])
        compared = [np.zeros_like(a) if t.name == shapes.absent else a
                    for t, a in zip(plan.inputs, inputs, strict=True)]
    expected = emulate(plan, golden, combo, emulated, attrs)
    axis = int(str(attrs[plan.split.axis])) if plan.split is not None else None
    found = compare_outputs(spec, plan, combo, got, expected, compared, where, saturating=saturating,
                            nonfinite_excused=nonfinite_excused, axis=axis)
    return ShapeRun(shapes, launch.cores, found.max_abs, found.max_rel, (*problems, *found.problems), (), asserts,
                    errors[0].rsplit("] ", 1)[-1] if errors else "", found.excused,
                    tuple(line.split()[1] for line in padded), tuple(inputs), got, cost, found.mismatched,
                    found.nonfinite)


@dataclass(frozen=True)
class Comparison:
    """The outputs against the golden: the largest differences, how many elements differ (`nonfinite` of them an
    inf or NaN against another value, which no finite difference measures: max_abs and max_rel are then inf)."""

    max_abs: float
    max_rel: float
    problems: tuple[str, ...]
    mismatched: int
    nonfinite: int
    excused: int


def compare_outputs(spec: OpSpec, plan: RenderPlan, combo: DtypeCombination, got: Sequence[npt.NDArray[Any]],
                    expected: Sequence[npt.NDArray[Any]], compared: Sequence[npt.NDArray[Any]], where: str, *,
                    saturating: bool = False, nonfinite_excused: bool = False, axis: int | None = None) -> Comparison:
    """Each output within the spec's tolerances of the golden (`run_shape`'s flags); `compared`: the inputs; `axis`:
    a split kernel's (each output element reads both halves' elements at its place)."""
    shape = tuple(got[0].shape) if got else ()
    max_abs = max_rel = 0.0
    excused = mismatched = nonfinite = 0
    problems = []
    for tensor, have, want in zip(plan.outputs, got, expected, strict=True):
        tol = spec.golden.tolerances.get(tensor.dtypes[combo.index].name) or spec.golden.tolerances[combo.key.name]
        passed, diff = within_tolerance(have, want, tol.rtol, tol.atol,
                                        input_nan=_input_reads(compared, plan, shape, np.isnan, axis))
        if saturating and _is_narrow(want):
            saturated, _ = within_tolerance(have, _saturated_golden(want), tol.rtol, tol.atol)
            diff = np.where(saturated & ~passed, 0.0, diff)
            passed = passed | saturated
        if nonfinite_excused:  # an inf or NaN read, or made where the golden is finite (an overflow upstream)
            made = ~np.isfinite(have.astype(np.float64).ravel()) & np.isfinite(want.astype(np.float64).ravel())
            other = ~passed & (_input_reads(compared, plan, shape, lambda a: ~np.isfinite(a), axis) | made)
            excused += int(other.sum())
            diff, passed = np.where(other, 0.0, diff), passed | other
        finite = np.isfinite(diff)
        unbounded = ~passed & ~finite
        reference = np.abs(np.asarray(want, dtype=np.float64).ravel())
        max_abs = max(max_abs, float(diff[finite].max(initial=0.0)), math.inf if unbounded.any() else 0.0)
        with np.errstate(all="ignore"):  # a huge error over a tiny reference is an inf ratio, not a warning
            rel = diff[finite] / np.maximum(reference[finite], np.finfo(np.float64).tiny)
        max_rel = max(max_rel, float(rel[reference[finite] > tol.atol].max(initial=0.0)),
                      math.inf if unbounded.any() else 0.0)
        if not passed.all():
            k = int(np.flatnonzero(~passed)[0])
            count, inf_nan = int((~passed).sum()), int(unbounded.sum())
            mismatched, nonfinite = mismatched + count, nonfinite + inf_nan
            which = f" ({inf_nan} an inf or NaN against another value)" if inf_nan else ""
            problems.append(f"{where}: {tensor.name} differs from the golden at {count} element(s){which}, "
                            f"first [{k}]: {have.ravel()[k]!r} vs {want.ravel()[k]!r} (rtol {tol.rtol}, "
                            f"atol {tol.atol})")
    return Comparison(max_abs, max_rel, tuple(problems), mismatched, nonfinite, excused)


def cost_figures(runs: Sequence[ShapeRun]) -> dict[str, float | int | str]:
    """The cost of the run with the most elements (several tiles on every core), per element where that is the unit."""
    counted = [r for r in runs if r.cost is not None]
    if not counted:
        return {}
    run = max(counted, key=lambda r: int(np.prod(r.shapes.output)))
    assert run.cost is not None
    elements = int(np.prod(run.shapes.output))
    return {"cost_shape": run.shapes.label,
            "vector_instructions_per_element": round(run.cost.vector_instructions / elements, 6),
            "gm_ub_bytes_per_element": round(run.cost.gm_ub_bytes / elements, 6),
            "ub_extent_bytes": run.cost.ub_extent}


def launch_cost(stdout: str) -> LaunchCost:
    """The runtime's `cost ...` lines."""
    totals: dict[str, int] = {}
    calls = []
    for line in stdout.splitlines():
        words = line.split()
        if words[:2] == ["cost", "call"] and len(words) == 4:
            calls.append((words[2], int(words[3])))
        elif words[:1] == ["cost"] and len(words) == 3:
            totals[words[1]] = int(words[2])
    return LaunchCost(sum(n for name, n in calls if name.startswith("v")),
                      totals.get("gm_to_ub", 0) + totals.get("ub_to_gm", 0), totals.get("ub_extent", 0), tuple(calls))


def _is_narrow(values: npt.NDArray[Any]) -> bool:
    return values.dtype in (numpy_dtype("float16"), numpy_dtype("bfloat16"))


def _saturated_golden(values: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """A half / bfloat16 golden as the saturation mode leaves it."""
    largest = float(ml_dtypes.finfo(values.dtype).max)  # type: ignore[no-untyped-call]
    with np.errstate(invalid="ignore"):
        wide = np.clip(values.astype(np.float64), -largest, largest)
    return np.where(np.isnan(wide), 0.0, wide).astype(values.dtype)


def draw_inputs(spec: OpSpec, plan: RenderPlan, combo: DtypeCombination, shapes: Shapes,
            rng: np.random.Generator) -> list[npt.NDArray[Any]]:
    """Uniform values in the input's `domain` (else the ST range); the dtype's edge values inside that domain
    first (each input a different order), as the numerics tier draws them: out of its domain an input is no
    value the op is defined for (a tanh's y past [-1, 1] overflows y * y in half)."""
    arrays = []
    for k, (tensor, shape) in enumerate(zip(plan.inputs, shapes.inputs, strict=True)):
        if tensor.is_mask:  # packed bits, one per element
            arrays.append(rng.integers(0, 256, -(-int(np.prod(shape)) // 8), dtype=np.uint8))
            continue
        dtype = tensor.dtypes[combo.index]
        domain = input_domain(spec, tensor)
        low, high = domain or spec.tests.value_range
        values = rng.uniform(low, high, shape).astype(numpy_dtype(dtype.name)).ravel()
        edges = np.roll(within_domain(edge_values(dtype.name), domain), k)[: values.size]
        values[: edges.size] = edges
        arrays.append(values.reshape(shape))
    return arrays


def _input_reads(inputs: Sequence[npt.NDArray[Any]], plan: RenderPlan, shape: Shape,
                 test: Callable[[npt.NDArray[np.float64]], npt.NDArray[np.bool_]],
                 axis: int | None = None) -> npt.NDArray[np.bool_]:
    """Which output elements read an input value passing `test` (through broadcast; along a split `axis`, both halves
    at the element's place); a packed mask holds none."""
    found = np.zeros(shape, dtype=np.bool_)
    for array, tensor in zip(inputs, plan.inputs, strict=True):
        if tensor.is_mask:
            continue
        hit = test(array.astype(np.float64))
        found |= np.broadcast_to(hit, shape) if axis is None else read_by_output(hit, shape, axis)
    return found.ravel()


def _overrun(line: str, where: str) -> str:
    """A runtime `overrun NAME COUNT FIRST LAST SIZE` line: COUNT bytes changed that must not be, the first at byte
    FIRST of tensor NAME and the last at LAST (negative: in the guard before it; >= SIZE: past its end; else: inside
    an input)."""
    _, name, count, first, _, size = line.split()
    at = int(first)
    place = "before" if at < 0 else "past the end of" if at >= int(size) else "inside input"
    return f"{where}: the kernel changed {count} byte(s) {place} {name} (first at byte {at} of {size})"


def in_allocation_padding(line: str) -> bool:
    """Whether an `overrun` line's bytes all lie past the tensor's end but inside the memory GE allocates for it:
    its size rounded up to 32 bytes plus 32 more (ge graph_metadef/graph/utils/tensor_size_utils.cc,
    kDataMemAlignSize and kDefaultPaddingSize)."""
    _, _, _, first, last, size = line.split()
    allocated = -(-int(size) // ALLOCATION_ALIGN) * ALLOCATION_ALIGN + ALLOCATION_ALIGN
    return int(size) <= int(first) and int(last) < allocated
