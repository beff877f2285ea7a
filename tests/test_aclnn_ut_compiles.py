"""The generated aclnn UT compiles (g++ -fsyntax-only) against ops-nn's op_api UT framework and the real
headers, the way ops-nn's op_api UT target includes them (its stub dir first); an undeclared call fails."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import GELU_DIR, SAMPLES

from opgen.cann_sources import resolve_sources
from opgen.check.headers import compile_command, op_api_ut_dirs

UT = "tests/ut/op_api/test_aclnn_gelu_backward.cpp"


def _compile(op_dir: Path, cann_src: Path) -> subprocess.CompletedProcess[str]:
    if shutil.which("g++") is None:
        pytest.skip("needs g++")
    sources = resolve_sources(cann_src, None)
    assert sources is not None
    command = compile_command("g++", op_dir, UT, "op_api", op_api_ut_dirs(sources))
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


def test_the_aclnn_ut_compiles_against_the_op_api_ut_framework(cann_src: Path) -> None:
    result = _compile(SAMPLES / GELU_DIR, cann_src)
    assert result.returncode == 0, result.stderr[-3000:]


def test_a_call_nothing_declares_fails_at_its_line(cann_src: Path, tmp_path: Path) -> None:
    op_dir = tmp_path / GELU_DIR
    shutil.copytree(SAMPLES / GELU_DIR, op_dir)
    path = op_dir / UT
    lines = path.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if "aclRet = ut.TestGetWorkspaceSize" in line)
    lines.insert(at, "    GetPlatFormInfos(nullptr);")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = _compile(op_dir, cann_src)
    assert result.returncode != 0
    assert f"{UT}:{at + 1}:" in result.stderr and "GetPlatFormInfos" in result.stderr
