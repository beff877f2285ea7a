"""The UTs of a split kernel (arch35_split), as upstream's glu_grad UTs test it: infershape (the output takes the
split input's shape; a scalar and an axis out of range are refused), tiling (per dtype the small-shape key, a
half-row past one buffer under the big-shape key, an odd split length and an axis out of range refused), and the
kernel (per dtype on one core, then on two cores and in the big-shape mode, each against the golden gen_data.py
runs), every expected value and tiling field from the host tiling's formula (`split_tiling`).
"""

from __future__ import annotations

import math

from ...spec.models import OpSpec
from ..kernel.split import TILING_FIELDS, SplitKernel, split_tiling
from ..registry.platforms import SocPlan
from ..registry.tensors import DtypeCombination, TensorPlan
from .kernel_ut import UT_WORKSPACE_BYTES, KernelUtCase, KernelUtPlan
from .ophost_tests import LIB_WORKSPACE_BY_ARCH, UT_PLATFORMS, OphostUtPlan, TilingSuite, ut_soc_guard
from .ut_cases import InfershapeCase, TensorCase, TilingCase

# ge::DataType's values (metadef inc/external/graph/types.h): the tiling key's 8-bit dtype argument
GE_DATATYPE_VALUES = {"DT_FLOAT": 0, "DT_FLOAT16": 1, "DT_BF16": 27}
ODD = (4, 5)  # a split length upstream's tiling refuses


def split_ut_plans(spec: OpSpec, split: SplitKernel, tensors: tuple[TensorPlan, ...],
                   combos: tuple[DtypeCombination, ...], socs: tuple[SocPlan, ...], rel_dir: str,
                   entry: str) -> tuple[KernelUtPlan, OphostUtPlan]:
    """`entry`: the kernel entry, relative to tests/ut/op_kernel (the kernel UT includes it)."""
    inputs = tuple(t for t in tensors if t.role == "input")
    outputs = tuple(t for t in tensors if t.role == "output")
    low, high = spec.tests.value_range
    kernel = KernelUtPlan(
        socs=tuple(s for s in socs if s.kernel_ut_soc), flags=" ".join(f"-D{t.macro}={t.dtypes[0].kernel}"
                                                                        for t in tensors),
        includes=(entry,), declarations=(), tiling_struct=f"{spec.op_type}TilingData",
        data_dir=f"{rel_dir}/tests/ut/op_kernel/{spec.snake_name}_data", golden_rel=f"{rel_dir}/tests/assets/golden.py",
        workspace_bytes=UT_WORKSPACE_BYTES,
        gen_data_inputs=tuple((t.name, f"sample(rng, {low!r}, {high!r}, "
                                       f"{'shape' if t is split.split else 'halved(shape, attrs)'}, dtype)")
                              for t in inputs),
        outputs=tuple(t.name for t in outputs),
        tolerances=tuple((d, tol.rtol, tol.atol) for d, tol in spec.golden.tolerances.items()),
        cases=_kernel_cases(spec, split, tensors, socs))
    suites = tuple(_suite(spec, split, inputs, outputs, soc) for soc in socs if soc.name in UT_PLATFORMS)
    ophost = OphostUtPlan(infershape_suite=f"{spec.op_type}Infershape",
                          infershape_cases=_infershape_cases(spec, split, inputs, outputs, combos),
                          tiling_suites=suites, tiling_header="", attrs_struct_header="",
                          compile_info=f"{spec.op_type}CompileInfo")
    return kernel, ophost


def _kernel_cases(spec: OpSpec, split: SplitKernel, tensors: tuple[TensorPlan, ...],
                  socs: tuple[SocPlan, ...]) -> tuple[KernelUtCase, ...]:
    runs = [s for s in socs if s.kernel_ut_soc and s.name in UT_PLATFORMS]
    if not runs:
        return ()
    soc = runs[0]
    ub = UT_PLATFORMS[soc.name].ub_size
    shape, axis = tuple(spec.tests.shapes[0]), split.axis_default
    first = soc.combinations[0]
    big = (2, 2 * (split.buffer_elements(ub, first.index) + 1))
    wanted = [(c, shape, 1) for c in soc.combinations] + [(first, shape, 2), (first, big, 1)]
    found = []
    for combo, case_shape, cores in wanted:
        tiling = split_tiling(case_shape, axis, split.element_bytes(combo.index), split.buffers, ub, cores)
        mode = split.shape_modes[tiling.shape_mode][0]
        ins = dict(zip((t.name for t in tensors if t.role == "input"),
                       split.input_shapes(tuple(t for t in tensors if t.role == "input"), case_shape, axis),
                       strict=True))
        buffers = tuple((t.camel, f"{math.prod(ins.get(t.name, case_shape))} * sizeof({t.dtypes[combo.index].kernel})")
                        for t in tensors)
        label = f"{combo.key.name}_{mode.removeprefix('TPL_').lower()}_{tiling.used_cores}_core"
        found.append(KernelUtCase(
            f"{spec.snake_name}_{label}{'s' if tiling.used_cores > 1 else ''}",
            f"{combo.key.name}, {mode}, {tiling.used_cores} core(s), {tiling.fields[5]} tile(s)", combo.key.name,
            soc.short_version, "'(" + ", ".join(map(str, case_shape)) + ",)'", math.prod(case_shape),
            tiling.used_cores, tuple(zip(TILING_FIELDS, tiling.fields, strict=True)),
            ("AscendC::SetKernelMode(KernelMode::AIV_MODE);",),
            f"::{spec.snake_name}<{split.split.dtypes[combo.index].kernel}, {mode}>", buffers,
            gen_args=(f"{split.axis}={axis}",)))
    return tuple(found)


def _axis(split: SplitKernel, value: int) -> str:
    return f'{{{{"{split.axis}", Ops::NN::AnyValue::CreateFrom<int64_t>({value})}}}}'


def _descs(split: SplitKernel, tensors: tuple[TensorPlan, ...], combo: DtypeCombination, shape: tuple[int, ...],
           axis: int) -> tuple[TensorCase, ...]:
    shapes = split.input_shapes(tensors, shape, axis) if tensors and tensors[0].role == "input" else (
        (shape,) * len(tensors))
    return tuple(TensorCase(", ".join(map(str, s)), t.dtypes[combo.index].ge) for t, s in zip(tensors, shapes,
                                                                                                strict=True))


def _infershape_cases(spec: OpSpec, split: SplitKernel, inputs: tuple[TensorPlan, ...],
                      outputs: tuple[TensorPlan, ...], combos: tuple[DtypeCombination, ...]
                      ) -> tuple[InfershapeCase, ...]:
    default = split.axis_default
    shape = tuple(spec.tests.shapes[0])
    found = []
    for combo in combos:
        found.append(InfershapeCase(f"infershape_{combo.label}", _descs(split, inputs, combo, shape, default),
                                    tuple(t.dtypes[combo.index].ge for t in outputs), "GRAPH_SUCCESS",
                                    tuple(", ".join(map(str, shape)) for _ in outputs), _axis(split, default)))
    first = combos[0]
    for case in spec.tests.axis_cases[:1]:
        found.append(InfershapeCase(f"infershape_{split.axis}_{case.axis}".replace("-", "minus_"),
                                    _descs(split, inputs, first, tuple(case.shape), case.axis),
                                    tuple(t.dtypes[first.index].ge for t in outputs), "GRAPH_SUCCESS",
                                    tuple(", ".join(map(str, case.shape)) for _ in outputs), _axis(split, case.axis)))
    out_of_range = len(shape)
    found.append(InfershapeCase(f"infershape_{split.axis}_out_of_range", _descs(split, inputs, first, shape, -1),
                                tuple(t.dtypes[first.index].ge for t in outputs), "GRAPH_FAILED",
                                (), _axis(split, out_of_range)))
    scalar = tuple(TensorCase("", t.dtypes[first.index].ge) for t in inputs)
    found.append(InfershapeCase("infershape_scalar_refused", scalar, tuple(t.dtypes[first.index].ge for t in outputs),
                                "GRAPH_FAILED", (), _axis(split, default)))
    return tuple(found)


def _suite(spec: OpSpec, split: SplitKernel, inputs: tuple[TensorPlan, ...], outputs: tuple[TensorPlan, ...],
           soc: SocPlan) -> TilingSuite:
    platform = UT_PLATFORMS[soc.name]
    workspace = LIB_WORKSPACE_BY_ARCH.get(platform.npu_arch, 0)
    shape = tuple(spec.tests.shapes[0])
    cases = []
    for combo in soc.combinations:
        element = split.element_bytes(combo.index)
        code = GE_DATATYPE_VALUES[split.split.dtypes[combo.index].ge]
        big = (2, 2 * (split.buffer_elements(platform.ub_size, combo.index) + 1))
        for label, case_shape in (("small_shape", shape), ("big_shape", big)):
            tiling = split_tiling(case_shape, -1, element, split.buffers, platform.ub_size, platform.core_num)
            cases.append(TilingCase(
                f"tiling_{combo.label}_{label}", _descs(split, inputs, combo, case_shape, -1),
                _descs(split, outputs, combo, case_shape, -1), "GRAPH_SUCCESS", tiling.key(code), tiling.used_cores,
                "".join(f"{w} " for w in tiling.fields), workspaces=str(workspace),
                instance_args=_axis(split, -1)))
    first = soc.combinations[0]
    odd = tuple(TensorCase(", ".join(map(str, ODD if t is split.split else (ODD[0], ODD[1] // 2))),
                           t.dtypes[first.index].ge) for t in inputs)
    cases.append(TilingCase("tiling_odd_split_refused", odd, _descs(split, outputs, first, ODD, -1), "GRAPH_FAILED",
                            instance_args=_axis(split, -1)))
    cases.append(TilingCase(f"tiling_{split.axis}_out_of_range", _descs(split, inputs, first, shape, -1),
                            _descs(split, outputs, first, shape, -1), "GRAPH_FAILED",
                            instance_args=_axis(split, len(shape))))
    return TilingSuite(soc.name, f"{spec.op_type}Tiling{soc.name.title().replace('_', '')}",
                       ut_soc_guard(spec.snake_name, soc.name), platform.core_num, platform.ub_size, tuple(cases))
