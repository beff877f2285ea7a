"""What validate needs to know about a generated op: its ops-nn name, category, experimental flag, SoCs.

The generator records these in the op's record (`manifest.json`, found by the op's path with
`record.find_record`); an op dir without one (hand-copied, or made by an older opgen) is read from its path
and `op_host/config/<soc>/` dirs instead, and we say so.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from pathlib import Path

from ..errors import OpgenError
from ..record import MANIFEST, find_record

_SNAKE = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class OpInfo:
    name: str  # snake_case dir name, what build.sh --ops= takes
    op_type: str | None  # CamelCase, None when inferred from the path
    category: str
    experimental: bool
    socs: tuple[str, ...]
    from_manifest: bool
    record: Path | None = None  # the opgen record the facts came from

    @property
    def rel_dir(self) -> Path:
        """Where ops-nn's CMake looks for the op (cmake/func.cmake add_category_subdirectory)."""
        base = Path("experimental") if self.experimental else Path()
        return base / self.category / self.name


def read_op_info(op_dir: Path) -> OpInfo:
    """Manifest first (the generator's own record), the path layout otherwise."""
    if not op_dir.is_dir():
        raise OpgenError("op dir not found; pass the dir `opgen gen` wrote", where=str(op_dir))
    record = find_record(op_dir)
    info = replace(_from_manifest(record / MANIFEST), record=record) if record is not None else _from_path(op_dir)
    if not _SNAKE.fullmatch(info.name):
        raise OpgenError(f"op name {info.name!r} is not snake_case as ops-nn dirs are", where=str(op_dir))
    return info


def _from_manifest(path: Path) -> OpInfo:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OpgenError(f"cannot read the manifest: {exc}", where=str(path)) from None
    if not isinstance(data, dict):
        raise OpgenError("manifest is not a JSON object", where=str(path))
    name, op_type, category = (data.get(k) for k in ("name", "op_type", "category"))
    experimental, socs = data.get("experimental"), data.get("socs")
    if not (isinstance(name, str) and isinstance(category, str) and isinstance(experimental, bool)):
        raise OpgenError("manifest lacks name/category/experimental; regenerate the op", where=str(path))
    if not (isinstance(socs, list) and socs and all(isinstance(s, str) for s in socs)):
        raise OpgenError("manifest has no `socs` list; regenerate the op", where=str(path))
    return OpInfo(
        name=name,
        op_type=op_type if isinstance(op_type, str) else None,
        category=category,
        experimental=experimental,
        socs=tuple(socs),
        from_manifest=True,
    )


def _from_path(op_dir: Path) -> OpInfo:
    """`.../[experimental/]<category>/<op>`, SoCs from `op_host/config/<soc>/` (one per SoC)."""
    resolved = op_dir.resolve()
    config = resolved / "op_host" / "config"
    socs = tuple(sorted(p.name for p in config.iterdir() if p.is_dir())) if config.is_dir() else ()
    return OpInfo(
        name=resolved.name,
        op_type=None,
        category=resolved.parent.name,
        experimental=resolved.parent.parent.name == "experimental",
        socs=socs,
        from_manifest=False,
    )
