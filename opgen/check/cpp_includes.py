"""The `#include` lines of a C++ file, read as the preprocessor reads them: the syntax tier blanks them (it
checks a file without its headers) and refuses those that leave the tree before anything runs."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

# a directive as the preprocessor sees it once lines are spliced: `#` or its digraph `%:`, comments
# allowed around it (`/**/#include`, `# /**/ include`)
_GAP = r"(?:\s|/\*.*?\*/)*"
_INCLUDE = re.compile(rf"^{_GAP}(?:#|%:){_GAP}(?:include_next|include|import)\b{_GAP}([<\"]?)([^>\"\s]*)")
# An include that changes what a CANN macro means: the real headers redefine them.
_INCLUDE_FLAGS = {"op_api_ut.h": "OPGEN_WITH_OP_API_UT"}


@dataclass(frozen=True)
class Include:
    line: int
    target: str
    quoted: bool


def strip_includes(text: str) -> tuple[str, list[str], list[Include]]:
    """Blank every #include line, read as the preprocessor reads it (backslash-newline spliced first, so
    `#inc\\<newline>lude` is one); return the text, the flags it implies and the includes."""
    lines, flags, includes, index = text.split("\n"), [], [], 0
    while index < len(lines):
        end = index
        while lines[end].endswith("\\") and end + 1 < len(lines):
            end += 1
        logical = "".join(line[:-1] if n < end else line for n, line in enumerate(lines[index : end + 1], index))
        if match := _INCLUDE.match(logical):
            if flag := _INCLUDE_FLAGS.get(match.group(2).rsplit("/", 1)[-1]):
                flags.append(flag)
            includes.append(Include(index + 1, match.group(2), match.group(1) == '"'))
            lines[index : end + 1] = [""] * (end + 1 - index)
        index = end + 1
    return "\n".join(lines), sorted(set(flags)), includes


def leaves_tree(include: Include, path: Path, root: Path | None) -> bool:
    """An include that names an absolute path, or climbs out of the tree (`..`): nothing a tree needs."""
    target = Path(include.target)
    if target.is_absolute():
        return True
    if root is None or ".." not in target.parts:
        return False
    if not include.quoted:
        return True
    resolved = Path(os.path.normpath(path.parent.resolve() / target))
    return not resolved.is_relative_to(root.resolve())
