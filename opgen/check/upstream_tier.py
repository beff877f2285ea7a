"""The `upstream` tier: where ops-nn (from --cann-src) already has the op at the same path, every fact the
generated tree registers or exports must equal upstream's, or be listed in the spec's `upstream_differences`
with a cited reason. An IR name or an exported aclnn signature can never be listed (the spec refuses it).

The facts of both dirs come from one parser (`opgen.upstream`), the differences from `upstream.compare`, so
the offline test over `schemas/` (against facts committed at a pinned ops-nn commit) and this tier agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase
from pathlib import Path

from ..cann_sources import CannSources, enable_hint
from ..plan import RenderPlan
from ..spec.models import KERNEL_FACT_PREFIX, OpSpec, UpstreamDifference
from ..upstream import OpFacts, parse_op_dir
from ..upstream.compare import Difference, compare_facts
from .items import CheckItem, bad, ok, skipped

DOCS = "docs/check.md#the-upstream-tier"


def upstream_tier(op_dir: Path, spec: OpSpec, plan: RenderPlan, sources: CannSources | None) -> list[CheckItem]:
    if sources is None:
        return [skipped("upstream op", enable_hint("upstream"))]
    if sources.kind != "src":
        return [skipped("upstream op", "a CANN toolkit holds no ops-nn sources: pass --cann-src DIR to compare "
                        "with ops-nn's own op")]
    if absent := sources.missing("upstream"):
        return [skipped("upstream op", f"needs {'; '.join(absent)}")]
    ops_nn = sources.repo("ops-nn")
    theirs = ops_nn / plan.rel_dir
    if not theirs.is_dir():
        return [skipped("upstream op", f"ops-nn has no op at {plan.rel_dir}: nothing to keep compatible with")]
    return difference_rows(parse_op_dir(op_dir), parse_op_dir(theirs), spec.upstream_differences,
                           f"ops-nn {plan.rel_dir}")




def difference_rows(mine: OpFacts, theirs: OpFacts, listed: Sequence[UpstreamDifference],
                    upstream: str) -> list[CheckItem]:
    """One FAIL per unlisted difference and per listing that matches none; one PASS row for the rest."""
    found = compare_facts(mine, theirs)
    rows: list[CheckItem] = []
    used: set[int] = set()
    excused = 0
    for difference in found:
        matches = _listings(difference, listed)
        if not matches or difference.fixed:
            rows.append(bad(difference.key, _why(difference, upstream)))
            continue
        used.update(matches)
        excused += 1
    stale = [i for i, entry in enumerate(listed) if i not in used and not entry.fact.startswith(KERNEL_FACT_PREFIX)]
    rows += [bad(f"upstream_differences[{i}]", f"lists {listed[i].fact!r}, which does not differ from {upstream}: "
                 "remove it") for i in stale]
    if not rows:
        rows.append(ok("registered facts", f"equal to {upstream} but for {excused} listed difference(s)",
                       listed=excused))
    return rows


def _listings(difference: Difference, listed: Sequence[UpstreamDifference]) -> set[int]:
    return {i for i, entry in enumerate(listed) if fnmatchcase(difference.key, entry.fact)}


def _why(difference: Difference, upstream: str) -> str:
    said = f"generated: {difference.mine}; {upstream}: {difference.theirs}"
    if difference.fixed:
        return (f"{said}. This is the IR or an exported aclnn signature: it must stay upstream's (use upstream's "
                f"names and parameters, or a new op type / API name); see {DOCS}")
    return f"{said}. Make the spec say what upstream says, or list it under upstream_differences with a cited " \
           f"reason; see {DOCS}"
