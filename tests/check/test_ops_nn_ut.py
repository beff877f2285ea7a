"""The ops-nn-ut tier: the tree's op_host UTs run by ops-nn's own `build.sh -u --ophost`, one build per SoC, against
the prefix opgen builds from the sources (the first test here builds it: about 13 minutes cold on 2 cores, then
cached), with upstream's own UTs of the op as the sanity rows."""

from __future__ import annotations

from pathlib import Path

from opgen.cann_sources import resolve_sources
from opgen.check.items import CheckItem
from opgen.check.ops_nn_ut import ops_nn_ut_tier
from opgen.check.trust import Trust

from .trees import GELU, RELU, by_item, copy_sample, edit, loaded

TRUSTED = Trust(allow_exec=True)


def _rows(op_dir: Path, cann_src: Path, trust: Trust = TRUSTED) -> list[CheckItem]:
    _, plan = loaded(op_dir)
    return ops_nn_ut_tier(op_dir, plan, resolve_sources(cann_src), trust)


def test_without_allow_exec_build_sh_is_not_run(tmp_path: Path, cann_src: Path) -> None:
    [row] = _rows(copy_sample(tmp_path, GELU), cann_src, Trust())
    assert row.status == "skip" and "--allow-exec" in row.reason


def test_gelu_grad_uts_pass_under_build_sh_for_each_soc_and_so_do_upstreams(tmp_path: Path, cann_src: Path) -> None:
    rows = _rows(copy_sample(tmp_path, GELU), cann_src)
    assert [r for r in rows if r.status != "pass"] == []
    for soc in ("ascend910b", "ascend310b"):
        mine = by_item(rows, f"op_host UTs ({soc})")
        assert mine.figures["tests"] == mine.figures["passed"] > 0
        assert by_item(rows, f"upstream op_host UTs ({soc})").figures["failed"] == 0


def test_a_tiling_ut_expecting_the_wrong_key_fails_naming_the_test(tmp_path: Path, cann_src: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    edit(op_dir / "tests/ut/op_host/arch35/test_relu_grad_v2_tiling.cpp", "ge::GRAPH_SUCCESS, 5,",
         "ge::GRAPH_SUCCESS, 6,")  # key 5 expected as 6
    row = by_item(_rows(op_dir, cann_src), "op_host UTs (ascend950)")
    assert row.status == "fail" and row.figures["failed"] == 1
    assert "ReluGradV2" in row.reason and "1 failed" in row.reason


def test_a_tiling_suite_of_one_soc_in_a_file_every_soc_builds_fails_naming_its_tests(tmp_path: Path,
                                                                                      cann_src: Path) -> None:
    """GeluGrad's 910B suite moved to tests/ut/op_host/, which build.sh -u globs for every --soc: the 310B build
    runs it against the 310B platform, where the tiling takes another key."""
    op_dir = copy_sample(tmp_path, GELU)
    suite = op_dir / "tests/ut/op_host/arch22/test_gelu_grad_tiling.cpp"
    suite.rename(op_dir / "tests/ut/op_host/test_gelu_grad_tiling.cpp")
    rows = _rows(op_dir, cann_src)
    assert by_item(rows, "op_host UTs (ascend910b)").status == "pass"
    mixed = by_item(rows, "op_host UTs (ascend310b)")
    assert mixed.status == "fail" and "GeluGradTilingAscend910b." in mixed.reason
