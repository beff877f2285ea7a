"""`opgen new`: a new op's spec and tree from a similar spec, renamed throughout."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import GELU, RELU, snapshot
from ruamel.yaml import YAML

from opgen.generate import render_specs
from opgen.newop import derive_spec
from opgen.spec.load import load_spec


def test_new_swish_grad_like_gelu_grad_has_no_leftover_gelu_names(run, tmp_path: Path) -> None:
    schemas, out = tmp_path / "schemas", tmp_path / "out"
    result = run("new", "SwishGrad", "--like", GELU, "--schemas", schemas, "-o", out)
    assert result.code == 0, result.err
    spec = load_spec(schemas / "swish_grad.yaml").spec
    assert (spec.op_type, spec.snake_name, spec.aclnn.api) == ("SwishGrad", "swish_grad", "SwishBackward")
    assert spec.compute == load_spec(GELU).spec.compute  # the recipe is kept for the user to rewrite
    tree = snapshot(out / "experimental/activation/swish_grad")
    assert "op_kernel/swish_grad.h" in tree and "op_host/op_api/aclnn_swish_backward.cpp" in tree
    leftovers = [(path, line) for path, data in tree.items() for line in data.decode().splitlines()
                 if re.search("gelu", path + line, re.IGNORECASE)]
    assert leftovers == []
    assert "REG_OP(SwishGrad)" in tree["op_graph/swish_grad_proto.h"].decode()


def test_new_can_move_the_op_to_another_category_and_out_of_experimental(run, tmp_path: Path) -> None:
    args = ("--like", RELU, "--category", "loss", "--no-experimental", "--schemas", tmp_path, "-o", tmp_path / "o")
    assert run("new", "MaskedGradV3", *args).code == 0
    assert (tmp_path / "o/loss/masked_grad_v3/op_kernel/masked_grad_v3_apt.cpp").is_file()


def test_new_refuses_bad_names_and_existing_specs(run, tmp_path: Path) -> None:
    for bad in ("swish_grad", "../Evil", "Swish Grad", "Swish/Grad"):
        result = run("new", bad, "--schemas", tmp_path, "-o", tmp_path / "o")
        assert result.code == 2 and "CamelCase" in result.err, (bad, result)
    assert run("new", "SwishGrad", "--schemas", tmp_path, "-o", tmp_path / "o").code == 0
    before = snapshot(tmp_path)
    result = run("new", "SwishGrad", "--schemas", tmp_path, "-o", tmp_path / "o")
    assert result.code == 2 and "already exists" in result.err
    assert snapshot(tmp_path) == before


def test_the_docs_walk_through_recipe_is_a_valid_spec(tmp_path: Path) -> None:
    """The SiLU-gradient steps docs/new-op.md tells users to paste must validate and render."""
    readme = (Path(__file__).resolve().parent.parent / "docs" / "new-op.md").read_text(encoding="utf-8")
    block = readme.split("Edit `compute.variants`", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    steps = [line.strip()[2:] for line in block.splitlines() if line.strip().startswith("- ")]
    assert steps and steps[-1] == "z = mul(g, dy)"
    yaml = YAML(typ="rt")
    data = yaml.load(derive_spec(GELU, "SwishGrad", category=None, experimental=None).text)
    for variant in data["compute"]["variants"]:
        data["compute"]["variants"][variant] = list(steps)  # one list each: a shared one dumps as an alias
    path = tmp_path / "swish_grad.yaml"
    with path.open("w", encoding="utf-8") as out:
        yaml.dump(data, out)
    op = render_specs([path])[0]
    assert "Reciprocal(" in op.files["op_kernel/swish_grad.h"].decode()


def test_a_new_op_s_numerics_fail_until_its_forward_function_is_written(run, tmp_path: Path) -> None:
    schemas, out = tmp_path / "schemas", tmp_path / "out"
    assert run("new", "SwishGrad", "--like", GELU, "--schemas", schemas, "-o", out).code == 0
    spec_path = schemas / "swish_grad.yaml"
    text = spec_path.read_text(encoding="utf-8")
    assert "forward:  # fill in the forward function" in text and "wrt: x" in text and "grad: dy" in text
    op_dir = out / "experimental/activation/swish_grad"
    result = run("check", op_dir, "--spec", spec_path)
    assert result.code == 1 and "numerics unchecked: no reference" in result.out
    spec_path.write_text(text.replace("forward:  #", "forward: 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * "
                                      "x^3)))  #"), encoding="utf-8")  # the recipe is still GeluGrad's
    result = run("check", op_dir, "--spec", spec_path)
    assert result.code == 0, result.out


def test_new_renames_whole_identifiers_in_every_case_form_comments_and_docs_included(run, tmp_path: Path) -> None:
    like = tmp_path / "like" / "gelu_grad.yaml"
    like.parent.mkdir()
    text = GELU.read_text(encoding="utf-8")
    text = text.replace("\nop_type:", "\n# geluGrad and GELU_GRAD live beside GeluGradV2 and gelu_grad_v2\nop_type:", 1)
    text = text.replace("\ncompute:", "\ncompute:\n  # the GeluGrad recipe, in aclnnGeluBackward's terms", 1)
    like.write_text(text, encoding="utf-8")
    schemas, out = tmp_path / "schemas", tmp_path / "out"
    assert run("new", "SwishGrad", "--like", like, "--schemas", schemas, "-o", out).code == 0
    written = (schemas / "swish_grad.yaml").read_text(encoding="utf-8")
    assert "# swishGrad and SWISH_GRAD live beside GeluGradV2 and gelu_grad_v2" in written
    assert "# the SwishGrad recipe, in aclnnSwishBackward's terms" in written
    assert "brief: Computes the gradient of the tanh-approximated SWISH." in written
    assert not re.search(r"GeluGrad(?!V2)|gelu_grad(?!_v2)|GELU_GRAD", written)
