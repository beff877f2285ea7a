"""Consistency tier, aclnn rows: the l0 launch's OP_ATTR against the def's attrs, and the API signature in the
header, the wrapper and the docs. Each injected fault fails exactly its row, naming the file and the attr."""

from __future__ import annotations

from pathlib import Path

import pytest

from opgen.check.consistency import consistency_tier

from .trees import SAMPLES, by_item, copy_sample, edit, failing, loaded

OP_ATTR_ROW = "l0 OP_ATTR == def attrs"
SIGNATURE_ROW = "aclnn signature: header == wrapper == docs"
WRAPPER_ROW = "aclnn wrapper -> l0 attrs == docs, def defaults"
RULES_ROW = "aclnn scalar rules == docs"
SIGMOID = "activation/hard_sigmoid_grad"  # two float attrs, neither an API parameter
SWISH = "activation/swish_grad"  # attr scale set by the optional aclScalar betaOptional
L0_SIGMOID = "op_api/hardsigmoid_grad.cpp"
WITH_ACLNN = sorted(str(p.parent.relative_to(SAMPLES)) for p in SAMPLES.glob("**/docs"))


@pytest.mark.parametrize("rel_dir", WITH_ACLNN)
def test_samples_pass_both_rows(tmp_path: Path, rel_dir: str) -> None:
    op_dir = copy_sample(tmp_path, rel_dir)
    items = consistency_tier(op_dir, loaded(op_dir)[1])
    assert by_item(items, OP_ATTR_ROW).status == "pass"
    assert by_item(items, SIGNATURE_ROW).status == "pass"
    assert by_item(items, WRAPPER_ROW).status == "pass"
    assert by_item(items, RULES_ROW).status == "pass"


def test_passing_rows_say_what_they_saw(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SWISH)
    items = consistency_tier(op_dir, loaded(op_dir)[1])
    assert by_item(items, OP_ATTR_ROW).reason == "OP_ATTR(scale: float)"
    assert "const aclScalar* betaOptional, aclTensor* gradInput" in by_item(items, SIGNATURE_ROW).reason
    assert by_item(items, WRAPPER_ROW).reason == "scale <- betaOptional"
    assert by_item(items, RULES_ROW).reason == "no scalar rules"


@pytest.mark.parametrize(("rel_dir", "reason"), [
    ("activation/gelu_grad_v2", 'approximate one of "none", "tanh" (others and nullptr refused)'),
    ("activation/soft_shrink_grad", "lambda >= 0 (refused)"),
    ("activation/hard_shrink_grad", "lambd >= 0 (clamped)"),
    ("activation/leaky_relu_grad", "negativeSlope >= 0 while selfIsResult (refused)"),
])
def test_rules_row_says_which_rules_it_saw(tmp_path: Path, rel_dir: str, reason: str) -> None:
    op_dir = copy_sample(tmp_path, rel_dir)
    assert by_item(consistency_tier(op_dir, loaded(op_dir)[1]), RULES_ROW).reason == reason


def _failing_row(op_dir: Path, label: str, *also: str) -> str:
    items = consistency_tier(op_dir, loaded(op_dir)[1])
    assert {i.item for i in failing(items)} == {label, *also}
    return by_item(items, label).reason


def test_dropped_op_attr_fails_naming_the_attr(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SIGMOID)
    edit(op_dir / L0_SIGMOID, "OP_ATTR(alpha, beta)", "OP_ATTR(alpha)")
    reason = _failing_row(op_dir, OP_ATTR_ROW)
    assert reason.startswith(f"{L0_SIGMOID}:55: OP_ATTR(alpha), the def's attrs in order are (alpha, beta) "
                             "(op_host/hard_sigmoid_grad_def.cpp:36): beta never reaches the kernel")


def test_swapped_op_attr_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SIGMOID)
    edit(op_dir / L0_SIGMOID, "OP_ATTR(alpha, beta)", "OP_ATTR(beta, alpha)")
    reason = _failing_row(op_dir, OP_ATTR_ROW)
    assert f"{L0_SIGMOID}:55: OP_ATTR(beta, alpha), the def's attrs in order are (alpha, beta)" in reason
    assert "GE binds OP_ATTR by position" in reason


def test_no_op_attr_at_all_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SWISH)
    edit(op_dir / "op_api/swish_grad.cpp", ", OP_ATTR(scale)", "")
    assert "no OP_ATTR, the def's attrs in order are (scale)" in _failing_row(op_dir, OP_ATTR_ROW)


def test_attr_of_the_wrong_c_type_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SWISH)
    edit(op_dir / "op_api/swish_grad.cpp", "float scale,", "int64_t scale,")
    assert "scale is int64_t, attr scale is Float (float, op_host/swish_grad_def.cpp:38)" in \
        _failing_row(op_dir, OP_ATTR_ROW)


def test_def_attr_the_launch_lacks_fails(tmp_path: Path) -> None:
    """An attr added to the def alone: the launch carries one argument fewer than GE binds (and the binary JSON
    entries lack it too)."""
    op_dir = copy_sample(tmp_path, SWISH)
    edit(op_dir / "op_host/swish_grad_def.cpp", '.Float(1.0f);',
         '.Float(1.0f);\n        this->Attr("shift").AttrType(OPTIONAL).Float(0.0f);')
    reason = _failing_row(op_dir, OP_ATTR_ROW, "binary JSON == def (ascend950)")
    assert "OP_ATTR(scale), the def's attrs in order are (scale, shift)" in reason


def test_docs_missing_the_scalar_fail(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SWISH)
    edit(op_dir / "docs/aclnnSwishBackward.md", "const aclScalar* betaOptional, ", "")
    reason = _failing_row(op_dir, SIGNATURE_ROW)
    assert reason.startswith("docs/aclnnSwishBackward.md:")
    assert "(const aclTensor* gradOutput, const aclTensor* self, aclTensor* gradInput, " in reason
    assert "op_api/aclnn_swish_backward.h:31 declares" in reason


def test_docs_table_missing_the_scalar_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SWISH)
    path = op_dir / "docs/aclnnSwishBackward.md"
    path.write_text("".join(line for line in path.read_text().splitlines(keepends=True)
                            if not line.startswith("| betaOptional |")))
    # the wrapper row fails too: no docs row says betaOptional sets scale any more
    assert "the parameter table lists (gradOutput, self, gradInput, workspaceSize, executor), the signature " \
           "(gradOutput, self, betaOptional, gradInput," in _failing_row(op_dir, SIGNATURE_ROW, WRAPPER_ROW)


def test_wrapper_scalar_of_another_type_fails(tmp_path: Path) -> None:
    """The wrapper defines a function the header does not declare: it compiles, and callers link to nothing."""
    op_dir = copy_sample(tmp_path, SWISH)
    path = op_dir / "op_api/aclnn_swish_backward.cpp"
    text = path.read_text()
    start = text.index("aclnnStatus aclnnSwishBackwardGetWorkspaceSize(")
    path.write_text(text[:start] + text[start:].replace("const aclScalar* betaOptional", "double betaOptional", 1))
    assert "op_api/aclnn_swish_backward.cpp:" in _failing_row(op_dir, SIGNATURE_ROW)


WRAPPER_SIGMOID = "op_api/aclnn_hardsigmoid_backward.cpp"


def test_wrapper_swapping_two_attrs_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SIGMOID)
    edit(op_dir / WRAPPER_SIGMOID, "selfContiguous, alphaValue, betaValue,", "selfContiguous, betaValue, alphaValue,")
    reason = _failing_row(op_dir, WRAPPER_ROW)
    assert reason.startswith(f"{WRAPPER_SIGMOID}:109: attr alpha gets `0.5f`, the def default is 0.16666666666666666f "
                             "(op_host/hard_sigmoid_grad_def.cpp:36)")
    assert "attr beta gets `0.16666666666666666f`" in reason


def test_wrapper_with_a_stale_default_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SIGMOID)
    edit(op_dir / WRAPPER_SIGMOID, "float betaValue = 0.5f;", "float betaValue = 0.25f;")
    assert _failing_row(op_dir, WRAPPER_ROW) == (f"{WRAPPER_SIGMOID}:109: attr beta gets `0.25f`, the def default is "
                                                 "0.5f (op_host/hard_sigmoid_grad_def.cpp:37)")


def test_optional_scalar_whose_nullptr_is_not_the_default_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SWISH)
    edit(op_dir / "op_api/aclnn_swish_backward.cpp", "betaOptional == nullptr ? 1.0f", "betaOptional == nullptr ? 2.0f")
    assert "attr scale gets `betaOptional == nullptr ? 2.0f : betaOptional->ToFloat()`, the def default is 1.0f" in \
        _failing_row(op_dir, WRAPPER_ROW)


def test_wrapper_ignoring_the_scalar_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SWISH)
    edit(op_dir / "op_api/aclnn_swish_backward.cpp", "betaOptional == nullptr ? 1.0f : betaOptional->ToFloat()",
         "1.0f")
    assert "attr scale gets `1.0f`, the docs say betaOptional sets it" in _failing_row(op_dir, WRAPPER_ROW)


SOFT = "activation/soft_shrink_grad"  # lambda below 0: ACLNN_ERR_PARAM_INVALID
WRAPPER_SOFT = "op_api/aclnn_softshrink_backward.cpp"
SOFT_SAID = "the docs (docs/aclnnSoftshrinkBackward.md:38) say lambda below 0 is refused"
HARD = "activation/hard_shrink_grad"  # lambd below 0: taken as 0
WRAPPER_HARD = "op_api/aclnn_hardshrink_backward.cpp"
LEAKY = "activation/leaky_relu_grad"  # negativeSlope below 0 refused while selfIsResult is true
WRAPPER_LEAKY = "op_api/aclnn_leaky_relu_backward.cpp"


def test_refusal_with_the_wrong_sign_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SOFT)
    edit(op_dir / WRAPPER_SOFT, "lambda->ToFloat() < 0.0f", "lambda->ToFloat() > 0.0f")
    assert _failing_row(op_dir, RULES_ROW) == \
        f"{WRAPPER_SOFT}:89: `if (lambda->ToFloat() > 0.0f)` refuses lambda; {SOFT_SAID}"


def test_refusal_of_another_bound_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SOFT)
    edit(op_dir / WRAPPER_SOFT, "lambda->ToFloat() < 0.0f", "lambda->ToFloat() < -1.0f")
    assert f"`if (lambda->ToFloat() < -1.0f)` refuses lambda; {SOFT_SAID}" in _failing_row(op_dir, RULES_ROW)


def _drop_block(path: Path, start_line: str) -> None:
    """Remove the `if` block that starts with `start_line`, up to its closing brace."""
    text = path.read_text()
    start = text.index(start_line)
    path.write_text(text[:start] + text[text.index("    }\n", start) + 6:])


def test_dropped_refusal_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SOFT)
    _drop_block(op_dir / WRAPPER_SOFT, "    if (lambda->ToFloat() < 0.0f) {")
    assert _failing_row(op_dir, RULES_ROW) == f"{WRAPPER_SOFT}: nothing refuses lambda; {SOFT_SAID}"


def test_refusal_nothing_calls_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SOFT)
    edit(op_dir / WRAPPER_SOFT, "    CHECK_RET(CheckScalarValue(lambda), ACLNN_ERR_PARAM_INVALID);\n", "")
    assert _failing_row(op_dir, RULES_ROW) == (f"{WRAPPER_SOFT}:89: CheckScalarValue refuses lambda, but nothing "
                                               f"calls CheckScalarValue; {SOFT_SAID}")


def test_refusal_the_docs_do_not_state_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, SOFT)
    edit(op_dir / "docs/aclnnSoftshrinkBackward.md", "; below 0 it is refused (ACLNN_ERR_PARAM_INVALID)", "")
    assert _failing_row(op_dir, RULES_ROW) == (f"{WRAPPER_SOFT}:89: `if (lambda->ToFloat() < 0.0f)` refuses lambda, "
                                               "the docs (docs/aclnnSoftshrinkBackward.md) state no bound for it")


def test_refusal_ignoring_its_flag_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, LEAKY)
    edit(op_dir / WRAPPER_LEAKY, "if (selfIsResult && negativeSlope", "if (negativeSlope")
    assert _failing_row(op_dir, RULES_ROW) == (
        f"{WRAPPER_LEAKY}:91: `if (negativeSlope->ToFloat() < 0.0f)` refuses negativeSlope; the docs "
        "(docs/aclnnLeakyReluBackward.md:38) say negativeSlope below 0 is refused while selfIsResult is true")


def test_dropped_clamp_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, HARD)
    edit(op_dir / WRAPPER_HARD, "    if (lambdValue < 0.0f) {\n        lambdValue = 0.0f;\n    }\n", "")
    assert _failing_row(op_dir, RULES_ROW) == (
        f"{WRAPPER_HARD}:123: lambdValue reaches l0op::HardShrinkGrad without `if (lambdValue < 0) "
        "{ lambdValue = 0; }`; the docs (docs/aclnnHardshrinkBackward.md:38) say lambd below 0 is taken as 0")


@pytest.mark.parametrize(("old", "new"), [
    ("if (lambdValue < 0.0f)", "if (lambdValue > 0.0f)"),  # the wrong sign
    ("lambdValue = 0.0f;", "lambdValue = 0.5f;"),  # clamped to another value
])
def test_clamp_with_the_wrong_sign_or_value_fails(tmp_path: Path, old: str, new: str) -> None:
    op_dir = copy_sample(tmp_path, HARD)
    edit(op_dir / WRAPPER_HARD, old, new)
    assert "lambdValue reaches l0op::HardShrinkGrad without `if (lambdValue < 0)" in _failing_row(op_dir, RULES_ROW)


GELU_V2 = "activation/gelu_grad_v2"  # the string attr approximate set by `char* approximate`, as upstream
WRAPPER_GELU_V2 = "op_api/aclnn_gelu_backward_v2.cpp"
GELU_V2_SAID = 'the docs (docs/aclnnGeluBackwardV2.md:38) say approximate is one of "none", "tanh", nullptr refused'
GELU_V2_VALUES = 'strcmp(approximate, "none") != 0 && strcmp(approximate, "tanh") != 0'


def test_string_row_passes_with_the_parameter(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU_V2)
    items = consistency_tier(op_dir, loaded(op_dir)[1])
    assert by_item(items, WRAPPER_ROW).reason == "approximate <- approximate"
    assert "char* approximate, aclTensor* gradInput" in by_item(items, SIGNATURE_ROW).reason


def test_wrapper_handing_the_l0_op_the_default_string_fails(tmp_path: Path) -> None:
    """The API takes approximate, the l0 op gets "none": every call runs the exact GELU, "tanh" included."""
    op_dir = copy_sample(tmp_path, GELU_V2)
    edit(op_dir / WRAPPER_GELU_V2, "selfContiguous, approximate, opExecutor", 'selfContiguous, "none", opExecutor')
    assert _failing_row(op_dir, WRAPPER_ROW) == \
        f'{WRAPPER_GELU_V2}:160: attr approximate gets `"none"`, the docs say approximate sets it'


@pytest.mark.parametrize(("condition", "taken"), [
    ('strcmp(approximate, "none") != 0', '"none"'),  # "tanh" dropped: refused, though the docs list it
    (f'{GELU_V2_VALUES} && strcmp(approximate, "erf") != 0', '"none", "tanh", "erf"'),  # an extra value let through
    ('approximate != "none" && approximate != "tanh" && approximate != "quick"', '"none", "tanh", "quick"'),
])
def test_string_check_with_another_set_of_values_fails(tmp_path: Path, condition: str, taken: str) -> None:
    op_dir = copy_sample(tmp_path, GELU_V2)
    edit(op_dir / WRAPPER_GELU_V2, GELU_V2_VALUES, condition)
    assert _failing_row(op_dir, RULES_ROW) == f"{WRAPPER_GELU_V2}:94: approximate may be {taken}; {GELU_V2_SAID}"


def test_string_check_of_another_form_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU_V2)
    edit(op_dir / WRAPPER_GELU_V2, GELU_V2_VALUES, 'strcmp(approximate, "none") == 0')
    assert _failing_row(op_dir, RULES_ROW) == (f'{WRAPPER_GELU_V2}:94: `if (strcmp(approximate, "none") == 0)` '
                                               f"refuses approximate, not as `approximate` none of the values; "
                                               f"{GELU_V2_SAID}")


def test_dropped_string_check_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU_V2)
    path = op_dir / WRAPPER_GELU_V2
    text = path.read_text()
    start = text.index(f"    if ({GELU_V2_VALUES}) {{")
    path.write_text(text[:start] + text[text.index("    }\n", start) + 6:])
    assert _failing_row(op_dir, RULES_ROW) == \
        f'{WRAPPER_GELU_V2}: nothing refuses approximate outside "none", "tanh"; {GELU_V2_SAID}'


def test_string_check_nothing_calls_fails(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU_V2)
    edit(op_dir / WRAPPER_GELU_V2, "    CHECK_RET(CheckScalarValue(approximate), ACLNN_ERR_PARAM_INVALID);\n", "")
    assert _failing_row(op_dir, RULES_ROW) == (f'{WRAPPER_GELU_V2}:94: CheckScalarValue refuses approximate outside '
                                               f'"none", "tanh", but nothing calls CheckScalarValue; {GELU_V2_SAID}')


def test_dropped_null_check_of_the_string_fails(tmp_path: Path) -> None:
    """strcmp on nullptr: the process crashes where the docs promise ACLNN_ERR_PARAM_NULLPTR."""
    op_dir = copy_sample(tmp_path, GELU_V2)
    _drop_block(op_dir / WRAPPER_GELU_V2, "    if (approximate == nullptr) {")
    assert _failing_row(op_dir, RULES_ROW) == f"{WRAPPER_GELU_V2}: nothing refuses a null approximate; {GELU_V2_SAID}"


def test_string_values_the_docs_do_not_list_fail(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU_V2)
    edit(op_dir / "docs/aclnnGeluBackwardV2.md", '; one of "none", "tanh", any other value is refused '
         "(ACLNN_ERR_PARAM_INVALID)", "")
    assert _failing_row(op_dir, RULES_ROW) == (f"{WRAPPER_GELU_V2}:94: `if ({GELU_V2_VALUES})` refuses approximate, "
                                               "the docs (docs/aclnnGeluBackwardV2.md) list no values for it")
