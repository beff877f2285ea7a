"""Consistency tier, aclnn half: the attrs reach the launch and the API says so, all read back from the files.

`OP_ATTR(...)` is positional: GE binds its k-th argument to the def's k-th `this->Attr(...)`, so a dropped
or swapped argument still compiles and launches the kernel with the wrong value (or the default). The
wrapper's `GetWorkspaceSize` signature is printed three times (header, wrapper, docs); a scalar parameter
added to one and not the others compiles too, and so does a wrapper handing the l0 op a swapped or stale
attr value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..plan import RenderPlan
from ..plan.registry.reserved import lower_camel
from .aclnn_rules import rules_item
from .items import CheckItem, skipped, verdict
from .readers import MD_CELL, Source, read_source

# the C++ type the l0 op takes each def attr type in (OP_ATTR hands the value to GE as that type)
ATTR_C_TYPES = {"Float": "float", "Int": "int64_t", "Bool": "bool", "String": "const char*"}
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class DefAttr:
    name: str
    ge_type: str  # Float, Int, Bool, String, as the def's setter names it
    default: str  # the setter's argument, as written
    line: int


def read_def_attrs(src: Source) -> list[DefAttr]:
    """The def's `this->Attr("name")...Float(x)` declarations, in order."""
    found = []
    for m in re.finditer(r'this\s*->\s*Attr\s*\(\s*"(\w+)"\s*\)([^;]*);', src.code):
        setter = re.search(r"\.\s*(Float|Int|Bool|String|List\w+)\s*\(([^)]*)\)", m.group(2))
        found.append(DefAttr(m.group(1), setter.group(1) if setter else "no type setter",
                             setter.group(2).strip() if setter else "", src.line(m.start())))
    return found


def _params(text: str) -> list[tuple[str, str]]:
    """`const aclTensor* x, float alpha` -> [("const aclTensor*", "x"), ("float", "alpha")]."""
    found = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        m = re.fullmatch(r"(.*?[\s*&])(\w+)", part)
        found.append((_SPACE.sub(" ", m.group(1)).strip().replace(" *", "*"), m.group(2)) if m else (part, ""))
    return found


def aclnn_items(op_dir: Path, plan: RenderPlan, def_src: Source) -> list[CheckItem]:
    """The l0 launch's OP_ATTR == the def's attrs; the API signature: header == wrapper == docs; what the
    wrapper hands the l0 op per attr; the scalars' value rules: docs == wrapper."""
    if plan.aclnn is None:  # an l0-only op (spec l0_op): its launch alone
        return [op_attr_item(op_dir, plan, def_src)] if plan.l0 else []
    wrapper = read_source(op_dir, f"{plan.aclnn_parts.sources}/{plan.aclnn.file_stem}.cpp")
    signature = _signature(wrapper.code, plan.aclnn.function) if wrapper else None
    return [op_attr_item(op_dir, plan, def_src), signature_item(op_dir, plan),
            wrapper_attrs_item(op_dir, plan, def_src), rules_item(op_dir, plan, _scalar_names(signature))]


def _scalar_names(signature: tuple[list[tuple[str, str]], int] | None) -> list[str]:
    """The API's non-tensor parameters, by name."""
    return [n for t, n in (signature or ([], 0))[0] if "aclTensor" not in t and n not in ("workspaceSize", "executor")]


def op_attr_item(op_dir: Path, plan: RenderPlan, def_src: Source) -> CheckItem:
    """Every def attr, in def order, is an OP_ATTR argument: an l0 parameter of the attr's C++ type."""
    label = "l0 OP_ATTR == def attrs"
    rel = f"{plan.aclnn_parts.sources}/{plan.aclnn_parts.l0_cpp}"
    src = read_source(op_dir, rel)
    if src is None:
        return skipped(label, f"{rel} missing (see structure)")
    attrs = read_def_attrs(def_src)
    want = [lower_camel(a.name) for a in attrs]
    where = f"{def_src.rel}:{attrs[0].line}" if attrs else def_src.rel
    launches = list(re.finditer(r"ADD_TO_LAUNCHER_LIST_\w+\s*\(", src.code))
    if not launches:
        return verdict(label, [f"{rel}: no ADD_TO_LAUNCHER_LIST_AICORE(...) launch"])
    problems = []
    l0_types = {name: c_type for c_type, name in _l0_params(src, plan.op_type)}
    for launch in launches:
        end = src.code.find(";", launch.end())
        op_attr = re.search(r"\bOP_ATTR\s*\(([^)]*)\)", src.code[launch.end():end])
        have = [a.strip() for a in op_attr.group(1).split(",") if a.strip()] if op_attr else []
        at = src.at(launch.start() + op_attr.start()) if op_attr else src.at(launch.start())
        if have != want:
            shown = f"OP_ATTR({', '.join(have)})" if op_attr else "no OP_ATTR"
            missing = [w for w in want if w not in have]
            why = f": {', '.join(missing)} never reaches the kernel (GE binds OP_ATTR by position)" if missing \
                else ": GE binds OP_ATTR by position" if sorted(have) == sorted(want) else ""
            problems.append(f"{at}: {shown}, the def's attrs in order are ({', '.join(want)}) ({where}){why}")
            continue
        for attr, arg in zip(attrs, have, strict=True):
            c_type = ATTR_C_TYPES.get(attr.ge_type, attr.ge_type)
            if l0_types.get(arg) != c_type:
                problems.append(f"{at}: {arg} is {l0_types.get(arg, 'not an l0 parameter')}, attr {attr.name} is "
                                f"{attr.ge_type} ({c_type}, {def_src.rel}:{attr.line})")
    shown = ", ".join(f"{lower_camel(a.name)}: {ATTR_C_TYPES.get(a.ge_type, a.ge_type)}" for a in attrs)
    return verdict(label, problems, f"OP_ATTR({shown})" if attrs else "no attrs, no OP_ATTR")


def _l0_params(src: Source, op_type: str) -> list[tuple[str, str]]:
    """The l0 op's definition's parameters (type, name); empty when it is not found."""
    signature = re.search(rf"\b{op_type}\s*\(([^)]*)\)\s*\{{", src.code)
    return _params(signature.group(1)) if signature else []


def _signature(text: str, function: str) -> tuple[list[tuple[str, str]], int] | None:
    m = re.search(rf"\b{function}GetWorkspaceSize\s*\(([^)]*)\)", text)
    return (_params(m.group(1)), text.count("\n", 0, m.start()) + 1) if m else None


def _table_names(text: str, function: str) -> tuple[list[str], int] | None:
    """The first column of the docs' parameter table under `## <function>GetWorkspaceSize`."""
    m = re.search(rf"(?m)^##\s+{function}GetWorkspaceSize\s*$(.*?)(?=^##\s|\Z)", text, re.S)
    if not m:
        return None
    table = re.search(r"(?m)(?:^\|[^\n]*\n?)+", m.group(1))
    rows = re.findall(r"(?m)^\|\s*([^|]*?)\s*\|", table.group(0)) if table else []
    return [r for r in rows if re.fullmatch(r"\w+", r)], text.count("\n", 0, m.start()) + 1


def signature_item(op_dir: Path, plan: RenderPlan) -> CheckItem:
    """The header, the wrapper and the docs declare the same parameters (type and name) in one order, and the
    docs' table describes each of them."""
    label = "aclnn signature: header == wrapper == docs"
    assert plan.aclnn is not None
    function, stem = plan.aclnn.function, plan.aclnn.file_stem
    rels = (f"{plan.aclnn_parts.sources}/{stem}.h", f"{plan.aclnn_parts.sources}/{stem}.cpp",
            f"{plan.aclnn_parts.docs}/{function}.md")
    texts = {rel: (op_dir / rel).read_text(encoding="utf-8") for rel in rels if (op_dir / rel).is_file()}
    if len(texts) < len(rels):
        return skipped(label, f"{', '.join(r for r in rels if r not in texts)} missing (see structure)")
    found = {rel: _signature(texts[rel], function) for rel in rels}
    problems = [f"{rel}: no {function}GetWorkspaceSize(...)" for rel, sig in found.items() if sig is None]
    if problems:
        return verdict(label, problems)
    header, header_line = found[rels[0]] or ([], 0)
    for rel in rels[1:]:
        params, line = found[rel] or ([], 0)
        if params != header:
            problems.append(f"{rel}:{line}: ({_show(params)}), {rels[0]}:{header_line} declares ({_show(header)})")
    table = _table_names(texts[rels[2]], function)
    names = [n for _, n in header]
    if table is None:
        problems.append(f"{rels[2]}: no `## {function}GetWorkspaceSize` parameter table")
    elif table[0] != names:
        problems.append(f"{rels[2]}:{table[1]}: the parameter table lists ({', '.join(table[0])}), the "
                        f"signature ({', '.join(names)})")
    return verdict(label, problems, f"{function}GetWorkspaceSize({_show(header)})")


def _show(params: list[tuple[str, str]]) -> str:
    return ", ".join(f"{t} {n}" for t, n in params)


def wrapper_attrs_item(op_dir: Path, plan: RenderPlan, def_src: Source) -> CheckItem:
    """The wrapper hands the l0 op, for each attr, the API scalar the docs say sets it, or else the def default
    (an optional scalar's nullptr too): a swapped argument or a stale default compiles and runs."""
    label = "aclnn wrapper -> l0 attrs == docs, def defaults"
    assert plan.aclnn is not None
    sources, function = plan.aclnn_parts.sources, plan.aclnn.function
    rels = (f"{sources}/{plan.aclnn.file_stem}.cpp", f"{sources}/{plan.aclnn_parts.l0_cpp}",
            f"{plan.aclnn_parts.docs}/{function}.md")
    wrapper, l0 = read_source(op_dir, rels[0]), read_source(op_dir, rels[1])
    docs = op_dir / rels[2]
    if wrapper is None or l0 is None or not docs.is_file():
        return skipped(label, f"{', '.join(r for r in rels if not (op_dir / r).is_file())} missing (see structure)")
    attrs = read_def_attrs(def_src)
    if not attrs:
        return verdict(label, [], "no attrs")
    call = re.search(rf"\bl0op::{plan.op_type}\s*\(([^;]*)\)\s*;", wrapper.code)
    signature = _signature(wrapper.code, function)
    if call is None or signature is None:
        return verdict(label, [f"{rels[0]}: no l0op::{plan.op_type}(...) call or no {function}GetWorkspaceSize"])
    args = [a.strip() for a in call.group(1).split(",")]
    position = {name: k for k, (_, name) in enumerate(_l0_params(l0, plan.op_type))}
    scalars = _scalar_names(signature)
    claim = re.compile(rf"(?m)^\|\s*(\w+)\s*\|{MD_CELL}\|{MD_CELL}?sets attr (\w+)")
    claims = {m.group(2): m.group(1) for m in claim.finditer(docs.read_text(encoding="utf-8"))}
    at = wrapper.at(call.start())
    problems, seen = [], []
    for attr in attrs:
        k = position.get(lower_camel(attr.name))
        if k is None or k >= len(args):
            continue  # the l0 op lacks the attr: the OP_ATTR row says so
        # the variable's assignment (not a comparison: a char* parameter is compared with nullptr before the call)
        decl = re.search(rf"\b{re.escape(args[k])}\s*=(?!=)\s*([^;]*);", wrapper.code[:call.start()])
        value = decl.group(1).strip() if decl else args[k]
        used = [n for n in scalars if re.search(rf"\b{n}\b", value)]
        setter = claims.get(attr.name)
        literals = re.findall(r"(?<![\w.])(?:true|false|-?\d[\w.]*)|\"[^\"\n]*\"", value)
        if used != ([setter] if setter else []):
            said = f"the docs say {setter} sets it" if setter else "no parameter sets it (docs)"
            problems.append(f"{at}: attr {attr.name} gets `{value}`, {said}")
        elif any(lit != attr.default for lit in literals) or not (setter or literals):
            problems.append(f"{at}: attr {attr.name} gets `{value}`, the def default is {attr.default} "
                            f"({def_src.rel}:{attr.line})")
        seen.append(f"{attr.name} <- {setter or attr.default}")
    return verdict(label, problems, "; ".join(seen))
