"""plan/ keeps its rooms: no import circle among its modules and no import against the room order.

Every import counts, a function-level or TYPE_CHECKING one too: hiding a circle inside a function keeps
the circle. A room may import the rooms below it (ROOM_ORDER) and itself; the plan package's own modules
(build_plan, the kernel families, CMake) sit on top and may import every room.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PLAN = Path(__file__).resolve().parent.parent / "opgen" / "plan"
ROOM_ORDER = ("registry", "kernel", "testcases", "aclnn")  # each room's README says what it may import
MAY_IMPORT = {
    "registry": {"registry"},
    "kernel": {"registry", "kernel"},
    "testcases": {"registry", "kernel", "testcases"},
    "aclnn": {"registry", "kernel", "aclnn"},  # a split op's wrapper checks the kernel's split
    "": {"", *ROOM_ORDER},  # the plan package's own modules
}


def _module(path: Path, plan: Path) -> str:
    """`opgen.plan.<room>.<name>` of a file under plan/ (a package's __init__ is the package)."""
    parts = path.relative_to(plan.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(path: Path, plan: Path, modules: set[str]) -> set[str]:
    """The plan modules a file imports, wherever the import statement stands."""
    name = _module(path, plan)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            root = ".".join([*base, *([node.module] if node.module else [])])
            targets = [f"{root}.{alias.name}" if f"{root}.{alias.name}" in modules else root for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def plan_imports(plan: Path = PLAN) -> dict[str, set[str]]:
    """Per module of plan/, the modules of plan/ it imports."""
    files = sorted(plan.rglob("*.py"))
    modules = {_module(f, plan) for f in files}
    return {_module(f, plan): _imported(f, plan, modules) for f in files}


def _room(module: str) -> str:
    """The room a module lives in; "" for the plan package's own modules."""
    parts = module.split(".")
    return parts[2] if len(parts) > 3 or (len(parts) == 3 and parts[2] in ROOM_ORDER) else ""


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1 or node in graph.get(node, ()):
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def against_order(graph: dict[str, set[str]]) -> list[str]:
    """`importer -> imported` for each import of a room its room may not import."""
    return sorted(f"{m} -> {t}" for m, targets in graph.items() for t in targets
                  if _room(t) not in MAY_IMPORT[_room(m)])


def test_plan_has_no_import_circle() -> None:
    assert circles(plan_imports()) == []


def test_plan_rooms_import_only_rooms_below_them() -> None:
    assert against_order(plan_imports()) == []


def test_every_room_is_declared_and_has_its_readme() -> None:
    rooms = {p.name for p in PLAN.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert rooms == set(ROOM_ORDER)
    for room in rooms:
        lines = (PLAN / room / "README.md").read_text(encoding="utf-8").strip().splitlines()
        assert 3 <= len(lines) <= 8 and any("May import" in line for line in lines), room


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / "opgen" / "plan" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "opgen" / "plan"


def test_a_circle_hidden_in_a_function_is_found(tmp_path: Path) -> None:
    plan = _write(tmp_path, {
        "__init__.py": "", "testcases/__init__.py": "",
        "testcases/a.py": "from .b import B\n",
        "testcases/b.py": "def f():\n    from .a import A\n",
    })
    assert circles(plan_imports(plan)) == [["opgen.plan.testcases.a", "opgen.plan.testcases.b"]]


@pytest.mark.parametrize(("source", "expected"), [
    ("from ..kernel.dag import D\n", ["opgen.plan.registry.attrs -> opgen.plan.kernel.dag"]),
    ("from ..kernel import dag\n", ["opgen.plan.registry.attrs -> opgen.plan.kernel.dag"]),
    ("import opgen.plan.kernel.dag\n", ["opgen.plan.registry.attrs -> opgen.plan.kernel.dag"]),
    ("from .. import build_plan\n", ["opgen.plan.registry.attrs -> opgen.plan"]),
    ("from .tensors import T\n", []),
])
def test_an_import_against_the_room_order_is_found(tmp_path: Path, source: str, expected: list[str]) -> None:
    plan = _write(tmp_path, {
        "__init__.py": "", "registry/__init__.py": "", "kernel/__init__.py": "", "kernel/dag.py": "",
        "registry/tensors.py": "", "registry/attrs.py": source,
    })
    assert against_order(plan_imports(plan)) == expected
