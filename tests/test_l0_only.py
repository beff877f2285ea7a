"""`l0_op`: an op that ships its l0 op (op_api/<op>.h, .cpp) for an aclnn API declared in another op's dir, as
upstream activation/relu_grad does: the l0 files and nothing of an API of its own."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from conftest import Result, copy_spec

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


def _l0_only(run: Callable[..., Result], tmp_path: Path, source: str) -> Path:
    spec = copy_spec(SCHEMAS / source, tmp_path, lambda text: text.replace("category: activation\n",
                                                                           "category: activation\nl0_op: true\n"))
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    return next((tmp_path / "out").glob("activation/*"))


def test_an_l0_only_op_has_the_l0_files_and_no_api_of_its_own(run: Callable[..., Result], tmp_path: Path) -> None:
    op_dir = _l0_only(run, tmp_path, "relu_grad_v2.yaml")
    files = {p.relative_to(op_dir).as_posix() for p in op_dir.rglob("*") if p.is_file()}
    assert {"op_api/relu_grad_v2.h", "op_api/relu_grad_v2.cpp"} <= files
    assert not [f for f in files if "aclnn" in f.lower() or f.startswith(("docs/", "tests/ut/op_api"))]
    l0 = (op_dir / "op_api/relu_grad_v2.cpp").read_text(encoding="utf-8")
    assert "const aclTensor* ReluGradV2(const aclTensor* gradients, const aclTensor* mask, aclOpExecutor* executor)" \
        in l0
    assert "ADD_TO_LAUNCHER_LIST_AICORE(ReluGradV2, OP_INPUT(gradients, mask), OP_OUTPUT(backprops))" in l0


def test_an_l0_only_op_with_attrs_passes_them_in_def_order(run: Callable[..., Result], tmp_path: Path) -> None:
    spec = copy_spec(SCHEMAS / "hard_sigmoid_grad.yaml", tmp_path,
                     lambda text: text[:text.index("\naclnn:")] + "\nl0_op: true\n" + text[text.index("\ngolden:"):])
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    op_dir = tmp_path / "out/activation/hard_sigmoid_grad"
    l0 = (op_dir / "op_api/hardsigmoid_grad.cpp").read_text(encoding="utf-8")
    assert "float alpha, float beta," in l0 and "OP_ATTR(alpha, beta)" in l0
    assert run("check", op_dir, "--tier", "consistency").code == 0
    (op_dir / "op_api/hardsigmoid_grad.cpp").write_text(l0.replace("OP_ATTR(alpha, beta)", "OP_ATTR(beta, alpha)"),
                                                         encoding="utf-8")
    swapped = run("check", op_dir, "--tier", "consistency", "--json")
    assert swapped.code == 1 and "OP_ATTR(beta, alpha), the def's attrs in order are (alpha, beta)" in swapped.out


def test_the_l0_compiles_against_opbase(run: Callable[..., Result], tmp_path: Path, cann_src: Path) -> None:
    op_dir = _l0_only(run, tmp_path, "relu_grad_v2.yaml")
    result = run("check", op_dir, "--cann-src", cann_src, "--tier", "headers", "--json")
    [tier] = [t for t in json.loads(result.out)["tiers"] if t["tier"] == "headers"]
    rows = {i["item"]: i["status"] for i in tier["items"]}
    assert rows.get("op_api/relu_grad_v2.cpp (op_api)") == "pass", rows
