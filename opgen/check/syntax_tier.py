"""Syntax tier: hand every file of the tree to the parser library for its kind (syntax.py) and report
file:line. Files that parse are summarised per kind; each file that does not gets its own row.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ..plan.testcases.st_cases import ST_COLUMNS
from ..record import RECORD_DIR
from .items import CheckItem, bad, ok, skipped
from .trust import Trust

TIER = "syntax"
SHOWN = 5  # findings quoted per failing file
KINDS = ("C/C++", "JSON", "CSV", "Python", "CMake")


def kind_of(rel: str) -> str | None:
    path = Path(rel)
    if path.suffix in (".cpp", ".h"):
        return "C/C++"
    if path.suffix == ".json":
        return "JSON"
    if path.suffix == ".csv":
        return "CSV"
    if path.suffix == ".py":
        return "Python"
    if path.name == "CMakeLists.txt" or path.suffix == ".cmake":
        return "CMake"
    return None


def syntax_tier(op_dir: Path, trust: Trust | None = None) -> list[CheckItem]:
    from . import syntax

    checkers: dict[str, Callable[[Path], list[syntax.SyntaxFinding]]] = {
        "C/C++": lambda p: syntax.cpp_syntax_errors(p, root=op_dir),
        "JSON": syntax.json_errors,
        "CSV": lambda p: syntax.csv_errors(p, ST_COLUMNS if "tests/st" in p.as_posix() else ()),
        "Python": lambda p: syntax.python_errors(p, trust=trust or syntax.NO_EXEC),
        "CMake": syntax.cmake_errors,
    }
    files: dict[str, list[str]] = {k: [] for k in KINDS}
    for path in sorted(op_dir.rglob("*")):
        rel = path.relative_to(op_dir).as_posix()
        kind = kind_of(rel)
        if kind and path.is_file() and RECORD_DIR not in path.relative_to(op_dir).parts:
            files[kind].append(rel)
    items: list[CheckItem] = []
    for kind in KINDS:
        clean = 0
        for rel in files[kind]:
            try:
                findings = checkers[kind](op_dir / rel)
            except syntax.PreprocessorMissing as error:
                items.append(skipped(f"{kind} files", str(error)))
                break
            except (OSError, UnicodeDecodeError) as error:
                items.append(bad(f"{kind} {rel}", f"{rel}: cannot read: {error}"))
                continue
            if not findings:
                clean += 1
                continue
            shown = [f"{rel}:{f.line}: {f.message}" for f in findings[:SHOWN]]
            more = [f"... {len(findings) - SHOWN} more"] if len(findings) > SHOWN else []
            items.append(bad(f"{kind} {rel}", "; ".join(shown + more), findings=len(findings)))
        if clean:
            items.append(ok(f"{kind} files", f"{clean} of {len(files[kind])} parse", files=clean))
        elif not files[kind]:
            items.append(skipped(f"{kind} files", "none in the tree"))
    return items
