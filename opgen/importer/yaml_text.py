"""Where a fact is registered and how the imported YAML writes it, shared by the importer's modules."""

from __future__ import annotations

import re
from pathlib import Path

from ruamel.yaml.comments import CommentedSeq

from ..files import read_regular


def where_registered(op_dir: Path, files: list[str], needle: str) -> str:
    """`<file>:<line>` of the first of the files holding `needle`, else the first file (else the op dir)."""
    for rel in files:
        data = read_regular(op_dir / rel).decode("utf-8", errors="replace")
        if needle in data:
            return f"{op_dir / rel}:{data.count(chr(10), 0, data.index(needle)) + 1}"
    return str(op_dir / files[0]) if files else str(op_dir)


def flow(items: list[str] | list[int]) -> CommentedSeq:
    seq = CommentedSeq(items)
    seq.fa.set_flow_style()
    return seq


def snake(camel: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", camel).lower()
