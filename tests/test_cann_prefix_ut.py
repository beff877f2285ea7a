"""ops-nn's own `build.sh -u --ophost` against the prefix opgen builds (issue 20): the gtest counts read from a
log, and, opt-in (OPGEN_BUILD_PREFIX=1 with OPGEN_CANN_SRC), the whole path for generated and upstream
ReluGradV2 on ascend950."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from opgen.cann_prefix.ut_run import gtest_counts

ROOT = Path(__file__).resolve().parents[1]
GENERATED_RELU_GRAD_V2 = ROOT / "generated_samples/activation/relu_grad_v2"
needs_build = pytest.mark.skipif(not os.environ.get("OPGEN_BUILD_PREFIX"),
                                 reason="builds the prefix (~10 min cold) and runs build.sh: OPGEN_BUILD_PREFIX=1")

LOG = """[==========] 3 tests from 2 test suites ran. (5 ms total)
[  PASSED  ] 2 tests.
[  FAILED  ] 1 test, listed below:
[  FAILED  ] ReluGradV2Tiling.key_950
[2026-12-05 17:06:22] [==========] 4 tests from 1 test suite ran. (1 ms total)
[2026-12-05 17:06:22] [  PASSED  ] 4 tests.
"""


def test_counts_add_up_over_every_gtest_run_and_name_failures() -> None:
    ran, passed, failed = gtest_counts(LOG)
    assert (ran, passed) == (7, 6)
    assert failed == ("ReluGradV2Tiling.key_950",)
    assert gtest_counts("") == (0, 0, ())


@pytest.fixture
def prefix(cann_src: Path):  # type: ignore[no-untyped-def]
    from opgen.cann_prefix.build import build_prefix
    from opgen.cann_sources import cache_root, resolve_sources

    sources = resolve_sources(cann_src=cann_src)
    assert sources is not None
    built = build_prefix(sources, cache_root())
    print(f"prefix {built.root}: {built.seconds:.0f} s (0 = cache hit)")
    return sources, built


@needs_build
def test_prefix_libraries_are_abi0(prefix) -> None:  # type: ignore[no-untyped-def]
    _, built = prefix
    symbols = subprocess.run(["nm", "-DC", "--defined-only", str(built.lib_dir / "libmetadef.so")],
                             capture_output=True, text=True, check=False).stdout
    assert "ge::AscendString::GetString" in symbols  # a metadef symbol, defined with ABI 0 strings
    assert "std::string" in symbols and "__cxx11" not in symbols


def test_symbol_stubs_go_to_the_library_that_owns_them_and_an_unowned_one_is_refused(tmp_path: Path) -> None:
    from opgen.cann_prefix.stub_libs import build_symbol_stubs
    from opgen.errors import OpgenError

    adx = "_ZN3Adx18AdumpGetDumpSwitchENS_8DumpTypeE"
    symbols = ["aclrtFree", "rtGetSocSpec", adx, "MsprofReportApi"]
    owned = build_symbol_stubs(tmp_path / "lib", tmp_path / "work", symbols)
    assert owned == {"acl_rt": ["aclrtFree"], "runtime": ["rtGetSocSpec"], "ascend_dump": [adx],
                     "profapi": ["MsprofReportApi"]}
    dump = subprocess.run(["nm", "-D", "--defined-only", str(tmp_path / "lib/libascend_dump.so")],
                          capture_output=True, text=True, check=True).stdout
    assert f" T {adx}" in dump
    with pytest.raises(OpgenError, match="nnopbase needs `HcclCommInit`, which no library of the prefix defines"):
        build_symbol_stubs(tmp_path / "lib", tmp_path / "work", ["aclrtFree", "HcclCommInit"])


@needs_build
@pytest.mark.parametrize("generated", [True, False], ids=["generated", "upstream"])
def test_relu_grad_v2_ophost_uts_pass_under_ops_nn_build_sh(prefix, generated: bool) -> None:  # type: ignore[no-untyped-def]
    from opgen.cann_prefix.ut_run import run_ut

    sources, built = prefix
    run = run_ut(built, sources, kind="ophost", op="relu_grad_v2", soc="ascend950",
                 op_dir=GENERATED_RELU_GRAD_V2 if generated else None)
    print(f"{'generated' if generated else 'upstream'} relu_grad_v2 ascend950: {run.passed}/{run.ran} passed, "
          f"{run.seconds:.0f} s, log {run.log}")
    assert run.ok, f"rc {run.returncode}, {run.passed}/{run.ran}, failed {run.failed}; see {run.log}"


@needs_build
def test_a_wrong_expected_tiling_key_fails_naming_the_test(prefix, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import shutil

    from opgen.cann_prefix.ut_run import run_ut

    sources, built = prefix
    op_dir = tmp_path / "activation" / "relu_grad_v2"
    shutil.copytree(GENERATED_RELU_GRAD_V2, op_dir)
    tiling_ut = op_dir / "tests/ut/op_host/arch35/test_relu_grad_v2_tiling.cpp"
    text = tiling_ut.read_text()
    assert "ge::GRAPH_SUCCESS, 5," in text
    tiling_ut.write_text(text.replace("ge::GRAPH_SUCCESS, 5,", "ge::GRAPH_SUCCESS, 6,", 1))  # key 5 expected as 6
    run = run_ut(built, sources, kind="ophost", op="relu_grad_v2", soc="ascend950", op_dir=op_dir)
    print(f"faulty tiling key: {run.passed}/{run.ran} passed, failed {run.failed}, {run.seconds:.0f} s")
    assert not run.ok and len(run.failed) == 1 and run.failed[0].startswith("ReluGradV2")


GELU_GRAD = ROOT / "generated_samples/experimental/activation/gelu_grad"


def _validate(op_dir: Path, cann_src: Path) -> subprocess.CompletedProcess[str]:
    """`opgen validate --cann-src` as a user runs it with no toolkit: the op_host UTs in a scratch copy."""
    import sys

    env = {k: v for k, v in os.environ.items() if k != "ASCEND_HOME_PATH"}
    return subprocess.run([sys.executable, "-m", "opgen", "validate", str(op_dir), "--cann-src", str(cann_src),
                           "--stage", "ut", "--soc", "ascend910b", "-j", "2"],
                          capture_output=True, text=True, env=env, check=False)


@needs_build
def test_validate_without_a_toolkit_runs_the_op_host_and_op_api_uts(prefix, cann_src: Path) -> None:  # type: ignore[no-untyped-def]
    done = _validate(GELU_GRAD, cann_src)
    print(done.stdout)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS ut ophost   16/16 tests passed" in done.stdout
    assert "PASS ut opapi    35/35 tests passed" in done.stdout


@needs_build
def test_validate_without_a_toolkit_fails_a_wrong_tile_budget(prefix, cann_src: Path,  # type: ignore[no-untyped-def]
                                                              tmp_path: Path) -> None:
    import shutil

    op_dir = tmp_path / "experimental/activation/gelu_grad"
    shutil.copytree(GELU_GRAD, op_dir)
    tiling = op_dir / "op_host/gelu_grad_tiling.cpp"
    text = tiling.read_text()
    row = "{GELU_GRAD_TILING_KEY_ASCEND910B, ge::DT_FLOAT, 224, 0}"
    assert row in text
    tiling.write_text(text.replace(row, row.replace("224", "192")))  # float32 tiles sized for 6 buffers, not 7
    done = _validate(op_dir, cann_src)
    print(done.stdout)
    assert done.returncode == 1
    assert "failed tests: GeluGradTilingAscend910b.tiling_float32" in done.stdout
    assert "validate failed at ut ophost" in done.stdout
