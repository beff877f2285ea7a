"""Consistency tier, wiring half: kernel entry arguments, tiling data, tiling keys and SoCs agree across
the def, the host tiling, the kernel, the config dirs and CMake, all read back from the files.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..spec.dtypes import DTYPES
from .items import CheckItem, skipped, verdict
from .readers import (
    DefInfo,
    OpFiles,
    Source,
    cmake_list,
    defines,
    find_named,
    glob_rel,
    read_kernel_entries,
    read_source,
    relabel,
)
from .split_wiring import split_keys_item

ELEWISE_STRUCT = "EleBaseTilingDataV2"


def wiring_items(op_dir: Path, families: list[tuple[str, OpFiles]], info: DefInfo) -> list[CheckItem]:
    """Per kernel family (label suffix, files): its entry and its tiling keys; then what the families share."""
    items = [i for suffix, files in families for i in relabel([kernel_entry_item(op_dir, files, info)], suffix)]
    items.append(tiling_data_item(op_dir, families[0][1]))
    dtypes = tuple(dict.fromkeys(info.outputs[0].dtypes or ()))
    items += [i for suffix, files in families for i in relabel([tiling_keys_item(op_dir, files, dtypes)], suffix)]
    items.append(socs_item(op_dir, [files for _, files in families], info))
    items.append(op_api_item(op_dir))
    return items


def kernel_entry_item(op_dir: Path, files: OpFiles, info: DefInfo) -> CheckItem:
    """The `__global__ __aicore__` entry takes the def's inputs, then outputs, then workspace and tiling; so does
    the declaration a classic kernel UT makes of it (the UT links AddOpTestCase's own build of the entry)."""
    label = "kernel entry arguments == def order"
    src = read_source(op_dir, files.kernel_entry)
    if src is None:
        return skipped(label, f"{files.kernel_entry} missing (see structure)")
    entries = read_kernel_entries(src)
    if not entries:
        return verdict(label, [f"{src.rel}: no __global__ __aicore__ void <op>(...) entry"])
    ut = read_source(op_dir, files.kernel_ut)
    declared = [(ut, e) for e in read_kernel_entries(ut)] if ut is not None else []
    want = (*(t.name for t in info.tensors), "workspace", "tiling")
    problems = [f"{where.rel}:{e.line}: {e.name}({', '.join(e.params)}), expected ({', '.join(want)})"
                for where, e in [*((src, e) for e in entries), *declared] if e.params != want]
    return verdict(label, problems, f"({', '.join(want)})")


def _kernel_sources(op_dir: Path) -> list[Source]:
    rels = glob_rel(op_dir, "op_kernel/**/*.h") + glob_rel(op_dir, "op_kernel/**/*.cpp")
    return [s for s in (read_source(op_dir, r) for r in rels) if s is not None]


def _host_tiling_sources(op_dir: Path) -> list[Source]:
    rels = [r for r in glob_rel(op_dir, "op_host/**/*.cpp") if "tiling" in Path(r).name]
    return [s for s in (read_source(op_dir, r) for r in rels) if s is not None]


def tiling_data_item(op_dir: Path, files: OpFiles) -> CheckItem:
    """Host and kernel use one tiling struct; every field the kernel reads is one the host writes."""
    label = "tiling data: kernel reads ⊆ host writes"
    host = _host_tiling_sources(op_dir)
    kernel = _kernel_sources(op_dir)
    host_struct = [(s, m) for s in host for m in re.finditer(
        r"(\w+)\s*=\s*[\w.>-]*GetTilingData\s*<\s*(\w+)\s*>", s.code)]
    kernel_struct = [(s, m) for s in kernel for m in re.finditer(
        r"GET_TILING_DATA_WITH_STRUCT\s*\(\s*(\w+)\s*,\s*(\w+)", s.code)]
    if not host_struct and not kernel_struct and any("BroadcastBaseTiling<" in s.code for s in host) and any(
            "BroadcastSch<" in s.code for s in kernel):
        return verdict(label, [], "atvoss broadcast: BroadcastBaseTiling writes the tiling data BroadcastSch reads")
    if not host_struct or not kernel_struct:
        return verdict(label, ["no GetTilingData<T>() in the host tiling" if not host_struct else
                               "no GET_TILING_DATA_WITH_STRUCT(T, ...) in the kernel"])
    host_types = {m.group(2) for _, m in host_struct}
    kernel_types = {m.group(1) for _, m in kernel_struct}
    if host_types != kernel_types:
        return verdict(label, [f"host tiling fills {', '.join(sorted(host_types))}, the kernel reads "
                               f"{', '.join(sorted(kernel_types))}"])
    struct = next(iter(host_types))
    written = {f for s, m in host_struct for f in re.findall(rf"\b{m.group(1)}\s*->\s*(\w+)\s*=(?!=)", s.code)}
    written |= {f for s, m in host_struct for f in re.findall(  # a field atvoss's DoTiling fills (attrs ride along)
        rf"DoTiling\w*\s*<[^;]*?>\s*\(\s*{m.group(1)}\s*->\s*(\w+)\s*\)", s.code)}
    read = {f for s in kernel for f in re.findall(r"\btilingData\s*(?:\.|->)\s*(\w+)", s.code)}
    fields = _struct_fields(kernel, struct)
    if fields is None:
        calls = any("DoTiling" in s.code for s in host)
        if struct == ELEWISE_STRUCT and calls:
            return verdict(label, [f"the kernel reads {f} by name, which atvoss fills, not this tree" for f in
                                   sorted(read)], f"{struct} is atvoss's, written by ElewiseBaseTiling::DoTiling; "
                                                  f"the kernel hands it to ElementwiseSch whole")
        return skipped(label, f"{struct} is not defined in op_kernel/: cannot list its fields")
    problems = [f"the kernel reads {struct}.{f}, which the host tiling never writes" for f in sorted(read - written)]
    problems += [f"the host tiling writes {f}, which {struct} does not declare" for f in sorted(written - fields)]
    return verdict(label, problems, f"{struct}: kernel reads {', '.join(sorted(read)) or 'nothing'}; host writes "
                                    f"{', '.join(sorted(written))}")


def _struct_fields(sources: list[Source], struct: str) -> set[str] | None:
    for src in sources:
        m = re.search(rf"\bstruct\s+{struct}\s*\{{(.*?)\}}\s*;", src.code, re.S)
        if m:
            return set(re.findall(r"(\w+)\s*(?:\[[^\]]*\])?\s*(?:=[^;]*)?;", m.group(1)))
    return None


def tiling_keys_item(op_dir: Path, files: OpFiles, def_dtypes: tuple[str, ...] = ()) -> CheckItem:
    """`def_dtypes`: the def's column of the first output (a split kernel's TPL dtypes are checked against it)."""
    label = "tiling keys: host == kernel"
    if files.family.is_split:
        return split_keys_item(op_dir, files, label, def_dtypes)
    return _arch35_keys(op_dir, files, label) if files.is_dag else _classic_keys(op_dir, files, label)


def _arch35_keys(op_dir: Path, files: OpFiles, label: str) -> CheckItem:
    """Keys are GET_TPL_TILING_KEY(schMode, dType): every selected dType has a kernel branch of the same type."""
    tpl = read_source(op_dir, files.tpl_struct)
    kernel = read_source(op_dir, files.kernel_entry)
    tiling = read_source(op_dir, files.tiling_source)
    if tpl is None or kernel is None or tiling is None:
        return skipped(label, "TPL struct, kernel or tiling source missing (see structure)")
    sel = re.search(r"ASCENDC_TPL_DTYPE_SEL\s*\(\s*dType\s*,([^)]*)\)", tpl.code)
    modes = re.search(r"ASCENDC_TPL_UINT_SEL\s*\(\s*schMode\s*,\s*\w+\s*,([^)]*)\)", tpl.code)
    if not sel:
        return verdict(label, [f"{tpl.rel}: no ASCENDC_TPL_DTYPE_SEL(dType, ...)"])
    selected = [t.strip() for t in sel.group(1).split(",") if t.strip()]
    # `dType == TPL_X [&& choice == TPL_..]) {... Dag<args>`: one branch per dType (and choice value)
    found = [(m.group(1), _dag_args(m.group(2)), kernel.line(m.start())) for m in re.finditer(
        r"dType\s*==\s*(\w+)\s*(?:&&\s*\w+\s*==\s*\w+\s*)?\)\s*\{[^}]*?Dag\s*<([^>]*)>", kernel.code)]
    branches = {t: (args, line) for t, args, line in found}
    host = {m.group(1): _dag_args(m.group(2)) for m in re.finditer(
        r"dType\s*=\s*(\w+)\s*;[^}]*?DoTiling\s*<\s*\w+Dag\s*<([^>]*)>", tiling.code)}
    mapped = {m.group(2): m.group(1) for m in re.finditer(
        r"==\s*ge::(DT_\w+)\s*(?:&&\s*\w+\s*==\s*\w+\s*)?\)\s*\{\s*dType\s*=\s*(\w+)\s*;", tiling.code)}
    problems = [f"{files.kernel_entry} has no `dType == {t}` branch for a key {tpl.rel} selects" for t in selected
                if t not in branches]
    problems += [f"{kernel.rel}:{line}: branch for {t}, which {tpl.rel} does not select" for t, (_, line) in
                 branches.items() if t not in selected]
    by_ge = {d.ge: d for d in DTYPES.values()}
    for t, args, line in found:
        dtype = by_ge.get(mapped.get(t, ""))
        if dtype is not None and args[0] != dtype.kernel:
            problems.append(f"{kernel.rel}:{line}: the {t} branch runs on {args[0]}, but {tiling.rel} sets {t} for "
                            f"{dtype.ge} ({dtype.kernel})")
        if t in host and host[t] != args:  # mixed columns: one type per DAG parameter, host and kernel alike
            problems.append(f"{kernel.rel}:{line}: the {t} branch runs the DAG on <{', '.join(args)}>, {tiling.rel} "
                            f"tiles it for <{', '.join(host[t])}>")
    sch = [m.strip() for m in modes.group(1).split(",")] if modes else ["?"]
    if "GET_TPL_TILING_KEY" not in tiling.code:
        problems.append(f"{tiling.rel}: no GET_TPL_TILING_KEY(schMode, dType): its tiling key is not TPL-derived")
    return verdict(label, problems, f"TPL-derived: schMode {{{', '.join(sch)}}} x dType {{{', '.join(selected)}}}; "
                                    f"kernel branches on each dType")


def _dag_args(text: str) -> tuple[str, ...]:
    return tuple(a.strip() for a in text.split(","))


def _classic_keys(op_dir: Path, files: OpFiles, label: str) -> CheckItem:
    """The `tilingKey = X` values of the host == the kernel's TILING_KEY_IS(n) == its Compute() branches."""
    key_h = read_source(op_dir, files.tiling_key_h)
    tiling = read_source(op_dir, files.tiling_source)
    kernel = _kernel_sources(op_dir)
    if tiling is None or not kernel:
        return skipped(label, "tiling source or kernel missing (see structure)")
    names = defines(key_h, tiling, *kernel)

    def value(token: str) -> int | None:
        return int(token) if token.isdigit() else names.get(token)

    host = {(tok, line) for tok, line in find_named(tiling, r"(?m)^\s*tilingKey\s*=\s*(\w+)\s*;")}
    host |= {(tok, line) for tok, line in find_named(tiling, r"SetTilingKey\s*\(\s*(\d+)\s*\)")}
    entry = [(s, tok, line) for s in kernel for tok, line in find_named(s, r"TILING_KEY_IS\s*\(\s*(\w+)\s*\)")]
    branch = [(s, tok, line) for s in kernel for tok, line in find_named(s, r"\bTILING_KEY\s*==\s*(\w+)")]
    problems = [f"{tiling.rel}:{line}: tiling key {tok} is not a number or a #define" for tok, line in host
                if value(tok) is None]
    host_keys = {k for k in (value(tok) for tok, _ in host) if k is not None}
    entry_keys = {k for k in (value(tok) for _, tok, _ in entry) if k is not None}
    problems += [f"{tiling.rel} sets tiling key {k}, which {files.kernel_entry} never dispatches (TILING_KEY_IS)"
                 for k in sorted(host_keys - entry_keys)]
    problems += [f"{s.rel}:{line}: TILING_KEY_IS({tok}) is a key {tiling.rel} never sets" for s, tok, line in entry
                 if value(tok) not in host_keys]
    if branch:
        branch_keys = {k for k in (value(tok) for _, tok, _ in branch) if k is not None}
        problems += [f"key {k} has no `TILING_KEY == {k}` Compute() branch in op_kernel/" for k in
                     sorted(entry_keys - branch_keys)]
        problems += [f"{s.rel}:{line}: Compute() branch for key {tok}={value(tok)}, which no TILING_KEY_IS dispatches"
                     for s, tok, line in branch if value(tok) not in entry_keys]
    return verdict(label, problems, f"host sets {sorted(host_keys)}; kernel dispatches {sorted(entry_keys)}")


def socs_item(op_dir: Path, families: list[OpFiles], info: DefInfo) -> CheckItem:
    """def AddConfig == op_host/config/<soc> dirs == CMake SUPPORT_COMPUTE_UNIT (paired with tiling dirs);
    each classic family's tiling keys its SoCs."""
    label = "SoCs: def == config dirs == CMake"
    files = families[0]
    def_socs = [s for s, _ in info.socs]
    config = sorted({r.split("/")[2] for r in glob_rel(op_dir, "op_host/config/*/*")})
    problems = []
    if not def_socs:
        problems.append(f"{files.def_cpp}: no AICore().AddConfig(\"<soc>\")")
    if set(config) != set(def_socs):
        problems.append(f"op_host/config has {_list(config)}, {files.def_cpp} AddConfig {_list(def_socs)}")
    seen = [f"def {_list(def_socs)}", f"config {_list(config)}"]
    listed = [c for c in (read_source(op_dir, r) for r in ("CMakeLists.txt", "op_host/CMakeLists.txt"))
              if c is not None and cmake_list(c, "SUPPORT_COMPUTE_UNIT")]
    cmake = listed[0] if listed else None
    units = cmake_list(cmake, "SUPPORT_COMPUTE_UNIT") if cmake else None
    if cmake is None or units is None:
        seen.append("CMake: no SUPPORT_COMPUTE_UNIT (classic only), not compared")
    else:
        socs, line = units
        seen.append(f"CMake {_list(socs)}")
        if set(socs) != set(def_socs):
            problems.append(f"{cmake.rel}:{line}: SUPPORT_COMPUTE_UNIT {_list(socs)}, def {_list(def_socs)}")
        dirs = cmake_list(cmake, "SUPPORT_TILING_DIR")
        if dirs is None or len(dirs[0]) != len(socs):
            problems.append(f"{cmake.rel}: SUPPORT_TILING_DIR does not pair one-to-one with SUPPORT_COMPUTE_UNIT")
        else:
            problems += [f"{cmake.rel}:{dirs[1]}: tiling dir op_host/{d} (for {s}) does not exist"
                         for s, d in zip(socs, dirs[0], strict=True) if not (op_dir / "op_host" / d).is_dir()]
    for family in (f for f in families if not f.is_dag):
        tiling = read_source(op_dir, family.tiling_source)
        keyed = [s for s, _ in find_named(tiling, r"SocVersion::(\w+)")] if tiling else []
        if keyed:
            seen.append(f"tiling keys for {_list(keyed)}")
            lacking = [s for s in family.family.soc_names if s.upper() not in keyed]
            problems += [f"{family.tiling_source} selects no tiling key for {s}" for s in lacking]
    return verdict(label, problems, "; ".join(seen))


def op_api_item(op_dir: Path) -> CheckItem:
    """ops-nn's add_modules_sources (cmake/func.cmake) builds `<DIR>/op_api/*.cpp` and exports
    `<DIR>/op_api/aclnn_*.h`, DIR being the folder of the CMakeLists.txt that calls it (add_all_modules_sources:
    the op root when op_api/ is there, else op_host/): an aclnn wrapper anywhere else is silently not built."""
    label = "op_api sources where CMake builds them"
    lists = (read_source(op_dir, r) for r in ("op_host/CMakeLists.txt", "CMakeLists.txt"))
    calls = [(src.rel, m.group(1)) for src in lists if src is not None
             for m in [re.search(r"\badd_(all_)?modules_sources\s*\(", src.code)] if m]
    if not calls:
        return skipped(label, "no CMakeLists.txt calls add_modules_sources (see structure)")
    entry, adaptive = calls[0]
    host = entry.startswith("op_host/") or (adaptive and not (op_dir / "op_api").is_dir())
    built = "op_host/op_api/" if host else "op_api/"
    placed = [r for r in glob_rel(op_dir, "**/op_api/*") if not r.startswith("tests/")]
    problems = [f"{r} is not built: {entry} builds {built}*.cpp only (ops-nn cmake/func.cmake add_modules_sources)"
                for r in placed if not r.startswith(built)]
    return verdict(label, problems, f"{len(placed)} file(s) in {built}" if placed else "no op_api sources")


def _list(values: list[str]) -> str:
    return "{" + ", ".join(values) + "}"
