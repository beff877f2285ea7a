"""`opgen check DIR DIR...`: several ops in one command. They run one after the other in this process, so the
first one to need the toolkit-shaped prefix or the CPU model builds it and the others read that build; each
op's table is printed when it finishes (`--json`: one array of the per-op reports at the end), and the exit code
is the worst of them (2 for an op dir that is bad input, which does not stop the others)."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from .. import progress
from ..cann_sources import resolve_sources
from ..errors import OpgenError
from .command import _error
from .headers import resolve_include_dirs
from .report import print_table, to_json
from .runner import CheckReport, chosen_tiers, run_checks
from .trust import Trust

BAD_INPUT = 2


def check_several(op_dirs: Sequence[Path], *, spec: Path | None, cann_headers: Sequence[Path],
                  cann_src: Path | None, cann: Path | None, allow_exec: bool, json_output: bool,
                  tier: Sequence[str], skip_tier: Sequence[str]) -> int:
    """Check each op dir with the same options; the worst exit code. Options that are bad input raise OpgenError
    before any op runs."""
    if spec is not None:
        raise OpgenError("--spec names one op's spec: pass one op dir with it (with several, each op's record "
                         "holds its spec)")
    tiers = chosen_tiers(tier, skip_tier)
    include_dirs = resolve_include_dirs(list(cann_headers))
    sources = resolve_sources(cann_src, cann)
    if sources is not None:
        sources.require("headers")
    reports: list[CheckReport] = []
    worst = 0
    for op_dir in op_dirs:
        try:
            with progress.reporting():  # one live area an op, ended before its table is printed
                report = run_checks(op_dir, None, include_dirs, sources=sources, trust=Trust(allow_exec=allow_exec),
                                    tiers=tiers, report_left_out=True)
        except (OpgenError, OSError) as error:
            text = f"{error.strerror or error}: {error.filename or ''}".rstrip(": ") \
                if isinstance(error, OSError) else str(error)
            _error(text if str(op_dir) in text else f"{op_dir}: {text}")
            worst = max(worst, BAD_INPUT)
            continue
        reports.append(report)
        worst = max(worst, report.exit_code)
        if not json_output:
            print_table(report)
    if json_output:
        sys.stdout.write(json.dumps([to_json(r) for r in reports], indent=2, ensure_ascii=False) + "\n")
    return worst
