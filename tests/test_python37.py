"""ops-nn documents Python 3.7 and later: every Python file of a generated tree (golden, gen_data, compare_data)
must run there. vermin reads each file's syntax and library use and names the version each construct needs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import SAMPLES


def _vermin(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(Path(sys.executable).parent / "vermin"), "-t=3.7-", "--violations", "--no-tips",
                           "--eval-annotations", *map(str, paths)], capture_output=True, text=True, check=False)


def test_every_generated_python_file_runs_on_python_3_7() -> None:
    files = sorted(SAMPLES.rglob("*.py"))
    assert len(files) >= 3 * 18, "every sample has a golden, a gen_data and a compare_data"

    found = _vermin(*files)

    assert found.returncode == 0, found.stdout + found.stderr


def test_a_construct_newer_than_3_7_is_named(tmp_path: Path) -> None:
    newer = tmp_path / "gen_data.py"
    newer.write_text("def pair(a, b):\n    return list(zip(a, b, strict=True))\n")

    found = _vermin(newer)

    assert found.returncode != 0 and "zip(strict)" in found.stdout
