"""Kernel families: one op dir with several (HardSwishGradV2: classic for 910b-class SoCs, classic_arch35 for
950), laid out as upstream, each family checked on its own files."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import SCHEMAS, copy_spec

from opgen.cann_sources import resolve_sources
from opgen.check.consistency import consistency_tier
from opgen.check.kernel.tier import kernel_tier
from opgen.check.readers import read_source

from .trees import by_item, copy_sample, edit, failing, loaded

HSWISH = "activation/hard_swish_grad_v2"
SOFTSIGN = "activation/softsign_grad"
OP = "hard_swish_grad_v2"
# what upstream keeps per family in activation/hard_swish_grad_v2 (its other files are per-op, not per-family)
FAMILY_FILES = (
    "op_host/CMakeLists.txt", "op_kernel/CMakeLists.txt",
    f"op_kernel/{OP}.cpp", f"op_host/arch22/{OP}_tiling.cpp",
    f"op_kernel/arch35/{OP}.cpp", f"op_kernel/arch35/{OP}.h", f"op_kernel/arch35/{OP}_tiling_data.h",
    f"op_kernel/arch35/{OP}_tiling_key.h", f"op_host/arch35/{OP}_tiling_arch35.cpp",
    f"tests/ut/op_host/arch22/test_{OP}_tiling.cpp", f"tests/ut/op_host/arch35/test_{OP}_tiling.cpp",
)


def _files(op_dir: Path) -> set[str]:
    return {p.relative_to(op_dir).as_posix() for p in op_dir.rglob("*") if p.is_file() and ".opgen" not in p.parts}


def test_plan_has_one_family_per_kernel_value_with_its_socs_and_dirs(tmp_path: Path) -> None:
    plan = loaded(copy_sample(tmp_path, HSWISH))[1]
    assert [(f.name, f.soc_names, f.kernel_entry, f.tiling_source, f.st_arch) for f in plan.families] == [
        ("classic", ("ascend910b", "ascend910_93", "ascend910"), f"op_kernel/{OP}.cpp",
         f"op_host/arch22/{OP}_tiling.cpp", "arch22"),
        ("classic_arch35", ("ascend950",), f"op_kernel/arch35/{OP}.cpp", f"op_host/arch35/{OP}_tiling_arch35.cpp",
         "arch35"),
    ]
    assert plan.op_api_dir == "op_host/op_api"


def test_the_two_family_tree_has_each_family_file_upstream_has(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, HSWISH)
    files = _files(op_dir)
    assert set(FAMILY_FILES) <= files, sorted(set(FAMILY_FILES) - files)
    # no DAG files: neither family is arch35_dag
    assert not [f for f in files if f.endswith(("_dag.h", "_tiling_struct.h"))]


def test_the_family_files_are_where_upstream_keeps_them(cann_src: Path, tmp_path: Path) -> None:
    upstream = _files(cann_src / "ops-nn" / HSWISH)
    assert set(FAMILY_FILES) <= upstream, sorted(set(FAMILY_FILES) - upstream)


def test_cmake_lists_both_families_socs_and_tiling_dirs(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, HSWISH)
    host = (op_dir / "op_host/CMakeLists.txt").read_text()
    assert 'set(SUPPORT_COMPUTE_UNIT "ascend910b" "ascend910_93" "ascend910" "ascend950")' in host
    assert 'set(SUPPORT_TILING_DIR "arch22" "arch22" "arch22" "arch35")' in host
    kernel = (op_dir / "op_kernel/CMakeLists.txt").read_text()
    calls = re.findall(r"add_kernel_sources\(([^)]*)\)", kernel)
    assert calls == ["COMPUTE_UNITS ascend910b ascend910_93 ascend910",
                     f"KERNEL_SRC arch35/{OP}.cpp COMPUTE_UNITS ascend950"]
    assert "SUPPORT_COMPUTE_UNIT" not in (op_dir / "CMakeLists.txt").read_text()


def test_def_points_only_the_arch35_soc_at_its_kernel_file(tmp_path: Path) -> None:
    src = read_source(copy_sample(tmp_path, HSWISH), f"op_host/{OP}_def.cpp")
    assert src is not None
    assert re.findall(r'ExtendCfgInfo\("opFile.value", "(\w+)"\)', src.code) == [OP]


def test_a_lone_classic_arch35_family_keeps_upstreams_apt_entry(tmp_path: Path) -> None:
    plan = loaded(copy_sample(tmp_path, SOFTSIGN))[1]
    [family] = plan.families
    assert (family.kernel_entry, family.kernel_include) == ("op_kernel/softsign_grad_apt.cpp", "arch35/softsign_grad.h")
    assert plan.cmake.root_modules == "CMakeLists.txt" and plan.cmake.op_kernel_sources == ""


def test_clean_tree_passes_consistency_with_a_row_per_family(tmp_path: Path) -> None:
    items = consistency_tier(copy_sample(tmp_path, HSWISH), loaded(copy_sample(tmp_path / "b", HSWISH))[1])
    assert failing(items) == []
    assert {i.item for i in items} >= {"tiling keys: host == kernel [classic]",
                                       "tiling keys: host == kernel [classic_arch35]",
                                       "kernel entry arguments == def order [classic_arch35]"}


def test_a_fault_in_one_familys_tiling_fails_only_that_familys_row(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, HSWISH)
    edit(op_dir / f"op_host/arch35/{OP}_tiling_arch35.cpp", "tilingKey = HARD_SWISH_GRAD_V2_TILING_KEY_ASCEND950;",
         "tilingKey = 7;")
    items = consistency_tier(op_dir, loaded(op_dir)[1])
    assert [i.item for i in failing(items)] == ["tiling keys: host == kernel [classic_arch35]"]
    assert by_item(items, "tiling keys: host == kernel [classic]").status == "pass"


def test_arch35_dag_and_classic_arch35_in_one_op_are_refused(tmp_path: Path, run) -> None:  # type: ignore[no-untyped-def]
    spec = copy_spec(SCHEMAS / f"{OP}.yaml", tmp_path, lambda text: text.replace(
        "  - soc: ascend950\n", "  - soc: ascend350\n    kernel: arch35_dag\n    aicore: {}\n  - soc: ascend950\n"))
    result = run("gen", str(spec), "-o", str(tmp_path / "out"))
    assert result.code == 2 and "arch35_dag and classic_arch35" in result.err
    assert not (tmp_path / "out").exists()


def test_each_family_kernel_compiles_and_a_fault_fails_only_its_socs(cann_src: Path, tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, HSWISH)
    plan = loaded(op_dir)[1]
    sources = resolve_sources(cann_src)
    clean = kernel_tier(op_dir, plan, sources)
    assert [i.item for i in clean] == [*(f"{soc} {d} compile" for soc in ("ascend910b", "ascend910_93")
                                         for d in ("bfloat16", "float16", "float32")),
                                       "ascend910 float16 compile", "ascend910 float32 compile",
                                       *(f"ascend950 {d} compile" for d in ("bfloat16", "float16", "float32"))]
    assert failing(clean) == []
    edit(op_dir / f"op_kernel/arch35/{OP}.h", "Muls(", "Mulz(")
    broken = kernel_tier(op_dir, plan, sources)
    assert {i.item for i in failing(broken)} == {f"ascend950 {d} compile" for d in ("bfloat16", "float16", "float32")}
    assert all("Mulz" in i.reason for i in failing(broken))
