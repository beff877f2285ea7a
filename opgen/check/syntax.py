"""Syntax tier of `opgen check`: every generated file must at least parse.

C++ is checked after CANN's macros are expanded: the file's own ``#include`` lines
are blanked (line numbers stay), ``cann_macros.h`` is force-included, the C
preprocessor expands the rest, and tree-sitter-cpp parses the result. Its line
markers map every ERROR or MISSING node back to a line of the original file.
JSON, Python (and golden.py's ``__golden__`` table), TTK CSV and CMake have their
own checks. Nothing is written into the checked tree.
"""

from __future__ import annotations

import ast
import csv
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import tree_sitter_cmake
import tree_sitter_cpp
from tree_sitter import Language, Node, Parser

CANN_MACROS = Path(__file__).with_name("cann_macros.h")

_INCLUDE = re.compile(r"^\s*#\s*(?:include|include_next|import)\b\s*[<\"]?([^>\"\s]*)")
_MARKER = re.compile(r'^#\s+(\d+)\s+"((?:[^"\\]|\\.)*)"')
_CPP_DIAG = re.compile(r"^<stdin>:(\d+):(?:\d+:)?\s*(?:fatal )?error:\s*(.*)$")
_STDIN = "<stdin>"
# An include that changes what a CANN macro means: the real headers redefine them.
_INCLUDE_FLAGS = {"op_api_ut.h": "OPGEN_WITH_OP_API_UT"}
_SNIPPET = 40


@dataclass(frozen=True)
class SyntaxFinding:
    """One syntax problem at a line (1-based) of a file."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class PreprocessorMissing(RuntimeError):
    """No C preprocessor (gcc, cc, clang, cpp) is on PATH."""


# ---------------------------------------------------------------- C++


@cache
def _parser(kind: str) -> Parser:
    grammar = tree_sitter_cpp.language() if kind == "cpp" else tree_sitter_cmake.language()
    return Parser(Language(grammar))


def _preprocessor() -> list[str]:
    for name in ("gcc", "cc", "clang"):
        exe = shutil.which(name)
        if exe:
            return [exe, "-E", "-x", "c++"]
    exe = shutil.which("cpp")
    if exe:
        return [exe, "-x", "c++"]
    raise PreprocessorMissing("the C++ syntax check needs gcc, cc, clang or cpp on PATH")


def _strip_includes(text: str) -> tuple[str, list[str]]:
    """Blank every #include line (and its continuations); return the text and the flags it implies."""
    lines = text.split("\n")
    flags: list[str] = []
    index = 0
    while index < len(lines):
        match = _INCLUDE.match(lines[index])
        if match:
            flag = _INCLUDE_FLAGS.get(match.group(1).rsplit("/", 1)[-1])
            if flag and flag not in flags:
                flags.append(flag)
            while lines[index].endswith("\\") and index + 1 < len(lines):
                lines[index] = ""
                index += 1
            lines[index] = ""
        index += 1
    return "\n".join(lines), flags


def _expand(text: str, flags: Iterable[str], defines: Iterable[str]) -> tuple[str, str]:
    """Run the preprocessor on `text`; return (stdout, stderr)."""
    command = [*_preprocessor(), "-std=c++17", "-undef", "-nostdinc", "-w"]
    command += ["-include", str(CANN_MACROS)]
    command += [f"-D{name}" for name in (*flags, *defines)]
    command.append("-")
    done = subprocess.run(command, input=text, capture_output=True, text=True, errors="replace", check=False)
    return done.stdout, done.stderr


def _line_map(expanded: str) -> tuple[bytes, list[int]]:
    """Drop line markers; return the code tree-sitter parses and, per line, the original line (0: not ours)."""
    code: list[str] = []
    origin: list[int] = []
    current, line = "", 0
    for text in expanded.split("\n"):
        marker = _MARKER.match(text)
        if marker:
            line, current = int(marker.group(1)), marker.group(2)
            code.append("")
            origin.append(0)
            continue
        code.append(text)
        origin.append(line if current == _STDIN else 0)
        line += 1
    return "\n".join(code).encode("utf-8"), origin


def _problem_nodes(root: Node) -> Iterator[Node]:
    """ERROR and MISSING nodes, outermost first; nothing below an ERROR."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            yield node
            if node.is_error:
                continue
        if node.has_error:
            stack.extend(reversed(node.children))


def _snippet(code: bytes, node: Node) -> str:
    text = code[node.start_byte : node.end_byte].decode("utf-8", "replace")
    text = " ".join(text.split())
    return text if len(text) <= _SNIPPET else text[: _SNIPPET - 3] + "..."


def _describe(code: bytes, node: Node, source_line: str) -> str:
    if node.is_missing:
        return f"missing `{node.type}`"
    first = node
    while first.children:
        first = first.children[0]
    token = _snippet(code, first) or _snippet(code, node)
    message = f"syntax error near `{_snippet(code, node) or token}`"
    if token and token not in source_line:
        message += " (inside a macro expansion on this line)"
    return message


def cpp_syntax_errors(path: Path, *, defines: Iterable[str] = ()) -> list[SyntaxFinding]:
    """ERROR/MISSING nodes of tree-sitter-cpp on `path` once its CANN macros are expanded.

    `defines` are extra ``NAME`` or ``NAME=VALUE`` macros (e.g. to take the
    ``ASCENDC_CPU_DEBUG`` branch of an ``#ifdef``).
    """
    source = path.read_text(encoding="utf-8", errors="replace")
    stripped, flags = _strip_includes(source)
    expanded, stderr = _expand(stripped, flags, defines)
    source_lines = source.split("\n")
    findings: dict[tuple[int, str], None] = {}
    for diag in stderr.splitlines():
        match = _CPP_DIAG.match(diag)
        if match:
            findings[(int(match.group(1)), f"preprocessor: {match.group(2)}")] = None
    code, origin = _line_map(expanded)
    tree = _parser("cpp").parse(code)
    for node in _problem_nodes(tree.root_node):
        row = node.start_point.row
        line = origin[row] if row < len(origin) else 0
        if line == 0:  # text from cann_macros.h itself, or past the end
            line = max((n for n in origin[:row] if n), default=1)
        source_line = source_lines[line - 1] if 0 < line <= len(source_lines) else ""
        findings[(line, _describe(code, node, source_line))] = None
    return [SyntaxFinding(path, line, message) for line, message in sorted(findings)]


# ---------------------------------------------------------------- CMake


def cmake_errors(path: Path) -> list[SyntaxFinding]:
    """ERROR/MISSING nodes of tree-sitter-cmake on `path`."""
    code = path.read_bytes()
    tree = _parser("cmake").parse(code)
    found: dict[tuple[int, str], None] = {}
    for node in _problem_nodes(tree.root_node):
        message = f"missing `{node.type}`" if node.is_missing else f"syntax error near `{_snippet(code, node)}`"
        found[(node.start_point.row + 1, message)] = None
    return [SyntaxFinding(path, line, message) for line, message in sorted(found)]


# ---------------------------------------------------------------- JSON


def json_errors(path: Path) -> list[SyntaxFinding]:
    """The first JSON syntax error of `path`, if any."""
    try:
        json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        return [SyntaxFinding(path, error.lineno, f"invalid JSON: {error.msg}")]
    except UnicodeDecodeError as error:
        return [SyntaxFinding(path, 1, f"not UTF-8: {error.reason}")]
    return []


# ---------------------------------------------------------------- Python

# Run in a child interpreter (-I -B: isolated, writes no __pycache__ into the tree).
_GOLDEN_PROBE = """
import importlib.util, json, sys
sys.dont_write_bytecode = True
spec = importlib.util.spec_from_file_location("opgen_golden_probe", sys.argv[1])
module = importlib.util.module_from_spec(spec)
problems = []
try:
    spec.loader.exec_module(module)
except BaseException as error:
    problems.append("import failed: %s: %s" % (type(error).__name__, error))
else:
    table = getattr(module, "__golden__", None)
    if not isinstance(table, dict) or not table:
        problems.append("no non-empty dict `__golden__`")
    else:
        for kind, entries in table.items():
            if not isinstance(entries, dict):
                problems.append("__golden__[%r] is not a dict" % (kind,))
                continue
            for name, function in entries.items():
                if not callable(getattr(module, str(function), None)):
                    problems.append("__golden__[%r][%r] names %r, which is not a function of the module"
                                    % (kind, name, function))
print(json.dumps(problems))
"""


def python_errors(path: Path, *, golden: bool | None = None, timeout: float = 120.0) -> list[SyntaxFinding]:
    """`path` compiles; a golden.py (or `golden=True`) also imports and has a valid ``__golden__``."""
    source = path.read_bytes()
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as error:
        return [SyntaxFinding(path, error.lineno or 1, f"invalid Python: {error.msg}")]
    if not (golden if golden is not None else path.name == "golden.py"):
        return []
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-B", "-c", _GOLDEN_PROBE, str(path.resolve())],
            capture_output=True, text=True, timeout=timeout, check=False, cwd=path.resolve().parent.anchor,
        )
    except subprocess.TimeoutExpired:
        return [SyntaxFinding(path, 1, f"importing took more than {timeout:.0f}s")]
    try:
        problems = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return [SyntaxFinding(path, 1, f"import probe failed: {tail[0]}")]
    return [SyntaxFinding(path, _golden_line(source), str(problem)) for problem in problems]


def _golden_line(source: bytes) -> int:
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__golden__" for t in targets):
                return node.lineno
    return 1


# ---------------------------------------------------------------- CSV

_FLOAT_NAMES = frozenset({"nan", "inf", "NaN", "Inf", "infinity", "Infinity"})
_BARE_WORD = re.compile(r"^[A-Za-z_][\w.\-]*$")


def _is_literal(node: ast.AST) -> bool:
    """Python literal syntax, also allowing the float names nan and inf (as in TTK CSVs)."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Name):
        return node.id in _FLOAT_NAMES
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        return _is_literal(node.operand)
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return all(_is_literal(item) for item in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and _is_literal(k) for k in node.keys) and all(map(_is_literal, node.values))
    return False


def _cell_ok(value: str) -> bool:
    text = value.strip()
    if not text or _BARE_WORD.match(text):  # empty, or a bare word (a name, a dtype, a format)
        return True
    try:
        return _is_literal(ast.parse(text, mode="eval").body)
    except SyntaxError:
        return False


def csv_errors(path: Path, required_columns: Iterable[str] = ()) -> list[SyntaxFinding]:
    """Header has `required_columns`; every row has one cell per column; each cell is a literal.

    A cell is fine when empty, a bare word, or Python literal syntax (``nan``/``inf`` allowed).
    """
    findings: list[SyntaxFinding] = []
    with path.open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            return [SyntaxFinding(path, 1, "empty CSV: no header")]
        missing = [column for column in required_columns if column not in header]
        if missing:
            findings.append(SyntaxFinding(path, 1, "missing column(s): " + ", ".join(missing)))
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(header):
                findings.append(SyntaxFinding(path, line, f"{len(row)} cells, header has {len(header)}"))
            for column, cell in zip(header, row, strict=False):
                if not _cell_ok(cell):
                    findings.append(SyntaxFinding(path, line, f"column {column}: not a literal: {cell!r}"))
    return findings
