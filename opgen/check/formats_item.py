"""Consistency tier, format half: each binary JSON entry registers the formats of its def column.

The dtype half (consistency.py) pairs JSON entries with def columns by dtypes; here the paired entry's
formats must be the def's `.Format({...})` of that column, so a column registered NCHW in the def and ND in
the JSON (the kernel built for a format GE never hands it) is caught.
"""

from __future__ import annotations

from pathlib import Path

from .items import CheckItem, more_line, skipped, verdict
from .readers import DefInfo, OpFiles, ReadError, glob_rel, read_binary_json


def format_items(op_dir: Path, files: OpFiles, info: DefInfo) -> list[CheckItem]:
    label = "binary JSON formats == def"
    widths = {len(t.formats) for t in info.tensors}
    if not info.tensors or widths != {len(info.combinations())}:
        return [skipped(label, "the def lists no .Format({...}) per dtype column")]
    names = [t.name for t in info.tensors]
    columns = {combo: tuple(t.formats[k] for t in info.tensors) for k, combo in enumerate(info.combinations())}
    items = []
    for rel in glob_rel(op_dir, files.binary_jsons):
        try:
            _, entries = read_binary_json(op_dir / rel)
        except ReadError as error:
            items.append(verdict(f"{label} ({rel.split('/')[2]})", [f"{rel}: {error}"]))
            continue
        problems = [
            f"{rel}: op_list[{e.index}] formats ({', '.join(e.formats)}), the def's column "
            f"({', '.join(columns[e.dtypes])}) for {', '.join(names)}"
            for e in entries if e.dtypes in columns and e.formats != columns[e.dtypes]
        ]
        shown = sorted({f for column in columns.values() for f in column})
        items.append(verdict(f"{label} ({rel.split('/')[2]})", problems[:4] + more_line(problems, 4),
                             f"{len(entries)} entries; formats {', '.join(shown)}"))
    return items
