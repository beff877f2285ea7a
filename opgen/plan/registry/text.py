"""Spec text escaped once for every file type it lands in, so that no spec text ever becomes code.

Blueprints print a `SpecText` only through one of its forms (`.cpp`, `.hash`, `.md`, ...); printing it bare
raises, so a new blueprint line cannot forget to escape. Names are not spec text: the spec validates them
as identifiers.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

_SPACE_RUNS = re.compile(r"\s+")
_MD_BLOCK_START = re.compile(r"^(?=[#>+*=`~|-]|\d+[.)])")
_PY_CODING = re.compile(r"(coding)([:=])")  # PEP 263: `coding:` in line 1 or 2 would change the file's encoding


def one_line(text: str) -> str:
    """Every line break, tab and control character becomes one space (nothing can start a new line)."""
    printable = "".join(c if c.isprintable() else " " for c in text)
    return _SPACE_RUNS.sub(" ", printable).strip()


def cpp_comment(text: str) -> str:
    """Safe inside `//` and `/* */` comments: one line, no comment delimiters, no line splice."""
    line = one_line(text)
    while "*/" in line or "/*" in line:
        line = line.replace("*/", "* /").replace("/*", "/ *")
    while line.endswith(("\\", "??/")):  # a backslash (or its trigraph) ending a line splices the next one in
        line = line.removesuffix("??/").removesuffix("\\").rstrip()
    return line


def hash_comment(text: str) -> str:
    """Safe after `# ` in Python and CMake: one line, and no PEP 263 encoding declaration."""
    return _PY_CODING.sub(r"\1 \2", one_line(text))


def md_inline(text: str) -> str:
    """One line of Markdown prose, a list item or a table cell: no raw HTML, no table or block syntax."""
    line = html.escape(one_line(text), quote=False).replace("|", "\\|")
    return _MD_BLOCK_START.sub("\\\\", line)


def md_math(text: str) -> str:
    """The body of a `$$ ... $$` block: one line, `$` cannot close it and `<`/`>` are TeX's \\lt/\\gt."""
    line = one_line(text).replace("$", "\\$")
    return line.replace("<", "\\lt ").replace(">", "\\gt ")


@dataclass(frozen=True)
class SpecText:
    """Free text from the spec (brief, docs, tensor docs, notes); print one of its escaped forms."""

    raw: str

    def __str__(self) -> str:
        raise TypeError("spec text printed unescaped: use .cpp, .hash, .md or .math in the blueprint")

    @property
    def cpp(self) -> str:
        return cpp_comment(self.raw)

    @property
    def hash(self) -> str:
        return hash_comment(self.raw)

    @property
    def md(self) -> str:
        return md_inline(self.raw)

    @property
    def math(self) -> str:
        return md_math(self.raw)


@dataclass(frozen=True)
class LicenseHeader:
    """The header atop every file, one escaped line list per comment syntax."""

    lines: tuple[str, ...]
    blocks: tuple[tuple[str, str], ...] = ()  # (comment style, header copied verbatim): license_header_from

    def block(self, style: str) -> str | None:
        """The verbatim header of a comment style (c, hash, python), if the spec copied one."""
        return dict(self.blocks).get(style)

    @property
    def c_lines(self) -> tuple[str, ...]:
        """Lines of a `/** ... */` block."""
        return tuple(cpp_comment(line) for line in self.lines)

    @property
    def hash_lines(self) -> tuple[str, ...]:
        """Lines after `# ` (Python, CMake)."""
        return tuple(hash_comment(line) for line in self.lines)
