"""The precompiled kernel_operator.h (opgen/check/kernel/pch.py): one per arch and mode, used by every dtype variant,
changing how long a compile takes and never its answer, rebuilt when the learned declarations change."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from opgen.cann_sources import resolve_sources
from opgen.check.confined import compile_confined
from opgen.check.kernel.build import compile_command, kernel_variants, wrapper_source
from opgen.check.kernel.intrinsics import HEADER, intrinsic_dir
from opgen.check.kernel.pch import HEADER_NAME, pch_dir, with_pch
from opgen.check.kernel.tier import kernel_tier
from opgen.locks import try_lock
from opgen.plan import RenderPlan

from .trees import RELU, copy_sample, cut_plan, edit, loaded

RELU_DAG = "op_kernel/arch35/relu_grad_v2_dag.h"


def _plan(op_dir: Path, cann_src: Path) -> RenderPlan:
    """ReluGradV2 cut to two ascend950 dtypes, its kernels compiled once by the tier first: that learns the arch's
    declarations (a cold cache has none yet), which a compile below reads and the header embeds."""
    plan = cut_plan(loaded(op_dir)[1], "ascend950", ("float32", "float16"))
    assert all(item.status == "pass" for item in kernel_tier(op_dir, plan, resolve_sources(cann_src)))
    return plan


def _compile(tmp_path: Path, cann_src: Path, op_dir: Path, plan: RenderPlan, *,
             pch: bool) -> list[tuple[int, str, Path | None]]:
    """Each variant's syntax compile: its exit code, its first error line, the header dir it had."""
    sources = resolve_sources(cann_src)
    found = []
    for variant in kernel_variants(plan):
        assert not isinstance(variant, tuple)
        wrapper = tmp_path / f"wrapper_{variant.combination.index}.cpp"
        wrapper.write_text(wrapper_source(plan, op_dir / variant.family.kernel_entry, variant), encoding="utf-8")
        stubs = intrinsic_dir(sources, variant.arch)
        command = compile_command("g++", wrapper, variant, sources, op_dir, stubs)
        directory = pch_dir("g++", variant, sources, stubs) if pch else None
        done = compile_confined([*with_pch(command, directory), "-H"], "g++", [op_dir, sources.root, tmp_path],
                                timeout=600)
        assert done.refusal is None, done.refusal
        error = next((line for line in done.stderr.splitlines() if "error" in line), "")
        found.append((done.returncode, error.replace(str(op_dir), "<op>"), directory))
    return found


def test_every_dtype_variant_takes_the_one_header_and_compiles_as_without_it(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path / "op", RELU)
    plan = _plan(op_dir, cann_src)
    with_header = _compile(tmp_path, cann_src, op_dir, plan, pch=True)
    assert [code for code, _, _ in with_header] == [0, 0]
    [directory] = {d for _, _, d in with_header}  # both dtypes, one header
    assert directory is not None and (directory / f"{HEADER_NAME}.gch").is_file()
    edit(op_dir / RELU_DAG, "Bind<Vec::Select", "Bind<Vec::Selekt")  # a kernel that does not compile
    faulted = [(code, error) for code, error, _ in _compile(tmp_path, cann_src, op_dir, plan, pch=True)]
    assert faulted == [(code, error) for code, error, _ in _compile(tmp_path, cann_src, op_dir, plan, pch=False)]
    assert all(code != 0 and "Selekt" in error for code, error in faulted)


def test_a_declaration_learned_since_builds_a_new_header_in_place_of_the_old(
        tmp_path: Path, cann_src: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a copy of the declarations the samples taught, in a cache of the test's own (no other test sees it)."""
    sources = resolve_sources(cann_src)
    variant = next(v for v in kernel_variants(_plan(copy_sample(tmp_path, RELU), cann_src)) if not isinstance(v, tuple))
    learned = intrinsic_dir(sources, variant.arch)
    assert learned is not None
    stubs = tmp_path / "stubs"
    shutil.copytree(learned, stubs, ignore=shutil.ignore_patterns("*.lock"))
    monkeypatch.setenv("OPGEN_CACHE", str(tmp_path / "cache"))
    first = pch_dir("g++", variant, sources, stubs)
    assert first is not None and pch_dir("g++", variant, sources, stubs) == first
    header = stubs / HEADER
    declaration = "template <typename... Args> int64_t opgen_test_{}(Args&&... args);\n"
    held = try_lock(first.with_suffix(".lock"))  # another compile still building (or using) the first
    assert held is not None
    header.write_text(header.read_text() + declaration.format("one"))
    second = pch_dir("g++", variant, sources, stubs)
    assert second is not None and second != first and first.exists()
    held.close()
    header.write_text(header.read_text() + declaration.format("two"))
    third = pch_dir("g++", variant, sources, stubs)
    assert third is not None and not first.exists() and not second.exists()
