"""tree-sitter-cpp helpers shared by the proto, def, registration and aclnn readers: parse a file, walk its
statements in order, flatten a `a.b(x).c(y)` call chain, read literals and enumerator lists."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

import tree_sitter_cpp
from tree_sitter import Language, Node, Parser


@cache
def _parser() -> Parser:
    return Parser(Language(tree_sitter_cpp.language()))


def parse(source: bytes) -> Node:
    """The root node of a C/C++ source, its dead branches (`#if 0`, `#if 1`'s `#else`) blanked first."""
    return _parser().parse(live_source(source)).root_node


_IF = re.compile(rb"\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b\s*(.*?)\s*(?://.*|/\*.*)?$")
_CONSTANT = re.compile(rb"\(?\s*([01])\s*\)?")


def live_source(source: bytes) -> bytes:
    """The source with the lines of branches the preprocessor never compiles emptied (line numbers kept): the
    body of `#if 0` and the `#else`/`#elif` branches of `#if 1`. A condition on anything but 0 or 1 is not
    decided here: all its branches stay."""
    lines = source.split(b"\n")
    frames: list[list[bool | None]] = []  # per open #if: [this branch's constant (None: undecided), a branch taken]
    for number, line in enumerate(lines):
        directive = _IF.match(line)
        dead = any(frame[0] is False for frame in frames)
        if directive is not None:
            kind, condition = directive.group(1), directive.group(2)
            constant = _CONSTANT.fullmatch(condition)
            if kind in (b"if", b"ifdef", b"ifndef"):
                value = constant.group(1) == b"1" if kind == b"if" and constant else None
                frames.append([value, value is True])
            elif frames and kind in (b"elif", b"else"):
                frame = frames[-1]
                if frame[1]:  # an earlier branch is always compiled: this one never is
                    frame[0] = False
                elif kind == b"else":
                    frame[0] = None if frame[0] is None else not frame[0]
                else:
                    frame[0] = constant.group(1) == b"1" if constant else None
                    frame[1] = frame[0] is True
            elif frames and kind == b"endif":
                frames.pop()
            continue
        if dead:
            lines[number] = b""
    return b"\n".join(lines)


def descendants(node: Node, *types: str) -> Iterator[Node]:
    """Every node of the given types under `node`, in source order, not descending into a match. A walk with
    a stack of its own: an expression nested thousands deep is read like any other, never a RecursionError."""
    stack = list(reversed(node.children))
    while stack:
        child = stack.pop()
        if child.type in types:
            yield child
        else:
            stack.extend(reversed(child.children))


def text(node: Node) -> str:
    return (node.text or b"").decode("utf-8", errors="replace")


_SPACE_AFTER = re.compile(r"([(\[{<])\s+")
_SPACE_BEFORE = re.compile(r"\s+([)\]},>])")


def written(node: Node) -> str:
    """A node's source text with whitespace normalised: one space between tokens, none inside brackets."""
    flat = " ".join(text(node).split())
    return _SPACE_BEFORE.sub(r"\1", _SPACE_AFTER.sub(r"\1", flat))


def arguments(node: Node | None) -> tuple[Node, ...]:
    """An argument list's argument expressions (comments dropped)."""
    if node is None:
        return ()
    return tuple(c for c in node.named_children if c.type != "comment")


def string_value(node: Node) -> str | None:
    """The value of a string literal (adjacent literals joined), None when `node` is not one."""
    if node.type == "concatenated_string":
        parts = [string_value(c) for c in node.named_children]
        return None if None in parts else "".join(p for p in parts if p is not None)
    if node.type != "string_literal":
        return None
    return "".join(text(c) for c in node.named_children if c.type in ("string_content", "escape_sequence"))


def literal(node: Node) -> str:
    """An argument as written: a string literal verbatim (quotes, escapes and spaces kept, so its value can be
    decoded as C++ would), anything else with whitespace normalised."""
    return text(node) if node.type in ("string_literal", "concatenated_string", "raw_string_literal") else written(node)


def value(node: Node) -> str:
    """An argument as a fact: a string literal's value, else its normalised source text."""
    as_string = string_value(node)
    return written(node) if as_string is None else as_string


def enumerator(node: Node) -> str:
    """`ge::DT_FLOAT` -> `DT_FLOAT`: an enumerator's name without the `ge::` qualifier."""
    return written(node).removeprefix("ge::")


def enumerators(node: Node) -> tuple[str, ...]:
    """The enumerators of an initializer list `{ge::DT_FLOAT, ge::DT_BF16}` (a lone one as a 1-tuple)."""
    if node.type == "initializer_list":
        return tuple(enumerator(c) for c in node.named_children if c.type != "comment")
    return (enumerator(node),)


@dataclass(frozen=True)
class Call:
    """One `.name(args)` of a chain."""

    name: str
    args: tuple[Node, ...]

    @property
    def args_written(self) -> str:
        """The arguments as written (string literals keep their quotes)."""
        return ", ".join(written(a) for a in self.args)

    @property
    def name_arg(self) -> str:
        """The first argument as a name: a string literal's value (`Input("x")` -> `x`)."""
        return value(self.args[0]) if self.args else ""


def chain(node: Node) -> tuple[str, tuple[Call, ...]]:
    """`this->Input("x").ParamType(REQUIRED)` -> ("this", (Input("x"), ParamType(REQUIRED))); a chain that starts
    with a call of a name (`REG_OP(X).INPUT(...)`) has root "" and that call first."""
    calls: list[Call] = []
    current: Node | None = node
    while current is not None and current.type == "call_expression":
        function = current.child_by_field_name("function")
        args = arguments(current.child_by_field_name("arguments"))
        if function is not None and function.type == "field_expression":
            field = function.child_by_field_name("field")
            if field is not None and field.type == "template_method":
                field = field.child_by_field_name("name")
            calls.append(Call(text(field) if field is not None else "", args))
            current = function.child_by_field_name("argument")
        else:
            calls.append(Call(written(function) if function is not None else "", args))
            current = None
    return ("" if current is None else written(current)), tuple(reversed(calls))


def statement_chains(root: Node) -> Iterator[tuple[str, tuple[Call, ...]]]:
    """Every outermost call chain, in source order, with its root and calls (also one tree-sitter could place in
    no statement, as after an unclosed namespace)."""
    for expression in descendants(root, "call_expression"):
        yield chain(expression)
