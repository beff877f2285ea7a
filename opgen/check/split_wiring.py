"""Consistency of a split kernel's (arch35_split) keys: the host encodes ASCENDC_TPL (T, SHAPE_MODE) with
ASCENDC_TPL_SEL_PARAM, the kernel entry is a template over both, and op_kernel/arch35/<op>_tiling_key.h declares
them. A mode the host picks that the header does not declare selects no kernel; a declared mode the host never
picks is a kernel nothing runs; a dtype the header lacks has no binary."""

from __future__ import annotations

import re
from pathlib import Path

from .items import CheckItem, skipped, verdict
from .readers import OpFiles, Source, ge_name, read_source

_DTYPE_DECL = re.compile(r"ASCENDC_TPL_DATATYPE_DECL\s*\(\s*T\s*,([^;]*?)ASCENDC_TPL_INPUT")
_MODE_DECL = re.compile(r"ASCENDC_TPL_UINT_DECL\s*\(\s*SHAPE_MODE\s*,\s*\d+\s*,\s*ASCENDC_TPL_UI_LIST\s*,([^)]*)\)")
_MODE_SET = re.compile(r"\bshapeMode\s*=\s*(\w+)\s*;")
_REFUSED = re.compile(r"dtype\s*!=\s*ge::(DT_\w+)")


def key_header(files: OpFiles) -> str:
    return f"{files.family.kernel_dir}/{files.name}_tiling_key.h"


def split_dispatch(src: Source) -> list[tuple[str, int]]:
    """(dtype, line) of each dtype the host tiling takes: the ones its dtype refusal lets through."""
    return [(m.group(1), src.line(m.start())) for m in _REFUSED.finditer(src.code)]


def split_keys_item(op_dir: Path, files: OpFiles, label: str, def_dtypes: tuple[str, ...]) -> CheckItem:
    """The modes the host sets == the modes declared; the declared dtypes == the def's; the entry takes both."""
    header, tiling = read_source(op_dir, key_header(files)), read_source(op_dir, files.tiling_source)
    entry = read_source(op_dir, files.kernel_entry)
    if header is None or tiling is None or entry is None:
        return skipped(label, f"{key_header(files)}, the tiling source or the kernel entry missing (see structure)")
    dtypes, modes = _DTYPE_DECL.search(header.code), _MODE_DECL.search(header.code)
    if dtypes is None or modes is None:
        return verdict(label, [f"{header.rel}: no ASCENDC_TPL_DATATYPE_DECL(T, ...) and UINT_DECL(SHAPE_MODE, ...)"])
    declared = [t.strip() for t in modes.group(1).split(",") if t.strip()]
    set_by_host = {m.group(1): tiling.line(m.start()) for m in _MODE_SET.finditer(tiling.code)}
    problems = [f"{tiling.rel}:{line}: sets shapeMode {mode}, which {header.rel} does not declare"
                for mode, line in set_by_host.items() if mode not in declared]
    problems += [f"{header.rel} declares {mode}, which {tiling.rel} never sets" for mode in declared
                 if mode not in set_by_host]
    if "ASCENDC_TPL_SEL_PARAM" not in tiling.code:
        problems.append(f"{tiling.rel}: no ASCENDC_TPL_SEL_PARAM: the key is never set")
    have = [ge_name(t.strip().removeprefix("C_")) for t in dtypes.group(1).split(",") if t.strip()]
    problems += [f"{header.rel} declares no {d}, which the def lists" for d in def_dtypes if d not in have]
    problems += [f"{header.rel} declares {d}, which the def does not list" for d in have if d not in def_dtypes]
    if not re.search(r"template\s*<\s*typename\s+T\s*,\s*uint64_t\s+SHAPE_MODE\s*>", entry.code):
        problems.append(f"{entry.rel}: the entry is no template over <typename T, uint64_t SHAPE_MODE>")
    return verdict(label, problems, f"{header.rel}: T in {', '.join(have)}, SHAPE_MODE in {', '.join(declared)}; "
                                    f"host sets {', '.join(set_by_host)}")
