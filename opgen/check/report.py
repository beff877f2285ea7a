"""Print a CheckReport: a rich table for people, or JSON with the same content for tools and CI."""

from __future__ import annotations

import json
import math
import sys
import unicodedata
from typing import TYPE_CHECKING, Any

from .items import FAIL, PASS, SKIP, CheckItem, Figure, Status, TierResult

if TYPE_CHECKING:
    from rich.console import Console

    from .runner import CheckReport

LABELS: dict[Status, str] = {PASS: "PASS", FAIL: "FAIL", SKIP: "SKIPPED"}
STYLES: dict[Status, str] = {PASS: "green", FAIL: "bold red", SKIP: "yellow"}
FULL_WIDTH = 100_000  # not on a terminal (a log, a pipe, an issue note): every row in full, one line each
# characters a terminal acts on or reorders instead of showing: controls (C0, C1, ESC, CR, backspace), format
# characters (bidi overrides and isolates, zero-width joiners), line and paragraph separators, lone surrogates
_UNSHOWN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def to_json(report: CheckReport) -> dict[str, Any]:
    return {
        "op_dir": str(report.op_dir),
        "spec": str(report.spec_path),
        "op_type": report.op_type,
        "families": report.families,
        "sources": report.sources,
        "status": FAIL if not report.passed else PASS if report.checked else SKIP,
        "exit_code": report.exit_code,
        "seconds": round(report.seconds, 3),
        "tiers": [
            {
                "tier": tier.tier,
                "status": tier.status,
                "seconds": round(tier.seconds, 3),
                "counts": tier.counts,
                "items": [
                    {"item": i.item, "status": i.status, "reason": i.reason,
                     "figures": {k: _json_number(v) for k, v in i.figures.items()}}
                    for i in tier.items
                ],
            }
            for tier in report.tiers
        ],
    }


def _json_number(value: Figure) -> Figure:
    """JSON has no inf/nan: spell them as strings rather than emit invalid JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def print_json(report: CheckReport) -> None:
    sys.stdout.write(json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n")


def visible(text: str) -> str:
    """Tree text as the table may print it: every character a terminal would act on spelled as an escape
    (`\\x1b`, `\\u202e`), so a hostile file name or message cannot overdraw a FAIL row or move the cursor."""
    if not any(unicodedata.category(c) in _UNSHOWN for c in text):
        return text
    return "".join(_escaped(c) if unicodedata.category(c) in _UNSHOWN else c for c in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def print_table(report: CheckReport, console: Console | None = None) -> None:
    from rich.table import Table
    from rich.text import Text

    from ..console import console as make_console

    terminal = sys.stdout.isatty()
    console = console or make_console(width=None if terminal else FULL_WIDTH, soft_wrap=False)
    # the heading is a line of its own, never folded at the table's width: a long op dir path stays whole
    console.print(Text(visible(f"opgen check {report.op_type} ({report.families}) — {report.op_dir}")),  # no markup
                  soft_wrap=True)
    table = Table(show_lines=False, expand=False)
    table.add_column("tier", no_wrap=True)
    table.add_column("item", overflow="fold", max_width=60 if terminal else None)
    table.add_column("status", no_wrap=True)
    table.add_column("reason / figures", overflow="fold")
    for tier in report.tiers:
        counts = tier.counts
        table.add_row(Text(tier.tier, style="bold"), Text("(tier)", style="dim"), _status(tier.status),
                      f"{counts[PASS]} passed, {counts[FAIL]} failed, {counts[SKIP]} skipped in {tier.seconds:.1f} s")
        for n, item in enumerate(tier.items):
            table.add_row("", Text(visible(item.item)), _status(item.status), Text(visible(detail(item))),  # no markup
                          end_section=n == len(tier.items) - 1)
    console.print(table)
    console.print(Text(visible(f"spec: {report.spec_path}"), style="dim"), soft_wrap=True)  # e.g. the record's copy
    console.print(Text(visible(f"CANN sources: {report.sources}"), style="dim"), soft_wrap=True)
    console.print(summary(report), soft_wrap=True)


def _status(status: Status) -> Any:
    from rich.text import Text

    return Text(LABELS[status], style=STYLES[status])


def detail(item: CheckItem) -> str:
    figures = item.figures
    if {"max_abs", "max_rel", "max_ulp"} <= figures.keys():
        shown = (f"max abs {_num(figures['max_abs'])}, rel {_num(figures['max_rel'])}, "
                 f"ULP {_num(figures['max_ulp'])}")
        return f"{shown}; {item.reason}" if item.reason else shown
    return item.reason


def _num(value: Figure) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    return str(value)


def summary(report: CheckReport) -> str:
    """One line of rich markup: what failed, passed and was skipped (and why), and the wall time."""
    from rich.markup import escape

    def names(tiers: list[TierResult]) -> str:
        return ", ".join(t.tier for t in tiers)

    failed = [t for t in report.tiers if t.status == FAIL]
    passed = [t for t in report.tiers if t.status == PASS]
    skipped = [t for t in report.tiers if t.status == SKIP]
    parts = []
    if failed:
        parts.append(f"[bold red]FAILED[/]: {names(failed)}")
    if passed:
        parts.append(f"[green]passed[/]: {names(passed)}")
    if skipped:
        why = escape(visible("; ".join(f"{t.tier}: {t.items[0].reason}" for t in skipped if t.items)))
        parts.append(f"[yellow]SKIPPED[/]: {names(skipped)} ({why})")
    if report.passed and not report.checked:
        parts.insert(0, f"[bold yellow]NOTHING CHECKED[/]: every selected tier was SKIPPED, which is no pass "
                        f"(exit {report.exit_code})")
    return " — ".join(parts) + escape(f" [{report.seconds:.1f} s]")
