"""A spec reports all its problems at once: a summary line, then one `file:line: field: message` each."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import GELU, copy_spec, snapshot

LINE = re.compile(r"^(?P<file>\S+\.yaml):(?P<line>\d+): (?P<field>\S+): ")


def _gen(run, tmp_path: Path, edit) -> list[str]:
    spec = copy_spec(GELU, tmp_path, edit)
    out = tmp_path / "out"
    result = run("gen", spec, "-o", out)
    assert result.code == 2, result
    assert snapshot(out) == {}
    assert "Traceback" not in result.err
    return result.err.strip().splitlines()


def test_every_field_problem_is_listed_in_line_order(run, tmp_path: Path) -> None:
    lines = _gen(run, tmp_path, lambda t: t.replace("experimental: true", "experimental: true\ncolour: red")
                 .replace("dtypes: [float32, float16, bfloat16]\n    doc: The input",
                          "dtypes: [float32, float16, bfloat61]\n    doc: The input")
                 .replace("kernel: classic", "kernel: clasic", 1))
    first, *problems = lines
    assert re.match(r"^error: \S+gelu_grad\.yaml: 3 problems in this spec; fix each one listed below$", first)
    fields = [LINE.match(p).group("field") for p in problems]  # type: ignore[union-attr]
    assert fields == ["colour", "inputs[1].dtypes[2]", "platforms[0].kernel"]
    numbers = [int(LINE.match(p).group("line")) for p in problems]  # type: ignore[union-attr]
    assert numbers == sorted(numbers)
    assert "unknown dtype 'bfloat61'" in problems[1]  # one line for the dtype, though two union members failed


def test_every_cross_field_problem_is_listed(run, tmp_path: Path) -> None:
    lines = _gen(run, tmp_path, lambda t: t.replace("- z = mul(s, dy)", "- z = mul(s, dz)")
                 .replace("tiling_key: 1", "tiling_key: 0")
                 .replace("rule: elementwise\n", "rule: same_as_input\n  input: q\n"))
    first, *problems = lines
    assert "problems in this spec" in first
    assert all(LINE.match(p) for p in problems), problems
    text = "\n".join(problems)
    for expected in ("'dz' is not an input", "tiling key 0 is used twice", "infershape.input: same_as_input needs"):
        assert expected in text, text


def test_a_single_problem_keeps_the_one_line_form(run, tmp_path: Path) -> None:
    lines = _gen(run, tmp_path, lambda t: t.replace("kernel: classic", "kernel: clasic", 1))
    assert len(lines) == 1 and re.match(r"^error: \S+gelu_grad\.yaml:\d+: platforms\[0\]\.kernel: ", lines[0])


def test_an_input_with_no_dtypes_is_one_problem_not_a_crash(run, tmp_path: Path) -> None:
    lines = _gen(run, tmp_path, lambda t: t.replace("dtypes: [float32, float16, bfloat16]", "dtypes: []", 1))
    assert len(lines) == 1 and "inputs[0].dtypes: lists no dtype; give one dtype per combination" in lines[0]


def test_no_tensor_with_dtypes_is_a_problem_per_tensor_not_a_crash(run, tmp_path: Path) -> None:
    lines = _gen(run, tmp_path, lambda t: t.replace("dtypes: [float32, float16, bfloat16]", "dtypes: []"))
    assert any("outputs[0].dtypes: lists no dtype" in line for line in lines)


def test_a_wrapper_file_outside_ops_nn_globs_is_refused(run, tmp_path: Path) -> None:
    lines = _gen(run, tmp_path, lambda t: t.replace("  api: GeluBackward\n", "  api: GeluBackward\n  file: gelu_bwd\n"))
    assert len(lines) == 1
    assert re.search(r"\.yaml:\d+: aclnn\.file: 'gelu_bwd' must start with aclnn_: ops-nn installs "
                     r"op_api/aclnn_\*\.h", lines[0]), lines
