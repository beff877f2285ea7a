"""Issue 10 item 6: mixed-precision combinations (upstream SiluGrad: fp16/bf16/fp32 inputs of different dtypes
with an fp32 output) agree across every file, select their own kernel, and a wrong cast fails the check."""

from __future__ import annotations

import ast
import csv
import json
import re
from pathlib import Path

import pytest
from conftest import SAMPLES, SCHEMAS, copy_spec

from opgen.spec.load import load_spec

SILU = SCHEMAS / "silu_grad.yaml"
OP = SAMPLES / "activation" / "silu_grad"
_GE = {"DT_FLOAT16": "float16", "DT_BF16": "bfloat16", "DT_FLOAT": "float32"}
_KERNEL = {"float16": "half", "bfloat16": "bfloat16_t", "float32": "float"}


def _spec_columns() -> list[tuple[str, ...]]:
    spec = load_spec(SILU).spec
    return list(zip(*(t.dtype_column(spec.combination_count) for t in spec.tensors), strict=True))


def _read(rel: str) -> str:
    return (OP / rel).read_text(encoding="utf-8")


def test_the_sample_has_mixed_columns() -> None:
    columns = _spec_columns()
    assert len(columns) == 9 and any(len(set(c)) > 1 for c in columns)


def test_def_binary_json_st_csv_and_golden_agree_on_every_column() -> None:
    columns = _spec_columns()
    lists = dict(re.findall(r'this->(?:Input|Output)\("(\w+)"\)[^;]*?\.DataType\(\{([^}]*)\}\)',
                            _read("op_host/silu_grad_def.cpp"), re.S))
    def_columns = list(zip(*([_GE[d] for d in re.findall(r"ge::(DT_\w+)", lists[n])] for n in ("dy", "x", "dx")),
                           strict=True))
    assert def_columns == columns
    binary = json.loads(_read("op_host/config/ascend950/silu_grad_binary.json"))
    assert [tuple(t["dtype"] for t in e["inputs"] + e["outputs"]) for e in binary["op_list"]] == columns
    rows = list(csv.DictReader((OP / "tests/st/arch35/ttk_kernel_silu_grad_st.csv").open(encoding="utf-8")))
    seen = {ast.literal_eval(r["input_dtypes"]) + ast.literal_eval(r["output_dtypes"]) for r in rows}
    assert seen == set(columns)
    assert len({r["testcase_name"] for r in rows}) == len(rows)
    table = re.search(r"_OUT_DTYPES = \{(.*?)\n\}", _read("tests/assets/golden.py"), re.S)
    assert table, "golden.py has no output dtype table"
    golden = {ast.literal_eval(k): ast.literal_eval(v) for k, v in re.findall(r"(\(.*?\)): (\"\w+\")", table.group(1))}
    assert golden == {c[:2]: c[2] for c in columns}


def test_each_column_selects_its_own_kernel_with_each_tensor_typed_as_its_column() -> None:
    columns = _spec_columns()
    macros = dict(re.findall(r"#define (TPL_\w+) (\d+)", _read("op_kernel/arch35/silu_grad_tiling_struct.h")))
    dtype_macros = {k: v for k, v in macros.items() if not k.startswith("TPL_SCH_MODE")}
    assert len(dtype_macros) == len(columns) == len(set(dtype_macros.values()))
    tiling = re.findall(r"if \((dyDtype == ge::(\w+) && xDtype == ge::(\w+) && outputDtype == ge::(\w+))\) \{\s*"
                        r"dType = (\w+);\s*tilingStatus = elewiseBaseTiling\.DoTiling<SiluGradDag<([^>]*)>",
                        _read("op_host/arch35/silu_grad_tiling_arch35.cpp"))
    kernel = dict(re.findall(r"dType == (\w+)\) \{\s*ElementwiseSch<schMode, SiluGradDag<([^>]*)>",
                             _read("op_kernel/silu_grad_apt.cpp")))
    assert [(_GE[dy], _GE[x], _GE[dx]) for _, dy, x, dx, _, _ in tiling] == columns
    for (*_, tpl, args), column in zip(tiling, columns, strict=True):
        # the DAG is <T (dx), TDy, TX>: each tensor loaded and stored as its own column's type
        assert args == ", ".join(_KERNEL[d] for d in (column[2], column[0], column[1])), tpl
        assert kernel[tpl] == args, tpl
    dag = _read("op_kernel/arch35/silu_grad_dag.h")
    assert "template <typename T, typename TDy, typename TX>" in dag
    # the fused node is typed per tensor: it returns T (dx's column) and reads x as TX, dy as TDy, each cast to
    # float in registers where 16-bit
    assert "Bind<SiluGradFused0<T, TX, TDy>, OpCopyIn1, OpCopyIn0>" in dag
    assert "Bind<Vec::CopyIn<TDy>, Placeholder::In0<TDy>>" in dag
    assert "Bind<Vec::CopyIn<TX>, Placeholder::In1<TX>>" in dag


def test_tiling_ut_expects_each_columns_own_tiling_key() -> None:
    macros = {k: int(v) for k, v in re.findall(r"#define (TPL_\w+) (\d+)",
                                                _read("op_kernel/arch35/silu_grad_tiling_struct.h"))}
    ut = _read("tests/ut/op_host/arch35/test_silu_grad_tiling.cpp")
    keys = {int(k) for k in re.findall(r"ExecuteTestCase\(tilingContextPara, ge::GRAPH_SUCCESS, (\d+),", ut)}
    mixed = {v for k, v in macros.items() if k.count("_") == 3 and "SCH_MODE" not in k}  # TPL_<DY>_<X>_<DX>
    assert len(mixed) == 6
    for code in mixed:  # the schMode index in bit 0, the combination's dType code above it
        assert {code << 1, code << 1 | 1} & keys, code


def _mixed_spec(tmp_path: Path, edit) -> Path:
    return copy_spec(SILU, tmp_path, edit)


@pytest.mark.parametrize(("edit", "pattern"), [
    (lambda t: t.replace("  dtype: float32\n", "  dtype: native\n"),
     r"inputs\[0\]\.dtypes: differs from the first output's dtype column: .* compute\.dtype: float32"),
    (lambda t: t.replace("constraints:\n", "constraints:\n  same_dtype: [dy, x, dx]\n"),
     r"constraints\.same_dtype: x and dy have different dtypes in some combination"),
    (lambda t: t.replace("dtypes: [float16, bfloat16, float32, float32, float32,",
                         "dtypes: [float16, bfloat16, float32, float16, float32,"),
     r"aclnn: with mixed-precision columns the aclnn wrapper takes inputs of different dtypes for one output "
     r"dtype.* float16, float32 for mixed inputs"),
    (lambda t: t.replace("kernel: arch35_dag\n    aicore: {}", "kernel: classic\n    tiling_key: 1"),
     r"outputs\[0\]\.dtypes: the classic tiling dispatches on the first output's dtype.*kernel: arch35_dag"),
])
def test_mixed_columns_the_kernel_cannot_take_are_refused(run, tmp_path: Path, edit, pattern: str) -> None:
    result = run("gen", _mixed_spec(tmp_path, edit), "-o", tmp_path / "out")
    assert result.code == 2, result
    assert re.search(pattern, result.err), result.err
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").rglob("*.cpp"))


def test_a_wrong_output_cast_of_a_mixed_column_fails_numerics(run, tmp_path: Path) -> None:
    spec = copy_spec(SILU, tmp_path)
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    op = tmp_path / "out" / "activation" / "silu_grad"
    assert run("check", op, "--spec", spec).code == 0
    golden = op / "tests" / "assets" / "golden.py"
    golden.write_text(golden.read_text().replace("('float16', 'bfloat16'): \"float32\"",
                                                 "('float16', 'bfloat16'): \"float16\""))
    checked = run("check", op, "--spec", spec, "--allow-exec")  # golden.py is the tree's code: run on request
    assert checked.code == 1
    flat = re.sub(r"[│\s]+", " ", checked.out)
    assert re.search(r"numerics .*FAIL", flat), flat
    assert re.search(r"dtypes \(float16, bfloat16 -> float32\).*returned float16\[\d+\], expected float32", flat), flat


def test_the_aclnn_wrapper_and_l0_op_take_mixed_inputs_with_a_float32_output() -> None:
    wrapper = re.sub(r"\s+", " ", _read("op_api/aclnn_silu_backward.cpp"))
    assert ("if (gradOutput->GetDataType() != self->GetDataType()) { OP_CHECK_DTYPE_NOT_MATCH(gradInput, "
            "op::DataType::DT_FLOAT, return false); } else { OP_CHECK_DTYPE_NOT_SAME(gradOutput, gradInput, "
            "return false); }") in wrapper
    l0 = re.sub(r"\s+", " ", _read("op_api/silu_grad.cpp"))
    assert "(dy->GetDataType() != x->GetDataType()) ? op::DataType::DT_FLOAT : dy->GetDataType()" in l0
