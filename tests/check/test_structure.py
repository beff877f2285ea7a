"""Structure tier: the samples pass; a missing file or a name that disagrees fails, naming file and fact."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.check.runner import run_checks
from opgen.check.structure import name_items, structure_tier

from .trees import GELU, RELU, SAMPLE_DIRS, by_item, copy_sample, edit, failing, loaded, statuses


@pytest.mark.parametrize("rel_dir", SAMPLE_DIRS)
def test_samples_pass(tmp_path: Path, rel_dir: str) -> None:
    op_dir = copy_sample(tmp_path, rel_dir)
    spec, plan = loaded(op_dir)
    items = structure_tier(op_dir, spec, plan)
    assert failing(items) == []
    assert by_item(items, "required files").status == "pass"
    assert by_item(items, "kernel entry").status == "pass"


def test_classic_has_no_op_file_value_and_says_so(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    item = by_item(name_items(op_dir, loaded(op_dir)[1]), "def opFile.value")
    assert item.status == "skip"
    assert "op_kernel/gelu_grad.cpp" in item.reason


def test_renamed_kernel_entry_fails_structure_only(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    edit(op_dir / "op_kernel/relu_grad_v2_apt.cpp", "void relu_grad_v2(", "void relu_grad_v3(")
    report = run_checks(op_dir)
    tiers = {t.tier: t for t in report.tiers}
    [item] = failing(tiers["structure"].items)
    assert item.item == "kernel entry"
    assert "op_kernel/relu_grad_v2_apt.cpp:23" in item.reason
    assert "relu_grad_v3, expected relu_grad_v2" in item.reason
    assert statuses(report.tiers) == {"structure": "fail", "syntax": "pass", "consistency": "pass",
                                      "numerics": "pass", "headers": "skip", "kernel": "skip",
                                      "ops-nn-ut": "skip", "upstream": "skip"}
    assert report.exit_code == 1


def test_missing_file_is_listed(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    (op_dir / "op_kernel/gelu_grad_tiling_key.h").unlink()
    (op_dir / "README.md").unlink()
    spec, plan = loaded(op_dir)
    item = by_item(structure_tier(op_dir, spec, plan), "required files")
    assert item.status == "fail"
    assert item.reason == "missing: README.md, op_kernel/gelu_grad_tiling_key.h"
    assert item.figures["missing"] == 2


NAME_EDITS = [
    (RELU, "CMakeLists.txt", "OPTYPE relu_grad_v2", "OPTYPE relu_grad", "CMake OPTYPE", "CMakeLists.txt:8"),
    (GELU, "op_host/CMakeLists.txt", "OPTYPE gelu_grad", "OPTYPE gelu", "CMake OPTYPE", "op_host/CMakeLists.txt:5"),
    (RELU, "op_host/relu_grad_v2_def.cpp", "OP_ADD(ReluGradV2)", "OP_ADD(ReluGrad)", "def OP_ADD",
     "op_host/relu_grad_v2_def.cpp"),
    (GELU, "op_graph/gelu_grad_proto.h", "REG_OP(GeluGrad)", "REG_OP(GeluGradV2)", "proto REG_OP",
     "op_graph/gelu_grad_proto.h"),
    (GELU, "op_graph/gelu_grad_proto.h", "OP_END_FACTORY_REG(GeluGrad)", "OP_END_FACTORY_REG(Gelu)",
     "proto OP_END_FACTORY_REG", "op_graph/gelu_grad_proto.h"),
    (RELU, "op_host/relu_grad_v2_def.cpp", '"relu_grad_v2_apt")', '"relu_grad_apt")', "def opFile.value",
     "opFile.value is relu_grad_apt"),
    (GELU, "op_host/gelu_grad_infershape.cpp", "IMPL_OP_INFERSHAPE(GeluGrad)", "IMPL_OP_INFERSHAPE(Gelu)",
     "IMPL_OP_INFERSHAPE", "op_host/gelu_grad_infershape.cpp"),
    (RELU, "op_host/arch35/relu_grad_v2_tiling_arch35.cpp", "IMPL_OP_OPTILING(ReluGradV2)",
     "IMPL_OP_OPTILING(ReluGrad)", "IMPL_OP_OPTILING", "op_host/arch35/relu_grad_v2_tiling_arch35.cpp"),
    (GELU, "op_host/config/ascend310b/gelu_grad_binary.json", '"op_type": "GeluGrad"', '"op_type": "Gelu"',
     "binary JSON op_type (ascend310b)", "op_host/config/ascend310b/gelu_grad_binary.json"),
    (RELU, "tests/assets/golden.py", '{"relu_grad_v2": ', '{"relu_grad": ', "golden __golden__ key",
     "tests/assets/golden.py:"),
    (GELU, "tests/st/arch22/ttk_kernel_gelu_grad_st.csv", "gelu_grad_float16_001,gelu_grad,",
     "gelu_grad_float16_001,gelu_grd,", "ST CSV op_name (ttk_kernel_gelu_grad_st.csv)",
     "tests/st/arch22/ttk_kernel_gelu_grad_st.csv:14: op_name is 'gelu_grd'"),
]


@pytest.mark.parametrize(("rel_dir", "rel", "old", "new", "label", "named"), NAME_EDITS)
def test_a_name_that_disagrees_fails_its_item(tmp_path: Path, rel_dir: str, rel: str, old: str, new: str,
                                              label: str, named: str) -> None:
    op_dir = copy_sample(tmp_path, rel_dir)
    plan = loaded(op_dir)[1]
    assert failing(name_items(op_dir, plan)) == []
    edit(op_dir / rel, old, new)
    items = name_items(op_dir, plan)
    assert [i.item for i in failing(items)] == [label]
    assert named in by_item(items, label).reason


def test_commented_out_name_is_not_read(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    edit(op_dir / "op_host/gelu_grad_def.cpp", "OP_ADD(GeluGrad);", "// OP_ADD(Gelu);\nOP_ADD(GeluGrad);")
    assert failing(name_items(op_dir, loaded(op_dir)[1])) == []


def test_golden_table_assigned_twice_is_read_as_an_import_keeps_it(tmp_path: Path) -> None:
    """The last `__golden__ =` is the one ops-nn's runner sees: structure and syntax both read that one."""
    op_dir = copy_sample(tmp_path, GELU)
    golden = op_dir / "tests/assets/golden.py"
    lines = golden.read_text(encoding="utf-8").count("\n")
    with golden.open("a", encoding="utf-8") as handle:
        handle.write('__golden__ = {"kernel": {"gelu_grad_old": "gelu_grad"}}\n')
    report = run_checks(op_dir)
    tiers = {t.tier: t for t in report.tiers}
    [item] = failing(tiers["structure"].items)
    assert item.item == "golden __golden__ key"
    assert f"tests/assets/golden.py:{lines + 1}: __golden__ registers 'gelu_grad_old'" in item.reason
