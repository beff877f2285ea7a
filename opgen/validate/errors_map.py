"""Find the first real error in a build log and point it at the generated op's own file and line.

build.sh prefixes each stdout line with `[YYYY-mm-dd HH:MM:SS] ` (its last line, 1919) and colours its
own `[ERROR]` lines; both are stripped before matching. Compiler, CMake and gtest errors win over
build.sh's summary lines, which only repeat that something failed. Before any of that, build.sh sources
install_deps.sh, which lists the tools it found missing (` - dos2unix` under `Missing dependencies:`) and
ends with "re-run this script": the missing tools are the error, not that last line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

_STAMP = re.compile(r"^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\] ")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# gcc/clang/bisheng: `file:line:col: error: msg` (also `fatal error:`)
_COMPILER = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+):(?:(?P<col>\d+):)?\s*(?:fatal )?error:\s*(?P<msg>.*)$")
_CMAKE = re.compile(r"^CMake Error(?: at (?P<file>.+?):(?P<line>\d+)(?: \([^)]*\))?)?:\s*(?P<msg>.*)$")
_GTEST_AT = re.compile(r"^(?P<file>[^\s:][^:]*):(?P<line>\d+): Failure$")
_GTEST_FAILED = re.compile(r"^\[  FAILED  \] (?P<msg>\S.*)$")
_LINKER = re.compile(r"^(?P<msg>.*(?:undefined reference to|multiple definition of) .*)$")
_BUILD_SH = re.compile(r"^(?:\[ERROR\]|ERROR:)\s*(?P<msg>.*)$")
_PRIMARY = (_COMPILER, _CMAKE, _GTEST_AT, _GTEST_FAILED, _LINKER)
_MISSING_TOOLS = "Missing dependencies:"
_MISSING_TOOL = re.compile(r"^- (?P<tool>\S+)(?: \(required: >= (?P<version>[^)]+)\))?$")


@dataclass(frozen=True)
class FirstError:
    log_line: int  # 1-based line in the log file
    text: str  # the log line, cleaned
    message: str
    file: str | None  # as the log names it
    line: int | None
    column: int | None
    op_file: Path | None  # the same file in OP_DIR when the error is inside the placed copy


def clean(line: str) -> str:
    return _ANSI.sub("", _STAMP.sub("", line.rstrip("\n")))


def first_error(lines: Sequence[str], first_line_no: int, mapper: PathMapper) -> FirstError | None:
    """The first compiler/CMake/gtest error, else build.sh's first `[ERROR]`, else the last line."""
    cleaned = [clean(ln) for ln in lines]
    missing = _missing_tools(cleaned, first_line_no)
    if missing is not None:
        return missing
    for patterns in (_PRIMARY, (_BUILD_SH,)):
        for i, text in enumerate(cleaned):
            for pattern in patterns:
                match = pattern.match(text.strip())
                if match:
                    return _make(match, text.strip(), first_line_no + i, cleaned[i + 1 :], mapper)
    tail = [(i, t.strip()) for i, t in enumerate(cleaned) if t.strip()]
    if not tail:
        return None
    i, text = tail[-1]
    return FirstError(first_line_no + i, text, text, None, None, None, None)


def _missing_tools(cleaned: list[str], first_line_no: int) -> FirstError | None:
    """install_deps.sh's list of tools build.sh needs and did not find, as one error naming each tool."""
    start = next((i for i, text in enumerate(cleaned) if text.strip() == _MISSING_TOOLS), None)
    if start is None:
        return None
    tools = []
    for text in cleaned[start + 1 :]:
        match = _MISSING_TOOL.match(text.strip())
        if not match:
            break
        version = match["version"]
        tools.append(f"{match['tool']} (>= {version})" if version else match["tool"])
    named = ", ".join(tools) or "see the log"
    message = f"build.sh needs tools this machine lacks: {named}; install them (e.g. apt-get install) and run again"
    return FirstError(first_line_no + start, cleaned[start].strip(), message, None, None, None, None)


def _make(match: re.Match[str], text: str, log_line: int, after: list[str], mapper: PathMapper) -> FirstError:
    groups = match.groupdict()
    message = (groups.get("msg") or "").strip()
    if not message:  # CMake and gtest put the message on the following indented lines
        message = next((t.strip() for t in after if t.strip()), "")
    file = groups.get("file")
    line = int(groups["line"]) if groups.get("line") else None
    column = int(groups["col"]) if groups.get("col") else None
    return FirstError(log_line, text, message, file, line, column, mapper.to_op(file) if file else None)


@dataclass(frozen=True)
class PathMapper:
    """Placed copy path -> OP_DIR path; relative log paths are tried from the build dir and the root."""

    ops_nn: Path
    placed: Path
    op_dir: Path

    def to_op(self, raw: str) -> Path | None:
        path = Path(raw)
        candidates = [path] if path.is_absolute() else [self.ops_nn / "build" / path, self.ops_nn / path]
        bases = dict.fromkeys((Path(os.path.normpath(self.placed)), self.placed.resolve()))
        for candidate in candidates:
            for form in dict.fromkeys((Path(os.path.normpath(candidate)), candidate.resolve())):
                for base in bases:
                    if form.is_relative_to(base) and (self.op_dir / form.relative_to(base)).is_file():
                        return self.op_dir / form.relative_to(base)
        return None
