"""Every committed kernel mutant (kernel_mutants.py) still compiles, fails the run row of its SoC and dtype, and
fails nothing else: the offline tiers (structure, syntax, consistency, numerics) read no kernel numbers.

Needs the CANN sources; each mutant builds one variant (its SoC and dtype), about half a minute on 2 cores.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.cann_sources import resolve_sources
from opgen.check.kernel.run import kernel_run_rows
from opgen.check.runner import run_checks
from opgen.check.trust import Trust

from .kernel_mutants import MUTANTS, KernelMutant
from .trees import copy_sample, cut_plan, edit, loaded

OFFLINE = ("structure", "syntax", "consistency", "numerics")


def test_the_list_holds_at_least_ten_distinct_faults() -> None:
    assert len({m.name for m in MUTANTS}) == len(MUTANTS) >= 10
    assert all(m.old != m.new for m in MUTANTS)


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_the_mutant_fails_its_run_row_and_nothing_else(mutant: KernelMutant, tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, mutant.op)
    edit(op_dir / mutant.file, mutant.old, mutant.new)
    spec, plan = loaded(op_dir)
    cut = cut_plan(plan, mutant.soc, (mutant.dtype,))
    rows = {r.item: r for r in kernel_run_rows(op_dir, spec.spec, cut, resolve_sources(cann_src), Trust(True))}
    (run,) = [r for label, r in rows.items() if label.endswith(" run")]
    assert run.status == "fail", f"{mutant.breaks}: {run.reason}"
    assert "differs from the golden" in run.reason or "changed" in run.reason, run.reason  # it built and ran
    upstream = [r for label, r in rows.items() if label.endswith(" upstream")]
    assert all(r.status != "fail" for r in upstream), upstream  # the oracle is not the one at fault
    report = run_checks(op_dir, tiers=OFFLINE)
    failing = [f"{t.tier}: {i.item}: {i.reason}" for t in report.tiers for i in t.items if i.status == "fail"]
    assert failing == [], failing
