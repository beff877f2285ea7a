"""Consistency tier, dtype half: the def's dtype combinations, read back from the files, agree with the
binary JSON of every SoC, the tiling dispatch, the TPL macros, the proto and the ST cases.

Everything here is read from the tree (see readers.py), so a hand edit to one file shows up as a
disagreement with the others. The kernel/tiling wiring half lives in wiring.py.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..errors import OpgenError
from ..plan import RenderPlan
from .aclnn_wiring import DefAttr, aclnn_items, read_def_attrs
from .choice_wiring import choice_item
from .formats_item import format_items
from .items import CheckItem, more_line, ok, skipped, verdict
from .readers import (
    DefInfo,
    OpFiles,
    ReadError,
    Source,
    defines,
    family_files,
    ge_name,
    glob_rel,
    read_binary_json,
    read_def,
    read_proto,
    read_source,
    read_st_csv,
    relabel,
)
from .soc_configs import soc_config_items, soc_series_problems
from .split_wiring import split_dispatch
from .wiring import wiring_items

TIER = "consistency"
Combo = tuple[str, ...]


def consistency_tier(op_dir: Path, plan: RenderPlan) -> list[CheckItem]:
    files = OpFiles(plan.name, plan.op_type, plan.families[0])
    src = read_source(op_dir, files.def_cpp)
    if src is None:
        return [skipped("def dtype combinations", f"{files.def_cpp} missing: nothing to compare against")]
    info = read_def(src)
    problem = info.columns_problem()
    missing = [f"{src.rel}:{t.line}: {t.name} has no .DataType({{...}})" for t in info.tensors if t.dtypes is None]
    if not info.tensors or problem or missing:
        found = missing + ([f"{src.rel}: {problem}"] if problem else []) + (
            [] if info.tensors else [f"{src.rel}: no this->Input(...)/Output(...) found"])
        return [verdict("def dtype combinations", found)]
    combos = info.combinations()
    n_in = len(info.inputs)
    items = [ok("def dtype combinations", f"{len(combos)}: " + ", ".join(show(c, n_in) for c in combos),
                combinations=len(combos))]
    items += soc_config_items(src, info)
    items += binary_json_items(op_dir, files, info, read_def_attrs(src))
    items += format_items(op_dir, files, info)
    families = family_files(plan.name, plan.op_type, plan.families)
    for suffix, one in families:
        items += relabel([tiling_dispatch_item(op_dir, one, info), tpl_item(op_dir, one, info)], suffix)
    items += [choice_item(op_dir, one, src) for _, one in families if one.is_dag]
    items.append(proto_item(op_dir, files, info, {t.name: t.proto_name for t in plan.tensors},
                            {t.name: t.proto_lacks for t in plan.tensors if t.proto_lacks}))
    items += st_csv_items(op_dir, info)
    items += wiring_items(op_dir, families, info)
    items += aclnn_items(op_dir, plan, src)
    return items


def _attrs_text(attrs: tuple[tuple[str, str], ...]) -> str:
    return ", ".join(f"{name}: {dtype}" for name, dtype in attrs) or "none"


def show(combo: Combo, inputs: int) -> str:
    return f"({', '.join(combo[:inputs])} -> {', '.join(combo[inputs:])})"


def binary_json_items(op_dir: Path, files: OpFiles, info: DefInfo, attrs: list[DefAttr]) -> list[CheckItem]:
    """One item per SoC file: same tensor names in def order, the same set of combinations, no duplicates, and
    each entry's attrs the def's (names and types, in order: the binary is built for every value of each)."""
    rels = glob_rel(op_dir, files.binary_jsons)
    if not rels:
        return [skipped("binary JSON == def", "no op_host/config/<soc>/*_binary.json (see structure)")]
    n_in = len(info.inputs)
    names = tuple(t.name for t in info.tensors)
    want = tuple((a.name, a.ge_type.lower()) for a in attrs)
    items = []
    for rel in rels:
        label = f"binary JSON == def ({rel.split('/')[2]})"
        combos = info.soc_combinations(rel.split("/")[2])  # its OpAICoreConfig's columns, if it has its own
        try:
            _, entries = read_binary_json(op_dir / rel)
        except ReadError as error:
            items.append(verdict(label, [f"{rel}: {error}"]))
            continue
        problems = [f"{rel}: op_list[{e.index}] names tensors ({', '.join(e.names)}), the def ({', '.join(names)})"
                    for e in entries if e.names != names]
        problems += [f"{rel}: op_list[{e.index}] lists attrs ({_attrs_text(e.attrs)}), the def "
                     f"({_attrs_text(want)})" for e in entries if e.attrs != want]
        have = Counter(e.dtypes for e in entries)
        problems += [f"{rel} lacks def combination {show(c, n_in)}" for c in combos if c not in have]
        problems += [f"{rel} has combination {show(c, n_in)} that the def does not list" for c in have
                     if c not in combos]
        problems += [f"{rel} lists combination {show(c, n_in)} {n} times" for c, n in have.items() if n > 1]
        dup = [b for b, n in Counter(e.bin_filename for e in entries).items() if n > 1]
        problems += [f"{rel}: bin_filename {b} is not unique" for b in dup]
        items.append(verdict(label, problems, f"{len(entries)} entries", entries=len(entries)))
    return items


# `outputDtype == ge::DT_X [&& present | && choice == TPL_..]) { dType = TPL_X;`
_ARCH35_DISPATCH = re.compile(
    r"==\s*ge::(DT_\w+)\s*(?:&&\s*!?\s*\w+\s*(?:==\s*\w+\s*)?)?\)\s*\{\s*dType\s*=\s*(\w+)\s*;")
_CLASSIC_CASES = re.compile(r"TILE_BUDGETS\s*\[\s*\]\s*=\s*\{(.*?)\}\s*;", re.S)


def tiling_dispatch(op_dir: Path, files: OpFiles) -> tuple[Source | None, list[tuple[str, str, int]]]:
    """(dtype, TPL name or "", line) of each dtype the host tiling dispatches on."""
    if files.is_dag:
        src = read_source(op_dir, files.tiling_source)
        if src is None:
            return None, []
        return src, [(ge_name(m.group(1)), m.group(2), src.line(m.start()))
                     for m in _ARCH35_DISPATCH.finditer(src.code)]
    if files.family.is_split:
        src = read_source(op_dir, files.tiling_source)
        return src, [(ge_name(d), "", line) for d, line in split_dispatch(src)] if src else []
    src = read_source(op_dir, files.tiling_source)
    if src is None:
        return None, []
    table = _CLASSIC_CASES.search(src.code)
    if not table:
        return src, []
    return src, [(ge_name(m.group(1)), "", src.line(table.start(1) + m.start()))
                 for m in re.finditer(r"\{\s*\w+\s*,\s*ge::(DT_\w+)\s*,", table.group(1))]


def tiling_dispatch_item(op_dir: Path, files: OpFiles, info: DefInfo) -> CheckItem:
    """The host tiling dispatches on the first output's dtype: exactly the def's first-output column."""
    label = "tiling dtype dispatch == def"
    src, found = tiling_dispatch(op_dir, files)
    if src is None:
        return skipped(label, "tiling source missing (see structure)")
    shape = "`== ge::DT_X) { dType = TPL_X;` chain" if files.is_dag else (
        "`dtype != ge::DT_X` refusal" if files.family.is_split else "TILE_BUDGETS table")
    if not found:
        return verdict(label, [f"{src.rel}: no {shape} found"])
    keys = list(dict.fromkeys(t for t in info.outputs[0].dtypes or ()))
    dispatched = [d for d, _, _ in found]
    problems = [f"{src.rel} does not dispatch {d}, which the def lists for {info.outputs[0].name}"
                for d in keys if d not in dispatched]
    problems += [f"{src.rel}:{line} dispatches {d}, which the def does not list for {info.outputs[0].name}"
                 for d, _, line in found if d not in keys]
    return verdict(label, problems, f"{src.rel} ({shape}): {', '.join(dict.fromkeys(dispatched))}")


def tpl_item(op_dir: Path, files: OpFiles, info: DefInfo) -> CheckItem:
    """arch35: the dType TPL macros declared and selected are exactly those the tiling sets, with distinct values."""
    label = "TPL dType macros == tiling"
    if files.family.is_split:
        return skipped(label, "split kernel: no dType macros; its TPL arguments (T, SHAPE_MODE) are the row "
                              "`tiling keys: host == kernel` checks")
    if not files.is_dag:
        return skipped(label, "classic kernel: no dType template argument (the kernel takes its dtypes from the "
                              "DTYPE_<TENSOR> macros the build defines per binary JSON entry)")
    src = read_source(op_dir, files.tpl_struct)
    tiling_src, found = tiling_dispatch(op_dir, files)
    if src is None or tiling_src is None:
        return skipped(label, f"{files.tpl_struct} or the tiling source missing (see structure)")
    values = defines(src)
    decl = _tpl_list(src, "DECL")
    sel = _tpl_list(src, "SEL")
    problems = []
    if decl is None:
        return verdict(label, [f"{src.rel}: no ASCENDC_TPL_DTYPE_DECL(dType, ...)"])
    problems += [f"{src.rel}: {name} is not #defined to a number" for name in decl if name not in values]
    codes = Counter(values.get(name) for name in decl if name in values)
    problems += [f"{src.rel}: {n} dType macros share value {v}" for v, n in codes.items() if n > 1]
    if sel is not None and set(sel) != set(decl):
        problems.append(f"{src.rel}: ASCENDC_TPL_DTYPE_SEL ({', '.join(sel)}) != DECL ({', '.join(decl)})")
    used = {tpl: (d, line) for d, tpl, line in found}
    problems += [f"{tiling_src.rel}:{line} sets dType = {tpl} (for {d}), not declared in {src.rel}"
                 for tpl, (d, line) in used.items() if tpl not in decl]
    problems += [f"{src.rel} declares {tpl}, which {tiling_src.rel} never sets" for tpl in decl if tpl not in used]
    shown = ", ".join(f"{t}={values.get(t, '?')}" for t in decl)
    return verdict(label, problems, f"{src.rel}: {shown}")


def _tpl_list(src: Source, kind: str) -> list[str] | None:
    m = re.search(rf"ASCENDC_TPL_DTYPE_{kind}\s*\(\s*dType\s*,([^)]*)\)", src.code)
    return [t.strip() for t in m.group(1).split(",") if t.strip()] if m else None


def proto_item(op_dir: Path, files: OpFiles, info: DefInfo, proto_names: dict[str, str],
               narrower: dict[str, tuple[str, ...]]) -> CheckItem:
    """Per tensor, the proto's TensorType holds every dtype the def lists but the ones the spec says it lacks
    (`narrower`, proto_narrower); tensors in the def's order, under the spec's proto names where they differ
    from the def's (`proto_names`: def name -> REG_OP name)."""
    label = "proto TensorType ⊇ def"
    src = read_source(op_dir, files.proto)
    if src is None:
        return skipped(label, f"{files.proto} missing (see structure)")
    try:
        proto = read_proto(src)
    except OpgenError as error:
        return verdict(label, [f"{src.rel}: {error}"])
    if not proto:
        return verdict(label, [f"{src.rel}: no .INPUT/.OUTPUT(name, TensorType(...)) found"])
    by_name = {t.name: t for t in proto}
    problems = []
    for role in ("input", "output"):
        want = [proto_names.get(t.name, t.name) for t in info.tensors if t.role == role]
        have = [t.name for t in proto if t.role == role]
        if want != have:
            problems.append(f"{src.rel}: {role}s ({', '.join(have)}), the def ({', '.join(want)})")
    for tensor in info.tensors:
        p = by_name.get(proto_names.get(tensor.name, tensor.name))
        if p is None:
            continue
        lacking = [d for d in dict.fromkeys(tensor.dtypes or ()) if d not in p.dtypes
                   and d not in narrower.get(tensor.name, ())]
        if lacking:
            problems.append(f"{src.rel}:{p.line}: {tensor.name} TensorType lacks {', '.join(lacking)} "
                            f"that {files.def_cpp}:{tensor.line} lists")
    classes = [f"{t.name}: {t.group}" for t in proto if t.group]
    note = f"; compared as ge's {', '.join(classes)}" if classes else ""
    note += "".join(f"; {name} lacks {', '.join(dts)} by the spec (proto_narrower: graph mode refuses them)"
                    for name, dts in narrower.items())
    return verdict(label, problems, f"{len(proto)} tensors{note}")


def _st_combination(dtypes: tuple[str | None, ...], combos: set[tuple[str, ...]]) -> tuple[str, ...] | None:
    """The def combination an ST row names; an absent optional input (None) matches any dtype."""
    return next((c for c in sorted(combos) if len(c) == len(dtypes) and all(
        d is None or d == want for d, want in zip(dtypes, c, strict=True))), None)


def st_csv_items(op_dir: Path, info: DefInfo) -> list[CheckItem]:
    rels = glob_rel(op_dir, "tests/st/**/*.csv")
    if not rels:
        return [skipped("ST CSV dtypes ⊆ def", "no tests/st/<arch>/*.csv (see structure)")]
    combos, n_in = set(info.combinations()), len(info.inputs)
    items = []
    for rel in rels:
        rows = read_st_csv(op_dir / rel)
        problems = [f"{rel}:{r.line}: input_dtypes/output_dtypes unreadable" for r in rows if r.dtypes is None]
        matched = {r.line: _st_combination(r.dtypes, combos) for r in rows if r.dtypes is not None}
        problems += [f"{rel}:{r.line} ({r.testcase}): {show(tuple(map(str, r.dtypes)), n_in)} is not a def "
                     "combination" for r in rows if r.dtypes is not None and matched[r.line] is None]
        problems += soc_series_problems(rel, rows, matched, info)
        used = {c for c in matched.values() if c is not None}
        items.append(verdict(f"ST CSV dtypes ⊆ def ({Path(rel).name})", problems[:4] + more_line(problems, 4),
                             f"{len(rows)} rows cover {len(used)} of {len(combos)} combinations", rows=len(rows)))
    return items
