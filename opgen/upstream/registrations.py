"""`IMPL_OP_INFERSHAPE(X).InferShape(f).InferDataType(g)` and the other IMPL_OP* registrations of op_host sources,
and the extern functions of the aclnn headers."""

from __future__ import annotations

import re

from tree_sitter import Node

from .cpp import descendants, parse, statement_chains, text, written
from .models import AclnnFunction, AclnnHeader, AclnnParam, Registration


def read_registrations(source: bytes, file: str) -> tuple[Registration, ...]:
    """Each IMPL_OP* chain of a source, with its method calls and their arguments as written."""
    found = []
    for _, calls in statement_chains(parse(source)):
        if calls and calls[0].name.startswith("IMPL_OP") and calls[0].args:
            found.append(Registration(file=file, macro=calls[0].name, op_type=calls[0].args_written,
                                      calls=tuple((c.name, c.args_written) for c in calls[1:])))
    return tuple(found)


# `ACLNN_API` is a macro tree-sitter cannot see through; the same-length attribute `[[ACLNN]]` keeps offsets
_ACLNN_API = re.compile(rb"\bACLNN_API\b")
_MARK = b"[[ACLNN]]"


def read_aclnn_header(source: bytes, file: str) -> AclnnHeader:
    """Every function an aclnn header declares: name, return type, parameters (type with const and pointers,
    name, order) and whether ACLNN_API exports it."""
    root = parse(_ACLNN_API.sub(_MARK, source))
    functions = []
    for declaration in descendants(root, "declaration"):
        declarator = declaration.child_by_field_name("declarator")
        if declarator is None or declarator.type != "function_declarator":
            continue
        name = declarator.child_by_field_name("declarator")
        params = declarator.child_by_field_name("parameters")
        kind = declaration.child_by_field_name("type")
        marked = any(c.type == "attribute_declaration" and text(c) == _MARK.decode() for c in declaration.children)
        functions.append(AclnnFunction(
            name=written(name) if name else "", return_type=_base_type(declaration) if kind else "",
            params=tuple(_param(p) if p.type == "parameter_declaration" else AclnnParam(type="...", name="")
                         for p in params.children if p.type in ("parameter_declaration", "..."))
            if params else (), aclnn_api=marked))
    return AclnnHeader(file=file, functions=tuple(functions))


def _base_type(declaration: Node) -> str:
    """`const aclTensor`: the qualifiers and type before the declarator."""
    declarator = declaration.child_by_field_name("declarator")
    parts = [written(c) for c in declaration.children
             if c.type in ("type_qualifier", "primitive_type", "type_identifier", "qualified_identifier",
                           "sized_type_specifier", "template_type", "struct_specifier", "enum_specifier")
             and c != declarator]
    return " ".join(parts)


def _param(node: Node) -> AclnnParam:
    """`const aclTensor* x` -> (`const aclTensor*`, `x`); `aclOpExecutor** e` -> (`aclOpExecutor**`, `e`); an
    unnamed `const aclScalar*` -> (`const aclScalar*`, ``)."""
    kind = _base_type(node)
    declarator = node.child_by_field_name("declarator")
    suffix = ""
    while declarator is not None and declarator.type.removeprefix("abstract_") in (
            "pointer_declarator", "reference_declarator", "array_declarator"):
        if declarator.type.endswith("array_declarator"):
            suffix += "[]"
        else:
            suffix += "*" if declarator.type.endswith("pointer_declarator") else "&"
            suffix += "".join(" " + text(c) for c in declarator.children if c.type == "type_qualifier")
        declarator = declarator.child_by_field_name("declarator")
    return AclnnParam(type=f"{kind}{suffix}", name=written(declarator) if declarator is not None else "")
