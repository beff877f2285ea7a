"""kernel_tiling.h is derived by opgen: nothing in a sources dir is run by `opgen check` (issue 37 item 1)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from opgen.cann_sources import MARKERS
from opgen.errors import OpgenError
from opgen.kernel_tiling_def import kernel_tiling_header

from .test_cann_sources import app
from .trees import SAMPLE_DIRS, copy_sample

SCRIPT = "impl/adv_api/cmake/scripts/gen_kernel_tiling_data_def.py"


def test_the_header_is_byte_identical_to_what_asc_devkits_script_writes(tmp_path: Path, cann_src: Path) -> None:
    adv_api = cann_src / "asc-devkit" / "include" / "adv_api"
    theirs = tmp_path / "kernel_tiling.h"
    # the test, not check, chooses to run the sources' script: it is the reference the derivation must match
    subprocess.run([sys.executable, str(cann_src / "asc-devkit" / SCRIPT), str(adv_api), str(theirs)],
                   check=True, capture_output=True, cwd=tmp_path)
    ours = kernel_tiling_header(adv_api).encode()
    assert ours == theirs.read_bytes()
    assert b"struct SoftMaxTiling {" in ours and b"using AscendC::tiling::SoftMaxTiling;" in ours


def _hostile_sources(root: Path, marker: Path) -> Path:
    """Every repo the headers tier asks for, present by its marker; asc-devkit's generator writes `marker`."""
    for name, rel in MARKERS.items():
        (root / name / rel).parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".h"):
            (root / name / rel).write_text("#pragma once\n")
        else:
            (root / name / rel).mkdir(exist_ok=True)
    devkit = root / "asc-devkit"
    (devkit / "include/adv_api/demo").mkdir(parents=True)
    (devkit / "include/adv_api/demo/demo_tilingdata.h").write_text(
        "BEGIN_TILING_DATA_DEF(DemoTiling)\n  TILING_DATA_FIELD_DEF(uint32_t, len);\nEND_TILING_DATA_DEF;\n")
    (devkit / "include/utils/tiling/platform").mkdir(parents=True)
    (devkit / "include/utils/context").mkdir(parents=True)
    (devkit / "impl/adv_api/cmake/scripts").mkdir(parents=True)
    (devkit / "impl/adv_api/cmake/kernel_headers.cmake").write_text("")
    (devkit / SCRIPT).write_text(f"open({str(marker)!r}, 'w').write('ran')\n")
    (root / "ops-nn/common/inc/op_kernel").mkdir(parents=True)
    return root


def test_check_never_runs_a_script_from_the_sources_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("OPGEN_CACHE", "")  # it would win over XDG_CACHE_HOME
    marker = tmp_path / "ran"
    sources = _hostile_sources(tmp_path / "src", marker)
    tree = copy_sample(tmp_path / "t", SAMPLE_DIRS[0])
    result = CliRunner().invoke(app, ["check", str(tree), "--tier", "headers", "--cann-src", str(sources)])
    assert not marker.exists(), "check ran asc-devkit's generator script"
    assert result.exit_code == 1, result.output  # the stub headers do not compile the tree: the tier ran, and failed
    [header] = (tmp_path / "cache").glob("opgen/cann-stage/*/kernel_tiling/kernel_tiling.h")
    assert "struct DemoTiling {\n    uint32_t len = 0;\n};" in header.read_text()


def test_a_fifo_named_like_a_tiling_header_is_refused_without_blocking(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x_tilingdata.h")
    with pytest.raises(OpgenError, match="not a regular file"):
        kernel_tiling_header(tmp_path)


def test_an_unreadable_tiling_macro_is_named(tmp_path: Path) -> None:
    (tmp_path / "bad_tilingdata.h").write_text("TILING_DATA_FIELD_DEF uint32_t len;\n")
    with pytest.raises(OpgenError, match=r"bad_tilingdata\.h: cannot read the tiling macro"):
        kernel_tiling_header(tmp_path)
