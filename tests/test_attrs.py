"""Attrs reach the math: recipe steps read them, the kernel gets them (DAG Vars on arch35, tiling data fields
on classic kernels), the golden, ST rows and op_host UT contexts carry them, and the numerics check runs a
non-default setting, so math that ignores an attr fails."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import numpy as np
from conftest import copy_spec, snapshot

from opgen.check.numerics import check_numerics
from opgen.plan import build_plan
from opgen.plan.testcases.attr_cases import classic_tiling_bytes
from opgen.spec.load import load_spec
from opgen.spec.models import OpSpec

SCHEMAS = Path(__file__).resolve().parents[1] / "schemas"
SWISH = SCHEMAS / "swish_grad.yaml"
HARD_SHRINK = SCHEMAS / "hard_shrink_grad.yaml"
HARD_SIGMOID = SCHEMAS / "hard_sigmoid_grad.yaml"


def _spec(tmp_path: Path, source: Path, old: str = "", new: str = "") -> OpSpec:
    path = copy_spec(source, tmp_path, (lambda t: t.replace(old, new)) if old else None)
    return load_spec(path).spec


def _rendered(run, tmp_path: Path, source: Path) -> Path:
    out = tmp_path / "out"
    result = run("gen", source, "-o", out)
    assert result.code == 0, result.err
    spec = load_spec(source).spec
    return out / spec.category / spec.snake_name


def test_arch35_kernel_sets_each_dag_var_from_the_tiling_field_the_host_fills(run, tmp_path: Path) -> None:
    op = _rendered(run, tmp_path, SWISH)
    dag = (op / "op_kernel/arch35/swish_grad_dag.h").read_text()
    assert re.search(r"Bind<SwishGradFused0<T, T, T>, OpCopyIn1, OpCopyIn0, Placeholder::Var<float, 0>>", dag)
    assert re.search(r"Muls\(rSx, rX, attrScale, mask\); +// sx = muls\(x, scale\)", dag)  # the node's scalar
    kernel = (op / "op_kernel/swish_grad_apt.cpp").read_text()
    assert kernel.count("sch.template SetVar<float, 0>(tilingData.scale);") == 3  # one per dtype branch
    assert "sch(&tilingData.baseTiling, &pipe)" in kernel
    struct = (op / "op_kernel/arch35/swish_grad_tiling_struct.h").read_text()
    assert re.search(r"struct SwishGradTilingData \{\s*Ops::Base::EleBaseTilingData baseTiling;\s*float scale;", struct)
    tiling = (op / "op_host/arch35/swish_grad_tiling_arch35.cpp").read_text()
    assert "attrs->GetAttrPointer<float>(0)" in tiling
    assert "tiling->scale = scaleAttr != nullptr ? *scaleAttr : 1.0f;" in tiling
    assert "GET_TPL_TILING_KEY(tiling->baseTiling.scheMode, dType)" in tiling


def test_classic_kernel_copies_the_attr_into_a_member_and_compares_with_it(run, tmp_path: Path) -> None:
    op = _rendered(run, tmp_path, HARD_SHRINK)
    header = (op / "op_kernel/arch35/hard_shrink_grad.h").read_text()
    assert "lambd_ = tilingData.lambd;" in header
    # half computes as it is there (native_dtypes): the float member becomes the compute type
    assert re.search(r"Compares\(\w+, \w+, static_cast<ComputeT>\(lambd_\), CMPMODE::LE,\s+cmpCount\);", header)
    assert "0.5f, CMPMODE" not in header
    data = (op / "op_kernel/arch35/hard_shrink_grad_tiling_data.h").read_text()
    assert re.search(r"float lambd; +// attr lambd", data)  # clang-formatted


def test_golden_st_rows_and_ut_contexts_carry_the_attrs(run, tmp_path: Path) -> None:
    op = _rendered(run, tmp_path, HARD_SIGMOID)
    golden = (op / "tests/assets/golden.py").read_text()
    assert "def hard_sigmoid_grad_golden(grads, input_x, *, alpha=0.16666666666666666, beta=0.5" in golden
    rows = list(csv.DictReader(io.StringIO(next((op / "tests/st").rglob("*.csv")).read_text())))
    settings = {r["attributes"] for r in rows}
    assert "{'alpha': 0.16666666666666666, 'beta': 0.5}" in settings
    assert len(settings) == 2  # the defaults and the checked setting
    ut = next((op / "tests/ut/op_host").rglob("test_hard_sigmoid_grad_tiling.cpp")).read_text()
    assert '{"beta", Ops::NN::AnyValue::CreateFrom<float>(0.5f)}' in ut
    assert "_attrs_0)" in ut  # the case at the non-default setting


def test_proto_and_def_defaults_may_differ(run, tmp_path: Path) -> None:
    op = _rendered(run, tmp_path, HARD_SIGMOID)
    assert ".ATTR(alpha, Float, 0.16666666f)" in (op / "op_graph/hard_sigmoid_grad_proto.h").read_text()
    assert 'Attr("alpha").AttrType(OPTIONAL).Float(0.16666666666666666f)' in (
        op / "op_host/hard_sigmoid_grad_def.cpp").read_text()


def test_a_recipe_that_ignores_the_attr_fails_only_at_the_checked_setting(tmp_path: Path) -> None:
    spec = _spec(tmp_path, HARD_SHRINK, "dead = le(mag, lambd)", "dead = le(mag, 0.5)")
    results = check_numerics(spec, build_plan(spec, "hard_shrink_grad.yaml"))
    failing = {r.sample for r in results if r.failures}
    assert failing and all("lambd=" in s for s in failing), failing
    assert any(not r.failures and "lambd=" not in r.sample for r in results)


def test_the_shipped_recipe_passes_at_both_settings(tmp_path: Path) -> None:
    spec = _spec(tmp_path, HARD_SHRINK)
    results = check_numerics(spec, build_plan(spec, "hard_shrink_grad.yaml"))
    assert {r.sample for r in results} >= {"random", "edge", "random lambd=1.0", "edge lambd=1.0"}
    assert not [r for r in results if r.failures]


def test_classic_tiling_data_lays_out_the_attr_fields_as_c_does(tmp_path: Path) -> None:
    spec = _spec(tmp_path, HARD_SIGMOID)
    plan = build_plan(spec, "hard_sigmoid_grad.yaml")
    data = classic_tiling_bytes((1, 2, 3, 4), plan.scalars, {"alpha": 0.25, "beta": 0.5})
    assert len(data) == 40  # four uint64, then two floats sharing the fifth 8-byte word
    assert np.frombuffer(data[32:], dtype="<f4").tolist() == [0.25, 0.5]


def _problems(run, tmp_path: Path, source: Path, old: str, new: str) -> str:
    spec = copy_spec(source, tmp_path, lambda t: t.replace(old, new))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2 and "Traceback" not in result.err, result
    assert snapshot(tmp_path / "out") == {}
    return result.err


def test_a_bool_attr_where_a_number_stands_is_refused(run, tmp_path: Path) -> None:
    err = _problems(run, tmp_path, HARD_SHRINK, "{name: lambd, type: float, default: 0.5,",
                    "{name: lambd, type: bool, default: false,")
    assert "attr 'lambd' is a bool, not a number" in err


def test_an_attr_where_a_tensor_stands_is_refused(run, tmp_path: Path) -> None:
    err = _problems(run, tmp_path, HARD_SHRINK, "mag = abs(features)", "mag = abs(lambd)")
    assert "needs a value where attr 'lambd' stands" in err


def test_a_check_value_equal_to_the_default_is_refused(run, tmp_path: Path) -> None:
    err = _problems(run, tmp_path, SWISH, "check_value: 0.5", "check_value: 1.0")
    assert re.search(r"attrs\[0\]\.check_value: 1\.0 is the default", err)


def test_a_proto_only_attr_is_in_the_proto_and_nowhere_the_def_feeds(run, tmp_path: Path) -> None:
    op = _rendered(run, tmp_path, SCHEMAS / "sigmoid_grad.yaml")
    assert ".ATTR(complex_conj, Bool, false)" in (op / "op_graph/sigmoid_grad_proto.h").read_text()
    for rel in ("op_host/sigmoid_grad_def.cpp", "op_host/config/ascend950/sigmoid_grad_binary.json",
                "op_api/sigmoid_grad.cpp", "op_api/aclnn_sigmoid_backward.cpp", "tests/assets/golden.py"):
        assert "complex" not in (op / rel).read_text().replace("Complex", ""), rel


def test_a_proto_only_attr_the_recipe_reads_is_refused_naming_the_fix(run, tmp_path: Path) -> None:
    spec = copy_spec(HARD_SHRINK, tmp_path, lambda t: t.replace("attr_type: null,", "proto_only: true,"))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2 and not (tmp_path / "out").exists()
    assert "attrs[0].proto_only: lambd is registered in the proto only, but a recipe step reads it and an aclnn " \
           "scalar sets it; register it in the def too (drop proto_only)" in result.err


def test_a_tiling_bound_on_the_wrong_attr_is_refused_naming_the_fix(run, tmp_path: Path) -> None:
    elu = SCHEMAS / "elu_grad_v2.yaml"
    spec = copy_spec(elu, tmp_path, lambda t: t.replace("    min_when: is_result\n", "    min_when: scale\n"))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2 and "attrs[0].min_when: 'scale' is not the bool attr choosing the math" in result.err
    (tmp_path / "b").mkdir()
    spec = copy_spec(elu, tmp_path / "b", lambda t: t.replace("    min: 0  #", "    #"))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2 and "attrs[0].min_when: says when min applies, but there is no min" in result.err
    assert not (tmp_path / "out").exists()


def test_a_derived_check_value_stays_within_its_type(run, tmp_path: Path) -> None:
    """A float attr's default near float32's top and an int's at int64's top: the derived non-default values
    step the other way (halved, one down) instead of overflowing, in the UTs and ST rows, with no warning."""
    spec = copy_spec(HARD_SHRINK, tmp_path, lambda t: t.replace(
        "{name: lambd, type: float, default: 0.5,", "{name: lambd, type: float, default: 3.4e38,").replace(
        "attrs:\n", "attrs:\n  - {name: steps, type: int, default: 9223372036854775807, doc: An int at its top.}\n", 1))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 0, result.err
    assert "Warning" not in result.err and "overflow" not in result.err, result.err
    text = "\n".join(data.decode(errors="replace") for data in snapshot(tmp_path / "out").values())
    assert "6.8e+38" not in text and "9223372036854775808" not in text
    lambds = {float(v) for v in re.findall(r"'lambd': ([^,}]+)", text)}  # the ST rows' settings
    assert len(lambds) == 2 and all(v <= np.finfo(np.float32).max for v in lambds), lambds
    assert "9223372036854775806" in text  # steps one below its default
