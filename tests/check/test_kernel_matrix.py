"""Every sample's kernel run rows, uncut (every SoC, dtype combination, attr path and broadcast pattern, with
upstream's kernel as the oracle): no row fails, and the rows SKIPPED are exactly the set held here, each for its
reason. Opt-in, OPGEN_KERNEL_MATRIX=1 with the sources: about an hour cold on 2 cores (bench/kernel_run.py
measures it; bench/results/kernel_run.txt holds the last run). CI runs both samples' whole check and the kernel
test files, a named subset."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from opgen.cann_sources import resolve_sources
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.trust import Trust
from opgen.plan import build_plan
from opgen.spec.load import load_spec

from .trees import ROOT, SAMPLES

NO_PLATFORM = "tiling_case_executor.cpp knows no ascend350"
# (op, row) -> what its reason must say; nothing else may be SKIPPED, and no unmodelled instruction is here
EXPECTED_SKIPPED = {
    **{("relu_grad_v2", f"ascend350 {dtype}/uint1 upstream"): NO_PLATFORM
       for dtype in ("float16", "bfloat16", "float32", "int8", "uint8", "int32")},
    ("gelu_grad", "ascend310b float32 upstream"): "(kernel.ascend310b.float32) as no oracle",
    ("gelu_grad", "ascend310b bfloat16 upstream"): "(kernel.ascend310b.bfloat16) as no oracle",
}

matrix = pytest.mark.skipif(not os.environ.get("OPGEN_KERNEL_MATRIX"),
                            reason="every sample's whole kernel run matrix (about an hour cold): OPGEN_KERNEL_MATRIX=1")


def _samples() -> list[tuple[str, Path, Path]]:
    found = []
    for spec_path in sorted((ROOT / "schemas").glob("*.yaml")):
        spec = load_spec(spec_path).spec
        found.append((spec_path.stem, SAMPLES / f"{'experimental/' if spec.experimental else ''}{spec.category}"
                                                f"/{spec_path.stem}", spec_path))
    return found


@matrix
def test_every_kernel_row_passes_but_the_skipped_set_held_here(cann_src: Path) -> None:
    sources = resolve_sources(cann_src)
    skipped, failed, dearer = {}, [], []
    for name, op_dir, spec_path in _samples():
        spec = load_spec(spec_path).spec
        classic = {p.soc for p in spec.platforms if p.kernel in ("classic", "classic_arch35")}
        for row in kernel_run_rows(op_dir, spec, build_plan(spec, spec_path.name), sources, Trust(True)):
            if row.status == "skip":
                skipped[(name, row.item)] = row.reason
            elif row.status == "fail":
                failed.append(f"{name} {row.item}: {row.reason[:300]}")
            ratio = row.figures.get("vector_instructions_per_element_ratio")
            if row.item.split()[0] in classic and isinstance(ratio, float) and ratio > 1.0:
                dearer.append(f"{name} {row.item}: x{ratio}")
    assert failed == []
    # a generated classic kernel issues no more vector instructions an element than upstream's on the same launch
    assert dearer == []
    assert sorted(skipped) == sorted(EXPECTED_SKIPPED)
    for key, said in EXPECTED_SKIPPED.items():
        assert said in skipped[key], skipped[key]
        assert "does not model" not in skipped[key]
