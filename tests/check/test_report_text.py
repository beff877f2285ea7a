"""What check prints is safe to show: tree text in the table cannot drive the terminal (issue 37 item 11)."""

from __future__ import annotations

import io
import unicodedata
from pathlib import Path

from rich.console import Console

from opgen.check.items import TierResult, bad, ok, skipped
from opgen.check.report import FULL_WIDTH, print_table
from opgen.check.runner import CheckReport

# a tree file whose name and message erase the row above and reprint it as a green pass, reversed by a bidi override
OVERDRAW = "\x1b[1A\x1b[2K\r\x1b[32mALL PASS\x1b[0m\b\u202e\u2066\x9b\x00"


def _printed(report: CheckReport) -> str:
    out = io.StringIO()
    print_table(report, Console(file=out, width=FULL_WIDTH, soft_wrap=False, highlight=False, emoji=False,
                                force_terminal=False, color_system=None))
    return out.getvalue()


def test_control_and_bidi_characters_of_a_tree_are_escaped_in_the_table() -> None:
    tier = TierResult("syntax", (bad(f"op_kernel/a{OVERDRAW}.h", f"expected ';'{OVERDRAW}"),
                                 ok("op_host/b.cpp")))
    left_out = TierResult("kernel", (skipped("kernel tier", f"no sources{OVERDRAW}"),))
    report = CheckReport(Path(f"ops/x{OVERDRAW}"), Path("spec.yaml"), f"none{OVERDRAW}", f"Op{OVERDRAW}", "classic",
                         (tier, left_out), 1.0)
    text = _printed(report)
    shown = {c for c in text if c != "\n" and unicodedata.category(c) in {"Cc", "Cf"}}
    assert not shown, sorted(map(hex, map(ord, shown)))
    assert text.count("\\x1b[2K\\x0d\\x1b[32mALL PASS\\x1b[0m\\x08\\u202e\\u2066\\x9b\\x00") == 7  # each place, visibly
    assert "FAIL" in text


def test_plain_text_prints_unchanged() -> None:
    tier = TierResult("syntax", (bad("op_kernel/ä.h", "expected ';' — got 'x'"),))
    text = _printed(CheckReport(Path("ops/x"), Path("spec.yaml"), "none", "Op", "classic", (tier,), 1.0))
    assert "op_kernel/ä.h" in text and "expected ';' — got 'x'" in text

