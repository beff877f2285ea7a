"""A tree cannot learn about the checker's machine through the preprocessor (issue 37 item 14), and a FIFO, socket
or device in it is flagged and never opened (item 16)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from opgen.check import syntax
from opgen.check.cpp_includes import probe_findings
from opgen.check.runner import CheckReport, run_checks
from opgen.check.structure import structure_tier
from opgen.check.syntax import cpp_syntax_errors
from opgen.check.tree_guard import probe_items, read_regular

from .trees import RELU, copy_sample, loaded

INFERSHAPE = "op_host/relu_grad_v2_infershape.cpp"
OFFLINE = ("structure", "syntax", "consistency")
# each asks "does PATH exist?" and fails the syntax tier (an #error) when it does
PROBES = [
    '#if __has_include("{path}")\n#error found\n#endif',
    "#if __has_include_next(<{path}>)\n#error found\n#endif",
    '#if __has_include("{up}")\n#error found\n#endif',
    '#define WHERE "{path}"\n#if __has_include(WHERE)\n#error found\n#endif',
    '#define ASK __has_include\n#if ASK("{path}")\n#error found\n#endif',
    '#define CAT(a, b) a##b\n#if CAT(__has_, include)("{path}")\n#error found\n#endif',
    '#if __has_\\\ninclude("{path}")\n#error found\n#endif',
    '#include "{path}"',
]


def _probing_tree(tmp_path: Path, name: str, probe: str, path: Path) -> Path:
    op_dir = copy_sample(tmp_path / name, RELU)
    up = os.path.relpath(path, op_dir / "op_host")
    infershape = op_dir / INFERSHAPE
    infershape.write_text(probe.format(path=path, up=up) + "\n" + infershape.read_text())
    return op_dir


def _outcome(report: CheckReport, path: Path) -> list[tuple[str, str, list[tuple[str, str]]]]:
    """What a report says, with the probed path spelled the same whether it exists or not."""
    return [(t.tier, t.status, [(i.status, i.reason.replace(str(path), "PATH").replace(path.name, "NAME"))
                                for i in t.items]) for t in report.tiers]


@pytest.mark.parametrize("probe", PROBES)
def test_a_probe_of_a_path_outside_the_tree_fails_the_same_whether_it_exists_or_not(tmp_path: Path,
                                                                                     probe: str) -> None:
    there = tmp_path / "outside" / "exists.h"
    there.parent.mkdir()
    there.write_text("int x;\n")
    absent = there.with_name("absent.h")
    reports = [run_checks(_probing_tree(tmp_path, name, probe, path), tiers=OFFLINE)
               for name, path in (("a", there), ("b", absent))]
    statuses = {t.tier: t.status for t in reports[0].tiers}
    assert statuses == {"structure": "fail", "syntax": "skip", "consistency": "pass"}
    [refused] = [i for i in reports[0].tiers[0].items if i.status == "fail"]
    assert refused.item.startswith("preprocessor probe") and f"{INFERSHAPE}:" in refused.reason
    assert "refused" in refused.reason
    assert _outcome(reports[0], there) == _outcome(reports[1], absent)


def test_in_tree_and_system_probes_are_allowed(tmp_path: Path) -> None:
    source = tmp_path / "op_host" / "x.cpp"
    source.parent.mkdir()
    text = ('#if __has_include("x_tiling.h") && __has_include(<cstdint>)\n#include "../op_kernel/k.h"\n#endif\n'
            'const char* s = "__has_"; // __h in a comment is no token\nint _ = 0, a = 1, s2 = 0;\n')
    assert probe_findings(text, source, tmp_path) == []


def test_pieces_of_a_pasted_probe_in_two_files_are_named(tmp_path: Path) -> None:
    (tmp_path / "a.h").write_text("#define CAT(a, b) a##b\n#define XCAT(a, b) CAT(a, b)\n#define FIRST __ha\n")
    (tmp_path / "b.cpp").write_text('#include "a.h"\n\n#if XCAT(FIRST, s_include)("/etc/passwd")\n#endif\n')
    [item] = probe_items(tmp_path)
    assert item.item == "preprocessor probe (pasted)" and item.status == "fail"
    assert "'__ha', 's_include' (a.h:3, b.cpp:3) could be pasted (##) into __has_include" in item.reason


def test_the_syntax_tier_stops_a_probe_the_text_scan_would_miss(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Defence in depth: the preprocessor itself refuses __has_include built by ##, whatever the scan saw."""
    source = tmp_path / "x.cpp"
    source.write_text('#define CAT(a, b) a##b\n#if CAT(__has_, include)("/etc/passwd")\n#error found\n#endif\n')
    monkeypatch.setattr(syntax, "probe_findings", lambda *args, **kwargs: [])
    [finding] = cpp_syntax_errors(source, root=tmp_path)
    assert finding.line == 2 and "probes paths outside the tree: refused" in finding.message


def _fifo_tree(tmp_path: Path) -> Path:
    op_dir = copy_sample(tmp_path, RELU)
    os.mkfifo(op_dir / "op_kernel" / "pipe.h")
    infershape = op_dir / INFERSHAPE
    infershape.write_text('#include "../op_kernel/pipe.h"\n' + infershape.read_text())
    return op_dir


def test_a_fifo_in_the_tree_fails_structure_and_no_tier_opens_it(tmp_path: Path) -> None:
    op_dir = _fifo_tree(tmp_path)
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "opgen", "check", str(op_dir), "--tier", "structure", "--tier",
                           "syntax", "--tier", "consistency", "--tier", "kernel", "--tier", "headers"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert time.monotonic() - start < 60
    assert done.returncode == 1, done.stdout + done.stderr
    assert "special file op_kernel/pipe.h" in done.stdout and "a FIFO, not a regular file" in done.stdout


def test_structure_names_every_special_file_and_reads_nothing_else(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    op_dir = _fifo_tree(tmp_path)
    monkeypatch.chdir(op_dir / "op_host")  # bound by a relative name: a long tmp path passes AF_UNIX's 108 bytes
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind("s.sock")
        items = structure_tier(op_dir, *loaded(op_dir))
    assert [(i.item, i.status) for i in items] == [("special file op_host/s.sock", "fail"),
                                                  ("special file op_kernel/pipe.h", "fail")]
    assert "a socket" in items[0].reason


def test_reading_a_fifo_never_blocks(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "file").write_bytes(b"x")
    assert read_regular(tmp_path / "pipe") is None and read_regular(tmp_path / "file") == b"x"
