"""Consistency tier, per-SoC half: an OpAICoreConfig that registers columns of its own (a SoC supporting only
some of the op's dtype combinations, as ops-nn registers ascend910 for hard_swish_grad_v2) names the def's
tensors in def order, one dtype per column in each, and only columns the main def lists (the tiling and the
kernel dispatch on the main list), each once; every such config is added for some SoC.
"""

from __future__ import annotations

from collections import Counter

from ..spec.socs import SOCS
from .items import CheckItem, verdict
from .readers import CsvRow, DefConfig, DefInfo, Source

LABEL = "def OpAICoreConfig columns ⊆ def"


def soc_config_items(src: Source, info: DefInfo) -> list[CheckItem]:
    """One item per config with columns of its own; none when every SoC takes the main columns."""
    main = info.combinations()
    names = tuple((t.role, t.name) for t in info.tensors)
    inputs = len(info.inputs)
    items = []
    for config in (c for c in info.configs if c.tensors):
        socs = [soc for soc, var in info.soc_configs if var == config.var]
        problems = _shape_problems(src, config, names)
        if not problems:
            columns = config.combinations()
            problems += [f"{src.rel}:{config.line}: {config.var} registers ({', '.join(c[:inputs])} -> "
                         f"{', '.join(c[inputs:])}), which the def's main columns do not list" for c in columns
                         if c not in main]
            problems += [f"{src.rel}:{config.line}: {config.var} lists a column {n} times" for n in
                         Counter(columns).values() if n > 1]
        if not socs:
            problems.append(f"{src.rel}:{config.line}: {config.var} has columns but no AddConfig(\"<soc>\", "
                            f"{config.var})")
        shown = f"{len(config.combinations())} of {len(main)} combinations for {', '.join(socs) or 'no SoC'}"
        items.append(verdict(f"{LABEL} ({config.var})", problems, shown))
    return items


def _shape_problems(src: Source, config: DefConfig, names: tuple[tuple[str, str], ...]) -> list[str]:
    mine = tuple((t.role, t.name) for t in config.tensors)
    if mine != names:
        return [f"{src.rel}:{config.line}: {config.var} registers {_names(mine)}, the def {_names(names)}; a SoC's "
                "config lists every tensor of the op, in def order"]
    problems = [f"{src.rel}:{t.line}: {config.var}.{t.role.capitalize()}(\"{t.name}\") has no .DataType({{...}})"
                for t in config.tensors if t.dtypes is None]
    widths = {t.name: len(t.dtypes) for t in config.tensors if t.dtypes is not None}
    if len(set(widths.values())) > 1:
        problems.append(f"{src.rel}:{config.line}: {config.var}'s tensors list different numbers of dtypes: "
                        + ", ".join(f"{k} {v}" for k, v in widths.items()))
    return problems


def _names(tensors: tuple[tuple[str, str], ...]) -> str:
    return "(" + ", ".join(name for _, name in tensors) + ")"


def soc_series_problems(rel: str, rows: list[CsvRow], matched: dict[int, tuple[str, ...] | None],
                        info: DefInfo) -> list[str]:
    """An ST row for named SoCs (soc_series) uses a combination each of them registers."""
    registered = {soc for soc, _ in info.socs}
    problems = []
    for row in rows:
        combo = matched.get(row.line)
        for short in row.soc_series if combo is not None else ():
            for soc in (s.name for s in SOCS.values() if s.short_version == short and s.name in registered):
                if combo not in info.soc_combinations(soc):
                    problems.append(f"{rel}:{row.line} ({row.testcase}): soc_series names {short}, whose def "
                                    f"columns ({soc}) lack {', '.join(combo or ())}")
    return problems
