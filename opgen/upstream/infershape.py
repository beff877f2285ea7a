"""What shape rule an op dir's IMPL_OP_INFERSHAPE registers, as the spec's `infershape` says it, or why none does.

The registered function is followed through the op's own host sources (tree-sitter): atvoss's InferShape4Elewise is
`elementwise`, InferShape4Broadcast or a BroadcastShape call is `broadcast`, a copy of one input's shape to the output
is `same_as_input` (`elementwise` for the first input). A broadcast that branches on the SoC (GetSocVersion,
NpuArch) and copies an input otherwise is `broadcast` with that `input`, as upstream GeluGradV2 writes it. Anything
else (an axis, a split, shapes computed dim by dim) is an op-specific rule opgen cannot write: `ShapeRule.why`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tree_sitter import Node

from .cpp import descendants, parse, text
from .models import OpFacts

_ELEMENTWISE = {"InferShape4Elewise"}
_BROADCAST = {"InferShape4Broadcast", "BroadcastShape", "BroadcastShapeToOutShape"}
_SOC = re.compile(r"SocVersion|NpuArch")
_COPY_HELPER = re.compile(r"CopyShape\w*")
_INDEX = re.compile(r"\d+")
_CONSTANT = re.compile(r"\b(\w+)\s*=\s*(\d+)\s*;")


@dataclass(frozen=True)
class ShapeRule:
    """The spec's infershape rule and input, or (`why`) what upstream's function does that no rule says."""

    rule: str = ""
    input: int | None = None  # an input index: same_as_input's source; broadcast's copy on the other SoCs
    where: str = ""  # file:line of the function read
    why: str = ""


def shape_rule(facts: OpFacts, read: Callable[[str], bytes]) -> ShapeRule:
    """The rule the op's IMPL_OP_INFERSHAPE registers; `read` gives an op dir file's bytes."""
    registration = next((r for r in facts.registrations if r.macro == "IMPL_OP_INFERSHAPE"), None)
    if registration is None or registration.call("InferShape") is None:
        return ShapeRule(why="no IMPL_OP_INFERSHAPE(...).InferShape(...) in the op dir's host sources")
    name = (registration.call("InferShape") or "").split("::")[-1].strip()
    if name in _ELEMENTWISE:
        return ShapeRule("elementwise", where=registration.file)
    if name in _BROADCAST:
        return ShapeRule("broadcast", where=registration.file)
    functions, constants = _functions(facts, read)
    if name not in functions:
        return ShapeRule(why=f"{registration.file}: its function {name} is not defined in the op dir")
    where, _ = functions[name]
    called, copies, branches = _reach(name, functions, constants)
    if called & _BROADCAST:
        copied = sorted(copies)
        if branches and len(copied) == 1:
            return ShapeRule("broadcast", copied[0], where)
        return ShapeRule("broadcast", where=where)
    if called & _ELEMENTWISE:
        return ShapeRule("elementwise", where=where)
    if len(copies) == 1 and not branches:
        source = copies.pop()
        return ShapeRule("elementwise" if source == 0 else "same_as_input", None if source == 0 else source, where)
    return ShapeRule(where=where, why=f"{where}: {name} computes the output shape in its own code (neither "
                                      "elementwise, a copy of one input's shape nor a broadcast)")


def _functions(facts: OpFacts, read: Callable[[str], bytes]) -> tuple[dict[str, tuple[str, Node]], dict[str, int]]:
    """name -> (file:line, body) of every function defined in the op dir's host sources, and their integer
    constants (`INPUT_INDEX = 0;`) by name."""
    found: dict[str, tuple[str, Node]] = {}
    constants: dict[str, int] = {}
    for rel in (f for f in facts.files if f.startswith("op_host/") and f.endswith((".cpp", ".h"))):
        source = read(rel)
        constants.update((m.group(1), int(m.group(2))) for m in _CONSTANT.finditer(source.decode("utf-8", "replace")))
        for node in descendants(parse(source), "function_definition"):
            declarator = node.child_by_field_name("declarator")
            body = node.child_by_field_name("body")
            names = list(descendants(declarator, "identifier", "field_identifier")) if declarator else []
            if names and body is not None:
                found.setdefault(text(names[0]), (f"{rel}:{node.start_point[0] + 1}", body))
    return found, constants


def _reach(name: str, functions: dict[str, tuple[str, Node]],
           constants: dict[str, int]) -> tuple[set[str], set[int], bool]:
    """What `name` calls (through the op's own functions), the input indices whose shape it copies to an output,
    and whether it branches on the SoC."""
    called: set[str] = set()
    copies: set[int] = set()
    branches = False
    todo, seen = [name], set()
    while todo:
        current = todo.pop()
        if current in seen or current not in functions:
            continue
        seen.add(current)
        body = functions[current][1]
        branches = branches or bool(_SOC.search(text(body)))
        inputs = {}
        for call in _every(body, "call_expression"):
            callee = text(call.child_by_field_name("function") or call).split("::")[-1].split(">")[-1].strip()
            called.add(callee)
            todo.append(callee)
            args = [text(a) for a in (call.child_by_field_name("arguments") or call).named_children]
            if callee.endswith("GetInputShape") and args:
                inputs[_owner(call)] = _index(args[0], constants)
            if _COPY_HELPER.fullmatch(callee) and len(args) > 1:
                copies.add(_index(args[1], constants))
        for assignment in _every(body, "assignment_expression"):
            left, right = (text(assignment.child_by_field_name(f) or assignment).strip() for f in ("left", "right"))
            if left.startswith("*") and right.startswith("*") and right[1:].strip() in inputs:
                copies.add(inputs[right[1:].strip()])
    return called, {c for c in copies if c >= 0}, branches


def _every(node: Node, kind: str) -> Iterator[Node]:
    """Every node of `kind` under `node`, nested ones too (a call inside OP_CHECK_IF(...)'s arguments)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type == kind:
            yield current
        stack.extend(reversed(current.children))


def _owner(call: Node) -> str:
    """The variable a `x = context->GetInputShape(k)` declaration or assignment stores the call in."""
    parent = call.parent
    while parent is not None and parent.type not in ("init_declarator", "assignment_expression", "declaration"):
        parent = parent.parent
    if parent is None:
        return ""
    target = parent.child_by_field_name("declarator") or parent.child_by_field_name("left")
    return text(target).lstrip("*& ").strip() if target is not None else ""


def _index(arg: str, constants: dict[str, int]) -> int:
    """An input index written as a number or a named constant; -1 when it is neither."""
    arg = arg.strip()
    if arg in constants:
        return constants[arg]
    return int(arg) if _INDEX.fullmatch(arg) else -1
