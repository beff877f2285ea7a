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
import os
import re
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import tree_sitter_cmake
import tree_sitter_cpp
from tree_sitter import Language, Node, Parser

from .bounded import BoundedRun, c_compiler, compile_memory, compile_timeout, run_bounded
from .cpp_includes import leaves_tree, probe_findings, strip_includes
from .readers import golden_assignment
from .trust import Trust, run_tree_code

NO_EXEC = Trust()
CANN_MACROS = Path(__file__).with_name("cann_macros.h")

_MARKER = re.compile(r'^#\s+(\d+)\s+"((?:[^"\\]|\\.)*)"')
_CPP_DIAG = re.compile(r"^(.*?):(?:(\d+):(?:\d+:)?)?\s*(fatal error|error|note):\s*(.*)$")
_UNTERMINATED = re.compile(r'unterminated argument list invoking macro "(\w+)"')
_POISONED = re.compile(r'poisoned "__has_include')
_STDIN = "<stdin>"
_OWN_FILES = frozenset({_STDIN, "<built-in>", "<command-line>", str(CANN_MACROS)})
_LINE_ENDS = (b";", b"{", b"}", b":", b",")
# A file whose #if lines test these is also checked as the CPU-debug build and as the
# device (arch35, Ascend950) build, so code in those branches is parsed too.
_TARGET_GUARD = re.compile(
    r"^\s*#\s*(?:if|ifdef|ifndef|elif)\b.*\b(?:__CCE_AICORE__|__NPU_ARCH__|__DAV_\w+|ASCENDC_CPU_DEBUG|__CCE_KT_TEST__)",
    re.MULTILINE,
)
TARGET_CONFIGS: tuple[tuple[str, ...], ...] = (
    ("ASCENDC_CPU_DEBUG", "__CCE_KT_TEST__"),
    ("__CCE_AICORE__=310", "__NPU_ARCH__=3510", "__DAV_C310__"),
)
# Code compilers accept but tree-sitter-cpp 0.23 cannot parse, rewritten to the same
# grammatical shape: `p->*m` to `p.*m` (both pm-expressions), `x.template f(` to
# `x.f(`, and the AscendC launch `k<<<a, b>>>(x)` to the call `k(a, b)(x)`.
_GRAMMAR_GAPS = (
    (re.compile(r"(?<!operator)(?<!operator )->\*"), ".*"),
    (re.compile(r"(\.|->)(\s*)template\s+(\w+)(?=\s*\()"), r"\1\2\3"),
    (re.compile(r"<<<(.*?)>>>(?=\s*\()"), r"(\1)"),
)


@dataclass(frozen=True)
class SyntaxFinding:
    """One syntax problem at a line (1-based) of a file."""

    path: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


class PreprocessorMissing(RuntimeError):
    """No C preprocessor (gcc, cc, clang) is on PATH."""


# ---------------------------------------------------------------- C++


@cache
def _parser(kind: str) -> Parser:
    grammar = tree_sitter_cpp.language() if kind == "cpp" else tree_sitter_cmake.language()
    return Parser(Language(grammar))


def _preprocessor() -> str:
    if exe := c_compiler():
        return exe
    raise PreprocessorMissing("the C++ syntax check needs gcc, cc or clang on PATH")


def _expand(text: str, defines: Iterable[str]) -> BoundedRun:
    """Run the preprocessor on `text`, bounded, in an empty dir (nothing relative to the cwd resolves)."""
    command = [_preprocessor(), "-E", "-x", "c++", "-std=c++17", "-undef", "-nostdinc", "-w"]
    command += ["-include", str(CANN_MACROS), *(f"-D{name}" for name in defines), "-"]
    env = {"PATH": os.environ.get("PATH", ""), "LC_ALL": "C"}
    with tempfile.TemporaryDirectory(prefix="opgen-cpp-") as empty:
        return run_bounded(command, timeout=compile_timeout(), memory=compile_memory(), input=text, cwd=empty,
                           env=env)


def _foreign_file(expanded: str) -> tuple[int, str] | None:
    """(line, file) of the first file the preprocessor read that is neither the source nor cann_macros.h: an
    include the stripping missed. Its text must not reach the report."""
    line = 0
    for text in expanded.split("\n"):
        if marker := _MARKER.match(text):
            name = marker.group(2)
            if name == _STDIN:
                line = int(marker.group(1))
                continue
            if name not in _OWN_FILES:
                return max(line - 1, 1), name
            continue
        line += 1
    return None


def _diagnostics(stderr: str) -> Iterator[tuple[int, str]]:
    """(line, message) of each preprocessor error; one raised inside cann_macros.h goes to the
    line of the source whose macro call led there; one without a place gets line 0."""
    pending: str | None = None
    for text in stderr.splitlines():
        if not (match := _CPP_DIAG.match(text)):
            continue
        where, line, kind, message = match.groups()
        here = int(line) if where == _STDIN and line else None
        if kind == "note":
            if pending is not None and here is not None:
                yield here, pending
                pending = None
            continue
        if pending is not None:
            yield 0, pending
        pending = message if here is None else None
        if here is not None:
            yield here, message
    if pending is not None:
        yield 0, pending


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
        for pattern, replacement in _GRAMMAR_GAPS:
            text = pattern.sub(replacement, text)
        code.append(text)
        origin.append(line if current == _STDIN else 0)
        line += 1
    return "\n".join(code).encode("utf-8"), origin


def _place(message: str, line: int, source: str) -> int:
    """The line to report a preprocessor error at: an unterminated macro call at the first
    call of that macro whose parentheses never close (the preprocessor names the end of the
    file), an unplaced error at the last line."""
    end = source.count("\n") + 1
    unterminated = _UNTERMINATED.search(message)
    for call in re.finditer(rf"\b{unterminated.group(1)}\s*\(", source) if unterminated else ():
        depth = 0
        for char in source[call.end() - 1 :]:
            depth += {"(": 1, ")": -1}.get(char, 0)
            if depth == 0:
                break
        else:
            return source.count("\n", 0, call.start()) + 1
    return line if 0 < line <= end else end


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


def _locate(code: bytes, node: Node, cpp: bool) -> tuple[int, str, str]:
    """0-based row, message and offending text of a problem node. A MISSING token belongs
    after the token before it; in C++, an ERROR that opens a line right after a line ending
    in anything but `;`, `{`, `}`, `:` or `,` belongs to that unfinished line."""
    before: Node | None = node
    while before is not None and before.prev_sibling is None:
        before = before.parent
    before = before.prev_sibling if before is not None else None
    while before is not None and before.children:
        before = before.children[-1]
    if node.is_missing:
        return (before or node).end_point.row, f"missing `{node.type}`", ""
    text = " ".join(code[node.start_byte : node.end_byte].decode("utf-8", "replace").split())
    last = code[before.start_byte : before.end_byte] if before is not None else b";"
    if cpp and before is not None and before.end_point.row < node.start_point.row and last not in _LINE_ENDS:
        word = text.split(" ")[0]
        return before.end_point.row, f"unfinished line: unexpected `{word}` after it (missing `;`?)", ""
    return node.start_point.row, f"syntax error near `{text if len(text) <= 40 else text[:37] + '...'}`", text


def cpp_syntax_errors(path: Path, *, defines: Iterable[str] = (), root: Path | None = None) -> list[SyntaxFinding]:
    """ERROR/MISSING nodes of tree-sitter-cpp on `path` once its CANN macros are expanded.

    The host build is always checked; a file with ``#if`` tests on the AscendC target
    macros is also checked with each of `TARGET_CONFIGS`. `defines` (``NAME`` or
    ``NAME=VALUE``) are added to every pass. An include of an absolute path, or one that leaves `root` (the
    tree), is refused before anything runs.
    """
    source = path.read_text(encoding="utf-8", errors="replace")
    stripped, flags, includes = strip_includes(source)
    if leaving := [i for i in includes if leaves_tree(i, path, root)]:
        return [SyntaxFinding(path, i.line, f"#include {i.target!r} leaves the tree (an absolute path or a `..` "
                              "out of it): refused") for i in leaving]
    if probes := probe_findings(source, path, root, includes=False):
        return [SyntaxFinding(path, line, message) for line, message in probes]
    source_lines, extra = source.split("\n"), tuple(defines)
    configs = [(), *TARGET_CONFIGS] if _TARGET_GUARD.search(source) else [()]
    findings: dict[tuple[int, str], None] = {}
    for config in configs:
        run = _expand(stripped, (*flags, *config, *extra))
        if run.failure is not None:
            return [SyntaxFinding(path, 1, f"the preprocessor {run.failure}")]
        if (foreign := _foreign_file(run.stdout)) is not None:
            return [SyntaxFinding(path, foreign[0], f"an #include reaches {foreign[1]}, outside the tree: refused "
                                  "(nothing of it is read into the report)")]
        expanded, stderr = run.stdout, run.stderr
        cut = len(source_lines) + 1  # a macro call left open swallows the rest of the file
        diagnostics = list(_diagnostics(stderr))
        if probed := [line for line, message in diagnostics if _POISONED.search(message)]:
            # this finding alone: what else the preprocessor said may depend on what the probe found
            return [SyntaxFinding(path, _place("", probed[0], source), "__has_include reached through a macro "
                                  "(## or an alias) probes paths outside the tree: refused")]
        for line, message in diagnostics:
            line = _place(message, line, source)
            cut = min(cut, line) if _UNTERMINATED.search(message) else cut
            findings[(line, f"preprocessor: {message}")] = None
        if run.returncode != 0 and not diagnostics:
            findings[(1, f"the preprocessor failed (exit {run.returncode}) without saying why")] = None
        code, origin = _line_map(expanded)
        for node in _problem_nodes(_parser("cpp").parse(code).root_node):
            row, message, text = _locate(code, node, cpp=True)
            # text from cann_macros.h itself (or past the end) goes to the last line before it
            line = next((n for n in reversed(origin[: row + 1]) if n), 1)
            if next((n for n in reversed(origin[: node.end_point.row + 1]) if n), 1) >= cut:
                continue
            if text and text.split(" ")[0] not in (source_lines[line - 1] if line <= len(source_lines) else ""):
                message += " (inside a macro expansion on this line)"
            findings[(line, message)] = None
    return [SyntaxFinding(path, line, message) for line, message in sorted(findings)]


# ---------------------------------------------------------------- CMake


def cmake_errors(path: Path) -> list[SyntaxFinding]:
    """ERROR/MISSING nodes of tree-sitter-cmake on `path`."""
    code = path.read_bytes()
    tree = _parser("cmake").parse(code)
    found: dict[tuple[int, str], None] = {}
    for node in _problem_nodes(tree.root_node):
        row, message, _ = _locate(code, node, cpp=False)
        found[(row + 1, message)] = None
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

# Tree code: runs only with --allow-exec, in a child interpreter (-I -B: isolated, no __pycache__ left in the
# tree) whose cwd is a scratch dir.
_GOLDEN_PROBE = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("opgen_golden_probe", sys.argv[1])
module, problems = importlib.util.module_from_spec(spec), []
try:
    spec.loader.exec_module(module)
except BaseException as error:
    problems.append(f"import failed: {type(error).__name__}: {error}")
table = getattr(module, "__golden__", None) if not problems else {}
if not problems and (not isinstance(table, dict) or not table):
    problems.append("no non-empty dict `__golden__`")
for kind, entries in (table or {}).items():
    for name, function in (entries.items() if isinstance(entries, dict) else [(None, None)]):
        if name is None:
            problems.append(f"__golden__[{kind!r}] is not a dict")
        elif not callable(getattr(module, str(function), None)):
            problems.append(f"__golden__[{kind!r}][{name!r}] names {function!r}, not a function of the module")
print(json.dumps(problems))
"""


def python_errors(path: Path, *, golden: bool | None = None, timeout: float = 120.0,
                  trust: Trust = NO_EXEC) -> list[SyntaxFinding]:
    """`path` compiles; a golden.py (or `golden=True`) also has a valid ``__golden__``: read from its source by
    default, and with --allow-exec also imported (tree code) in a child with a scratch cwd."""
    source = path.read_bytes()
    try:
        compile(source, str(path), "exec", dont_inherit=True)
    except SyntaxError as error:
        return [SyntaxFinding(path, error.lineno or 1, f"invalid Python: {error.msg}")]
    if not (golden if golden is not None else path.name == "golden.py"):
        return []
    static = [SyntaxFinding(path, line, problem) for line, problem in golden_table_problems(source)]
    if static or not trust.allow_exec:
        return static
    run = run_tree_code([sys.executable, "-I", "-B", "-c", _GOLDEN_PROBE, str(path.resolve())], timeout=timeout)
    if run.failure is not None:  # a cut output's last line is no answer
        return [SyntaxFinding(path, 1, f"importing it {run.failure}")]
    try:
        problems = json.loads(run.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        tail = run.stderr.strip().splitlines()[-1:] or ["no output"]
        return [SyntaxFinding(path, 1, f"import probe failed: {tail[0]}")]
    return [SyntaxFinding(path, _golden_line(source), str(problem)) for problem in problems]


def golden_table_problems(source: bytes) -> list[tuple[int, str]]:
    """(line, problem) of golden.py's ``__golden__`` read without running it: a dict literal of dict literals
    whose values name functions defined at the module's top level."""
    tree = ast.parse(source)
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    found = golden_assignment(tree)
    line = found[1] if found else 1
    table = found[0] if found else None
    if not isinstance(table, ast.Dict) or not table.keys:
        return [(line, "no non-empty dict literal `__golden__`")]
    problems = []
    for key, entries in zip(table.keys, table.values, strict=True):
        kind = key.value if isinstance(key, ast.Constant) else "?"
        if not isinstance(entries, ast.Dict):
            problems.append((line, f"__golden__[{kind!r}] is not a dict literal"))
            continue
        for name, function in zip(entries.keys, entries.values, strict=True):
            target = function.value if isinstance(function, ast.Constant) else None
            if not isinstance(target, str) or target not in functions:
                label = name.value if isinstance(name, ast.Constant) else "?"
                problems.append((line, f"__golden__[{kind!r}][{label!r}] names {target!r}, "
                                       "not a function defined at the module's top level"))
    return problems


def _golden_line(source: bytes) -> int:
    found = golden_assignment(ast.parse(source))
    return found[1] if found else 1


# ---------------------------------------------------------------- CSV

_FLOAT_NAMES = frozenset({"nan", "inf", "NaN", "Inf", "infinity", "Infinity"})
_STRUCTURED = re.compile(r"^(?:[(\[{'\"]|[-+.\deE]+$)")  # a bracket or quote first, or number characters only
_LITERAL_NODES = (ast.Expression, ast.Constant, ast.Tuple, ast.List, ast.Set, ast.Dict, ast.Load)


def _cell_ok(value: str) -> bool:
    """A cell that opens with a bracket or a quote, or is all number characters, must be Python
    literal syntax, where the float names nan and inf may stand (as TTK CSVs write them);
    anything else is a word or free text (op_name, remark, ...)."""
    text = value.strip()
    if not _STRUCTURED.match(text):
        return True
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        return False
    return all(
        isinstance(node, _LITERAL_NODES)
        or (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd))
        or isinstance(node, ast.USub | ast.UAdd)
        or (isinstance(node, ast.Name) and node.id in _FLOAT_NAMES)
        for node in ast.walk(tree)
    )


def csv_errors(path: Path, required_columns: Iterable[str] = ()) -> list[SyntaxFinding]:
    """Header has `required_columns`; every row has one cell per column; structured cells
    (brackets, quotes, numbers) are Python literals (``nan``/``inf`` allowed)."""
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
