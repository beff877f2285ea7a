"""`platforms[i].combinations`: the dtype combinations one SoC supports, when it supports only some.

ops-nn registers such a SoC with an OpAICoreConfig carrying its own, shorter DataType columns
(activation/hard_swish_grad_v2: bf16/fp16/fp32 for ascend910b, fp16/fp32 for ascend910). A combination is
named by its column index, which stays unambiguous when columns mix dtypes (fp16 inputs, an fp32 output).
"""

from __future__ import annotations

from collections import Counter

from .issues import SpecIssue
from .models import OpSpec
from .socs import LACKING_DTYPES


def soc_column_issues(spec: OpSpec) -> list[SpecIssue]:
    """Each listed SoC subset names existing columns, each once, at least one."""
    issues = []
    count = spec.combination_count
    for i, platform in enumerate(spec.platforms):
        chosen = platform.combinations
        if chosen is None:
            continue
        loc = ("platforms", i, "combinations")
        if not chosen:
            issues.append(SpecIssue(loc, f"lists no combination; name the column indices (0 to {count - 1}) "
                                    f"{platform.soc} supports, or drop the field for all of them"))
            continue
        for j, index in enumerate(chosen):
            if not 0 <= index < count:
                issues.append(SpecIssue((*loc, j), f"{index} is no combination: the dtypes lists have {count} "
                                        f"columns, indexed 0 to {count - 1}"))
        for index, times in Counter(chosen).items():
            if times > 1:
                issues.append(SpecIssue(loc, f"lists combination {index} {times} times; list each once"))
    return issues + _lacking(spec)


def _lacking(spec: OpSpec) -> list[SpecIssue]:
    """A SoC takes no combination with a dtype its vector core lacks (socs.LACKING_DTYPES)."""
    issues = []
    count = spec.combination_count
    columns = [t.dtype_column(count) for t in (*spec.inputs, *spec.outputs)]  # another length is refused elsewhere
    for i, platform in enumerate(spec.platforms):
        lacking = LACKING_DTYPES.get(platform.soc, frozenset())
        chosen = platform.combinations if platform.combinations is not None else range(count)
        bad = [k for k in chosen if 0 <= k < count and lacking & {c[k] for c in columns if k < len(c)}]
        if bad:
            issues.append(SpecIssue(("platforms", i, "combinations"), f"{platform.soc} has no "
                                    f"{', '.join(sorted(lacking))}: list the combinations it supports, without "
                                    f"{', '.join(map(str, bad))}"))
    return issues

