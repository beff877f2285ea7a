"""Bad input: one clear message naming the file:line or field and the fix, exit 2, nothing written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import GELU, RELU, RELU_DIR, copy_spec, snapshot


def _bad(run, tmp_path: Path, text_edit, source: Path = GELU) -> tuple[str, int]:
    spec = copy_spec(source, tmp_path, text_edit)
    out = tmp_path / "out"
    (out / "keep").mkdir(parents=True)
    (out / "keep" / "file.txt").write_text("untouched")
    before = snapshot(out)
    result = run("gen", spec, "-o", out)
    assert result.code == 2, result
    assert "Traceback" not in result.err + result.out
    assert snapshot(out) == before
    message = result.err.strip()
    first, *more = message.splitlines()
    assert first.startswith("error:"), message
    if more:  # several problems: a summary, then one `file:line: field: message` line each
        assert re.search(r"\d+ problems in this spec", first), message
        assert all(re.match(r"^\S+\.yaml:\d+: \S+: ", line) for line in more), message
    return message, result.code


CASES = {
    "malformed yaml": (lambda t: t.replace("category: activation", "category: [activation"),
                       r"gelu_grad\.yaml:\d+: malformed YAML"),
    "unknown field": (lambda t: t.replace("experimental: true", "experimental: true\ncolour: red"),
                      r"gelu_grad\.yaml:5: colour: unknown field"),
    "unknown dtype": (lambda t: t.replace("dtypes: [float32, float16, bfloat16]\n    doc: The input",
                                          "dtypes: [float32, float16, bfloat61]\n    doc: The input"),
                      r"gelu_grad\.yaml:1\d: inputs\[1\]\.dtypes.*unknown dtype 'bfloat61'"),
    "mismatched dtype lengths": (lambda t: t.replace("dtypes: [float32, float16, bfloat16]\n    doc: The output",
                                                     "dtypes: [float32, float16]\n    doc: The output"),
                                 r"gelu_grad\.yaml:\d+: inputs\[2\]\.dtypes: has 2 dtypes but other tensors have 3"),
    "duplicate tensor names": (lambda t: t.replace("  - name: y\n", "  - name: x\n"),
                               r"gelu_grad\.yaml:\d+: inputs\[2\]\.name: duplicate name 'x'"),
    "slash in name": (lambda t: t.replace("op_type: GeluGrad", "op_type: GeluGrad\nname: ../evil"),
                      r"gelu_grad\.yaml:3: name: '\.\./evil' must be snake_case"),
    "dotdot category": (lambda t: t.replace("category: activation", "category: .."),
                        r"category: '\.\.' must be snake_case"),
    "space in op type": (lambda t: t.replace("op_type: GeluGrad", "op_type: Gelu Grad"),
                         r"op_type: 'Gelu Grad' must be CamelCase"),
    "non-identifier chars": (lambda t: t.replace("op_type: GeluGrad", "op_type: Gélu$Grad"),
                             r"op_type: 'Gélu\$Grad' must be CamelCase"),
    "missing field": (lambda t: t.replace("brief: Computes the gradient of the tanh-approximated GELU.\n", ""),
                      r"brief: required field is missing"),
    "undefined recipe value": (lambda t: t.replace("- z = mul(s, dy)", "- z = mul(s, dz)"),
                               r"gelu_grad\.yaml:\d+: compute\.variants\.ascend910b\[16\]: "
                               r"z = mul\(s, dz\): 'dz' is not an input"),
    "5000-digit integer": (lambda t: t.replace("buffer_num: 2", "buffer_num: " + "9" * 5000),
                           r"gelu_grad\.yaml:43: an integer of more than 4300 digits; no spec value is that large"),
    "impossible date": (lambda t: t.replace("brief: Computes the gradient", "brief: 2001-13-45 #"),
                        r"gelu_grad\.yaml:5: YAML reads an impossible date here \(month must be in 1\.\.12\); quote "
                        r"the value if it is text"),
    "alias": (lambda t: t.replace("tiling:\n  buffer_num: 2", "tiling: &t\n  buffer_num: 2\nextra: *t"),
              r"anchors and aliases are not allowed"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_spec_gives_one_clear_message_and_writes_nothing(run, tmp_path: Path, case: str) -> None:
    edit, pattern = CASES[case]
    message, _ = _bad(run, tmp_path, edit)
    assert re.search(pattern, message), message


def test_missing_spec_file(run, tmp_path: Path) -> None:
    result = run("gen", tmp_path / "nope.yaml", "-o", tmp_path / "out")
    assert result.code == 2
    assert "nope.yaml: spec file not found" in result.err
    assert not (tmp_path / "out").exists()


def test_existing_target_without_force_is_refused(run, tmp_path: Path) -> None:
    assert run("gen", RELU, "-o", tmp_path).code == 0
    (tmp_path / RELU_DIR / "README.md").write_text("my notes")
    before = snapshot(tmp_path)
    result = run("gen", GELU, RELU, "-o", tmp_path)
    assert result.code == 2
    assert "already exists" in result.err and "--force" in result.err
    assert snapshot(tmp_path) == before  # GeluGrad was not written either: all or nothing


def test_one_bad_spec_stops_the_whole_batch(run, tmp_path: Path) -> None:
    bad = copy_spec(GELU, tmp_path, lambda t: t.replace("kernel: classic", "kernel: clasic", 1))
    result = run("gen", RELU, bad, "-o", tmp_path / "out")
    assert result.code == 2
    assert "platforms[0].kernel" in result.err
    assert not (tmp_path / "out").exists()


def test_symlinked_op_dir_is_not_followed(run, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    (root / "activation").mkdir(parents=True)
    (root / "activation" / "relu_grad_v2").symlink_to(outside, target_is_directory=True)
    result = run("gen", "--force", RELU, "-o", root)
    assert result.code == 2
    assert "symlink" in result.err
    assert list(outside.iterdir()) == []
