"""Structure tier: every file the layout requires is there, and every file names the op the same way.

"Required" is what the spec renders to right now (the honest definition of the layout), so a file the
generator would emit but the tree lacks is reported, whatever the tree's own `.opgen/manifest.json` says.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from ..errors import OpgenError
from ..generate import render_op
from ..plan import RenderPlan
from ..record import RECORD_DIR
from ..spec.load import LoadedSpec
from .items import CheckItem, bad, more_line, ok, skipped, verdict
from .readers import (
    OpFiles,
    ReadError,
    Source,
    family_files,
    find_named,
    glob_rel,
    golden_assignment,
    read_binary_json,
    read_source,
    read_st_csv,
)
from .tree_guard import probe_items, special_items

TIER = "structure"


def structure_tier(op_dir: Path, loaded: LoadedSpec, plan: RenderPlan) -> list[CheckItem]:
    """A tree holding a FIFO, socket or device gets only those rows: nothing else of it is opened."""
    if special := special_items(op_dir):
        return special
    return [required_files(op_dir, loaded), *name_items(op_dir, plan), *probe_items(op_dir)]


def name_items(op_dir: Path, plan: RenderPlan) -> list[CheckItem]:
    """Every file names the op as the spec does (no render needed: fast)."""
    families = [f for _, f in family_files(plan.name, plan.op_type, plan.families)]
    files = families[0]
    items = [check.run(op_dir, files) for check in name_checks(families)]
    items.append(op_file_value(op_dir, families))
    items += binary_json_op_types(op_dir, files)
    items.append(golden_key(op_dir, files))
    items += st_csv_op_names(op_dir, files)
    return items


def required_files(op_dir: Path, loaded: LoadedSpec) -> CheckItem:
    """Render the spec in memory; every path of that render outside `.opgen/` must exist."""
    try:
        rendered = render_op(loaded)
    except Exception as error:  # OpgenError, or a render bug: still run the name checks after this row
        reason = str(error) if isinstance(error, OpgenError) else f"{type(error).__name__}: {error}"
        return bad("required files", f"cannot render the spec to list the required files: {reason}")
    required = sorted(p for p in rendered.files if not p.startswith(f"{RECORD_DIR}/"))
    missing = [p for p in required if not (op_dir / p).is_file()]
    if missing:
        return bad("required files", "missing: " + ", ".join(missing), required=len(required),
                   missing=len(missing))
    return ok("required files", f"all {len(required)} files the kernel families {rendered.plan.families_text} "
              "require exist", required=len(required))


@dataclass(frozen=True)
class NameCheck:
    """`pattern`'s first group, wherever it occurs in `files`, must equal `expected`."""

    label: str
    rels: tuple[str, ...]
    pattern: str
    expected: str

    def run(self, op_dir: Path, files: OpFiles) -> CheckItem:
        sources = [s for s in (read_source(op_dir, r) for r in self.rels) if s is not None]
        if not sources:
            return skipped(self.label, f"{' / '.join(self.rels)} missing (see required files)")
        return agree(self.label, sources, self.pattern, self.expected)


def agree(label: str, sources: list[Source], pattern: str, expected: str) -> CheckItem:
    found = [(src, name, line) for src in sources for name, line in find_named(src, pattern)]
    where = " / ".join(s.rel for s in sources)
    if not found:
        return bad(label, f"{where}: no {label} found, expected {expected}")
    wrong = [f"{src.rel}:{line}: {label} is {name}, expected {expected}" for src, name, line in found
             if name != expected]
    return verdict(label, wrong, ", ".join(f"{src.rel}:{line}" for src, _, line in found))


def name_checks(families: list[OpFiles]) -> list[NameCheck]:
    """Each family's kernel entry and host tiling name the op too."""
    files = families[0]
    name, op_type = files.name, files.op_type
    tiling = tuple(f.tiling_source for f in families)
    entries = tuple(f.kernel_entry for f in families)
    return [
        NameCheck("CMake OPTYPE", ("CMakeLists.txt", "op_host/CMakeLists.txt"),
                  r"add_modules_sources\s*\([^)]*?\bOPTYPE\s+(\w+)", name),
        NameCheck("def OP_ADD", (files.def_cpp,), r"\bOP_ADD\s*\(\s*(\w+)\s*\)", op_type),
        NameCheck("def class", (files.def_cpp,), r"\bclass\s+(\w+)\s*:\s*public\s+OpDef\b", op_type),
        NameCheck("proto REG_OP", (files.proto,), r"\bREG_OP\s*\(\s*(\w+)\s*\)", op_type),
        NameCheck("proto OP_END_FACTORY_REG", (files.proto,), r"\bOP_END_FACTORY_REG\s*\(\s*(\w+)\s*\)", op_type),
        NameCheck("kernel entry", entries, r"__global__\s+__aicore__\s+void\s+(\w+)\s*\(", name),
        NameCheck("IMPL_OP_INFERSHAPE", (files.infershape,), r"\bIMPL_OP_INFERSHAPE\s*\(\s*(\w+)\s*\)", op_type),
        NameCheck("IMPL_OP_OPTILING", tiling, r"\bIMPL_OP_OPTILING\s*\(\s*(\w+)\s*\)", op_type),
    ]


def op_file_value(op_dir: Path, families: list[OpFiles]) -> CheckItem:
    """ExtendCfgInfo("opFile.value", v), where present: v is the entry stem of a family that sets one
    (`<op>_apt`, or `<op>` for a kernel under op_kernel/arch35/), and that entry exists."""
    label = "def opFile.value"
    files = families[0]
    entries = {f.family.op_file: f.kernel_entry for f in families if f.family.op_file}
    src = read_source(op_dir, files.def_cpp)
    if src is None:
        return skipped(label, f"{files.def_cpp} missing (see required files)")
    values = find_named(src, r'ExtendCfgInfo\s*\(\s*"opFile\.value"\s*,\s*"([^"]*)"')
    if not values:
        return skipped(label, f"{files.def_cpp} sets no opFile.value (the kernel file is op_kernel/{files.name}.cpp)")
    problems = []
    expected = " or ".join(entries) or "none (no kernel family sets one)"
    for value, line in values:
        if value not in entries:
            problems.append(f"{src.rel}:{line}: opFile.value is {value}, expected {expected}")
        elif not (op_dir / entries[value]).is_file():
            problems.append(f"{src.rel}:{line}: opFile.value {value} names {entries[value]}, which is missing")
    return verdict(label, problems, ", ".join(f"{src.rel}:{line}" for _, line in values))


def binary_json_op_types(op_dir: Path, files: OpFiles) -> list[CheckItem]:
    rels = glob_rel(op_dir, files.binary_jsons)
    if not rels:
        return [skipped("binary JSON op_type", "no op_host/config/<soc>/*_binary.json (see required files)")]
    items = []
    for rel in rels:
        label = f"binary JSON op_type ({rel.split('/')[2]})"
        try:
            op_type, _ = read_binary_json(op_dir / rel)
        except ReadError as error:
            items.append(bad(label, f"{rel}: {error}"))
            continue
        items.append(verdict(label, [f"{rel}: op_type is {op_type!r}, expected {files.op_type}"]
                             if op_type != files.op_type else [], rel))
    return items


def golden_key(op_dir: Path, files: OpFiles) -> CheckItem:
    label = "golden __golden__ key"
    path = op_dir / files.golden
    if not path.is_file():
        return skipped(label, f"{files.golden} missing (see required files)")
    keys = golden_keys(path)
    if not keys:
        return bad(label, f'{files.golden}: no literal __golden__ = {{"kernel": {{...}}}} table')
    wrong = [f"{files.golden}:{line}: __golden__ registers {key!r}, expected {files.name!r}"
             for key, line in keys if key != files.name]
    return verdict(label, wrong, f"{files.golden}:{keys[0][1]}")


def golden_keys(path: Path) -> list[tuple[str, int]]:
    """Keys of `__golden__["kernel"]` (and their line), read without importing the file."""
    try:
        tree = ast.parse(path.read_bytes())
    except SyntaxError:
        return []
    found = golden_assignment(tree)
    if found is None:
        return []
    try:
        table = ast.literal_eval(found[0])
    except ValueError:
        return []
    kernel = table.get("kernel", {}) if isinstance(table, dict) else {}
    return [(str(k), found[1]) for k in kernel] if isinstance(kernel, dict) else []


def st_csv_op_names(op_dir: Path, files: OpFiles) -> list[CheckItem]:
    rels = glob_rel(op_dir, "tests/st/**/*.csv")
    if not rels:
        return [skipped("ST CSV op_name", "no tests/st/<arch>/*.csv (see required files)")]
    items = []
    for rel in rels:
        rows = read_st_csv(op_dir / rel)
        wrong = [f"{rel}:{r.line}: op_name is {r.op_name!r}, expected {files.name!r}" for r in rows
                 if r.op_name != files.name]
        items.append(verdict(f"ST CSV op_name ({Path(rel).name})", wrong[:3] + more_line(wrong, 3),
                             f"{rel}: {len(rows)} rows", rows=len(rows)))
    return items
