"""The arch35 DAG kernels' side of the run level: which kernel instantiation a launch takes, the DAG's compile-time
buffer facts, and the elementwise tiling the host would hand it.

An `ElementwiseSch` kernel's tiling is opbase's `ElewiseTiling` (src/op_common/atvoss/elewise/elewise_tiling.cpp):
the core split from the element count, the core count and the DAG's narrowest dtype (the plan's formula, as the
tiling UT checks it), the UB split from the DAG's live-buffer count and widest dtype, which atvoss derives at compile
time (`OpDag::BufferNum`, `MaxDtypeBytes`, `MinDtypeBytes`). The run wrapper compiles those facts into the executable
(`opgen_describe`, printed by `--describe`), so the UB split uses the very DAG the kernel runs. The run takes its tiling
from the host code (`host_tiling`); this formula picks the run's shapes, and tiles a SoC the host code cannot run on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ...plan import RenderPlan
from ...plan.kernel.dag_paths import DagBranch
from ...plan.registry.attrs import AttrValue, KernelScalars
from ...plan.registry.choice import ChoiceValue
from ...plan.testcases.attr_cases import C_LAYOUT
from ...plan.testcases.ophost_tests import (
    ELEWISE_CACHE_LINE,
    ELEWISE_MIN_BITS_PER_CORE,
    ELEWISE_SCHEDULE_MODE,
    TPL_DTYPE_BITS,
)
from .build import KernelVariant
from .tpl_launch import dispatch_lines, launch_call

REPEAT_BYTES = 256
# EleBaseTilingData (opbase pkg_inc/op_common/atvoss/elewise/elewise_base_struct.h), in member order
BASE_FIELDS = (("dim0", "<i8"), ("coreNum", "<i4"), ("ubFormer", "<i4"), ("blockFormer", "<i8"), ("blockNum", "<i8"),
               ("ubLoopOfFormerBlock", "<i8"), ("ubLoopOfTailBlock", "<i8"), ("ubTailOfFormerBlock", "<i8"),
               ("ubTailOfTailBlock", "<i8"), ("elemNum", "<i8"), ("scheMode", "<u8"))
DESCRIBE = "--describe"
ABSENT_MARK = "_WITHOUT_"  # dag_paths names an absent optional input's dType TPL value <dtype>_WITHOUT_<INPUT>


@dataclass(frozen=True)
class DagFacts:
    """What atvoss derives from one DAG at compile time and the host tiling divides the UB by."""

    buffers: int
    max_bytes: int
    min_bytes: int


@dataclass(frozen=True)
class DagLaunch:
    key: int  # the TPL tiling key the host sets: schMode index, dType above it, the choice attr's code above that
    branch: DagBranch
    choice: ChoiceValue | None  # the value of the attr choosing the math whose path this is

    def takes(self, plan: RenderPlan, attrs: Mapping[str, AttrValue]) -> bool:
        """Whether the host tiling picks this path for these attr values."""
        return self.choice is None or plan.choice is None or attrs[plan.choice.attr.name] == self.choice.value

    def key_at(self, plan: RenderPlan, mode: int) -> int:
        """The key of this path under another schMode (the host's tiling picks it: BroadcastSch has several)."""
        return self.key - plan.sch_modes.index(sch_mode(plan)) + plan.sch_modes.index(mode)

    @property
    def without_input(self) -> bool:
        """The path of an absent optional input (the run launches the one with every input)."""
        return ABSENT_MARK in self.branch.tpl


def sch_mode(plan: RenderPlan) -> int:
    """The schMode ElewiseBaseTiling sets (its default), when the kernel lists it."""
    return ELEWISE_SCHEDULE_MODE if ELEWISE_SCHEDULE_MODE in plan.sch_modes else plan.sch_modes[0]


def launches(plan: RenderPlan, variant: KernelVariant) -> tuple[DagLaunch, ...]:
    """The kernel paths of the variant's dtype combination, each under the tiling key that selects it."""
    index, bits = plan.sch_modes.index(sch_mode(plan)), plan.sch_mode_bits
    found = []
    for b in plan.dag_branches:
        if b.combination != variant.combination.index:
            continue
        choice_code = b.choice.code << (bits + TPL_DTYPE_BITS) if b.choice else 0
        found.append(DagLaunch(index | b.tpl_code << bits | choice_code, b, b.choice))
    return tuple(found)


def launcher_source(plan: RenderPlan, variant: KernelVariant) -> str:
    """`opgen_launch` dispatching on the tiling key to the kernel instantiation it selects (every schMode of every
    path: the host tiling picks the schMode), and `opgen_describe`
    printing each path's DAG facts (`dag KEY BUFFERS MAX_BYTES MIN_BYTES`).
    (schMode 202 launches without a TPipe: `tpl_launch.launch_call`)."""
    args = ", ".join(f"args[{k}]" for k in range(len(plan.inputs) + len(plan.outputs) + 2))
    namespace = variant.family.namespace
    cases, facts = [], []
    for launch in launches(plan, variant):
        dag = f"{namespace}::{launch.branch.dag_struct}<{launch.branch.dag_args}>::OpDag"
        for mode in plan.sch_modes:
            entry = launch_call(f"{plan.name}<TPL_SCH_MODE_{mode}, {launch.branch.tpl_args}>", args, mode)
            cases.append(f"    case {launch.key_at(plan, mode)}ULL: {entry} return;")
        facts.append(f'    std::printf("dag {launch.key} %lld %lld %lld\\n", (long long){dag}::BufferNum, '
                     f"(long long){dag}::MaxDtypeBytes, (long long){dag}::MinDtypeBytes);")
    return "\n".join([*dispatch_lines(cases), 'extern "C" void opgen_describe()', "{", *facts, "}"])


def parse_facts(stdout: str) -> dict[int, DagFacts]:
    found = {}
    for line in stdout.splitlines():
        if line.startswith("dag "):
            key, buffers, most, least = (int(w) for w in line.split()[1:])
            found[key] = DagFacts(buffers, most, least)
    return found


def elewise_tiling(elements: int, cores: int, ub_bytes: int, facts: DagFacts, sch: int) -> dict[str, int]:
    """ElewiseTiling's fields (no extra UB, no extra buffers: the generated tiling passes neither)."""
    min_bits, max_bits = facts.min_bytes * 8, facts.max_bytes * 8
    used = min(_ceil(elements * min_bits, ELEWISE_MIN_BITS_PER_CORE), cores)
    former = _ceil(_ceil(elements, used), ELEWISE_CACHE_LINE) * ELEWISE_CACHE_LINE
    blocks = _ceil(elements, former)
    tail = elements - (blocks - 1) * former
    align = REPEAT_BYTES * 8 // min_bits
    ub = ub_bytes * 8 // (facts.buffers * max_bits) // align * align
    loops = (_ceil(former, ub), _ceil(tail, ub))
    return {"dim0": elements, "coreNum": used, "ubFormer": ub, "blockFormer": former, "blockNum": blocks,
            "ubLoopOfFormerBlock": loops[0], "ubLoopOfTailBlock": loops[1],
            "ubTailOfFormerBlock": former - (loops[0] - 1) * ub, "ubTailOfTailBlock": tail - (loops[1] - 1) * ub,
            "elemNum": ub, "scheMode": sch}


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


def tiling_bytes(fields: Mapping[str, int], scalars: KernelScalars, values: Mapping[str, AttrValue]) -> bytes:
    """The kernel's tiling data: EleBaseTilingData, inside the op's own struct after which its attr fields follow
    (laid out and padded as the C compiler does)."""
    base = np.dtype(list(BASE_FIELDS), align=True)
    layout = np.dtype([("base", base)] + [(a.field, C_LAYOUT[a.c_type]) for a in scalars.attrs], align=True)
    record = np.zeros((), dtype=layout)
    for name, value in fields.items():
        record["base"][name] = value
    for attr in scalars.attrs:
        record[attr.field] = values[attr.name]
    return record.tobytes()
