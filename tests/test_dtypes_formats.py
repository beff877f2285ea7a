"""Issue 10 item 6: dtypes the proto only admits (float64, complex) and formats other than ND in def columns."""

from __future__ import annotations

import ast
import csv
import json
import re
from pathlib import Path

from conftest import SCHEMAS, copy_spec, snapshot

from opgen.spec.formats import GE_FORMATS

SWISH = SCHEMAS / "swish_grad.yaml"
COLUMN = "    dtypes: [bfloat16, float16, float32]\n"
FORMATS = ("NCHW", "NHWC", "NC1HWC0")


def _refused(run, tmp_path: Path, edit) -> str:
    spec = copy_spec(SWISH, tmp_path, edit)
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2, result
    assert "Traceback" not in result.out + result.err
    assert snapshot(tmp_path / "out") == {}
    return result.err


def test_a_proto_only_dtype_in_a_def_column_is_refused_naming_the_field(run, tmp_path: Path) -> None:
    err = _refused(run, tmp_path, lambda t: t.replace(COLUMN, "    dtypes: [bfloat16, double, float32]\n", 1))
    assert re.search(r"swish_grad\.yaml:\d+: inputs\[0\]\.dtypes\S*: .*'double' is admitted only in proto_dtypes: "
                     r"no opgen kernel computes it", err), err


def test_an_unknown_format_is_refused_naming_the_ge_formats(run, tmp_path: Path) -> None:
    err = _refused(run, tmp_path, lambda t: t.replace(COLUMN, COLUMN + "    formats: [NCHW, NCWH, ND]\n", 1))
    assert re.search(r"swish_grad\.yaml:\d+: inputs\[0\]\.formats\S*: .*unknown format 'NCWH'; use a ge::Format "
                     r"name .* NC1HWC0", err), err


def _tensor_lists(def_cpp: str, method: str) -> dict[str, list[str]]:
    return {name: re.findall(r"ge::(\w+)", listed) for name, listed in re.findall(
        rf'this->(?:Input|Output)\("(\w+)"\)[^;]*?\.{method}\(\{{([^}}]*)\}}\)', def_cpp, re.S)}


def test_proto_only_dtypes_reach_the_proto_and_never_the_def_or_the_binary_json(run, tmp_path: Path) -> None:
    spec = copy_spec(SWISH, tmp_path, lambda t: t.replace(
        COLUMN, COLUMN + "    proto_dtypes: [float16, bfloat16, float32, double, complex64, complex128]\n", 1))
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    op = tmp_path / "out" / "activation" / "swish_grad"
    proto = (op / "op_graph" / "swish_grad_proto.h").read_text(encoding="utf-8")
    assert ".INPUT(grad, TensorType({DT_FLOAT16, DT_BF16, DT_FLOAT, DT_DOUBLE, DT_COMPLEX64, DT_COMPLEX128}))" in proto
    assert ".INPUT(x, TensorType({DT_BF16, DT_FLOAT16, DT_FLOAT}))" in proto
    def_cpp = (op / "op_host" / "swish_grad_def.cpp").read_text(encoding="utf-8")
    assert _tensor_lists(def_cpp, "DataType")["grad"] == ["DT_BF16", "DT_FLOAT16", "DT_FLOAT"]
    binary = json.loads((op / "op_host" / "config" / "ascend950" / "swish_grad_binary.json").read_text())
    assert {t["dtype"] for e in binary["op_list"] for t in e["inputs"]} == {"float16", "bfloat16", "float32"}
    checked = run("check", op, "--spec", spec)
    assert checked.code == 0, checked.out


def _with_formats(run, tmp_path: Path) -> tuple[Path, Path]:
    listed = "    formats: [NCHW, nhwc, FORMAT_NC1HWC0]\n"  # spelled three ways, printed one way
    spec = copy_spec(SWISH, tmp_path, lambda t: t.replace(COLUMN, COLUMN + listed))
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    return spec, tmp_path / "out" / "activation" / "swish_grad"


def test_non_nd_format_columns_agree_across_def_binary_json_and_st_csv(run, tmp_path: Path) -> None:
    _, op = _with_formats(run, tmp_path)
    def_cpp = (op / "op_host" / "swish_grad_def.cpp").read_text(encoding="utf-8")
    dtypes, formats = _tensor_lists(def_cpp, "DataType"), _tensor_lists(def_cpp, "Format")
    assert formats == {n: [f"FORMAT_{f}" for f in FORMATS] for n in ("grad", "x", "y", "grad_x")}
    assert _tensor_lists(def_cpp, "UnknownShapeFormat") == formats
    by_dtype = {d.removeprefix("DT_"): f.removeprefix("FORMAT_") for d, f in zip(dtypes["grad_x"], formats["grad_x"],
                                                                                   strict=True)}
    spelled = {"FLOAT16": "float16", "BF16": "bfloat16", "FLOAT": "float32"}
    column_format = {spelled[d]: f for d, f in by_dtype.items()}
    binary = json.loads((op / "op_host" / "config" / "ascend950" / "swish_grad_binary.json").read_text())
    for entry in binary["op_list"]:
        tensors = entry["inputs"] + entry["outputs"]
        assert {t["format"] for t in tensors} == {column_format[tensors[-1]["dtype"]]}, entry
    rows = list(csv.DictReader((op / "tests" / "st" / "arch35" / "ttk_kernel_swish_grad_st.csv").open()))
    assert rows
    for row in rows:
        want = column_format[ast.literal_eval(row["output_dtypes"])[0]]
        for field in ("input_formats", "input_ori_formats", "output_formats", "output_ori_formats"):
            assert set(ast.literal_eval(row[field])) == {want}, (row["testcase_name"], field)


def test_check_catches_a_binary_json_format_that_is_not_its_def_column(run, tmp_path: Path) -> None:
    spec, op = _with_formats(run, tmp_path)
    assert run("check", op, "--spec", spec).code == 0
    path = op / "op_host" / "config" / "ascend950" / "swish_grad_binary.json"
    path.write_text(path.read_text().replace('"format": "NHWC"', '"format": "ND"'))
    checked = run("check", op, "--spec", spec)
    assert checked.code == 1
    assert re.search(r"binary JSON formats == def \(ascend950\)", checked.out), checked.out
    assert "formats (ND, ND, ND, ND)" in re.sub(r"[│\s]+", " ", checked.out), checked.out


def test_opgen_formats_are_ge_format_enumerators_of_metadef(cann_src: Path) -> None:
    types_h = (cann_src / "metadef" / "inc" / "external" / "graph" / "types.h").read_text(encoding="utf-8")
    enum = re.search(r"enum Format\b[^{]*\{(.*?)\};", types_h, re.S)
    assert enum, "metadef graph/types.h has no enum Format"
    upstream = set(re.findall(r"\bFORMAT_(\w+)\s*=", enum.group(1)))
    assert upstream >= GE_FORMATS, sorted(GE_FORMATS - upstream)
    assert {"ND", "NCHW", "NHWC", "NC1HWC0"} <= GE_FORMATS
