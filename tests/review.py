"""Reading a generated tree's UT sources the way an ops-nn reviewer does (used by test_review.py).

- `framework_index`: which helper (free function, class, macro) each header of ops-nn's UT framework
  (tests/ut/common, tests/ut/op_kernel, op_api_ut_common, the op_api stub) declares, and what each header
  includes: derived from the sources, committed as `ut_framework_index.json` for runs without them.
- `undeclared_calls`: calls of framework helpers whose header the UT file does not include (directly or
  through framework headers it includes).
- `self_comparisons`: assertions whose two sides are the same text once each variable the test body
  initialized is replaced by its initializer: a value compared with itself, or with the value the test
  itself wrote into the output.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

INDEX_FILE = Path(__file__).with_name("ut_framework_index.json")
# (folder under ops-nn, the prefix includes spell before a header's path relative to the folder)
FRAMEWORK_DIRS = (("tests/ut/common", ""), ("tests/ut/op_kernel", ""),
                  ("tests/ut/op_api/op_api_ut_common/inc", ""), ("tests/ut/op_api/stub", ""))
KEYWORDS = frozenset((
    "if", "for", "while", "switch", "return", "sizeof", "decltype", "static_cast", "reinterpret_cast",
    "const_cast", "dynamic_cast", "alignof", "new", "delete", "catch", "throw", "operator", "defined",
    "template", "typename", "using", "namespace", "class", "struct", "enum", "union", "explicit", "public",
    "private", "protected",
))
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')
_RAW_STRING = re.compile(r'R"([^(\s]*)\(.*?\)\1"', re.S)
_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^">]+)[">]', re.M)
_DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)
_CLASS = re.compile(r"\b(?:class|struct)\s+(?:\w+\s+)?(\w+)\s*(?:final\s*)?(?::[^;{]*)?\{")
_FUNCTION = re.compile(r"(?:[\w>*&]\s+|[*&>]\s*)(?:\w+::)*(\w+)\s*\((?:[^;{}()]|\{\}|\([^()]*\))*\)\s*"
                       r"(?:const\s*)?(?:noexcept\s*)?[;{]")
_CALL = re.compile(r"(?<![\w.>:])((?:\w+::)*)(\w+)\s*\(")
_NAMESPACE = re.compile(r"\bnamespace\s+(\w+)\s*\{")
_ASSERT = re.compile(r"\b(?:EXPECT|ASSERT)_(?:EQ|NE|FLOAT_EQ|DOUBLE_EQ|STREQ|LE|GE)\s*\(")
_TEST = re.compile(r"\bTEST(?:_F|_P)?\s*\(")


def strip(code: str) -> str:
    """Comments and string literals blanked (newlines kept), so scans see code and line numbers hold."""
    def blank(m: re.Match[str]) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))

    code = _RAW_STRING.sub(blank, _COMMENT.sub(blank, code))
    return _STRING.sub(lambda m: '""' + " " * (len(m.group(0)) - 2), code)


def namespace_level(code: str) -> str:
    """The code outside every brace block but namespaces' (class and function bodies blanked)."""
    out: list[str] = []
    stack: list[bool] = []  # True: a namespace block
    for m in re.finditer(r"\{|\}|[^{}]+", code):
        token = m.group(0)
        if token == "{":
            opens_namespace = re.search(r"\bnamespace\s*\w*\s*$", out[-1] if out else "") is not None
            stack.append(opens_namespace and all(stack))
            out.append("{")
        elif token == "}":
            if stack:
                stack.pop()
            out.append("}")
        else:
            out.append(token if all(stack) else re.sub(r"[^\n]", " ", token))
    return "".join(out)


def declared_names(code: str) -> set[str]:
    code = strip(code)
    names = set(_DEFINE.findall(code)) | set(_CLASS.findall(code))
    names |= set(_FUNCTION.findall(namespace_level(code)))
    return names - KEYWORDS


def framework_index(ops_nn: Path) -> dict[str, dict[str, list[str]]]:
    """{"declares": {header: [names]}, "includes": {header: [included headers]}, "namespaces": {"": [...]}},
    headers as UTs include them."""
    declares: dict[str, list[str]] = {}
    includes: dict[str, list[str]] = {}
    namespaces: set[str] = set()
    for folder, prefix in FRAMEWORK_DIRS:
        base = ops_nn / folder
        for path in sorted(base.rglob("*.h")):
            key = prefix + path.relative_to(base).as_posix()
            code = path.read_text(encoding="utf-8", errors="replace")
            declares[key] = sorted(declared_names(code))
            includes[key] = sorted(set(_INCLUDE.findall(strip_comments(code))))
            namespaces |= set(_NAMESPACE.findall(strip(code)))
    return {"declares": declares, "includes": includes, "namespaces": {"": sorted(namespaces)}}


def strip_comments(code: str) -> str:
    return _COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), code)


def load_index() -> dict[str, dict[str, list[str]]]:
    return json.loads(INDEX_FILE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Finding:
    rel: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.rel}:{self.line}: {self.message}"


def _resolve(include: str, index: dict[str, dict[str, list[str]]]) -> str | None:
    """The framework header an include names (by its path, or by its file name for common/ includes)."""
    headers = index["declares"]
    if include in headers:
        return include
    tail = include.rsplit("/", 1)[-1]
    return tail if tail in headers else None


def included_framework_headers(code: str, index: dict[str, dict[str, list[str]]]) -> set[str]:
    seen: set[str] = set()
    todo = [h for h in (_resolve(i, index) for i in _INCLUDE.findall(strip_comments(code))) if h]
    while todo:
        header = todo.pop()
        if header in seen:
            continue
        seen.add(header)
        todo += [h for h in (_resolve(i, index) for i in index["includes"].get(header, ())) if h]
    return seen


def undeclared_calls(rel: str, code: str, index: dict[str, dict[str, list[str]]]) -> list[Finding]:
    owners: dict[str, set[str]] = {}
    for header, names in index["declares"].items():
        for name in names:
            owners.setdefault(name, set()).add(header)
    visible = included_framework_headers(code, index)
    own = declared_names(code)
    stripped = strip(code)
    findings, reported = [], set()
    framework_namespaces = set(index["namespaces"][""])
    for m in _CALL.finditer(stripped):
        qualifier, name = m.group(1).rstrip(":").rsplit("::", 1)[-1], m.group(2)
        if qualifier and qualifier not in framework_namespaces:
            continue  # another library's helper of the same name (Ops::Base::ToString)
        if name in own or name in KEYWORDS or name not in owners or owners[name] & visible or name in reported:
            continue
        reported.add(name)
        line = stripped.count("\n", 0, m.start()) + 1
        findings.append(Finding(rel, line, f"calls {name}, declared in {', '.join(sorted(owners[name]))}, "
                                "which the file does not include"))
    return findings


def _args(code: str, start: int) -> tuple[list[str], int]:
    """The top-level comma-separated arguments of the call whose '(' is at `start`, and the end offset."""
    depth, args, current = 0, [], []
    for i in range(start, len(code)):
        c = code[i]
        if c in "([{":
            depth += 1
            if depth == 1:
                continue
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(current))
                return [a.strip() for a in args], i
        elif c == "," and depth == 1:
            args.append("".join(current))
            current = []
            continue
        current.append(c)
    return [a.strip() for a in args], len(code)


def _bodies(code: str) -> list[tuple[int, str]]:
    """(offset, text) of each TEST body."""
    bodies = []
    for m in _TEST.finditer(code):
        _, end = _args(code, m.end() - 1)
        open_brace = code.find("{", end)
        depth = 0
        for i in range(open_brace, len(code)):
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            if depth == 0:
                bodies.append((open_brace, code[open_brace:i + 1]))
                break
    return bodies


_INIT = re.compile(r"(?:^|[;{}])\s*(?:const\s+)?[\w:<>]+[\s*&]+(\w+)\s*(?:=\s*([^;]+)|(\{[^;]*\}))\s*;", re.M)


def _normal(text: str) -> str:
    return re.sub(r"\s+", "", text)


def self_comparisons(rel: str, code: str) -> list[Finding]:
    stripped = strip(code)
    findings = []
    for offset, body in _bodies(stripped):
        inits = {m.group(1): _normal(m.group(2) or m.group(3)) for m in _INIT.finditer(body)}
        # a variable assigned again (or changed through ++/+=...) holds what the code under test made
        inits = {name: init for name, init in inits.items()
                 if len(re.findall(rf"(?<![\w.>])\b{name}\s*(?:[-+*/|&]?=(?!=)|\+\+|--)", body)) <= 1}
        for m in _ASSERT.finditer(body):
            args, _ = _args(body, m.end() - 1)
            if len(args) < 2:
                continue
            sides = [_normal(a) for a in args[:2]]
            resolved = [inits.get(s, s) for s in sides]
            if sides[0] == sides[1] or resolved[0] == resolved[1]:
                line = stripped.count("\n", 0, offset + m.start()) + 1
                what = "itself" if sides[0] == sides[1] else f"the value the test set it to ({resolved[0]})"
                findings.append(Finding(rel, line, f"{args[0]} is compared with {what}"))
    return findings


def expected_statuses(code: str) -> set[str]:
    """The aclnnStatus values the UT's cases expect (EXPECT_EQ(aclRet, CODE))."""
    return set(re.findall(r"\b(?:EXPECT|ASSERT)_EQ\s*\(\s*aclRet\s*,\s*(\w+)\s*\)", strip(code)))
