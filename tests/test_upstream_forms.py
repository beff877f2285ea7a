"""The spec says what upstream registers (issue 21): lowerCamel IR names, proto types as upstream writes them, def
calls and flags, the aclnn parameter order and unused tensors. Each form renders where upstream has it, and a
form that cannot be right is one clear problem (exit 2, nothing written)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import SAMPLES, SCHEMAS, copy_spec, snapshot

from opgen.check.items import FAIL
from opgen.check.runner import run_checks
from opgen.upstream import parse_op_dir

ELU = SCHEMAS / "elu_grad_v2.yaml"
GELU_V2 = SCHEMAS / "gelu_grad_v2.yaml"


def _text(rel: str) -> str:
    return (SAMPLES / rel).read_text(encoding="utf-8")


def test_samples_carry_upstreams_forms() -> None:
    facts = parse_op_dir(SAMPLES / "activation/hard_swish_grad_v2")
    assert facts.proto is not None and facts.proto.tensors[0].name == "gradOutput"
    assert facts.definition is not None and facts.definition.tensors[0].flags == {"AutoContiguous": ""}
    assert "-DDTYPE_GRADOUTPUT=bfloat16_t" in _text("activation/hard_swish_grad_v2/tests/ut/op_kernel/CMakeLists.txt")
    proto = _text("activation/gelu_grad_v2/op_graph/gelu_grad_v2_proto.h")
    assert '.INPUT(dy, "T")' in proto and ".DATATYPE(T, TensorType({DT_BF16, DT_FLOAT16, DT_FLOAT}))" in proto
    assert ".INPUT(grads, TensorType({FloatingDataType, DT_BF16}))" in _text(
        "activation/elu_grad/op_graph/elu_grad_proto.h")
    assert "PrecisionReduceFlag" not in _text("activation/elu_grad_v2/op_host/elu_grad_v2_def.cpp")
    header = " ".join(_text("activation/elu_grad_v2/op_api/aclnn_elu_backward.h").split())
    assert ("aclnnEluBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclScalar* alpha, const aclScalar* "
            "scale, const aclScalar* inputScale, bool isResult, const aclTensor* selfOrResult, aclTensor* gradInput,"
            ) in header
    assert 'this->Attr("lambd").Float(0.5f);' in _text("activation/hard_shrink_grad/op_host/hard_shrink_grad_def.cpp")
    tiling = _text("activation/hard_shrink_grad/op_host/arch35/hard_shrink_grad_tiling_arch35.cpp")
    assert "OP_CHECK_NULL_WITH_CONTEXT(tilingContext, lambdAttr);" in tiling and "lambdAttr != nullptr" not in tiling
    assert (SAMPLES / "activation/logsigmoid_grad/op_kernel/logsigmoid_grad.cpp").is_file()
    assert '.ExtendCfgInfo("opFile.value", "logsigmoid_grad")' in _text(
        "activation/logsigmoid_grad/op_host/logsigmoid_grad_def.cpp")
    infer = _text("activation/softsign_grad/op_host/softsign_grad_infershape.cpp")
    assert ".InferShape(Ops::Base::InferShape4Elewise).InferDataType(InferDataTypeSoftsignGrad);" in infer
    assert "context->GetInputDataType(0)" in infer and "context->SetOutputDataType(0, dtype)" in infer
    elu = _text("activation/elu_grad_v2/op_api/aclnn_elu_backward.cpp")
    assert "OP_CHECK_RESULT_DTYPE_CAST_FAILED(gradOutput->GetDataType(), gradInput->GetDataType()" in elu
    assert "l0op::Cast(l0Result, gradInput->GetDataType(), opExecutor)" in elu
    assert "OP_CHECK_DTYPE_NOT_SAME(gradOutput, gradInput" not in elu
    gelu = _text("activation/gelu_grad_v2/op_api/aclnn_gelu_backward_v2.cpp")
    assert "op::PromoteType(gradOutput->GetDataType(), self->GetDataType())" in gelu
    wrapper = _text("activation/logsigmoid_grad/op_api/aclnn_logsigmoid_backward.cpp")
    assert "OP_CHECK_NULL(buffer, return false);" in wrapper and "bufferContiguous" not in wrapper


def test_the_api_order_reaches_the_example_and_the_ut() -> None:
    example = " ".join(_text("activation/elu_grad_v2/examples/test_aclnn_elu_backward.cpp").split())
    assert "aclnnEluBackwardGetWorkspaceSize(gradOutput, alpha, scale, inputScale, isResult, selfOrResult, " \
           "gradInput," in example
    ut = " ".join(_text("activation/elu_grad_v2/tests/ut/op_api/test_aclnn_elu_backward.cpp").split())
    assert "INPUT(gradOutputDesc, alphaDesc, scaleDesc, inputScaleDesc, false, selfOrResultDesc)" in ut


def test_a_mixed_proto_list_lacking_a_def_dtype_fails_consistency(tmp_path: Path) -> None:
    import shutil

    tree = Path(shutil.copytree(SAMPLES / "activation/elu_grad", tmp_path / "activation/elu_grad"))
    proto = tree / "op_graph/elu_grad_proto.h"
    proto.write_text(proto.read_text().replace(".INPUT(grads, TensorType({FloatingDataType, DT_BF16}))",
                                               ".INPUT(grads, TensorType({FloatingDataType}))"), encoding="utf-8")
    report = run_checks(tree, SCHEMAS / "elu_grad.yaml", tiers=("consistency",))
    failed = [i for t in report.tiers for i in t.items if i.status == FAIL]
    assert [i.item for i in failed] == ["proto TensorType ⊇ def"]
    assert "grads TensorType lacks bfloat16" in failed[0].reason


@pytest.mark.parametrize(("edit", "message"), [
    (lambda t: t.replace("  order: [gradOutput, alpha, scale, inputScale, isResult, selfOrResult]",
                         "  order: [gradOutput, alpha, scale, inputScale, isResult]"),
     "aclnn.order: list each input and scalar parameter once"),
    (lambda t: t.replace("    - {name: gradInput, tensor: y}", "    - {name: gradInput, tensor: y, unused: true}"),
     "aclnn.outputs[0].unused: only an input can be unused"),
    (lambda t: t.replace("  - name: grads\n", "  - name: Grads\n", 1), "must be a snake_case or lowerCamelCase"),
    (lambda t: t.replace("  input: activations\n", "  input: activations\n  datatype_from: y\n", 1),
     "infershape.datatype_from: not an input: one of activations, grads"),
])
def test_a_form_that_cannot_be_right_is_one_clear_problem(run, tmp_path: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    spec = copy_spec(ELU, tmp_path, edit)
    assert spec.read_text() != ELU.read_text()
    out = tmp_path / "out"
    result = run("gen", spec, "-o", out)
    assert result.code == 2, result
    assert message in " ".join(result.err.split()), result.err
    assert "Traceback" not in result.err and snapshot(out) == {}


def test_one_datatype_symbol_needs_equal_proto_types(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spec = copy_spec(GELU_V2, tmp_path, lambda t: t.replace("    dtypes: [bfloat16, float16, float32]\n",
                                                             "    dtypes: [bfloat16, float16, float32]\n"
                                                             "    proto_dtypes: RealNumberType\n", 1))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2, result
    assert "proto_symbol: one DATATYPE symbol needs every tensor's proto type equal" in " ".join(result.err.split())


def test_aclnn_type_reaches_cmake(tmp_path: Path) -> None:
    from opgen.generate import render_specs

    def edit(text: str) -> str:
        return text.replace("category: activation\n", "category: activation\naclnn_type: aclnn\n")

    spec = copy_spec(SCHEMAS / "elu_grad.yaml", tmp_path, edit)
    [op] = render_specs([spec])
    cmake = next(text for path, text in op.files.items() if path.endswith("CMakeLists.txt") and b"ACLNNTYPE" in text)
    assert b"ACLNNTYPE aclnn " in cmake


@pytest.mark.parametrize(("old", "new"), [("grad_x", "result"), ("grad_x", "outputs"), ("y", "dim")])
def test_upstream_names_the_generated_code_once_used_are_expressible(tmp_path: Path, old: str, new: str) -> None:
    """Tensors named as upstream names some (result, outputs, dim): opgen's own identifiers no longer take these
    names, so the tree renders and its offline tiers pass."""
    import re

    spec = copy_spec(SCHEMAS / "swish_grad.yaml", tmp_path, lambda t: re.sub(rf"\b{old}\b", new, t))
    report = run_checks_on(spec, tmp_path / "out")
    assert [i.item for t in report.tiers for i in t.items if i.status == FAIL] == []


def run_checks_on(spec: Path, out: Path):  # type: ignore[no-untyped-def]
    from opgen.generate import render_specs, write_ops

    write_ops(out, render_specs([spec]), force=False, record_dir=out.parent / "records")
    return run_checks(out / "activation" / "swish_grad", spec, tiers=("structure", "syntax", "consistency", "numerics"))


def test_a_proto_name_other_than_the_defs_renders_and_passes(tmp_path: Path) -> None:
    """As upstream ThresholdGradV2D: the REG_OP names its input gradients, the def gradOutput."""
    spec = copy_spec(SCHEMAS / "swish_grad.yaml", tmp_path,
                     lambda t: t.replace("  - name: grad\n", "  - name: grad\n    proto_name: dy\n", 1))
    report = run_checks_on(spec, tmp_path / "out")
    assert [i.item for t in report.tiers for i in t.items if i.status == FAIL] == []
    op = tmp_path / "out" / "activation" / "swish_grad"
    assert ".INPUT(dy, " in (op / "op_graph/swish_grad_proto.h").read_text()
    assert 'this->Input("grad")' in (op / "op_host/swish_grad_def.cpp").read_text()
    assert "node.set_input_dy(gradData);" in (op / "examples/test_geir_swish_grad.cpp").read_text()
    proto = op / "op_graph/swish_grad_proto.h"
    proto.write_text(proto.read_text().replace(".INPUT(dy, ", ".INPUT(grad, "), encoding="utf-8")
    report = run_checks(op, spec, tiers=("consistency",))
    failed = {i.item: i.reason for t in report.tiers for i in t.items if i.status == FAIL}
    assert "inputs (grad, x, y), the def (dy, x, y)" in failed["proto TensorType ⊇ def"]
