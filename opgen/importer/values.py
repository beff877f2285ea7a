"""Attr defaults as `opgen import` writes them: the value C++ gives the registered expression, exactly: ints stay
Python ints (never through a float), strings are their literals decoded as a C++ compiler decodes them."""

from __future__ import annotations

import ast
import operator
import re

_INT64 = (-(1 << 63), (1 << 63) - 1)
_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
# a C++ number literal and its suffix (`1.0f`, `10UL`, `0x1F`); a leading 0 makes an octal
_NUMBER = re.compile(r"(?<![\w.])(0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
                     r"(?:[uU]?[lL]{0,2}[uU]?|[fF])(?![\w.])")
_LITERAL = re.compile(r'\s*(?:u8|[uUL])?(?:"((?:[^"\\\n]|\\.)*)"|R"([^()\\\s]{0,16})\((.*?)\)\2")', re.S)
_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9a-fA-F]+)|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8})|(.))", re.S)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\", "'": "'",
           '"': '"', "?": "?"}


class ValueProblem(Exception):
    """A registered default opgen cannot carry over exactly; the message says what and the fix."""


def attr_value(kind: str, written: str) -> bool | int | float | str:
    """The spec value of a default as registered (`kind`: the spec's attr type)."""
    text = written.strip()
    if kind == "bool":
        return text == "true"
    if kind == "string":
        decoded = cpp_string(text)
        if decoded is None:
            raise ValueProblem(f"the default {text[:80]!r} is not a string literal; write the value in the spec")
        return decoded
    number = _arithmetic(_NUMBER.sub(_python_number, text), integral=kind == "int")
    if number is None:
        return text  # not plain arithmetic (a macro, a call): kept as written, and the spec's loader names it
    if kind != "int":
        return float(number)
    value = int(number)  # C++ truncates a floating value converted to an integer
    if not _INT64[0] <= value <= _INT64[1]:
        raise ValueProblem(f"the default {text[:80]} is {value}, outside int64 ({_INT64[0]}..{_INT64[1]}); an Int "
                           "attr holds an int64")
    return value


def _python_number(match: re.Match[str]) -> str:
    digits = match.group(1)
    return f"0o{digits[1:]}" if re.fullmatch(r"0[0-7]+", digits) else digits


def _arithmetic(text: str, *, integral: bool) -> int | float | None:
    """A default written as number arithmetic (`1.0 / 6.0`, `-9223372036854775807 - 1`), evaluated node by node
    with C++'s rules (int / int truncates toward zero when `integral`); None for anything else."""
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as error:
        if "nested" in str(error.msg):
            raise ValueProblem("the default is nested too deep to evaluate; write its value in the spec") from None
        return None
    except (RecursionError, MemoryError):
        raise ValueProblem("the default is nested too deep to evaluate; write its value in the spec") from None

    def value(node: ast.AST) -> int | float:
        if isinstance(node, ast.Constant) and isinstance(node.value, int | float) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            return -value(node.operand) if isinstance(node.op, ast.USub) else value(node.operand)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            left, right = value(node.left), value(node.right)
            if integral and isinstance(left, int) and isinstance(right, int):
                quotient = abs(left) // abs(right)
                return quotient if (left < 0) == (right < 0) else -quotient
            return float(left) / float(right)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))  # type: ignore[no-any-return]
        raise ValueError(text)

    try:
        return value(tree)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    except RecursionError:
        raise ValueProblem("the default is nested too deep to evaluate; write its value in the spec") from None


def cpp_string(text: str) -> str | None:
    """The value of C++ string literals (adjacent ones joined, raw ones kept as they are), decoded to UTF-8 text as
    a compiler does: `\\t`, octal, `\\x` and `\\u` escapes; None when `text` is not only string literals."""
    data, pos = b"", 0
    while text[pos:].strip():
        match = _LITERAL.match(text, pos)
        if match is None:
            return None
        data += match.group(3).encode() if match.group(1) is None else _unescape(match.group(1))
        pos = match.end()
    if pos == 0:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _unescape(body: str) -> bytes:
    """One literal's bytes: escapes are decoded per literal (`"\\x1" "2"` is two chars, not `\\x12`)."""
    out, pos = b"", 0
    for match in _ESCAPE.finditer(body):
        out += body[pos:match.start()].encode()
        octal, hexa, short, long, other = match.groups()
        if octal or hexa:
            out += bytes([(int(octal, 8) if octal else int(hexa, 16)) & 0xFF])
        elif short or long:
            out += chr(int(short or long, 16)).encode("utf-8", errors="surrogatepass")
        else:
            out += _SIMPLE.get(other, other).encode()
        pos = match.end()
    return out + body[pos:].encode()
