"""Render a plan into files with copier: the `common` blueprint, then the layout's; then clang-format."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from .errors import OpgenError
from .paths import BLUEPRINTS, CLANG_FORMAT_STYLE
from .plan import RenderPlan

CPP_SUFFIXES = (".cpp", ".h")


def render_tree(plan: RenderPlan) -> dict[str, bytes]:
    """All files of the op dir, keyed by path relative to it (POSIX), with their exact bytes."""
    import copier

    with tempfile.TemporaryDirectory(prefix="opgen-render-") as tmp:
        root = Path(tmp) / plan.name
        for blueprint in ("common", plan.layout):
            copier.run_copy(
                str(BLUEPRINTS), str(root), data={"blueprint": blueprint, "plan": plan},
                defaults=True, overwrite=True, quiet=True, unsafe=True, vcs_ref=None,
            )
        files = {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}
        format_cpp([p for rel, p in files.items() if rel.endswith(CPP_SUFFIXES)])
        return {rel: path.read_bytes() for rel, path in files.items()}


def format_cpp(paths: list[Path]) -> None:
    """Format in place with the ops-nn style, one clang-format process for all files."""
    if not paths:
        return
    from clang_format import get_executable

    command = [get_executable("clang-format"), f"--style=file:{CLANG_FORMAT_STYLE}", "-i", *map(str, paths)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise OpgenError(f"clang-format failed: {result.stderr.strip()}")
