"""A failing stage shows its first real error at the user's own file and line, plus the log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from opgen.validate.errors_map import PathMapper, first_error

from .conftest import Machine, snapshot

PLACED = "@ROOT@/experimental/activation/gelu_grad"


def test_compile_error_in_the_placed_copy_points_at_op_dir(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op()
    monkeypatch.setenv("OPGEN_FAKE_FAIL", "--pkg")
    monkeypatch.setenv(
        "OPGEN_FAKE_ERROR", f"{PLACED}/op_host/gelu_grad_tiling.cpp:42:10: error: 'foo' was not declared"
    )
    before = snapshot(machine.ops_nn)

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "-j", "2")

    assert result.exit_code == 1
    log = machine.ops_nn / "build" / "opgen_validate_gelu_grad.log"
    placed = machine.ops_nn / "experimental" / "activation" / "gelu_grad"
    out = result.output
    logged = f"{placed}/op_host/gelu_grad_tiling.cpp:42:10: error: 'foo' was not declared"
    line_no = log.read_text().splitlines().index(logged) + 1
    assert f"  error: {op}/op_host/gelu_grad_tiling.cpp:42:10: 'foo' was not declared\n" in out
    assert f"  log line {line_no}: {logged}\n" in out
    assert f"  full log: {log}\n" in out
    assert "SKIP ut ophost" in out and "SKIP ut opkernel" in out
    assert f"validate failed at pkg; full log: {log}" in out
    assert machine.calls() == ["--pkg --experimental --soc=ascend910b --ops=gelu_grad -j2"]
    assert snapshot(machine.ops_nn, skip_build=True) == before


def test_gtest_failure_with_a_build_relative_path_is_mapped(machine: Machine, monkeypatch: pytest.MonkeyPatch) -> None:
    op = machine.make_op(experimental=False, socs=("ascend950",))
    monkeypatch.setenv("OPGEN_FAKE_FAIL", "--ophost")
    rel = "../activation/gelu_grad/tests/ut/op_host/test_gelu_grad_infershape.cpp"
    monkeypatch.setenv("OPGEN_FAKE_ERROR", f"[ RUN      ] GeluGrad.infershape\n{rel}:17: Failure\nExpected equality")

    result = machine.invoke(op, "--ops-nn", machine.ops_nn, "--stage", "ut", "--json")

    assert result.exit_code == 1
    report = json.loads(result.stdout)
    steps = report["steps"]
    assert [s["status"] for s in steps] == ["failed", "not run", "not run"]
    line_no = Path(report["log"]).read_text().splitlines().index(f"{rel}:17: Failure") + 1
    assert steps[0]["error"] == {
        "message": "Expected equality",
        "log_line": line_no,
        "log_text": f"{rel}:17: Failure",
        "file": rel,
        "line": 17,
        "column": None,
        "op_file": str(op / "tests" / "ut" / "op_host" / "test_gelu_grad_infershape.cpp"),
    }


def mapper(tmp_path: Path) -> PathMapper:
    op_dir = tmp_path / "gen" / "gelu_grad"
    (op_dir / "op_host").mkdir(parents=True, exist_ok=True)
    (op_dir / "CMakeLists.txt").write_text("")
    (op_dir / "op_host" / "a.cpp").write_text("")
    return PathMapper(tmp_path / "ops-nn", tmp_path / "ops-nn" / "activation" / "gelu_grad", op_dir)


def test_timestamps_and_colours_are_stripped_and_compiler_errors_beat_build_sh_summaries(tmp_path: Path) -> None:
    lines = [
        "[2026-01-02 03:04:05] \x1b[31m[ERROR] opc gen failed!\x1b[0m",
        f"[2026-01-02 03:04:05] {tmp_path}/ops-nn/activation/gelu_grad/op_host/a.cpp:3:5: "
        "fatal error: 'x.h' file not found",
    ]

    error = first_error(lines, 10, mapper(tmp_path))

    assert error is not None
    assert (error.log_line, error.message, error.line, error.column) == (11, "'x.h' file not found", 3, 5)
    assert error.op_file == tmp_path / "gen" / "gelu_grad" / "op_host" / "a.cpp"


def test_cmake_error_takes_its_message_from_the_next_line(tmp_path: Path) -> None:
    lines = [
        "-- Configuring",
        "CMake Error at activation/gelu_grad/CMakeLists.txt:4 (add_modules_sources):",
        "  bad arg",
    ]

    error = first_error(lines, 1, mapper(tmp_path))

    assert error is not None
    assert (error.message, error.file, error.line) == ("bad arg", "activation/gelu_grad/CMakeLists.txt", 4)
    assert error.op_file == tmp_path / "gen" / "gelu_grad" / "CMakeLists.txt"


def test_errors_outside_the_op_stay_unmapped_and_build_sh_errors_are_the_fallback(tmp_path: Path) -> None:
    outside = first_error(["/usr/include/c++/x.h:1:2: error: boom"], 1, mapper(tmp_path))
    summary = first_error(["ok", "\x1b[31m[ERROR] --pkg cannot be used with test\x1b[0m", "done"], 1, mapper(tmp_path))
    last = first_error(["configuring", "Killed", ""], 1, mapper(tmp_path))

    assert outside is not None and outside.op_file is None and outside.file == "/usr/include/c++/x.h"
    assert summary is not None and (summary.log_line, summary.message) == (2, "--pkg cannot be used with test")
    assert last is not None and (last.log_line, last.message) == (2, "Killed")
    assert first_error([], 1, mapper(tmp_path)) is None


def test_a_symbol_defined_twice_beats_build_sh_summaries_and_names_both_objects(tmp_path: Path) -> None:
    """A kernel UT that includes the kernel AddOpTestCase also compiles: ld names the symbol and where each is."""
    lines = [
        "/x/kernel_utils_mode_cpu.h:331: multiple definition of `gelu_grad'; CMakeFiles/opkernel_gelu_grad.dir/"
        "test_gelu_grad.cpp.o:/x/op_kernel/gelu_grad.cpp:17: first defined here",
        "collect2: error: ld returned 1 exit status",
        "[ERROR] UT build/test failed",
    ]

    error = first_error(lines, 1, mapper(tmp_path))

    assert error is not None and error.log_line == 1
    assert "multiple definition of `gelu_grad'" in error.message and "test_gelu_grad.cpp.o" in error.message


def test_a_tool_build_sh_lacks_is_the_error_not_its_rerun_advice(tmp_path: Path) -> None:
    """build.sh checks its tools first (install_deps.sh): the row names dos2unix, not "re-run this script"."""
    lines = [
        "==== Checking dependencies ====",
        "",
        " Missing dependencies:",
        " - dos2unix",
        " - pigz (required: >= 2.4)",
        "",
        " Please run:",
        "    bash install_deps.sh",
        "    After installation, re-run this script.",
        "[ERROR] UT build/test failed",
    ]

    error = first_error(lines, 1, mapper(tmp_path))

    assert error is not None and error.log_line == 3
    assert "dos2unix, pigz (>= 2.4)" in error.message and "re-run" not in error.message
