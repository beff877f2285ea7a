"""Specs that rendered uncompilable trees while check passed: each now exits 2 naming the field and the fix.

Every case edits a sample spec the way a user would, runs `opgen gen`, and checks the message, the exit code
and that nothing was written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import GELU, RELU, copy_spec, snapshot

Edit = Callable[[str], str]


def _replace(*pairs: str) -> Edit:
    def edit(text: str) -> str:
        for old, new in zip(pairs[::2], pairs[1::2], strict=True):
            assert old in text, old
            text = text.replace(old, new)
        return text

    return edit


def _attr(kind: str, default: str) -> Edit:
    return _replace("\nplatforms:", f"\nattrs:\n  - {{name: alpha, type: {kind}, default: {default}}}\n\nplatforms:")


def _op_type(op_type: str) -> Edit:
    return _replace("op_type: GeluGrad", f"op_type: {op_type}")


def _rename_gelu_input(old: str, new: str) -> Edit:
    """Rename a GeluGrad input everywhere it is named (tensor, constraints, recipe, aclnn)."""
    def edit(text: str) -> str:
        text = re.sub(rf"(?<![\w.]){re.escape(old)}(?![\w])", new, text.split("\ndocs:")[0]) + "\ndocs:" + \
            text.split("\ndocs:")[1]
        return text

    return edit


def _live_values(count: int) -> Edit:
    """A recipe keeping `count` values live at once (each is read again at the end)."""
    steps = ["      - v0 = adds(x, 1.0)"] + [f"      - v{i} = adds(v{i - 1}, 1.0)" for i in range(1, count)]
    steps += ["      - w0 = add(v0, v1)"] + [f"      - w{i} = add(w{i - 1}, v{i + 1})" for i in range(1, count - 1)]
    steps.append(f"      - z = mul(w{count - 2}, dy)")

    def edit(text: str) -> str:
        start = text.index("    ascend910b:\n")
        end = text.index("\naclnn:")
        text = text[:start] + "    ascend910b:\n" + "\n".join(steps) + "\n" + text[end:]
        return text.replace("compute_variant: ascend310b", "compute_variant: ascend910b")

    return edit


CASES: dict[str, tuple[Path, Edit, str]] = {
    **{f"op_type {o}": (GELU, _op_type(o), rf"op_type: .*'{o.lower()}' becomes `{o.lower()}`, a C\+\+ or Python "
                                             r"keyword; pick another op_type")
       for o in ("Delete", "Class", "Int", "Float", "Return", "Template")},
    **{f"op_type {o}": (GELU, _op_type(o), rf"op_type: the derived dir name '{o.lower()}' is a reserved device name")
       for o in ("Con", "Nul")},
    **{f"op_type {o}": (GELU, _op_type(o), rf"op_type: {h}\.h is a system or CANN header, and the op's "
                                             rf"own {h}\.h .* would be included in its place; pick another op_type")
       for o, h in (("Errno", "errno"), ("Math", "math"), ("Time", "time"), ("Stdint", "stdint"),
                    ("Limits", "limits"), ("Memory", "memory"), ("KernelOperator", "kernel_operator"))},
    "aclnn api Util": (GELU, _replace("api: GeluBackward", "api: Util"),
                       r"aclnn\.api: the API's header aclnn_util\.h would be included instead of CANN's"),
    "op_type OpDef": (GELU, _op_type("OpDef"), r"op_type: 'OpDef' is a class or function the generated code"),
    "64-char op_type": (GELU, _op_type("Ab" * 32), r"op_type: the derived dir and file name 'ab_ab.*' has 95 chars, "
                                                    r"more than 64"),
    **{f"tensor {n}": (GELU, _rename_gelu_input("y", n), rf"inputs\[2\]\.name: '{n}' becomes `{n}`, a .*; rename "
                                                          r"the tensor")
       for n in ("workspace", "tiling", "this", "pipe", "offset")},
    "x1 and x_1": (GELU, lambda t: _rename_gelu_input("y", "x_1")(_rename_gelu_input("x", "x1")(t)),
                   r"inputs\[2\]\.name: 'x_1' and 'x1' \(inputs\[1\]\.name\) both become `x1`"),
    "arch35 a_1 and a1": (RELU, _replace("- backprops = select(mask, gradients, 0)",
                                         "- a_1 = abs(gradients)\n      - a1 = abs(a_1)\n"
                                         "      - backprops = select(mask, a1, 0)"),
                          r"compute\.variants\.default\[1\]: 'a1' and 'a_1' .* both become `OpCalcA1`"),
    **{f"aclnn {n}": (GELU, _replace("{name: gradInput, tensor: z}", f"{{name: {n}, tensor: z}}"),
                      rf"aclnn\.outputs\[0\]\.name: '{n}' becomes `{n}`.*rename the API parameter")
       for n in ("executor", "workspaceSize")},
    "recipe value np": (GELU, _replace("- xl = maxs(x,", "- np = maxs(x,", "mins(xl,", "mins(np,"),
                        r"compute\.variants\.ascend910b\[0\]: np = maxs.*golden\.py would assign `np`"),
    "recipe value lambda": (GELU, _replace("- xl = maxs(x,", "- lambda = maxs(x,", "mins(xl,", "mins(lambda,"),
                            r"golden\.py would assign `lambda`, a Python keyword"),
    "attr nan": (GELU, _attr("float", ".nan"), r"attrs\[0\]\.default: nan is not a finite float32"),
    "attr inf": (GELU, _attr("float", "-.inf"), r"attrs\[0\]\.default: -inf is not a finite float32"),
    "attr true for int": (GELU, _attr("int", "true"), r"attrs\[0\]\.default: true is not an integer"),
    "attr 1.5 for int": (GELU, _attr("int", "1.5"), r"attrs\[0\]\.default: 1\.5 is not an integer"),
    "attr 3 for bool": (GELU, _attr("bool", "3"), r"attrs\[0\]\.default: 3 is not a bool; write true or false"),
    "tiling_key too big": (GELU, _replace("tiling_key: 1", "tiling_key: 100000000000000000000"),
                           r"platforms\[1\]\.tiling_key: Input should be less than or equal to 4294967295"),
    "negative sch_mode": (RELU, _replace("sch_modes: [0, 1]", "sch_modes: [-1, 0]"),
                          r"tiling\.sch_modes\[0\]: Input should be greater than or equal to 0"),
    "huge sch_mode": (RELU, _replace("sch_modes: [0, 1]", "sch_modes: [0, 4096]"),
                      r"tiling\.sch_modes\[1\]: Input should be less than or equal to 255"),
    "200 live values": (GELU, _live_values(200), r"platforms\[0\]\.compute_variant: the recipe does not fit "
                                                 r"ascend910b's UB \(192 KiB free for tiles\).*keep fewer values live"),
    "infinite value_range": (RELU, _replace("value_range: [-1.0, 1.0]", "value_range: [-.inf, 1.0]"),
                             r"tests\.value_range\[0\]: Input should be a finite number"),
    "nan value_range": (RELU, _replace("value_range: [-1.0, 1.0]", "value_range: [.nan, 1.0]"),
                        r"tests\.value_range\[0\]: Input should be a finite number"),
    "float16 value_range": (GELU, _replace("value_range: [-5.0, 5.0]", "value_range: [-1.0e6, 5.0]"),
                            r"tests\.value_range: \[-1000000\.0, 5\.0\] exceeds what float16 inputs hold"),
    "huge test shape": (RELU, _replace("- [47, 40]", "- [65536, 65536, 8]"),
                        r"tests\.shapes\[0\]: 34359738368 elements; a test shape has at most 4194304"),
    "many big test shapes": (RELU, _replace("- [47, 40]", "- [4096, 1024]\n    - [4096, 1024]\n    - [4096, 1024]\n"
                                            "    - [4096, 1024]\n    - [4096, 1024]"),
                             r"tests\.shapes: \d+ elements in all; the test shapes together have at most "
                             r"16777216"),
    "constant beyond float32": (GELU, _replace("maxs(x, -10000.0)", "maxs(x, -1.0e39)"),
                                r"constant -1e\+39 does not fit float32"),
    "constant beyond int8": (RELU, _replace("select(mask, gradients, 0)", "select(mask, gradients, 300)"),
                             r"constant 300\.0 does not fit int8, uint8"),
    "native_dtypes beside native": (RELU, _replace("  dtype: native\n",
                                                   "  dtype: native\n  native_dtypes: [float16]\n"),
                                    r"compute\.native_dtypes: computes some dtypes natively.*set compute\.dtype: "
                                    r"float32"),
    "native_dtypes of a DAG": (RELU, _replace("  dtype: native\n", "  dtype: float32\n  native_dtypes: [float16]\n"),
                               r"compute\.native_dtypes: only classic kernels compute some dtypes natively; "
                               r"ascend950, ascend350 use an atvoss DAG"),
    "native constant beyond float16": (GELU, _replace("  dtype: float32\n", "  dtype: float32\n  native_dtypes: "
                                                      "[float16]\n", "maxs(x, -10000.0)", "maxs(x, -1.0e5)"),
                                       r"constant -100000\.0 does not fit float16"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_spec_that_would_render_an_uncompilable_tree_is_refused(run, tmp_path: Path, case: str) -> None:
    source, edit, pattern = CASES[case]
    spec = copy_spec(source, tmp_path, edit)
    out = tmp_path / "out"
    result = run("gen", spec, "-o", out)
    assert result.code == 2, result
    assert "Traceback" not in result.err
    assert snapshot(out) == {}
    assert re.search(pattern, result.err), result.err
    assert re.search(rf"{spec.name}:\d+: ", result.err), result.err  # file:line


def test_float_attr_with_an_integer_default_prints_a_float_literal(run, tmp_path: Path) -> None:
    spec = copy_spec(GELU, tmp_path, _attr("float", "1"))
    assert run("gen", spec, "-o", tmp_path / "out").code == 0
    proto = next((tmp_path / "out").rglob("gelu_grad_proto.h")).read_text()
    assert ".ATTR(alpha, Float, 1.0f)" in proto


def test_the_budget_check_costs_what_the_tiling_divides_ub_by() -> None:
    """The refusal uses the same per-element bits the rendered classic tiling prints in TILE_BUDGETS."""
    from opgen.plan import build_plan
    from opgen.plan.kernel.budget import platform_element_bits
    from opgen.spec.load import parse_spec

    spec = parse_spec(_live_values(40)(GELU.read_text(encoding="utf-8")), "fits.yaml")
    costed = {case.bits for _, case in platform_element_bits(spec)}
    assert costed == {case.bits for case in build_plan(spec, "fits.yaml").classic_dtype_cases}
    assert max(costed) > 32 * 40  # forty live float values, plus the queues


def test_the_longest_accepted_names_render_a_consistent_tree(tmp_path: Path) -> None:
    """A 64-char op type and API (64-char derived names): no #define is wrapped, and syntax and consistency pass."""
    from opgen.check.consistency import consistency_tier
    from opgen.check.syntax_tier import syntax_tier
    from opgen.generate import render_specs
    from opgen.write import write_trees

    long_type, long_api = "A" + "b" * 63, "C" + "d" * 63
    spec = copy_spec(GELU, tmp_path, _replace("op_type: GeluGrad", f"op_type: {long_type}",
                                              "api: GeluBackward", f"api: {long_api}"))
    [op] = render_specs([spec])
    write_trees(tmp_path / "out", {op.plan.rel_dir: op.files}, force=False)
    op_dir = tmp_path / "out" / op.plan.rel_dir
    assert len(op.plan.name) == 64
    wrapped = [(rel, line) for rel, data in op.files.items() if rel.endswith((".h", ".cpp"))
               for line in data.decode().splitlines() if line.startswith(("#define", "#endif", "#ifndef"))
               and ((line.endswith("\\") and long_type.lower() in line) or len(line) > 120)]
    assert wrapped == []
    failures = [(i.item, i.reason) for i in syntax_tier(op_dir) + consistency_tier(op_dir, op.plan)
                if i.status == "fail"]
    assert failures == []
