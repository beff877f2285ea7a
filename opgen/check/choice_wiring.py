"""Consistency tier: a string attr choosing the math, read back from the files.

The host tiling maps each accepted string to a TPL value, refuses any other string, and puts the value in
the tiling key; the kernel branches on it. Nothing at compile time ties a value to its math: a tiling that
maps "tanh" to the "none" macro, a kernel branch running another value's DAG, or a refusal that was dropped
all compile and launch. So this row reads the def, the TPL struct, the tiling and the kernel entry and
checks that they agree, and that the DAG each value runs is the one named after it (`<Op><Value>Dag`).
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..plan.reserved import upper_camel
from .aclnn_wiring import DefAttr, read_def_attrs
from .items import CheckItem, skipped, verdict
from .readers import OpFiles, Source, defines, read_source

LABEL = "string attr choosing the math: def == tiling == TPL == kernel"
_DECL = re.compile(r"ASCENDC_TPL_UINT_DECL\s*\(\s*(\w+)\s*,\s*\d+\s*,\s*ASCENDC_TPL_UI_LIST\s*,([^)]*)\)")
_BRANCH = r"dType\s*==\s*(\w+)\s*&&\s*{arg}\s*==\s*(\w+)\s*\)\s*\{{[^}}]*?(\w+)\s*<[^<>]*>\s*::\s*OpDag"


def choice_item(op_dir: Path, files: OpFiles, def_src: Source) -> CheckItem:
    tpl, tiling, kernel = (read_source(op_dir, rel) for rel in (files.tpl_struct, files.tiling_source,
                                                                 files.kernel_entry))
    if tpl is None or tiling is None or kernel is None:
        return skipped(LABEL, "TPL struct, tiling or kernel entry missing (see structure)")
    strings = [(i, a) for i, a in enumerate(read_def_attrs(def_src)) if a.ge_type == "String"]
    declared = [(m.group(1), _names(m.group(2))) for m in _DECL.finditer(tpl.code) if m.group(1) != "schMode"]
    if not strings and not declared:
        return verdict(LABEL, [], "no string attr chooses the math")
    if not declared:
        return verdict(LABEL, [f"{def_src.rel}:{a.line}: String attr {a.name} reaches no TPL argument in {tpl.rel}: "
                               "the kernel cannot branch on it" for _, a in strings])
    arg, decl = declared[0]
    problems = _tpl_problems(tpl, arg, decl)
    found = list(re.finditer(rf'\b{arg}Value\s*==\s*"([^"]*)"\s*\)\s*\{{\s*{arg}\s*=\s*(\w+)\s*;', tiling.code))
    mapped = {m.group(1): (m.group(2), tiling.line(m.start())) for m in found}
    problems += _tiling_problems(tiling, def_src, strings, arg, mapped, decl)
    if found and not re.match(r"\s*\}\s*else\s*\{[^}]*return\s+ge::GRAPH_FAILED\s*;", tiling.code[found[-1].end():]):
        problems.append(f"{tiling.at(found[-1].start())}: a value of {arg} other than {', '.join(mapped)} is not "
                        "refused (no `else { ... return ge::GRAPH_FAILED; }` after the values)")
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
        named = f"{files.op_type}{upper_camel(value_of[macro])}Dag"
        if struct != named:
            problems.append(f"{kernel.rel}:{line}: {arg} \"{value_of[macro]}\" ({dtype}) runs {struct}, not {named}, "
                            "the DAG of its math")
        tiled = host.get((dtype, macro))
        if tiled is not None and tiled != struct:
            problems.append(f"{kernel.rel}:{line}: {arg} == {macro} ({dtype}) runs {struct}, {tiling.rel} tiles "
                            f"{tiled}")
    problems += [f"{kernel.rel} has no branch for {arg} == {macro} ({value!r})" for value, (macro, _) in
                 mapped.items() if macro not in {r[1] for r in runs}]
    shown = ", ".join(f'"{v}" -> {m}' for v, (m, _) in mapped.items())
    return verdict(LABEL, problems, f"{arg}: {shown}; kernel branches run <Op><Value>Dag")


def _names(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


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


def _tiling_problems(tiling: Source, def_src: Source, strings: list[tuple[int, DefAttr]], arg: str,
                     mapped: dict[str, tuple[str, int]], decl: list[str]) -> list[str]:
    """The tiling reads the def's String attr and maps its values onto the declared macros one to one, its
    default among them, and keys the tiling on the result."""
    problems = []
    read = re.search(r"GetAttrPointer\s*<\s*char\s*>\s*\(\s*(\d+)\s*\)", tiling.code)
    attr = next((a for i, a in strings if read and i == int(read.group(1))), None)
    if attr is None:
        problems.append(f"{tiling.rel}: reads no String attr of {def_src.rel} with GetAttrPointer<char>(i) "
                        f"(String attrs at {', '.join(str(i) for i, _ in strings) or 'none'})")
    elif attr.default.strip('"') not in mapped:
        problems.append(f"{def_src.rel}:{attr.line}: {attr.name}'s default {attr.default} is not a value "
                        f"{tiling.rel} accepts ({', '.join(mapped)})")
    macros = Counter(m for m, _ in mapped.values())
    problems += [f"{tiling.rel}:{line}: \"{value}\" sets {macro}, which another value sets too" for value,
                 (macro, line) in mapped.items() if macros[macro] > 1]
    problems += [f"{tiling.rel}:{line}: \"{value}\" sets {macro}, not declared for {arg}" for value,
                 (macro, line) in mapped.items() if macro not in decl]
    problems += [f"{tiling.rel}: no value sets {macro}, which the TPL struct declares" for macro in decl
                 if macro not in macros]
    if not re.search(rf"GET_TPL_TILING_KEY\s*\([^)]*\b{arg}\b", tiling.code):
        problems.append(f"{tiling.rel}: GET_TPL_TILING_KEY(...) does not take {arg}: the key ignores the attr")
    return problems
