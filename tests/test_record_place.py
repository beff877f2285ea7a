"""Where a record may go: never inside the output root (the op dir, the root itself or below it), and one
record dir describes one op dir: a second output root sharing it is refused, naming the first."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import SCHEMAS, Result, snapshot

SPEC = SCHEMAS / "relu_grad_v2.yaml"


@pytest.mark.parametrize("inside", ["out/records", "out", "out/activation/relu_grad_v2/rec"])
def test_a_record_dir_inside_the_output_root_is_refused(run: Callable[..., Result], tmp_path: Path,
                                                        inside: str) -> None:
    result = run("gen", SPEC, "-o", tmp_path / "out", "--record-dir", tmp_path / inside)
    assert result.code == 2
    assert "would be inside the output root" in result.err and "--record-dir outside it" in result.err
    assert "Traceback" not in result.err + result.out
    assert snapshot(tmp_path) == {}


def test_a_record_dir_shared_by_two_output_roots_is_refused_naming_the_first(run: Callable[..., Result],
                                                                            tmp_path: Path) -> None:
    records = tmp_path / "records"
    assert run("gen", SPEC, "-o", tmp_path / "out1", "--record-dir", records).code == 0
    before = snapshot(tmp_path)
    second = run("gen", SPEC, "-o", tmp_path / "out2", "--record-dir", records)
    assert second.code == 2
    message = " ".join(second.err.split())
    assert f"belongs to {tmp_path / 'out1/activation/relu_grad_v2'}" in message and "--record-dir" in message
    assert snapshot(tmp_path) == before
    assert run("gen", "--check", SPEC, "-o", tmp_path / "out1", "--record-dir", records).code == 0
    assert run("gen", SPEC, "-o", tmp_path / "out1", "--record-dir", records, "--force").code == 0
