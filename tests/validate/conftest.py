"""Stand-ins for a CANN machine: an ops-nn checkout with a recording build.sh, a toolkit, host tools, an op."""

from __future__ import annotations

import json
import os
import platform
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner, Result

from opgen.validate import runner
from opgen.validate.command import validate

CATEGORIES = ("matmul", "conv", "activation", "foreach", "hash", "vfusion", "index", "loss", "norm")

# Records each call's argv (one line), the toolkit it saw and whether the probed file was in place;
# prints timestamped lines as the real build.sh does, gtest's counts for a UT call (OPGEN_FAKE_GTEST, else 2 of 2
# passed); fails with a canned error when asked to.
FAKE_BUILD_SH = r"""#!/bin/bash
echo "$*" >> "$OPGEN_FAKE_CALLS"
echo "ASCEND_HOME_PATH=${ASCEND_HOME_PATH:-}" >> "$OPGEN_FAKE_SEEN"
if [[ -n "${OPGEN_FAKE_PROBE:-}" && -f "$OPGEN_FAKE_PROBE" ]]; then echo placed >> "$OPGEN_FAKE_SEEN"; fi
stamp() { while IFS= read -r line; do echo "[2026-01-02 03:04:05] $line"; done; }
{
  echo "CMAKE_ARGS: -DBUILD_PATH=$(pwd)/build"
  if [[ " $* " == *" -u "* ]]; then
    printf '%s\n' "${OPGEN_FAKE_GTEST-[==========] 2 tests from 1 test suite ran. (1 ms total)
[  PASSED  ] 2 tests.}"
  fi
  if [[ -n "${OPGEN_FAKE_FAIL:-}" && " $* " == *" ${OPGEN_FAKE_FAIL} "* ]]; then
    echo "make[2]: Entering directory '$(pwd)/build'"
    printf '%s\n' "${OPGEN_FAKE_ERROR//@ROOT@/$(pwd)}" >&2
    echo "[ERROR] Kernel compile failed!"
    exit 1
  fi
  echo "[100%] Built target everything"
} | stamp
exit "${PIPESTATUS[0]}"
"""

FAKE_TOOLS = {
    "python3": "echo 'Python 3.11.4'",
    "gcc": "echo 'gcc (GCC) 11.4.0'",
    "g++": "echo 'g++ (GCC) 11.4.0'",
    "cmake": "echo 'cmake version 3.28.3'",
    "pigz": "echo 'pigz 2.8'",
    "dos2unix": "echo 'dos2unix 7.4.3'",
}


def write_exec(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def snapshot(root: Path, skip_build: bool = False) -> dict[str, bytes | None]:
    """Every path under root with its bytes (None for dirs): 'untouched' means equal snapshots."""
    out: dict[str, bytes | None] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if skip_build and (rel == "build" or rel.startswith("build/")):
            continue
        out[rel] = path.read_bytes() if path.is_file() else None
    return out


@dataclass
class Machine:
    """Paths of one fake CANN machine and helpers to drive `validate` on it."""

    tmp: Path
    ops_nn: Path
    cann: Path
    calls_file: Path
    seen_file: Path

    def calls(self) -> list[str]:
        return self.calls_file.read_text().splitlines() if self.calls_file.exists() else []

    def seen(self) -> list[str]:
        return self.seen_file.read_text().splitlines() if self.seen_file.exists() else []

    def make_op(
        self,
        name: str = "gelu_grad",
        category: str = "activation",
        experimental: bool = True,
        socs: tuple[str, ...] = ("ascend910b", "ascend310b"),
        manifest: bool = True,
        example_dir: str = "examples",
    ) -> Path:
        """A small generated op under tmp/gen/[experimental/]<category>/<name>."""
        base = self.tmp / "gen" / ("experimental" if experimental else "") / category / name
        files = {
            "CMakeLists.txt": f"add_modules_sources(OPTYPE {name})\n",
            f"op_host/{name}_def.cpp": "// def\n",
            f"op_host/{name}_tiling.cpp": "".join(f"// tiling line {i}\n" for i in range(1, 61)),
            f"op_kernel/{name}.cpp": "// kernel\n",
            "tests/ut/op_host/CMakeLists.txt": "# host ut\n",
            f"tests/ut/op_host/test_{name}_infershape.cpp": "".join(f"// ut line {i}\n" for i in range(1, 31)),
            "tests/ut/op_api/CMakeLists.txt": "# api ut\n",
            "tests/ut/op_kernel/CMakeLists.txt": "# kernel ut\n",
            f"{example_dir}/test_aclnn_{name}.cpp": "int main() { return 0; }\n",
        }
        files.update({f"op_host/config/{soc}/{name}_binary.json": "{}\n" for soc in socs})
        for rel, text in files.items():
            (base / rel).parent.mkdir(parents=True, exist_ok=True)
            (base / rel).write_text(text)
        if manifest:
            data = {
                "opgen_version": "0.1.0",
                "op_type": "".join(part.title() for part in name.split("_")),
                "name": name,
                "category": category,
                "experimental": experimental,
                "socs": list(socs),
                "files": {rel: "0" * 64 for rel in sorted(files)},
            }
            (base / ".opgen").mkdir()
            (base / ".opgen" / "manifest.json").write_text(json.dumps(data, indent=2))
        return base

    def invoke(self, *args: str | Path) -> Result:
        """`opgen validate` through a Typer app of our own (cli.py wiring is not ours)."""
        app = typer.Typer()
        app.command()(validate)
        return CliRunner().invoke(app, [str(a) for a in args])


def make_cann(root: Path) -> Path:
    arch = f"{platform.machine()}-linux"
    for rel in (
        f"{arch}/include/acl",
        f"{arch}/tikcpp/ascendc_kernel_cmake",
        "tools/tikicpulib/lib/cmake",
        "opp/vendors/custom_nn/op_api/lib",
    ):
        (root / rel).mkdir(parents=True)
    (root / arch / "include" / "acl" / "acl.h").write_text("// acl\n")
    (root / "set_env.sh").write_text(f"export ASCEND_HOME_PATH={root}\n")
    return root


def make_ops_nn(root: Path) -> Path:
    write_exec(root / "build.sh", FAKE_BUILD_SH)
    (root / "install_deps.sh").write_text("# deps\n")
    (root / "cmake").mkdir(parents=True)
    quoted = " ".join(f'"{c}"' for c in CATEGORIES)
    (root / "cmake" / "variables.cmake").write_text(f"# categories\nset(OP_CATEGORY_LIST {quoted})\n")
    for rel in ("activation/relu/op_host", "experimental/activation/celu/op_host"):
        (root / rel).mkdir(parents=True)
        (root / rel / "def.cpp").write_text("// upstream op\n")
    return root


@pytest.fixture
def check_codes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Stub `opgen check` (written elsewhere); append a non-zero code to make it fail."""
    codes: list[int] = []

    def fake_check(op_dir: Path, options: Sequence[str], log: runner.Log, on_line: Callable[[str], None]) -> int:
        log.write(f"opgen check {op_dir} {' '.join(options)}".rstrip())
        on_line(f"opgen check {op_dir} {' '.join(options)}".rstrip())
        return codes[0] if codes else 0

    monkeypatch.setattr(runner, "run_opgen_check", fake_check)
    return codes


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, check_codes: list[int]) -> Iterator[Machine]:
    """A machine where `source set_env.sh` has been done and every host tool is present."""
    m = Machine(
        tmp=tmp_path,
        ops_nn=make_ops_nn(tmp_path / "ops-nn"),
        cann=make_cann(tmp_path / "cann"),
        calls_file=tmp_path / "calls.txt",
        seen_file=tmp_path / "seen.txt",
    )
    for tool, body in FAKE_TOOLS.items():
        write_exec(tmp_path / "bin" / tool, f"#!/bin/sh\n{body}\n")
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ASCEND_HOME_PATH", str(m.cann))
    monkeypatch.delenv("ASCEND_CUSTOM_OPP_PATH", raising=False)
    monkeypatch.setenv("OPGEN_FAKE_CALLS", str(m.calls_file))
    monkeypatch.setenv("OPGEN_FAKE_SEEN", str(m.seen_file))
    for var in ("OPGEN_FAKE_FAIL", "OPGEN_FAKE_ERROR", "OPGEN_FAKE_PROBE", "OPGEN_FAKE_GTEST"):
        monkeypatch.delenv(var, raising=False)
    yield m
