"""Helpers for the check tests: private copies of the committed sample trees, and file edits on them.

Tests break copies, never `generated_samples/` itself.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

from conftest import copy_record, spec_copy

from opgen.check.items import CheckItem, TierResult
from opgen.plan import RenderPlan, build_plan
from opgen.spec.load import LoadedSpec, load_spec

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "generated_samples"
RELU = "activation/relu_grad_v2"
GELU = "experimental/activation/gelu_grad"
SAMPLE_DIRS = (RELU, GELU)


def copy_sample(tmp_path: Path, rel_dir: str) -> Path:
    """The sample op dir copied under tmp_path at the same relative place (its parent dirs matter), with a
    copy of its record in tmp_path/schemas/.opgen/ (where `opgen check` finds it by the op's path)."""
    dest = tmp_path / rel_dir
    shutil.copytree(SAMPLES / rel_dir, dest)
    copy_record(SAMPLES / rel_dir, dest, tmp_path / "schemas" / ".opgen")
    return dest


def loaded(op_dir: Path) -> tuple[LoadedSpec, RenderPlan]:
    spec = load_spec(spec_copy(op_dir))
    return spec, build_plan(spec.spec, spec.path.name)


def cut_plan(plan: RenderPlan, soc: str, dtypes: tuple[str, ...]) -> RenderPlan:
    """The plan cut to one SoC and the dtype combinations whose key dtype is listed: a kernel test builds only
    those variants."""
    chosen = tuple(c for c in plan.combinations if c.key.name in dtypes)
    return dataclasses.replace(plan, socs=tuple(dataclasses.replace(s, combinations=chosen)
                                                for s in plan.socs if s.name == soc), combinations=chosen)


def cut_socs(plan: RenderPlan, *socs: str) -> RenderPlan:
    """The plan cut to the SoCs a kernel test asserts on, every dtype kept: the others' variants are not built."""
    return dataclasses.replace(plan, socs=tuple(s for s in plan.socs if s.name in socs))


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace `old` (which must be there) in the file; `count` -1 replaces every occurrence."""
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def failing(items: list[CheckItem] | tuple[CheckItem, ...]) -> list[CheckItem]:
    return [i for i in items if i.status == "fail"]


def by_item(items: list[CheckItem] | tuple[CheckItem, ...], label: str) -> CheckItem:
    found = [i for i in items if i.item == label]
    assert len(found) == 1, f"{label!r} among {[i.item for i in items]}"
    return found[0]


def statuses(tiers: tuple[TierResult, ...]) -> dict[str, str]:
    return {t.tier: t.status for t in tiers}
