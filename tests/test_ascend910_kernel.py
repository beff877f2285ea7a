"""ascend910 (arch 1001, dav_c100) in HardSwishGradV2's classic kernel, read from the rendered files: its key's
branch builds only for __CCE_AICORE__ 100, its math calls no API that arch lacks, and the tiling costs the UB its
masks and constants take. The run on the CPU model is tests/check/test_kernel_run_1001.py."""

from __future__ import annotations

import re

from conftest import SCHEMAS

from opgen.generate import render_specs
from opgen.plan import build_plan
from opgen.spec.load import load_spec

HSG = SCHEMAS / "hard_swish_grad_v2.yaml"


def _files() -> dict[str, str]:
    [rendered] = render_specs([HSG])
    return {rel: data.decode() for rel, data in rendered.files.items()}


def _branch(header: str, key: str) -> str:
    """The Compute() body under one tiling key."""
    start = header.index(f"TILING_KEY == HARD_SWISH_GRAD_V2_TILING_KEY_{key}) {{\n")
    end = header.find("} else if constexpr", start)
    return header[start:end if end > 0 else header.index("outQueueOut.EnQue", start)]


def test_only_the_910_key_builds_for_aicore_100_and_only_there() -> None:
    entry = _files()["op_kernel/hard_swish_grad_v2.cpp"]
    inside = entry[entry.index("#if __CCE_AICORE__ == 100"):entry.index("#else")]
    outside = entry[entry.index("#else"):entry.index("#endif")]
    assert re.findall(r"TILING_KEY_IS\((\d+)\)", inside) == ["3"]
    assert re.findall(r"TILING_KEY_IS\((\d+)\)", outside) == ["0", "1", "2"]


def test_the_910_math_calls_nothing_dav_c100_lacks() -> None:
    header = _files()["op_kernel/hard_swish_grad_v2.h"]
    training, a2 = _branch(header, "ASCEND910"), _branch(header, "ASCEND910B")
    for lacking in ("Compares(", "VSEL_TENSOR_SCALAR_MODE", "DataCopyPad"):
        assert lacking not in training and lacking in header
    assert training.count("CompareByRepeat<true>") == 2 and training.count("SelectByRepeat<true>") == 2
    assert "RoundMode::CAST_NONE>(outLocal" in training and "CAST_NONE" not in a2
    assert "Compares(" in a2  # the other keys keep their scalar compares
    blocks = header[header.index("void ProcessBlocks()"):header.index("void CopyInBlocks(")]
    assert "start = start + count - whole;" in blocks and "CopyInElements(start" in blocks


def test_the_tiling_costs_the_910_masks_and_constants() -> None:
    spec = load_spec(HSG).spec
    plan = build_plan(spec, HSG.name)
    rows = {(c.soc, c.dtype.name): c for c in plan.classic_dtype_cases}
    a2, training = rows[("ascend910b", "float32")], rows[("ascend910", "float32")]
    # one mask buffer: 1 bit an element on 910B, a 32-byte slot per 64-float repeat (4 bits) on 910
    assert training.bits - a2.bits == 3
    # four constant repeats (-3, 0, 3, 1) on top of the basic API scratch both reserve for Select
    assert training.ub_fixed_bytes - a2.ub_fixed_bytes == 4 * 256
