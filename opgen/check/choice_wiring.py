"""Consistency tier: an attr choosing the math (a string's values, or a bool's two), read back from the files.

The host tiling maps each value to a TPL value (a string attr: an `if` chain that refuses any other string;
a bool: a `? :`) and puts it in the tiling key; the kernel branches on it. Nothing at compile time ties a value
to its math: a tiling that maps "tanh" to the "none" macro, a kernel branch running another value's DAG, or a
refusal that was dropped all compile and launch. So this row reads the def, the TPL struct, the tiling and the
kernel entry and checks that they agree, and that the DAG each value runs is the one named after it
(`<Op><Value>Dag`, a bool's `<Op><Attr>True|FalseDag`; for 16-bit dtypes its twin `<Op><Value>B16Dag`, erf in
registers).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..plan.registry.reserved import lower_camel, upper_camel
from .aclnn_wiring import DefAttr, read_def_attrs
from .items import CheckItem, skipped, verdict
from .readers import OpFiles, Source, defines, read_source

LABEL = "attr choosing the math: def == tiling == TPL == kernel"
_DECL = re.compile(r"ASCENDC_TPL_UINT_DECL\s*\(\s*(\w+)\s*,\s*\d+\s*,\s*ASCENDC_TPL_UI_LIST\s*,([^)]*)\)")
_BRANCH = r"dType\s*==\s*(\w+)\s*&&\s*{arg}\s*==\s*(\w+)\s*\)\s*\{{[^}}]*?(\w+)\s*<[^<>]*>\s*::\s*OpDag"
_READS = {"String": "char", "Bool": "bool"}  # the def attr types that can choose, and GetAttrPointer's type


def choice_item(op_dir: Path, files: OpFiles, def_src: Source) -> CheckItem:
    tpl, tiling, kernel = (read_source(op_dir, rel) for rel in (files.tpl_struct, files.tiling_source,
                                                                 files.kernel_entry))
    if tpl is None or tiling is None or kernel is None:
        return skipped(LABEL, "TPL struct, tiling or kernel entry missing (see structure)")
    attrs = read_def_attrs(def_src)
    declared = [(m.group(1), _names(m.group(2))) for m in _DECL.finditer(tpl.code) if m.group(1) != "schMode"]
    if not declared:
        strings = [a for a in attrs if a.ge_type == "String"]
        return verdict(LABEL, [f"{def_src.rel}:{a.line}: String attr {a.name} reaches no TPL argument in {tpl.rel}: "
                               "the kernel cannot branch on it" for a in strings], "no attr chooses the math")
    arg, decl = declared[0]
    index, attr = next(((i, a) for i, a in enumerate(attrs) if lower_camel(a.name) == arg), (-1, None))
    if attr is None or attr.ge_type not in _READS:
        return verdict(LABEL, [f"{tpl.rel}: TPL argument {arg} is no String or Bool attr of {def_src.rel}"])
    problems = _tpl_problems(tpl, arg, decl)
    mapped, refusal = _mapped(tiling, arg, attr)
    problems += _tiling_problems(tiling, def_src, (index, attr), arg, mapped, decl) + refusal
    host = {(m.group(2), m.group(1)): m.group(3) for m in re.finditer(
        rf"&&\s*{arg}\s*==\s*(\w+)\s*\)\s*\{{\s*dType\s*=\s*(\w+)\s*;[^}}]*?(\w+)\s*<[^<>]*>\s*::\s*OpDag",
        tiling.code)}
    runs = [(m.group(1), m.group(2), m.group(3), kernel.line(m.start()))
            for m in re.finditer(_BRANCH.format(arg=arg), kernel.code)]
    if not re.search(rf"template\s*<[^>]*\buint64_t\s+{arg}\b", kernel.code):
        problems.append(f"{kernel.rel}: the entry template takes no `uint64_t {arg}`")
    value_of = {macro: value for value, (macro, _) in mapped.items()}
    for dtype, macro, struct, line in runs:
        if macro not in value_of:
            problems.append(f"{kernel.rel}:{line}: branch for {arg} == {macro}, which no accepted value sets")
            continue
        label = value_of[macro] if attr.ge_type == "String" else f"{attr.name}_{value_of[macro]}"
        named = f"{files.op_type}{upper_camel(label)}Dag"
        if struct not in (named, named.removesuffix("Dag") + "B16Dag"):
            problems.append(f"{kernel.rel}:{line}: {arg} {_shown(attr, value_of[macro])} ({dtype}) runs {struct}, "
                            f"not {named}, the DAG of its math")
        tiled = host.get((dtype, macro))
        if tiled is not None and tiled != struct:
            problems.append(f"{kernel.rel}:{line}: {arg} == {macro} ({dtype}) runs {struct}, {tiling.rel} tiles "
                            f"{tiled}")
    problems += [f"{kernel.rel} has no branch for {arg} == {macro} ({_shown(attr, value)})" for value, (macro, _) in
                 mapped.items() if macro not in {r[1] for r in runs}]
    shown = ", ".join(f"{_shown(attr, v)} -> {m}" for v, (m, _) in mapped.items())
    return verdict(LABEL, problems, f"{arg}: {shown}; kernel branches run <Op><Value>Dag")


def _shown(attr: DefAttr, value: str) -> str:
    return f'"{value}"' if attr.ge_type == "String" else value


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _mapped(tiling: Source, arg: str, attr: DefAttr) -> tuple[dict[str, tuple[str, int]], list[str]]:
    """value -> (macro, line) as the tiling maps the attr; and, for a string attr, the problem when other
    strings are not refused."""
    if attr.ge_type == "Bool":
        ternary = re.search(rf"\b{arg}\s*=\s*{arg}Value\s*\?\s*(\w+)\s*:\s*(\w+)\s*;", tiling.code)
        if ternary is None:
            return {}, []
        line = tiling.line(ternary.start())
        return {"true": (ternary.group(1), line), "false": (ternary.group(2), line)}, []
    found = list(re.finditer(rf'\b{arg}Value\s*==\s*"([^"]*)"\s*\)\s*\{{\s*{arg}\s*=\s*(\w+)\s*;', tiling.code))
    mapped = {m.group(1): (m.group(2), tiling.line(m.start())) for m in found}
    if found and not re.match(r"\s*\}\s*else\s*\{[^}]*return\s+ge::GRAPH_FAILED\s*;", tiling.code[found[-1].end():]):
        return mapped, [f"{tiling.at(found[-1].start())}: a value of {arg} other than {', '.join(mapped)} is not "
                        "refused (no `else { ... return ge::GRAPH_FAILED; }` after the values)"]
    return mapped, []


def _tpl_problems(tpl: Source, arg: str, decl: list[str]) -> list[str]:
    sel = re.search(rf"ASCENDC_TPL_UINT_SEL\s*\(\s*{arg}\s*,\s*ASCENDC_TPL_UI_LIST\s*,([^)]*)\)", tpl.code)
    values = defines(tpl)
    problems = [f"{tpl.rel}: {name} is not #defined to a number" for name in decl if name not in values]
    problems += [f"{tpl.rel}: {n} {arg} macros share value {v}" for v, n in
                 Counter(values.get(name) for name in decl if name in values).items() if n > 1]
    if sel is None or set(_names(sel.group(1))) != set(decl):
        problems.append(f"{tpl.rel}: ASCENDC_TPL_UINT_SEL({arg}, ...) does not select what its DECL declares "
                        f"({', '.join(decl)})")
    return problems


def _tiling_problems(tiling: Source, def_src: Source, chooser: tuple[int, DefAttr], arg: str,
                     mapped: dict[str, tuple[str, int]], decl: list[str]) -> list[str]:
    """The tiling reads the def's attr and maps its values onto the declared macros one to one, its default
    among them, and keys the tiling on the result."""
    index, attr = chooser
    problems = []
    reads = _READS[attr.ge_type]
    read = re.search(rf"GetAttrPointer\s*<\s*{reads}\s*>\s*\(\s*(\d+)\s*\)", tiling.code)
    if read is None or int(read.group(1)) != index:
        problems.append(f"{tiling.rel}: does not read {attr.name}, attr {index} of {def_src.rel}, with "
                        f"GetAttrPointer<{reads}>({index})")
    if attr.default.strip('"') not in mapped:
        problems.append(f"{def_src.rel}:{attr.line}: {attr.name}'s default {attr.default} is not a value "
                        f"{tiling.rel} accepts ({', '.join(mapped) or 'none found'})")
    macros = Counter(m for m, _ in mapped.values())
    problems += [f"{tiling.rel}:{line}: {_shown(attr, value)} sets {macro}, which another value sets too" for value,
                 (macro, line) in mapped.items() if macros[macro] > 1]
    problems += [f"{tiling.rel}:{line}: {_shown(attr, value)} sets {macro}, not declared for {arg}" for value,
                 (macro, line) in mapped.items() if macro not in decl]
    problems += [f"{tiling.rel}: no value sets {macro}, which the TPL struct declares" for macro in decl
                 if macro not in macros]
    if not re.search(rf"GET_TPL_TILING_KEY\s*\([^)]*\b{arg}\b", tiling.code):
        problems.append(f"{tiling.rel}: GET_TPL_TILING_KEY(...) does not take {arg}: the key ignores the attr")
    return problems
