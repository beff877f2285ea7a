"""Consistency tier, the string attr choosing the math: GeluGradV2 passes; a tiling mapping a value to another
value's TPL macro, a kernel branch running another value's DAG, a dropped refusal, a key without the argument
or a selection without a value each fail the row, naming the file and the fact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opgen.check.choice_wiring import LABEL
from opgen.check.consistency import consistency_tier

from .trees import RELU, by_item, copy_sample, edit, failing, loaded

GELU_V2 = "activation/gelu_grad_v2"
TILING = "op_host/arch35/gelu_grad_v2_tiling_arch35.cpp"
KERNEL = "op_kernel/gelu_grad_v2_apt.cpp"
STRUCT = "op_kernel/arch35/gelu_grad_v2_tiling_struct.h"


def _row(op_dir: Path) -> tuple[str, str, list[str]]:
    items = consistency_tier(op_dir, loaded(op_dir)[1])
    row = by_item(items, LABEL)
    return row.status, row.reason, [i.item for i in failing(items) if i.item != LABEL]


def test_gelu_grad_v2_passes_and_an_op_without_the_attr_says_so(tmp_path: Path) -> None:
    status, reason, others = _row(copy_sample(tmp_path / "v2", GELU_V2))
    assert (status, others) == ("pass", [])
    assert '"none" -> TPL_APPROXIMATE_NONE, "tanh" -> TPL_APPROXIMATE_TANH' in reason
    assert _row(copy_sample(tmp_path / "relu", RELU))[:2] == ("pass", "no attr chooses the math")


@pytest.mark.parametrize(("rel", "old", "new", "count", "message"), [
    (TILING, "    approximate = TPL_APPROXIMATE_TANH;", "    approximate = TPL_APPROXIMATE_NONE;", 1,
     '"tanh" sets TPL_APPROXIMATE_NONE, which another value sets too'),
    (KERNEL, "approximate == TPL_APPROXIMATE_TANH) {\n        BroadcastSch<schMode, GeluGradV2TanhDag<half>",
     "approximate == TPL_APPROXIMATE_TANH) {\n        BroadcastSch<schMode, GeluGradV2NoneDag<half>", 1,
     f'{KERNEL}:35: approximate "tanh" (TPL_FP16) runs GeluGradV2NoneDag, not GeluGradV2TanhDag'),
    (TILING, 'OP_LOGE_FOR_INVALID_VALUE(tilingContext->GetNodeName(), "approximate", approximateValue, '
             '"none or tanh");\n        return ge::GRAPH_FAILED;',
     'approximate = TPL_APPROXIMATE_NONE;', 1, "a value of approximate other than none, tanh is not refused"),
    (TILING, "GET_TPL_TILING_KEY(schMode, dType, approximate)", "GET_TPL_TILING_KEY(schMode, dType)", 1,
     "GET_TPL_TILING_KEY(...) does not take approximate: the key ignores the attr"),
    (STRUCT, "ASCENDC_TPL_UINT_SEL(approximate, ASCENDC_TPL_UI_LIST, TPL_APPROXIMATE_NONE, TPL_APPROXIMATE_TANH)",
     "ASCENDC_TPL_UINT_SEL(approximate, ASCENDC_TPL_UI_LIST, TPL_APPROXIMATE_NONE)", 1,
     "ASCENDC_TPL_UINT_SEL(approximate, ...) does not select what its DECL declares"),
    ("op_host/gelu_grad_v2_def.cpp", 'String("none")', 'String("erf")', 1,
     'approximate\'s default "erf" is not a value'),
])
def test_a_choice_out_of_step_fails_the_row(tmp_path: Path, rel: str, old: str, new: str, count: int,
                                            message: str) -> None:
    op_dir = copy_sample(tmp_path, GELU_V2)
    edit(op_dir / rel, old, new, count)
    status, reason, _ = _row(op_dir)
    assert status == "fail" and message in reason, reason


def test_a_binary_json_entry_without_the_attrs_fails_that_socs_row(tmp_path: Path) -> None:
    """The binary is built for every value of each attr the def registers: an entry that drops them is out of
    step with the def (the other entries and rows still pass)."""
    op_dir = copy_sample(tmp_path, GELU_V2)
    rel = "op_host/config/ascend950/gelu_grad_v2_binary.json"
    document = json.loads((op_dir / rel).read_text())
    del document["op_list"][1]["attrs"]
    (op_dir / rel).write_text(json.dumps(document, indent=4))
    items = consistency_tier(op_dir, loaded(op_dir)[1])
    row = by_item(items, "binary JSON == def (ascend950)")
    assert row.status == "fail"
    assert row.reason == f"{rel}: op_list[1] lists attrs (none), the def (approximate: string)"
    assert [i.item for i in failing(items)] == [row.item]


ELU_V2 = "activation/elu_grad_v2"
ELU_TILING = "op_host/arch35/elu_grad_v2_tiling_arch35.cpp"


def test_a_bool_choice_passes_and_its_faults_fail(tmp_path: Path) -> None:
    status, reason, others = _row(copy_sample(tmp_path / "ok", ELU_V2))
    assert (status, others) == ("pass", [])
    assert reason.startswith("isResult: true -> TPL_IS_RESULT_TRUE, false -> TPL_IS_RESULT_FALSE")
    swapped = copy_sample(tmp_path / "swapped", ELU_V2)
    edit(swapped / ELU_TILING, "isResultValue ? TPL_IS_RESULT_TRUE : TPL_IS_RESULT_FALSE",
         "isResultValue ? TPL_IS_RESULT_FALSE : TPL_IS_RESULT_TRUE")
    status, reason, _ = _row(swapped)
    assert status == "fail" and "isResult true (TPL_BF16) runs EluGradV2IsResultFalseDag, not " \
                                "EluGradV2IsResultTrueDag" in reason, reason
    other = copy_sample(tmp_path / "other", ELU_V2)
    edit(other / ELU_TILING, "GetAttrPointer<bool>(3)", "GetAttrPointer<bool>(2)")
    status, reason, _ = _row(other)
    assert status == "fail" and "does not read is_result, attr 3 of op_host/elu_grad_v2_def.cpp" in reason, reason
