"""Trees that try to make check read files outside them, exhaust the machine, or outlive it: each ends in a
FAIL, bounded, with nothing of the outside file in the report and nothing left running."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from opgen.check.confined import compile_confined
from opgen.check.runner import run_checks
from opgen.check.syntax_tier import syntax_tier

from .trees import GELU, RELU, copy_sample, failing

SECRET = "opgen-secret-line"
INFERSHAPE = "op_host/relu_grad_v2_infershape.cpp"


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    """A file outside the tree whose text must never reach a report."""
    path = tmp_path / "outside" / "secret.h"
    path.parent.mkdir()
    path.write_text(f"{SECRET}: not C++ at all\n")
    return path


def _prepend(path: Path, text: str) -> None:
    path.write_text(text + "\n" + path.read_text())


@pytest.mark.parametrize("spelling", [
    '#inc\\\nlude "{secret}"',       # a backslash-newline splice inside the directive
    '%:include "{secret}"',          # the digraph of #
    '/**/#include "{secret}"',       # a comment before the directive
    '# /* x */ include "{secret}"',  # a comment inside it
    '#include "{secret}"',           # an absolute path
    '#include "{up}/outside/secret.h"',  # a relative path climbing out of the tree
])
def test_an_include_leaving_the_tree_fails_the_syntax_tier(tmp_path: Path, secret: Path, spelling: str) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    up = os.path.relpath(tmp_path, op_dir / "op_host")
    _prepend(op_dir / INFERSHAPE, spelling.format(secret=secret, up=up))
    items = syntax_tier(op_dir)
    bad = failing(items)
    assert [i.item for i in bad] == [f"C/C++ {INFERSHAPE}"]
    assert f"{INFERSHAPE}:1: #include" in bad[0].reason and "leaves the tree" in bad[0].reason
    assert SECRET not in str(items)


def test_an_include_the_stripping_misses_is_caught_where_the_preprocessor_reads_it(tmp_path: Path,
                                                                                  secret: Path) -> None:
    """A block comment spanning lines before `#` makes a directive no line-based reading sees."""
    op_dir = copy_sample(tmp_path, RELU)
    _prepend(op_dir / INFERSHAPE, f'/*\n*/#include "{secret}"')
    items = syntax_tier(op_dir)
    (bad,) = failing(items)
    assert f"reaches {secret}, outside the tree" in bad.reason
    assert SECRET not in str(items)


def test_a_preprocess_that_runs_out_of_memory_fails_in_bounded_time(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`/dev/zero` took cc1plus to 8.4 GB; a killed or failed run is never "parses"."""
    monkeypatch.setenv("OPGEN_COMPILE_MEMORY", "0.25")
    monkeypatch.setenv("OPGEN_COMPILE_TIMEOUT", "20")
    op_dir = copy_sample(tmp_path, RELU)
    _prepend(op_dir / INFERSHAPE, '/*\n*/#include "/dev/zero"')
    start = time.monotonic()
    items = syntax_tier(op_dir)
    assert time.monotonic() - start < 60
    (bad,) = failing(items)
    assert bad.item == f"C/C++ {INFERSHAPE}"
    assert "preprocessor" in bad.reason or "/dev/zero" in bad.reason


def test_a_symlink_out_of_the_tree_is_refused_before_any_tier_reads_it(tmp_path: Path, secret: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    (op_dir / INFERSHAPE).unlink()
    (op_dir / INFERSHAPE).symlink_to(secret)
    report = run_checks(op_dir, tiers=("structure", "syntax", "consistency", "numerics"))
    tiers = {t.tier: t for t in report.tiers}
    assert tiers["structure"].status == "fail"
    assert f"symlink {INFERSHAPE} -> {secret}" in [i.item for i in tiers["structure"].items]
    assert {tiers[t].status for t in ("syntax", "consistency", "numerics")} == {"skip"}
    assert report.exit_code == 1
    assert SECRET not in str(report)


def test_a_header_outside_the_tree_fails_the_compile_and_nothing_it_printed_is_reported(tmp_path: Path,
                                                                                       secret: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "host.cpp").write_text('#include "../outside/secret.h"\nint main() { return 0; }\n')
    done = compile_confined(["g++", "-fsyntax-only", f"-I{tree}", str(tree / "host.cpp")], "g++", [tree],
                            timeout=60)
    assert not done.passed
    assert done.refusal is not None and "outside/secret.h, outside the tree" in done.refusal
    assert SECRET not in done.stderr + done.refusal


def test_headers_inside_the_tree_and_the_system_compile(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    (tree / "inc").mkdir(parents=True)
    (tree / "inc" / "own.h").write_text("#include <vector>\ninline int own() { return 1; }\n")
    (tree / "host.cpp").write_text('#include "inc/own.h"\nint main() { return own(); }\n')
    done = compile_confined(["g++", "-fsyntax-only", str(tree / "host.cpp")], "g++", [tree], timeout=60)
    assert done.passed, done


def test_a_sleeping_golden_fails_and_leaves_nothing_running(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, GELU)
    marker = tmp_path / "golden.pids"
    golden = op_dir / "tests/assets/golden.py"
    golden.write_text(golden.read_text() + (
        "\nimport os, subprocess, time\n"
        "child = subprocess.Popen(['sleep', '300'])\n"
        f"open({str(marker)!r}, 'a').write(f'{{os.getpid()}} {{child.pid}} {{os.getcwd()}}\\n')\n"
        "time.sleep(300)\n"))
    env = {**os.environ, "OPGEN_EXEC_TIMEOUT": "3"}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "opgen", "check", str(op_dir), "--allow-exec"], env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert time.monotonic() - start < 120
    assert done.returncode == 1, done.stdout + done.stderr
    assert "OPGEN_EXEC_TIMEOUT" in done.stdout
    runs = [line.split() for line in marker.read_text().splitlines()]
    assert runs
    for pid, child, scratch in runs:
        for process in (pid, child):
            assert not Path(f"/proc/{process}").exists() or "Z" in Path(f"/proc/{process}/stat").read_text().split()[2]
        assert not Path(scratch).exists()
