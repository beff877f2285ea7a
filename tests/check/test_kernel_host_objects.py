"""The host tiling's driver reads its requests, and it and its objects are kept: another set of launches, or a kernel
fault, compiles nothing; a change to a host source recompiles the tree's host sources (they are keyed by every host
file of the tree) and the driver, never ops-nn's tiling executor."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

import opgen.check.kernel.host_build as host_build
import opgen.check.kernel.host_tiling as host_tiling
from opgen.cann_sources import resolve_sources
from opgen.check.kernel.build import KernelVariant, kernel_variants
from opgen.check.kernel.host_tiling import host_launches
from opgen.check.kernel.launch import Shapes
from opgen.check.kernel.run import soc_facts

from .trees import GELU, copy_sample, cut_plan, edit, loaded


def _compiled(op_dir: Path, cann_src: Path, elements: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], bytes]:
    """The sources g++ compiled (file names) for one launch of `elements` on 910B float32, and its tiling data."""
    spec, plan = loaded(op_dir)
    plan = cut_plan(plan, "ascend910b", ("float32",))
    sources = resolve_sources(cann_src)
    assert sources is not None
    (variant,) = [v for v in kernel_variants(plan) if isinstance(v, KernelVariant)]
    facts = soc_facts(sources, plan.socs[0])
    assert facts is not None
    compiled: list[str] = []
    real = host_build.gxx_error

    def counted(command: Sequence[str], *args: object) -> str | None:
        if "-c" in command:
            compiled.append(Path(command[list(command).index("-c") + 1]).name)
        return real(command, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(host_build, "gxx_error", counted)
    # the results kept apart, so the host code runs whatever an earlier session ran
    monkeypatch.setattr(host_tiling, "results_file", lambda key: op_dir.parent / f"{key}.json")
    host = host_launches(op_dir.resolve(), spec.spec, plan, variant, plan.socs[0], facts.vector_cores,
                         facts.ub_bytes, sources, [(Shapes.same((elements,), len(plan.inputs)), {})])
    assert not host.problem and len(host.launches) == 1, host.problem
    return compiled, host.launches[0].tiling


def test_other_launches_and_a_kernel_fault_compile_nothing(tmp_path: Path, cann_src: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    _, small = _compiled(op_dir, cann_src, 3001, monkeypatch)
    compiled, large = _compiled(op_dir, cann_src, 300003, monkeypatch)
    assert compiled == [] and large != small  # the kept driver read the new request
    edit(op_dir / "op_kernel/gelu_grad.h", "Adds(xValue, tmp0, 1.0f, count);", "Adds(xValue, tmp0, 1.5f, count);")
    assert _compiled(op_dir, cann_src, 3005, monkeypatch)[0] == []


def test_a_changed_host_source_compiles_the_tree_again_and_not_the_executor(tmp_path: Path, cann_src: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    _compiled(op_dir, cann_src, 3007, monkeypatch)
    tiling = op_dir / "op_host/gelu_grad_tiling.cpp"
    tiling.write_text(tiling.read_text() + f"\n// {uuid.uuid4().hex}: a tree no earlier session compiled\n")
    assert sorted(_compiled(op_dir, cann_src, 3009, monkeypatch)[0]) == [
        "gelu_grad_def.cpp", "gelu_grad_infershape.cpp", "gelu_grad_tiling.cpp", "opgen_host_tiling.cpp"]


def test_drivers_no_run_used_for_a_week_are_pruned_and_the_others_kept(tmp_path: Path) -> None:
    import os
    import time

    stale, used = tmp_path / "stale.driver", tmp_path / "used.driver"
    for path in (stale, used):
        path.write_bytes(b"\x7fELF")
    week_ago = time.time() - (host_tiling.DRIVER_DAYS + 1) * 86400
    os.utime(stale, (week_ago, week_ago))
    host_tiling._prune(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["used.driver"]


def test_an_ops_cmake_dependencies_add_their_host_sources(tmp_path: Path) -> None:
    """upstream swi_glu_grad's op_host/CMakeLists.txt names DEPENDENCIES swi_glu, whose op_host registers its tiling:
    the host build compiles swi_glu's sources beside its own, as ops-nn's UT build does; a dependency with no op_host
    (or none named) adds nothing."""
    ops = tmp_path / "activation"
    for op in ("swi_glu_grad", "swi_glu"):
        (ops / op / "op_host" / "arch35").mkdir(parents=True)
        (ops / op / "op_host" / f"{op}_tiling.cpp").write_text("", encoding="utf-8")
        (ops / op / "op_host" / "arch35" / f"{op}_tiling_arch35.cpp").write_text("", encoding="utf-8")
    (ops / "swi_glu_grad" / "op_host" / "CMakeLists.txt").write_text(
        "add_modules_sources(HOSTNAME ${OPHOST_NAME} MODE PRIVATE DIR ${CMAKE_CURRENT_SOURCE_DIR} OPTYPE swi_glu_grad "
        "ACLNNTYPE aclnn DEPENDENCIES swi_glu no_such_op)\n", encoding="utf-8")
    sources = [s.rel for s in host_build.ophost_sources(ops / "swi_glu_grad", "arch35")]
    assert sources == ["op_host/swi_glu_grad_tiling.cpp", "op_host/arch35/swi_glu_grad_tiling_arch35.cpp",
                       "../swi_glu/op_host/swi_glu_tiling.cpp", "../swi_glu/op_host/arch35/swi_glu_tiling_arch35.cpp"]
    assert [s.rel for s in host_build.ophost_sources(ops / "swi_glu", None)] == ["op_host/swi_glu_tiling.cpp"]
