"""The kernel UT's data scripts run as ops-nn runs them: the data dir copied into the UT's working dir,
`python3 gen_data.py ...` and `python3 compare_data.py ...` with that copy as cwd (kernel_ut::RunGenData)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import GELU_DIR, RELU_DIR, SAMPLES

CASES = [(GELU_DIR, "gelu_grad", ("z",), ("dy", "x", "y")), (RELU_DIR, "relu_grad_v2", ("backprops",),
                                                                  ("gradients", "mask"))]


def _checkout(tmp_path: Path, rel: str) -> Path:
    """An ops-nn root (CMakeLists.txt + README.md, as kernel_ut::GetRepoRootDir finds it) holding the op."""
    root = tmp_path / "ops-nn"
    shutil.copytree(SAMPLES / rel, root / rel, ignore=shutil.ignore_patterns(".opgen"))
    (root / "CMakeLists.txt").write_text("project(ops_nn)\n")
    (root / "README.md").write_text("ops-nn\n")
    return root


def _copy_data(root: Path, rel: str, name: str, work: Path) -> Path:
    """What kernel_ut::SetupTestEnvironment does: copy <op>_data into the UT's working dir."""
    work.mkdir(parents=True, exist_ok=True)
    return Path(shutil.copytree(root / rel / "tests/ut/op_kernel" / f"{name}_data", work / f"{name}_data"))


def _python(script: str, *args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, script, *args], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=120, check=False)


@pytest.mark.parametrize(("rel", "name", "outputs", "inputs"), CASES)
def test_gen_data_finds_the_golden_from_the_ut_working_dir(tmp_path: Path, rel: str, name: str,
                                                            outputs: tuple[str, ...], inputs: tuple[str, ...]) -> None:
    root = _checkout(tmp_path, rel)
    data = _copy_data(root, rel, name, root / "build" / "tests" / "ut")
    result = _python("gen_data.py", "'(1024,)'", "float32", cwd=data)
    assert result.returncode == 0, result.stderr
    for tensor in inputs:
        assert (data / f"input_{tensor}.bin").stat().st_size > 0
    golden = np.fromfile(data / f"golden_{outputs[0]}.bin", np.float32)
    assert golden.size == 1024 and np.isfinite(golden).all()


@pytest.mark.parametrize(("rel", "name", "outputs", "inputs"), CASES)
def test_gen_data_fails_loudly_without_the_golden(tmp_path: Path, rel: str, name: str, outputs: tuple[str, ...],
                                                  inputs: tuple[str, ...]) -> None:
    root = _checkout(tmp_path, rel)
    data = _copy_data(root, rel, name, tmp_path / "elsewhere")
    env = {"PATH": "/usr/bin:/bin"}
    result = _python("gen_data.py", "'(64,)'", "float32", cwd=data, env=env)
    assert result.returncode == 2
    assert "golden.py not found" in result.stderr and f"{rel}/tests/assets/golden.py" in result.stderr
    assert not (data / f"golden_{outputs[0]}.bin").exists()
    # the same copy finds it once OPS_NN_ROOT names the checkout, as in ops-nn's CI
    found = _python("gen_data.py", "'(64,)'", "float32", cwd=data, env={**env, "OPS_NN_ROOT": str(root)})
    assert found.returncode == 0, found.stderr


def test_compare_data_applies_the_spec_tolerance(tmp_path: Path) -> None:
    root = _checkout(tmp_path, GELU_DIR)
    data = _copy_data(root, GELU_DIR, "gelu_grad", root / "build")
    assert _python("gen_data.py", "'(256,)'", "float16", cwd=data).returncode == 0
    golden = np.fromfile(data / "golden_z.bin", np.float16)
    assert _python("compare_data.py", "float16", cwd=data).returncode == 1  # no output yet: fails, says so

    within = golden.astype(np.float32) * (1 + 5e-4)  # inside float16's rtol 1e-3 of the spec
    within.astype(np.float16).tofile(data / "output_z.bin")
    result = _python("compare_data.py", "float16", cwd=data)
    assert result.returncode == 0, result.stdout

    outside = golden.astype(np.float32)
    outside[7] = outside[7] * 1.1 + 0.1
    outside.astype(np.float16).tofile(data / "output_z.bin")
    result = _python("compare_data.py", "float16", cwd=data)
    assert result.returncode == 1
    assert "1/256 elements outside rtol=0.001, atol=0.001" in result.stdout and "[7]" in result.stdout


def test_gen_data_takes_the_attr_choosing_the_math(tmp_path: Path) -> None:
    """GeluGradV2's tanh kernel UT asks gen_data.py for `approximate=tanh`: its golden is the tanh GELU's, not the
    default erf one, and an attr argument without `=` is refused with the usage."""
    rel = "activation/gelu_grad_v2"
    ut = (SAMPLES / rel / "tests/ut/op_kernel/test_gelu_grad_v2_apt.cpp").read_text(encoding="utf-8")
    tanh_case = ut[ut.index("TEST_F(gelu_grad_v2_test, gelu_grad_v2_bfloat16_tanh)"):]
    assert '"approximate=tanh"' in tanh_case and "TPL_APPROXIMATE_TANH>" in tanh_case.split("TEST_F")[1]
    root = _checkout(tmp_path, rel)
    goldens = {}
    for value in ("none", "tanh"):
        data = _copy_data(root, rel, "gelu_grad_v2", root / "build" / value)
        result = _python("gen_data.py", "'(512,)'", "float32", "Ascend950", f"approximate={value}", cwd=data)
        assert result.returncode == 0, result.stderr
        goldens[value] = np.fromfile(data / "golden_z.bin", np.float32)
    dy = np.fromfile(data / "input_dy.bin", np.float32).astype(np.float64)
    x = np.fromfile(data / "input_x.bin", np.float32).astype(np.float64)
    t = np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3))  # d/dx of 0.5 x (1 + t), by hand
    tanh = 0.5 * (1 + t) + 0.5 * x * (1 - t**2) * np.sqrt(2 / np.pi) * (1 + 3 * 0.044715 * x**2)
    np.testing.assert_allclose(goldens["tanh"], dy * tanh, rtol=1e-4, atol=1e-5)
    assert not np.allclose(goldens["tanh"], goldens["none"], rtol=1e-6, atol=0)
    refused = _python("gen_data.py", "'(8,)'", "float32", "Ascend950", "tanh", cwd=data)
    assert refused.returncode == 1 and "attr=value" in refused.stdout
