"""Fact-by-fact differences between a generated op dir and upstream's, each under a stable key a spec can list.

Keys name one registered or exported fact (`proto.attr.alpha`, `def.soc.ascend950.flags`,
`cmake.CMakeLists.txt.add_modules_sources.DISABLE_IN_OPP`, `file.op_host/config/ascend350/x_binary.json`).
A key in `FIXED` (the IR: op type, tensor and attr names and order; an exported aclnn function's parameter
types and order) can never be listed: changing it breaks graphs or callers built against upstream.
Values are compared by meaning where the text is free (attr defaults `1.0f` = `1.0`, a proto type's listed
dtypes in any order, dtype columns in any order) and as written elsewhere.
"""

from __future__ import annotations

import ast
import operator
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .models import AclnnFunction, AICoreConfig, CMakeFile, DefTensor, OpDef, OpFacts, ProductRow, Proto, ProtoType


@dataclass(frozen=True)
class Difference:
    key: str
    mine: str  # the generated tree's fact, as text ("absent" when it has none)
    theirs: str  # upstream's
    fixed: bool = False  # an IR name or exported signature: no listing can excuse it


ABSENT = "absent"


def compare_facts(mine: OpFacts, theirs: OpFacts) -> list[Difference]:
    """Every difference, in a fixed order (the order of the fact kinds below, then keys as met)."""
    return [*_proto(mine.proto, theirs.proto), *_definition(mine.definition, theirs.definition),
            *_registrations(mine, theirs), *_cmake(mine.cmake, theirs.cmake), *_aclnn(mine, theirs),
            *_docs(mine, theirs), *_files(mine, theirs)]


def _differ(key: str, mine: object, theirs: object, *, fixed: bool = False) -> Iterator[Difference]:
    if mine != theirs:
        yield Difference(key, _text(mine), _text(theirs), fixed)


def _text(value: object) -> str:
    if value is None:
        return ABSENT
    if isinstance(value, tuple | list):
        return ", ".join(_text(v) for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{k}={_text(v)}" if v != "" else str(k) for k, v in value.items()) or "none"
    return str(value)


# ---------------------------------------------------------------- proto
def _proto(mine: Proto | None, theirs: Proto | None) -> Iterator[Difference]:
    if mine is None or theirs is None:  # a proto upstream lacks may be added; one it has may not be dropped
        yield from _differ("proto", mine and mine.op_type, theirs and theirs.op_type, fixed=mine is None)
        return
    yield from _differ("op_type", mine.op_type, theirs.op_type, fixed=True)
    yield from _differ("proto.tensors", [f"{t.kind} {t.name}" for t in mine.tensors],
                       [f"{t.kind} {t.name}" for t in theirs.tensors], fixed=True)
    their_tensors = {t.name: t for t in theirs.tensors}
    for tensor in mine.tensors:
        if (other := their_tensors.get(tensor.name)) is not None:
            yield from _differ(f"proto.{tensor.name}.dtypes", tensor.type.dtypes, other.type.dtypes)
            yield from _differ(f"proto.{tensor.name}.form", _form(tensor.type, mine), _form(other.type, theirs))
    yield from _differ("proto.attrs", [a.name for a in mine.attrs], [a.name for a in theirs.attrs], fixed=True)
    their_attrs = {a.name: a for a in theirs.attrs}
    for attr in mine.attrs:
        if (their := their_attrs.get(attr.name)) is not None:
            yield from _differ(f"proto.attr.{attr.name}", (attr.kind, attr.type, _value(attr.type, attr.default)),
                               (their.kind, their.type, _value(their.type, their.default)))


def _form(written: ProtoType, proto: Proto) -> str:
    """How the admitted set is written: a list (in any order), classes, or a DATATYPE symbol and its form."""
    if written.symbol is not None:
        inner = proto.datatypes.get(written.symbol)
        return f"DATATYPE {written.symbol}: {_form(inner, proto) if inner else 'undeclared'}"
    if written.form == "list":
        return "list"
    return f"{written.form} {' '.join(written.classes)}"


_ARITHMETIC = {ast.Div: operator.truediv, ast.Mult: operator.mul, ast.Add: operator.add, ast.Sub: operator.sub}


def _value(kind: str | None, default: str | None) -> object:
    """An attr default by meaning: a Float's C++ literal expression evaluated, a String unquoted, a Bool lowered."""
    if default is None:
        return None
    if kind == "Float":
        try:
            return _number(ast.parse(re.sub(r"(\d\.?)[fF]\b", r"\1", default), mode="eval").body)
        except (SyntaxError, ValueError, RecursionError):  # not plain arithmetic, or nested past reading
            return default
    return default.strip('"').lower() if kind == "Bool" else default.strip('"')


def _number(node: ast.expr) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_number(node.operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITHMETIC:
        return float(_ARITHMETIC[type(node.op)](_number(node.left), _number(node.right)))
    raise ValueError("not a literal expression")


# ---------------------------------------------------------------- def
def _definition(mine: OpDef | None, theirs: OpDef | None) -> Iterator[Difference]:
    if mine is None or theirs is None:
        yield from _differ("def", mine and mine.op_type, theirs and theirs.op_type)
        return
    yield from _differ("def.tensors", [f"{t.direction} {t.name} {t.param_type}" for t in mine.tensors],
                       [f"{t.direction} {t.name} {t.param_type}" for t in theirs.tensors])
    yield from _differ("def.columns", _columns(mine.tensors), _columns(theirs.tensors))
    their_tensors = {t.name: t for t in theirs.tensors}
    for tensor in mine.tensors:
        if (other := their_tensors.get(tensor.name)) is not None:
            yield from _differ(f"def.{tensor.name}.flags", tensor.flags, other.flags)
    their_attrs = {a.name: a for a in theirs.attrs}
    yield from _differ("def.attrs", [a.name for a in mine.attrs], [a.name for a in theirs.attrs])
    for attr in mine.attrs:
        if (their := their_attrs.get(attr.name)) is not None:
            yield from _differ(f"def.attr.{attr.name}",
                               (attr.attr_type, attr.type, _value(attr.type, attr.default), attr.flags),
                               (their.attr_type, their.type, _value(their.type, their.default), their.flags))
    yield from _differ("def.socs", sorted(mine.socs), sorted(theirs.socs))
    for soc in sorted(set(mine.socs) & set(theirs.socs)):
        yield from _config(soc, mine.socs[soc], theirs.socs[soc], mine, theirs)
    yield from _differ("def.other_calls", mine.other_calls, theirs.other_calls)


def _columns(tensors: tuple[DefTensor, ...], *, own: bool = False) -> list[str]:
    """The dtype/format columns as a sorted list of rows across tensors: the order of columns is not a fact."""
    width = max((len(t.data_type or ()) for t in tensors), default=0)
    rows = {" ".join(f"{_at(t.data_type, k)}/{_at(t.format, k)}/{_at(t.unknown_shape_format, k)}"
                     for t in tensors) for k in range(width)}
    return sorted(rows) if rows or not own else []


def _at(column: tuple[str, ...] | None, k: int) -> str:
    return "-" if column is None or k >= len(column) else column[k]


def _config(soc: str, mine: AICoreConfig | None, theirs: AICoreConfig | None, my_def: OpDef,
            their_def: OpDef) -> Iterator[Difference]:
    """A SoC's OpAICoreConfig: its flags, ExtendCfgInfo and own columns (the op's own when it has none)."""
    mine_flags = None if mine is None else (mine.flags, mine.extend_cfg_info)
    their_flags = None if theirs is None else (theirs.flags, theirs.extend_cfg_info)
    if mine_flags is None or their_flags is None:
        yield from _differ(f"def.soc.{soc}.config", mine_flags and "own config", their_flags and "own config")
    else:
        yield from _differ(f"def.soc.{soc}.flags", mine_flags[0], their_flags[0])
        yield from _differ(f"def.soc.{soc}.extend_cfg_info", mine_flags[1], their_flags[1])
    yield from _differ(f"def.soc.{soc}.columns", _soc_columns(mine, my_def), _soc_columns(theirs, their_def))


def _soc_columns(config: AICoreConfig | None, definition: OpDef) -> list[str]:
    own = _columns(config.tensors, own=True) if config is not None and config.tensors else []
    return own or _columns(definition.tensors)


# ---------------------------------------------------------------- registrations, cmake
def _registrations(mine: OpFacts, theirs: OpFacts) -> Iterator[Difference]:
    """What each IMPL_OP* chain registers (its methods), not the C++ function names it registers."""
    def methods(facts: OpFacts) -> dict[str, tuple[str, ...]]:
        found: dict[str, tuple[str, ...]] = {}
        for r in facts.registrations:
            found[r.macro] = tuple(sorted({*found.get(r.macro, ()), *(name for name, _ in r.calls)}))
        return found
    my_methods, their_methods = methods(mine), methods(theirs)
    for macro in sorted(set(my_methods) | set(their_methods)):
        yield from _differ(f"registrations.{macro}", my_methods.get(macro), their_methods.get(macro))


def _cmake(mine: tuple[CMakeFile, ...], theirs: tuple[CMakeFile, ...]) -> Iterator[Difference]:
    """Each add_* call's keyword arguments and each set() list, per CMakeLists.txt both trees have."""
    their_files = {f.file: f for f in theirs}
    for file in mine:
        if (other := their_files.get(file.file)) is None:
            continue
        for name in sorted(set(file.variables) | set(other.variables)):
            yield from _differ(f"cmake.{file.file}.{name}", file.variables.get(name), other.variables.get(name))
        my_calls, their_calls = _calls(file), _calls(other)
        for command in sorted(set(my_calls) | set(their_calls)):
            mine_args, their_args = my_calls.get(command, {}), their_calls.get(command, {})
            if command not in my_calls or command not in their_calls:
                yield from _differ(f"cmake.{file.file}.{command}", command in my_calls or None,
                                   command in their_calls or None)
                continue
            for keyword in sorted(set(mine_args) | set(their_args)):
                yield from _differ(f"cmake.{file.file}.{command}.{keyword or 'positional'}",
                                   mine_args.get(keyword), their_args.get(keyword))


def _calls(file: CMakeFile) -> dict[str, dict[str, tuple[str, ...]]]:
    return {call.command: call.args for call in file.calls}


# ---------------------------------------------------------------- aclnn, docs, files
def _aclnn(mine: OpFacts, theirs: OpFacts) -> Iterator[Difference]:
    """Upstream's exported functions: each must keep its parameter types in order, and the names where a type
    repeats (fixed); other names, `const` and export are listable; a function only the generated tree has too."""
    my_functions = _functions(mine)
    their_functions = _functions(theirs)
    for name, their in their_functions.items():
        my = my_functions.get(name)
        if my is None:
            yield Difference(f"aclnn.{name}", ABSENT, _signature(their), fixed=True)
            continue
        yield from _differ(f"aclnn.{name}", _signature(my, const=False), _signature(their, const=False), fixed=True)
        yield from _differ(f"aclnn.{name}.const", _signature(my), _signature(their))
        yield from _differ(f"aclnn.{name}.names", [p.name for p in my.params], [p.name for p in their.params])
        yield from _differ(f"aclnn.{name}.export", my.aclnn_api, their.aclnn_api)
    for name in my_functions.keys() - their_functions.keys():
        yield Difference(f"aclnn.{name}", _signature(my_functions[name]), ABSENT)


def _functions(facts: OpFacts) -> dict[str, AclnnFunction]:
    return {f.name: f for header in facts.aclnn for f in header.functions}


def _signature(function: AclnnFunction, *, const: bool = True) -> str:
    """The return and parameter types; without `const`, also the names of parameters that share their type
    (swapping two tensors keeps every type but changes what a caller's arguments mean)."""
    types = [p.type if const else re.sub(r"\bconst\s+", "", p.type) for p in function.params]
    shown = [f"{t} {p.name}" if not const and types.count(t) > 1 else t
             for t, p in zip(types, function.params, strict=True)]
    return f"{function.return_type}({', '.join(shown)})"


def _docs(mine: OpFacts, theirs: OpFacts) -> Iterator[Difference]:
    their_docs = {d.file: d for d in theirs.docs}
    for doc in mine.docs:
        if (other := their_docs.get(doc.file)) is not None:
            yield from _differ(f"docs.{doc.file}.products", _rows(doc.rows), _rows(other.rows))


def _rows(rows: tuple[ProductRow, ...]) -> list[str]:
    return [f"{r.product}: {'yes' if r.supported else 'no'}" for r in rows]


def _files(mine: OpFacts, theirs: OpFacts) -> Iterator[Difference]:
    for path in sorted(set(mine.files) ^ set(theirs.files)):
        yield Difference(f"file.{path}", "present" if path in mine.files else ABSENT,
                         "present" if path in theirs.files else ABSENT)
