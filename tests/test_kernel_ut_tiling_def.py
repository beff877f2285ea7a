"""`<op>_tiling_def.h` beside each kernel UT: ops-nn's AddOpTestCase force-includes it into the UT and the kernel it
compiles (else the build generates one with the toolkit's tiling scripts), so it must define every tiling macro
the op's kernels use, and the tiling data the kernel sees must be the bytes the UT wrote."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import GELU_DIR, SAMPLES

MACRO = re.compile(r"\b(GET_TILING_DATA\w*)\(")


def test_every_sample_defines_each_tiling_macro_its_kernels_use() -> None:
    users = []
    for kernel_ut in sorted(SAMPLES.glob("**/tests/ut/op_kernel")):
        op_dir = kernel_ut.parents[2]
        used = {m for src in (op_dir / "op_kernel").rglob("*") if src.is_file()
                for m in MACRO.findall(src.read_text(encoding="utf-8"))}
        defined = set(re.findall(r"#define (\w+)\(", (kernel_ut / f"{op_dir.name}_tiling_def.h").read_text()))
        assert used <= defined, op_dir.name
        users += [op_dir.name] if used else []  # DAG kernels hand the tiling pointer to their schedule instead
    assert "gelu_grad" in users and "hard_swish_grad_v2" in users


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_the_kernel_sees_the_bytes_the_ut_wrote(tmp_path: Path) -> None:
    op_dir = SAMPLES / GELU_DIR
    main = tmp_path / "main.cpp"
    main.write_text(f'''#include "{op_dir}/tests/ut/op_kernel/gelu_grad_tiling_def.h"
#include "{op_dir}/op_kernel/gelu_grad_tiling_data.h"
#include <cstring>
int main()
{{
    GeluGradTilingData written{{1000, 448, 104, 224}};
    uint8_t gm[sizeof(GeluGradTilingData)];
    std::memcpy(gm, &written, sizeof(gm));
    GET_TILING_DATA_WITH_STRUCT(GeluGradTilingData, tilingData, gm);
    return std::memcmp(&tilingData, &written, sizeof(gm)) == 0 && tilingData.blockTail == 104 ? 0 : 1;
}}
''')
    exe = tmp_path / "main"
    subprocess.run(["g++", "-std=c++17", "-o", str(exe), str(main)], check=True, capture_output=True)
    assert subprocess.run([str(exe)], check=False).returncode == 0
