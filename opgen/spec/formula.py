"""Reference formulas: one math expression over input and attr names, read with `ast` against a whitelist.

Nothing is ever passed to eval: the tree is walked node by node and only the operators, functions and
constants listed here exist. `^` is read as a power (as written on paper); Python's `**` works too.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

MAX_FORMULA_LENGTH = 2000
MAX_NODES = 400

FUNCTIONS: dict[str, int] = {  # name -> number of arguments
    "exp": 1, "log": 1, "log1p": 1, "sqrt": 1, "tanh": 1, "sigmoid": 1, "erf": 1, "abs": 1, "sign": 1,
    "softplus": 1, "relu": 1, "neg": 1, "min": 2, "max": 2, "where": 3,
    "first_half": 2, "second_half": 2, "sum": 2,
}
# functions along an axis: the second argument names the int attr holding it; sum keeps it (length 1)
AXIS_FUNCTIONS = frozenset({"first_half", "second_half", "sum"})
CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e}
_BINARY: dict[type[ast.operator], str] = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div",
                                          ast.Pow: "pow"}
_COMPARE: dict[type[ast.cmpop], str] = {ast.Gt: "gt", ast.GtE: "ge", ast.Lt: "lt", ast.LtE: "le", ast.Eq: "eq",
                                        ast.NotEq: "ne"}
_FORM = ("operators + - * / ** ^ < <= > >= == !=, numbers, input and attr names, the constants "
         f"{', '.join(CONSTANTS)} and the functions {', '.join(sorted(FUNCTIONS))}; a string attr only as "
         "where(attr == \"value\", a, b)")


@dataclass(frozen=True)
class Formula:
    """A checked expression; `names` are the free names it reads as values (inputs or attrs, checked by the
    spec); `choices` the (name, string) pairs it tests, `where(approximate == "tanh", a, b)`: a string attr
    choosing the math, decided before anything is computed (as is `where(flag, a, b)` for a bool attr the
    environment gives as a Python bool)."""

    text: str
    names: tuple[str, ...]
    choices: tuple[tuple[str, str], ...] = ()
    axes: tuple[str, ...] = ()  # the attrs naming an axis: first_half(x, dim)

    @property
    def tree(self) -> ast.expr:
        return _parse(self.text)


def parse_formula(text: str) -> Formula:
    """Check `text` against the whitelist; ValueError names what is not allowed and what is."""
    tree = _parse(text)
    names: dict[str, None] = {}
    choices = {id(node.args[0]): _choice(node.args[0]) for node in ast.walk(tree)
               if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "where"
               and node.args and _choice(node.args[0])}
    inside = {id(n) for node in ast.walk(tree) if id(node) in choices for n in ast.walk(node)}
    axes = {id(node.args[1]): node.args[1] for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in AXIS_FUNCTIONS
            and len(node.args) == 2}
    count = 0
    for node in ast.walk(tree):
        count += 1
        if id(node) in inside:
            continue
        if id(node) in axes:
            if not isinstance(node, ast.Name):
                raise ValueError(f"{ast.unparse(node)!r} cannot name an axis: write the int attr holding it, "
                                 "e.g. first_half(x, dim)")
            continue
        _allowed(node)
        if isinstance(node, ast.Name) and node.id not in CONSTANTS and node.id not in FUNCTIONS:
            names[node.id] = None
    if count > MAX_NODES:
        raise ValueError(f"formula has more than {MAX_NODES} terms; a forward function is a short expression")
    return Formula(text, tuple(names), tuple(dict.fromkeys(c for c in choices.values() if c)),
                   tuple(dict.fromkeys(n.id for n in axes.values() if isinstance(n, ast.Name))))


def _choice(node: ast.expr) -> tuple[str, str] | None:
    """(name, string) of `name == "string"` (either way round), a string attr's test; else None."""
    match node:
        case ast.Compare(left=ast.Name(id=name), ops=[ast.Eq()], comparators=[ast.Constant(value=str(value))]):
            return name, value
        case ast.Compare(left=ast.Constant(value=str(value)), ops=[ast.Eq()], comparators=[ast.Name(id=name)]):
            return name, value
    return None


def _parse(text: str) -> ast.expr:
    if not isinstance(text, str) or not text.strip():
        raise ValueError("a formula is a non-empty expression like `x * sigmoid(x)`")
    if len(text) > MAX_FORMULA_LENGTH:
        raise ValueError(f"formula is longer than {MAX_FORMULA_LENGTH} characters")
    try:
        return ast.parse(text.strip().replace("^", "**"), mode="eval").body
    except (SyntaxError, RecursionError, ValueError) as exc:
        raise ValueError(f"formula {text!r} does not parse ({getattr(exc, 'msg', exc)}); write {_FORM}") from None


def _allowed(node: ast.AST) -> None:
    match node:
        case ast.BinOp(op=op) if type(op) in _BINARY:
            return
        case ast.UnaryOp(op=ast.USub() | ast.UAdd()):
            return
        case ast.Compare(ops=[op]) if type(op) in _COMPARE:
            return
        case ast.Constant(value=value) if isinstance(value, (int, float)) and not isinstance(value, bool):
            return
        case ast.Name(ctx=ast.Load()):
            return
        case ast.Call(func=ast.Name(id=name), args=args, keywords=[]) if name in FUNCTIONS:
            if len(args) != FUNCTIONS[name]:
                raise ValueError(f"{name}() takes {FUNCTIONS[name]} argument(s), got {len(args)}")
            return
        case ast.Call(func=ast.Name(id=name)) if name in FUNCTIONS:
            raise ValueError(f"{name}() takes positional arguments only, not keywords")
        case ast.Call(func=ast.Name(id=name)):
            raise ValueError(f"unknown function {name!r}; formulas may use {', '.join(sorted(FUNCTIONS))}")
        case ast.operator() | ast.unaryop() | ast.cmpop() | ast.expr_context():
            return
    raise ValueError(f"{ast.unparse(node) if isinstance(node, ast.expr) else type(node).__name__!r} is not "
                     f"allowed in a formula; write {_FORM}")


Lib = Mapping[str, Callable[..., Any]]


def evaluate(formula: Formula, env: Mapping[str, Any], lib: Lib,
             rounded: Callable[[Any], Any] = lambda value: value) -> Any:
    """Walk the tree: names from `env`, functions and operators from `lib` (keys: the function names, the
    operator names add sub mul div pow gt ge lt le eq ne, and `const` to make a number a value). An axis
    function gets the axis attr's value from `env` as it is.

    `rounded` sees every result of an inexact step (arithmetic and transcendental functions), so a caller
    can track the rounding error each one adds.
    """
    exact = {"abs", "sign", "relu", "neg", "min", "max", "where", "first_half", "second_half"}

    def walk(node: ast.expr) -> Any:
        match node:
            case ast.Constant(value=int() | float() as value):
                return lib["const"](float(value))
            case ast.Name(id=name) if name in CONSTANTS:
                return lib["const"](CONSTANTS[name])
            case ast.Name(id=name):
                return env[name]
            case ast.UnaryOp(op=ast.USub(), operand=operand):
                return lib["neg"](walk(operand))
            case ast.UnaryOp(operand=operand):
                return walk(operand)
            case ast.BinOp(left=left, op=op, right=right):
                return rounded(lib[_BINARY[type(op)]](walk(left), walk(right)))
            case ast.Compare(left=left, ops=[op], comparators=[right]):
                return lib[_COMPARE[type(op)]](walk(left), walk(right))
            case ast.Call(func=ast.Name(id="where"), args=[test, chosen, other]) if _choice(test):
                attr, picked = _choice(test) or ("", "")
                return walk(chosen) if env[attr] == picked else walk(other)
            case ast.Call(func=ast.Name(id="where"), args=[ast.Name(id=flag), chosen, other]) if isinstance(
                    env.get(flag), bool):
                return walk(chosen) if env[flag] else walk(other)
            case ast.Call(func=ast.Name(id=name), args=[value, ast.Name(id=axis)]) if name in AXIS_FUNCTIONS:
                result = lib[name](walk(value), env[axis])
                return result if name in exact else rounded(result)
            case ast.Call(func=ast.Name(id=name), args=args):
                result = lib[name](*(walk(a) for a in args))
                return result if name in exact else rounded(result)
        raise ValueError(f"unexpected formula node {ast.dump(node)}")

    return walk(formula.tree)
