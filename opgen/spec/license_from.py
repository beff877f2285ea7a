"""`license_header_from`: the target repo's own headers, copied verbatim from named files of its checkout.

opgen holds no header text of any repo: the headers are read at gen time, and the op's record keeps them
(KEPT_DIR), so a regen, `gen --check` or check re-renders the same bytes without the checkout.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..files import NotRegularFile, read_regular
from .issues import SpecIssue
from .models import MAX_LICENSE_CHARS, OpSpec

FIELD = "license_header_from"
KEPT_DIR = "license_from"  # in the op's record: one file per comment style
STYLES = {"c": "cpp", "hash": "cmake", "python": "python"}  # comment style -> the LicenseFrom field naming its file
_NAMING = re.compile(r"copyright|licen[cs]e", re.IGNORECASE)
_CODING = re.compile(r"^#.*coding[:=]")


def leading_header(text: str, style: str) -> str | None:
    """The file's leading comment (a `/* */` block or `//` lines for c; `#` lines, after a shebang or coding
    line, otherwise), exactly as written; None when it has none or it names no copyright or license."""
    lines = text.replace("\r\n", "\n").split("\n")
    start = 0
    while start < len(lines) and (not lines[start].strip() or (style != "c" and (
            lines[start].startswith("#!") or _CODING.match(lines[start])) and start < 2)):
        start += 1
    rest = lines[start:]
    if style == "c" and rest and rest[0].lstrip().startswith("/*"):
        end = next((k for k, line in enumerate(rest) if "*/" in line), None)
        block = rest[: end + 1] if end is not None else []
    else:
        marker = "//" if style == "c" else "#"
        block = []
        for line in rest:
            if not line.lstrip().startswith(marker):
                break
            block.append(line)
    header = "\n".join(block).rstrip()
    return header if header and _NAMING.search(header) else None


def kept_dirs(spec: OpSpec, base: Path) -> list[Path]:
    """Where an op's record may keep the headers: beside a record's spec copy, or in the spec's records."""
    rel = f"{'experimental/' if spec.experimental else ''}{spec.category}/{spec.snake_name}"
    roots = [base / ".opgen"] + ([Path(os.environ["OPGEN_RECORD_DIR"])] if os.environ.get("OPGEN_RECORD_DIR") else [])
    return [base / KEPT_DIR, *(root / rel / KEPT_DIR for root in roots)]


def read_license_from(spec: OpSpec, base: Path | None) -> tuple[dict[str, str] | None, list[SpecIssue]]:
    """The header per comment style, from the checkout, else from the record's copy; or the problems."""
    source = spec.license_header_from
    assert source is not None
    if spec.license_header is not None or spec.license_header_file is not None:
        return None, [SpecIssue((FIELD,), "give license_header_from, license_header or license_header_file, "
                                "one of them")]
    if base is None:
        return None, [SpecIssue((FIELD,), "only a spec read from a file can name a checkout (relative to it)")]
    checkout = (base / source.checkout).resolve()
    if not checkout.is_dir():
        for kept in kept_dirs(spec, base):
            if all((kept / f"{style}.txt").is_file() for style in STYLES):
                return {style: read_regular(kept / f"{style}.txt").decode("utf-8").rstrip("\n")
                        for style in STYLES}, []
        return None, [SpecIssue((FIELD, "checkout"), f"{source.checkout!r} is not a directory (looked for "
                                f"{checkout}) and no record of this op keeps its headers; give the root of the "
                                "target repo's checkout, absolute or relative to the spec")]
    blocks, issues = {}, []
    for style, field in STYLES.items():
        rel = getattr(source, field)
        header, problem = _header_of(checkout, rel, style)
        if problem:
            issues.append(SpecIssue((FIELD, field), f"{rel!r} {problem}"))
        elif header is not None:
            blocks[style] = header
    return (blocks, []) if not issues else (None, issues)


def _header_of(checkout: Path, rel: str, style: str) -> tuple[str | None, str]:
    path = (checkout / rel).resolve()
    if not path.is_relative_to(checkout):
        return None, f"resolves outside the checkout ({checkout}); name a file inside it"
    if not path.is_file():
        return None, f"is not a file of the checkout (looked for {path}); name a file it has"
    try:
        text = read_regular(path, 1 << 20).decode("utf-8")
    except NotRegularFile as error:
        return None, f"is {error.kind}; name a text file of the checkout"
    except UnicodeDecodeError:
        return None, "is not UTF-8 text"
    header = leading_header(text, style)
    kind = "a /* */ or // comment" if style == "c" else "# lines"
    if header is None:
        return None, (f"opens with no header ({kind} naming a copyright or license); name a file of the "
                      "checkout that has one")
    if len(header) > MAX_LICENSE_CHARS:
        return None, f"has a leading comment longer than {MAX_LICENSE_CHARS} characters; name a file with a header"
    return header, ""
