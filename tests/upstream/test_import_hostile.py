"""`opgen import` of op dirs it cannot carry over: one message at the file (and line) with what is missing, exit 2,
no traceback and no spec written; and the values it does carry over kept exactly (ints, strings), from the
registrations the compiler sees (not `#if 0` ones), never read through a link leading out of the op dir."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT, Result
from ruamel.yaml import YAML

from opgen.spec.load import load_spec

SAMPLE = ROOT / "generated_samples/activation/elu_grad_v2"
DEF = "op_host/elu_grad_v2_def.cpp"
HEADER = "op_api/aclnn_elu_backward.h"
Run = Callable[..., Result]


def _op(tmp_path: Path, rel: str, old: str, new: str) -> Path:
    """A copy of the EluGradV2 sample with every `old` replaced by `new` in its file `rel`."""
    op_dir = tmp_path / "ops-nn/activation/elu_grad_v2"
    shutil.copytree(SAMPLE, op_dir)
    text = (op_dir / rel).read_text()
    assert old in text, old
    (op_dir / rel).write_text(text.replace(old, new))
    return op_dir


def _refused(run: Run, op_dir: Path, tmp_path: Path, where: str, *parts: str) -> None:
    spec = tmp_path / "spec.yaml"
    result = run("import", op_dir, "-o", spec)
    assert result.code == 2, result.err
    assert result.err.startswith(f"error: {op_dir / where}"), result.err
    assert all(part in result.err for part in parts), result.err
    assert "Traceback" not in result.err and not spec.exists()


ATTR = 'this->Attr("is_result")'


@pytest.mark.parametrize(("rel", "old", "new", "where", "parts"), [
    (DEF, "Float(1.0f);\n        this->Attr(\"scale\")",
     "Float(" + "(" * 3000 + "1" + ")" * 3000 + ");\n        this->Attr(\"scale\")",
     f"{DEF}:33", ("attr 'alpha'", "nested too deep")),
    (DEF, ".Float(1.0f);\n        this->Attr(\"input_scale\")",
     ".Float(" + "-" * 5000 + "1);\n        this->Attr(\"input_scale\")", f"{DEF}:34",
     ("attr 'scale'", "nested too deep")),
    (DEF, 'this->Input("', 'this->Output("in_', DEF, ("registers no Input",)),
    (DEF, 'this->Output("y")\n            .ParamType', 'this->Input("y")\n            .ParamType', DEF,
     ("registers no Output",)),
    (HEADER, "aclTensor* ", "int* ", f"{HEADER}:36", ("takes 0 aclTensor* parameter(s)",)),
    (HEADER, "aclOpExecutor** executor);", "aclOpExecutor** executor, ...);", f"{HEADER}:36", ("variable arguments",)),
    (HEADER, "const aclScalar* alpha,", "const aclScalar*,", f"{HEADER}:36",
     ("parameter 2 (const aclScalar*) has no name",)),
    (HEADER, "(const aclTensor* gradOutput,", "(const aclTensor*,", f"{HEADER}:36",
     ("parameter 1 (const aclTensor*)",)),
    (DEF, ATTR, f'this->Attr("big").AttrType(OPTIONAL).Int(9223372036854775807 + 1);\n        {ATTR}', f"{DEF}:36",
     ("attr 'big'", "9223372036854775808, outside int64")),
])
def test_an_op_dir_import_cannot_carry_over_is_refused_at_its_file(
        run: Run, tmp_path: Path, rel: str, old: str, new: str, where: str, parts: tuple[str, ...]) -> None:
    _refused(run, _op(tmp_path, rel, old, new), tmp_path, where, *parts)


def test_one_tensor_for_one_output_leaves_no_input(run: Run, tmp_path: Path) -> None:
    op_dir = _op(tmp_path, HEADER, "(const aclTensor* gradOutput,", "(int gradOutput,")
    header = op_dir / HEADER
    header.write_text(header.read_text().replace("const aclTensor* selfOrResult", "int selfOrResult"))
    _refused(run, op_dir, tmp_path, f"{HEADER}:36", "takes 1 aclTensor*", "1 output(s) and at least one input")


DEFAULTS = (
    'this->Attr("odd").AttrType(OPTIONAL).Int(9007199254740993);\n'
    '        this->Attr("top").AttrType(OPTIONAL).Int(9223372036854775807LL);\n'
    '        this->Attr("bottom").AttrType(OPTIONAL).Int(-9223372036854775807 - 1);\n'
    '        this->Attr("third").AttrType(OPTIONAL).Int(-7 / 2);\n'
    '        this->Attr("hex").AttrType(OPTIONAL).Int(0x1F);\n'
    f"        {ATTR}"
)
TEXT = '        this->Attr("text").AttrType(OPTIONAL).String("a  b\\tc \\"q\\"\\x41\\101" "\\u00e9  ");\n'


def test_defaults_keep_their_exact_values(run: Run, tmp_path: Path) -> None:
    op_dir = _op(tmp_path, DEF, ATTR, DEFAULTS)
    spec = tmp_path / "elu_grad_v2.yaml"
    result = run("import", op_dir, "-o", spec)
    assert result.code == 0, result.err
    defaults = {a["name"]: a.get("default") for a in YAML(typ="safe").load(spec.read_text())["attrs"]}
    assert defaults["odd"] == 9007199254740993 and defaults["third"] == -3 and defaults["hex"] == 31
    assert (defaults["top"], defaults["bottom"]) == (2**63 - 1, -(2**63))
    loaded = {a.name: a.default for a in load_spec(spec).spec.attrs}  # the spec keeps them too
    assert loaded["odd"] == 9007199254740993 and loaded["top"] == 2**63 - 1


def test_a_string_default_is_its_literal_decoded_as_cpp_does(run: Run, tmp_path: Path) -> None:
    result = run("import", _op(tmp_path, DEF, ATTR, TEXT + f"        {ATTR}"))
    assert result.code == 0, result.err
    defaults = {a["name"]: a.get("default") for a in YAML(typ="safe").load(result.out)["attrs"]}
    assert defaults["text"] == 'a  b\tc "q"AA\u00e9  '  # spaces kept, escapes decoded, adjacent literals joined


def test_registrations_under_if_0_are_not_imported(run: Run, tmp_path: Path) -> None:
    op_dir = _op(tmp_path, DEF, ATTR, (
        '#if 0\n        this->Attr("gone").AttrType(OPTIONAL).Int(1);\n#else\n'
        '        this->Attr("kept").AttrType(OPTIONAL).Int(2);\n#endif\n'
        '#if 1\n        this->Attr("one").AttrType(OPTIONAL).Int(3);\n#else\n'
        '        this->Attr("not_one").AttrType(OPTIONAL).Int(4);\n#endif\n'
        f'#ifdef SOME_FLAG\n        this->Attr("maybe").AttrType(OPTIONAL).Int(5);\n#endif\n        {ATTR}'))
    result = run("import", op_dir)
    assert result.code == 0, result.err
    names = [a["name"] for a in YAML(typ="safe").load(result.out)["attrs"]]
    assert names == ["alpha", "scale", "input_scale", "kept", "one", "maybe", "is_result"]


def test_a_def_linked_out_of_the_op_dir_is_refused_unread(run: Run, tmp_path: Path) -> None:
    op_dir = _op(tmp_path, DEF, ATTR, ATTR)
    outside = tmp_path / "elsewhere_def.cpp"
    shutil.move(op_dir / DEF, outside)
    os.symlink(outside, op_dir / DEF)
    _refused(run, op_dir, tmp_path, DEF, f"is a symlink to {outside}", "outside the op dir")


def test_a_link_inside_the_op_dir_is_read(run: Run, tmp_path: Path) -> None:
    op_dir = _op(tmp_path, DEF, ATTR, ATTR)
    shutil.move(op_dir / DEF, op_dir / "op_host/real.txt")
    os.symlink("real.txt", op_dir / DEF)
    result = run("import", op_dir)
    assert result.code == 0, result.err
    assert result.out.startswith("op_type: EluGradV2\n")


INFERSHAPE = "op_host/elu_grad_v2_infershape.cpp"


@pytest.mark.parametrize("name", ["axes", "axis", "dim"])
def test_an_op_reducing_along_an_axis_is_refused_naming_it(run: Run, tmp_path: Path, name: str) -> None:
    """SoftmaxGrad's `axes`: a reduce along an axis, which opgen has no kernel for; a `dim` is a split (GLU) only
    as an Int (here a Float)."""
    op_dir = _op(tmp_path, DEF, 'this->Attr("alpha")', f'this->Attr("{name}")')
    _refused(run, op_dir, tmp_path, f"{DEF}:33", f"takes the axis attr '{name}' (Float)", "reduces its inputs",
             "no kernel for yet")


@pytest.mark.parametrize(("old", "new", "rule"), [
    ("GetInputShape(1)", "GetInputShape(0)", {"rule": "elementwise"}),  # a copy of input 0 is InferShape4Elewise
    ("", "", {"rule": "same_as_input", "input": "activations"}),
    ("InferShape(InferShapeEluGradV2)", "InferShape(Ops::Base::InferShape4Broadcast)", {"rule": "broadcast"}),
])
def test_import_reads_the_rule_upstream_infershape_follows(run: Run, tmp_path: Path, old: str, new: str,
                                                           rule: dict[str, str]) -> None:
    op_dir = _op(tmp_path, INFERSHAPE, old, new)
    spec = tmp_path / "spec.yaml"
    assert run("import", op_dir, "-o", spec).code == 0
    assert dict(YAML(typ="safe").load(spec.read_text())["infershape"]) == rule


def test_a_shape_computed_in_the_ops_own_code_is_imported_with_a_comment(run: Run, tmp_path: Path) -> None:
    op_dir = _op(tmp_path, INFERSHAPE, "    *yShape = *inputShape;\n",
                 "    yShape->SetDimNum(1);\n    yShape->SetDim(0, inputShape->GetDim(0) * 2);\n")
    spec = tmp_path / "spec.yaml"
    assert run("import", op_dir, "-o", spec).code == 0
    line = next(x for x in spec.read_text().splitlines() if x.startswith("  rule:"))
    assert line.startswith("  rule: elementwise  # imported: op_host/elu_grad_v2_infershape.cpp:17: "
                           "InferShapeEluGradV2 computes the output shape in its own code"), line


def test_a_split_op_imports_its_arch35_socs_and_names_the_classic_ones_it_leaves(run: Run, tmp_path: Path) -> None:
    """SwiGluGrad also runs on 910B with classic kernels, which opgen does not write for a split op: the import
    keeps ascend950 (arch35_split, a placeholder that splits the input infershape copies), says which SoCs it left,
    and the spec renders."""
    op_dir = tmp_path / "ops-nn/activation/glu_grad"
    shutil.copytree(ROOT / "generated_samples/activation/glu_grad", op_dir)
    definition = op_dir / "op_host/glu_grad_def.cpp"
    text = definition.read_text()
    added = '        this->AICore().AddConfig("ascend950", configAscend950);\n'
    assert added in text
    definition.write_text(text.replace(added, added + added.replace('"ascend950"', '"ascend910b"')))
    spec = tmp_path / "glu_grad.yaml"
    assert run("import", op_dir, "-o", spec).code == 0
    written = spec.read_text()
    assert "# imported: ops-nn also registers ascend910b, with classic kernels" in written
    data = YAML(typ="safe").load(written)
    assert [(p["soc"], p["kernel"]) for p in data["platforms"]] == [("ascend950", "arch35_split")]
    assert data["infershape"] == {"rule": "same_as_input", "input": "self"}
    assert data["compute"]["variants"]["default"][:2] == ["a = first_half(self, dim)", "b = second_half(self, dim)"]
    assert data["inputs"][0]["proto_name"] == "y_grad" and data["outputs"][0]["proto_name"] == "x_grad"
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
