"""The ops-nn checkout validate builds in: its root files and the categories its CMake scans."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import OpgenError

# ops-nn defines the scanned categories once, in cmake/variables.cmake (`set(OP_CATEGORY_LIST ...)`);
# cmake/func.cmake add_category_subdirectory walks exactly these dirs (or experimental/<category>).
VARIABLES_CMAKE = Path("cmake") / "variables.cmake"
_CATEGORY_LIST = re.compile(r"set\(\s*OP_CATEGORY_LIST\s+([^)]*)\)")
REQUIRED_FILES = ("build.sh", "install_deps.sh", str(VARIABLES_CMAKE))


@dataclass(frozen=True)
class Checkout:
    root: Path
    categories: tuple[str, ...]

    @property
    def build_dir(self) -> Path:
        """build.sh's BUILD_PATH (`${BASE_PATH}/build`), ignored by ops-nn's .gitignore."""
        return self.root / "build"

    def log_path(self, op_name: str) -> Path:
        """One log per op, in the ignored build dir so restoring the checkout leaves git clean."""
        return self.build_dir / f"opgen_validate_{op_name}.log"

    def backup_path(self, rel_dir: Path) -> Path:
        """Where a clobbered op waits; the flat name keeps build.sh's example `find` off it."""
        return self.build_dir / ".opgen_backup" / "__".join(rel_dir.parts)


def open_checkout(root: Path) -> Checkout:
    """Refuse a dir that is not an ops-nn checkout before anything is placed or built."""
    missing = [name for name in REQUIRED_FILES if not (root / name).is_file()]
    if missing:
        raise OpgenError(
            f"not an ops-nn checkout (missing {', '.join(missing)}); "
            "pass --ops-nn the root of a clone of https://gitcode.com/cann/ops-nn",
            where=str(root),
        )
    text = (root / VARIABLES_CMAKE).read_text(encoding="utf-8", errors="replace")
    match = _CATEGORY_LIST.search(text)
    if not match:
        raise OpgenError("no `set(OP_CATEGORY_LIST ...)`; is the checkout too old?", where=str(root / VARIABLES_CMAKE))
    categories = tuple(item.strip('"') for item in match.group(1).split())
    return Checkout(root=root.resolve(), categories=categories)
