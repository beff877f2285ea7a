"""Read facts back out of an op tree's files (regex over comment-stripped text), never from the spec.

The tree may have been edited by hand, so every reader tolerates absent patterns (returns empty) and
keeps line numbers, which the checks put into their messages.
"""

from __future__ import annotations

import ast
import csv
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..plan.families import KernelFamily
from ..spec.dtypes import PROTO_DTYPES
from ..upstream.proto import read_protos
from .items import CheckItem

# one Markdown table cell's text: `\|` (how opgen escapes a pipe in spec text) does not end it
MD_CELL = r"(?:\\.|[^|\\\n])*"
_GE_TO_NAME = {d.ge: d.name for d in PROTO_DTYPES.values()}
_C_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
_CMAKE_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"|#[^\n]*')


class ReadError(Exception):
    """A file exists but does not have the shape a check needs (bad JSON, unreadable CSV)."""


def ge_name(token: str) -> str:
    """`DT_BF16` -> `bfloat16`; an unknown enumerator is kept as written so messages show it."""
    return _GE_TO_NAME.get(token, token)


def _blank(match: re.Match[str]) -> str:
    """A comment becomes spaces (newlines kept) so offsets and line numbers do not move."""
    text = match.group(0)
    if text.startswith(("//", "/*", "#")):
        return re.sub(r"[^\n]", " ", text)
    return text


@dataclass(frozen=True)
class Source:
    """A file's text with comments blanked out, and where it lives (relative to the op dir)."""

    rel: str
    code: str

    def line(self, pos: int) -> int:
        return self.code.count("\n", 0, pos) + 1

    def at(self, pos: int) -> str:
        return f"{self.rel}:{self.line(pos)}"


def read_source(op_dir: Path, rel: str) -> Source | None:
    """The file at `rel` with C/C++ or CMake comments blanked; None when it does not exist."""
    path = op_dir / rel
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix in (".cpp", ".h", ".cc", ".hpp"):
        text = _C_TOKENS.sub(_blank, text)
    elif path.name == "CMakeLists.txt" or path.suffix == ".cmake":
        text = _CMAKE_TOKENS.sub(_blank, text)
    return Source(rel, text)


@dataclass(frozen=True)
class OpFiles:
    """Where each file of one kernel family of an op lives, from its snake name and the family (what the
    blueprints emit)."""

    name: str
    op_type: str
    family: KernelFamily

    @property
    def is_dag(self) -> bool:
        return self.family.is_dag

    @property
    def def_cpp(self) -> str:
        return f"op_host/{self.name}_def.cpp"

    @property
    def infershape(self) -> str:
        return f"op_host/{self.name}_infershape.cpp"

    @property
    def proto(self) -> str:
        return f"op_graph/{self.name}_proto.h"

    @property
    def kernel_entry(self) -> str:
        return self.family.kernel_entry

    @property
    def kernel_ut(self) -> str:
        return self.family.kernel_ut_file

    @property
    def tpl_struct(self) -> str:
        return f"op_kernel/arch35/{self.name}_tiling_struct.h"

    @property
    def tiling_key_h(self) -> str:
        return f"{self.family.kernel_dir}/{self.name}_tiling_key.h"

    @property
    def tiling_source(self) -> str:
        return self.family.tiling_source

    @property
    def binary_jsons(self) -> str:
        """Glob of the per-SoC binary JSON files."""
        return f"op_host/config/*/{self.name}_binary.json"

    @property
    def golden(self) -> str:
        return "tests/assets/golden.py"


def family_files(name: str, op_type: str, families: tuple[KernelFamily, ...]) -> list[tuple[str, OpFiles]]:
    """(label suffix, files) per kernel family; the suffix names the family only when the op has several."""
    several = len(families) > 1
    return [(f" [{f.name}]" if several else "", OpFiles(name, op_type, f)) for f in families]


def relabel(items: list[CheckItem], suffix: str) -> list[CheckItem]:
    return [replace(i, item=i.item + suffix) for i in items] if suffix else items


def glob_rel(op_dir: Path, pattern: str) -> list[str]:
    """Paths (relative, POSIX, sorted) matching `pattern` under the op dir, `.opgen/` excluded."""
    return sorted(p.relative_to(op_dir).as_posix() for p in op_dir.glob(pattern)
                  if p.is_file() and ".opgen" not in p.relative_to(op_dir).parts)


# ---------------------------------------------------------------- def


@dataclass(frozen=True)
class DefTensor:
    role: str  # "input" | "output"
    name: str
    dtypes: tuple[str, ...] | None  # canonical names per combination; None: no `.DataType({...})` found
    line: int
    formats: tuple[str, ...] = ()  # ge::Format names (without FORMAT_) per combination, from `.Format({...})`


@dataclass(frozen=True)
class DefConfig:
    """An `OpAICoreConfig <var>;` and the tensors it registers columns of its own for (none: flags only)."""

    var: str
    line: int
    tensors: tuple[DefTensor, ...]

    def combinations(self) -> list[tuple[str, ...]]:
        columns = [t.dtypes for t in self.tensors if t.dtypes is not None]
        return list(zip(*columns, strict=False)) if columns else []


@dataclass(frozen=True)
class DefInfo:
    tensors: tuple[DefTensor, ...]
    socs: tuple[tuple[str, int], ...]  # (soc, line) of each AddConfig
    op_files: tuple[tuple[str, int], ...]  # ExtendCfgInfo("opFile.value", ...)
    configs: tuple[DefConfig, ...] = ()
    soc_configs: tuple[tuple[str, str], ...] = ()  # (soc, config var) of each AddConfig("<soc>", <var>)

    def soc_combinations(self, soc: str) -> list[tuple[str, ...]]:
        """The combinations the def registers for one SoC: its OpAICoreConfig's columns, else the main ones."""
        var = dict(self.soc_configs).get(soc)
        config = next((c for c in self.configs if c.var == var and c.tensors), None)
        return config.combinations() if config is not None else self.combinations()

    def columns_problem(self) -> str | None:
        widths = {t.name: len(t.dtypes) for t in self.tensors if t.dtypes is not None}
        if len(set(widths.values())) > 1:
            return "tensors list different numbers of dtypes: " + ", ".join(f"{k} {v}" for k, v in widths.items())
        return None

    def combinations(self) -> list[tuple[str, ...]]:
        """Column k across every tensor (inputs then outputs): the def's supported combinations."""
        columns = [t.dtypes for t in self.tensors if t.dtypes is not None]
        return list(zip(*columns, strict=False)) if columns else []

    @property
    def inputs(self) -> list[DefTensor]:
        return [t for t in self.tensors if t.role == "input"]

    @property
    def outputs(self) -> list[DefTensor]:
        return [t for t in self.tensors if t.role == "output"]


_DEF_NEXT = re.compile(r"this\s*->|;")
_CONFIG_DECL = re.compile(r"\bOpAICoreConfig\s+(\w+)\s*;")
_ADD_CONFIG = re.compile(r'AddConfig\s*\(\s*"(\w+)"\s*(?:,\s*(\w+)\s*)?\)')
_DATATYPE = re.compile(r"\.DataType\s*\(\s*\{([^}]*)\}\s*\)")
_FORMAT = re.compile(r"\.Format\s*\(\s*\{([^}]*)\}\s*\)")


def golden_assignment(tree: ast.Module) -> tuple[ast.expr, int] | None:
    """The value and line of golden.py's last top-level ``__golden__ =``: the one an import would keep."""
    found = None
    for node in tree.body:
        if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        if any(isinstance(t, ast.Name) and t.id == "__golden__" for t in targets):
            found = (node.value, node.lineno)
    return found


def read_def(src: Source) -> DefInfo:
    configs = tuple(DefConfig(m.group(1), src.line(m.start()), _def_tensors(src, rf"\b{m.group(1)}\s*\."))
                    for m in _CONFIG_DECL.finditer(src.code))
    return DefInfo(
        tensors=_def_tensors(src, r"this\s*->\s*"),
        socs=find_named(src, r'AddConfig\s*\(\s*"(\w+)"'),
        op_files=find_named(src, r'ExtendCfgInfo\s*\(\s*"opFile\.value"\s*,\s*"([^"]*)"'),
        configs=configs,
        soc_configs=tuple((m.group(1), m.group(2)) for m in _ADD_CONFIG.finditer(src.code) if m.group(2)),
    )


def _def_tensors(src: Source, owner: str) -> tuple[DefTensor, ...]:
    """Each `<owner>Input/Output("name")` chain up to its `;`: dtypes and formats per column."""
    tensors = []
    for match in re.finditer(owner + r'(Input|Output)\s*\(\s*"(\w+)"\s*\)', src.code):
        nxt = _DEF_NEXT.search(src.code, match.end())
        segment = src.code[match.end() : nxt.start() if nxt else len(src.code)]
        types = _DATATYPE.search(segment)
        dtypes = tuple(ge_name(t) for t in re.findall(r"DT_\w+", types.group(1))) if types else None
        formats = _FORMAT.search(segment)
        tensors.append(DefTensor(match.group(1).lower(), match.group(2), dtypes, src.line(match.start()),
                                 tuple(re.findall(r"FORMAT_(\w+)", formats.group(1))) if formats else ()))
    return tuple(tensors)


def find_named(src: Source, pattern: str) -> tuple[tuple[str, int], ...]:
    """(first group, line) of every match of `pattern`."""
    return tuple((m.group(1), src.line(m.start())) for m in re.finditer(pattern, src.code))


# ---------------------------------------------------------------- proto

@dataclass(frozen=True)
class ProtoTensor:
    role: str
    name: str
    dtypes: frozenset[str]
    line: int
    group: str | None = None  # how the set is written when not as a plain list: classes, or a DATATYPE symbol


def read_proto(src: Source) -> list[ProtoTensor]:
    """The first REG_OP's tensors, read by opgen.upstream's proto parser (lists, classes, mixes and DATATYPE
    symbols alike); empty without a REG_OP; OpgenError naming what it cannot read (an unknown type class)."""
    protos = read_protos(src.code.encode(), src.rel)
    if not protos:
        return []
    found = []
    for tensor in protos[0].tensors:
        at = re.search(rf"\.\s*{tensor.kind}\s*\(\s*{re.escape(tensor.name)}\b", src.code)
        kind = tensor.type
        group = f'"{kind.symbol}"' if kind.symbol else " ".join(kind.classes) or None
        found.append(ProtoTensor("output" if "OUTPUT" in tensor.kind else "input", tensor.name,
                                 frozenset(ge_name(t) for t in kind.dtypes), src.line(at.start()) if at else 1, group))
    return found


# ---------------------------------------------------------------- binary JSON


@dataclass(frozen=True)
class BinaryEntry:
    index: int  # position in op_list
    names: tuple[str, ...]  # tensor names, inputs (by index) then outputs (by index)
    dtypes: tuple[str, ...]
    bin_filename: str
    formats: tuple[str, ...] = ()
    attrs: tuple[tuple[str, str], ...] = ()  # (name, dtype) of its `attrs` list, in order


def read_binary_json(path: Path) -> tuple[str, list[BinaryEntry]]:
    """op_type and the op_list entries of an `op_host/config/<soc>/<op>_binary.json`."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        entries = []
        for k, entry in enumerate(data["op_list"]):
            tensors = [sorted(entry.get(role, []), key=lambda t: int(t["index"])) for role in ("inputs", "outputs")]
            flat = tensors[0] + tensors[1]
            entries.append(BinaryEntry(k, tuple(str(t["name"]) for t in flat), tuple(str(t["dtype"]) for t in flat),
                                       str(entry.get("bin_filename", "")), tuple(str(t["format"]) for t in flat),
                                       tuple((str(a["name"]), str(a["dtype"])) for a in entry.get("attrs", []))))
        return str(data.get("op_type", "")), entries
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ReadError(f"not an ops-nn binary JSON ({type(error).__name__}: {error})") from None


# ---------------------------------------------------------------- ST CSV


@dataclass(frozen=True)
class CsvRow:
    line: int
    op_name: str
    dtypes: tuple[str | None, ...] | None  # input_dtypes + output_dtypes (None: an absent input); None when unreadable
    testcase: str
    soc_series: tuple[str, ...] = ()  # the short SoC versions the row is for; empty: any


def read_st_csv(path: Path) -> list[CsvRow]:
    rows = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            try:
                dtypes: tuple[str | None, ...] | None = tuple(_literal(row.get("input_dtypes"))) + tuple(
                    _literal(row.get("output_dtypes")))
            except (ValueError, SyntaxError, TypeError):
                dtypes = None
            try:
                series = tuple(str(s) for s in _literal(row.get("soc_series")) if s) if row.get("soc_series") else ()
            except (ValueError, SyntaxError, TypeError):
                series = ()
            rows.append(CsvRow(reader.line_num, (row.get("op_name") or "").strip(), dtypes,
                               (row.get("testcase_name") or "").strip(), series))
    return rows


def _literal(cell: str | None) -> tuple[str | None, ...]:
    """A dtype list cell; None stands for an absent optional input."""
    value: Any = ast.literal_eval((cell or "").strip())
    if isinstance(value, str):
        return (value,)
    return tuple(None if v is None else str(v) for v in value)


# ---------------------------------------------------------------- kernel entry, CMake


@dataclass(frozen=True)
class KernelEntry:
    name: str
    params: tuple[str, ...]
    line: int


_ENTRY = re.compile(r"__global__\s+__aicore__\s+void\s+(\w+)\s*\(([^)]*)\)")


def read_kernel_entries(src: Source) -> list[KernelEntry]:
    entries = []
    for m in _ENTRY.finditer(src.code):
        params = tuple(p.split()[-1].lstrip("*&") for p in m.group(2).split(",") if p.strip())
        entries.append(KernelEntry(m.group(1), params, src.line(m.start())))
    return entries


def cmake_list(src: Source, variable: str) -> tuple[list[str], int] | None:
    """The values of `set(<variable> ...)` and its line; None when it is not set."""
    m = re.search(rf"\bset\s*\(\s*{variable}\s+([^)]*)\)", src.code)
    if not m:
        return None
    return [v.strip('"') for v in m.group(1).split()], src.line(m.start())


def defines(*sources: Source | None) -> dict[str, int]:
    """Every `#define NAME <integer>` of the sources."""
    found: dict[str, int] = {}
    for src in sources:
        if src is not None:
            for m in re.finditer(r"^\s*#\s*define\s+(\w+)\s+\(?(\d+)[uUlL]*\)?\s*$", src.code, re.M):
                found[m.group(1)] = int(m.group(2))
    return found
