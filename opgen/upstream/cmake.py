"""The build registrations of an op dir's CMakeLists.txt files: each `add_*` call (add_modules_sources,
add_kernel_sources, add_graph_plugin_sources, ...) with its keyword arguments, `${VAR}` of the file's own
`set()` expanded, and the `SUPPORT_*` lists the file sets."""

from __future__ import annotations

from functools import cache

import tree_sitter_cmake
from tree_sitter import Language, Node, Parser

from .models import CMakeCall, CMakeFile

# the keywords ops-nn's cmake/func.cmake parses (HOSTNAME and MODE are passed through by every caller)
KEYWORDS: dict[str, frozenset[str]] = {
    "add_modules_sources": frozenset({"HOSTNAME", "MODE", "DIR", "OPTYPE", "ACLNNTYPE", "DEPENDENCIES",
                                      "COMPUTE_UNIT", "TILING_DIR", "DISABLE_IN_OPP"}),
    "add_kernel_sources": frozenset({"KERNEL_SRC", "SIMPLIFIED_KEY", "AUTO_SYNC", "IMPL_MODE", "COMPUTE_UNITS",
                                     "OPTIONS"}),
}
_NOT_REGISTRATIONS = frozenset({"add_subdirectory", "add_definitions", "add_compile_options"})


@cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_cmake.language()))


def read_cmake(source: bytes, file: str) -> CMakeFile:
    """The `add_*` calls (nested ones under if() included, in source order) and `SUPPORT_*` variables."""
    variables: dict[str, tuple[str, ...]] = {}
    calls = []
    for command in _commands(_parser().parse(source).root_node):
        name = _text(command.child_by_field_name("name") or command.named_children[0]).lower()
        args = _arguments(command, variables)
        if name == "set" and args:
            variables[args[0]] = args[1:]
        elif name.startswith("add_") and name not in _NOT_REGISTRATIONS:
            calls.append(CMakeCall(command=name, args=_keyword_args(name, args)))
    support = {k: v for k, v in variables.items() if k.startswith("SUPPORT_")}
    return CMakeFile(file=file, variables=support, calls=tuple(calls))


def _commands(node: Node) -> list[Node]:
    found = []
    for child in node.named_children:
        found.extend([child] if child.type == "normal_command" else _commands(child))
    return found


def _text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


def _arguments(command: Node, variables: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    listed = next((c for c in command.named_children if c.type == "argument_list"), None)
    values: list[str] = []
    for argument in listed.named_children if listed is not None else ():
        if argument.type != "argument" or not argument.named_children:
            continue
        inner = argument.named_children[0]
        if inner.type == "quoted_argument":
            values.append("".join(_text(c) for c in inner.named_children))
        elif inner.type == "bracket_argument":
            values.append(_text(inner).split("[", 2)[-1].rsplit("]", 2)[0])
        else:
            raw = _text(inner)
            name = raw[2:-1] if raw.startswith("${") and raw.endswith("}") else None
            values.extend(variables.get(name, (raw,)) if name else (raw,))
    return tuple(values)


def _keyword_args(command: str, args: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    """Keyword -> its values, as cmake_parse_arguments groups them; values before any keyword under ""."""
    keywords = KEYWORDS.get(command, frozenset())
    grouped: dict[str, list[str]] = {}
    current = ""
    for arg in args:
        if arg in keywords:
            current = arg
            grouped.setdefault(current, [])
        else:
            grouped.setdefault(current, []).append(arg)
    return {k: tuple(v) for k, v in grouped.items()}
