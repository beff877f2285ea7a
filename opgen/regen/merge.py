"""Three-way merge of one file: pristine (base), the user's file (yours) and the new render (opgen).

Works on bytes lines so any encoding and line ending survives untouched. Conflicts are written either
inline with git-style markers or, patch(1)-style, as a `.rej` of the spec's hunks that did not apply.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

import merge3

ConflictStyle = Literal["inline", "rej"]

START = b"<<<<<<< yours"
MIDDLE = b"======="
END = b">>>>>>> opgen"
CONTEXT = 3


class _Matcher:
    """difflib without its autojunk heuristic: in generated JSON and C++ the frequent lines (`},`,
    `"format": "ND"`) are exactly the anchors the merge needs, and treating them as junk misaligns hunks."""

    def __init__(
        self,
        isjunk: Callable[[bytes], bool] | None = None,
        a: Sequence[bytes] = (),
        b: Sequence[bytes] = (),
        autojunk: bool = False,
    ) -> None:
        self._matcher = difflib.SequenceMatcher(isjunk, a, b, autojunk=False)

    def get_matching_blocks(self) -> list[tuple[int, int, int]]:
        return [(block.a, block.b, block.size) for block in self._matcher.get_matching_blocks()]


@dataclass(frozen=True)
class Merged:
    content: bytes  # the file to write: clean merge, with markers (inline) or with your side kept (rej)
    conflicts: int
    reject: bytes | None = None  # rej style only: the spec's conflicting hunks as a unified diff


def merge_file(base: bytes, yours: bytes, new: bytes, *, style: ConflictStyle, path: str) -> Merged:
    """Your edits and the spec's changes combined; an empty base (a file opgen never recorded) makes
    every difference a conflict, refined to the lines that actually differ."""
    base_l, yours_l, new_l = (data.splitlines(keepends=True) for data in (base, yours, new))
    m3 = merge3.Merge3(base_l, yours_l, new_l, sequence_matcher=_Matcher)
    if style == "inline":
        return _inline(m3, yours_l, new_l, _newline(yours_l))
    out: list[bytes] = []
    hunks: list[bytes] = []
    for region in m3.merge_regions():
        match region:
            case ("conflict", iz, zmatch, ia, amatch, ib, bmatch):
                out.extend(yours_l[ia:amatch])
                hunks.append(_hunk(base_l, new_l, iz, zmatch, ib, bmatch))
            case ("unchanged", lo, hi):
                out.extend(base_l[lo:hi])
            case ("a" | "same", lo, hi):
                out.extend(yours_l[lo:hi])
            case ("b", lo, hi):  # only the spec changed these lines
                out.extend(new_l[lo:hi])
    reject = _reject(path, hunks) if hunks else None
    return Merged(b"".join(out), len(hunks), reject)


def _inline(m3: merge3.Merge3[bytes], yours_l: list[bytes], new_l: list[bytes], newline: bytes) -> Merged:
    out: list[bytes] = []
    conflicts = 0
    for region in m3.reprocess_merge_regions(m3.merge_regions()):
        match region:
            case ("conflict", _, _, ia, amatch, ib, bmatch):
                conflicts += 1
                _end_line(out, newline)
                out.append(START + newline)
                out.extend(yours_l[ia:amatch])
                _end_line(out, newline)
                out.append(MIDDLE + newline)
                out.extend(new_l[ib:bmatch])
                _end_line(out, newline)
                out.append(END + newline)
            case ("unchanged", lo, hi):
                out.extend(m3.base[lo:hi])
            case ("a" | "same", lo, hi):
                out.extend(yours_l[lo:hi])
            case ("b", lo, hi):
                out.extend(new_l[lo:hi])
    return Merged(b"".join(out), conflicts)


def _newline(lines: list[bytes]) -> bytes:
    """Markers use the file's own line ending so a CRLF file stays CRLF."""
    return b"\r\n" if lines and lines[0].endswith(b"\r\n") else b"\n"


def _end_line(out: list[bytes], newline: bytes) -> None:
    """A last line without newline would swallow the marker that follows it."""
    if out and not out[-1].endswith((b"\n", b"\r")):
        out[-1] += newline


def _hunk(base: list[bytes], new: list[bytes], iz: int, zmatch: int, ib: int, bmatch: int) -> bytes:
    """One unified-diff hunk pristine → new, with the context lines both sides share around it."""
    before = _shared(base[max(0, iz - CONTEXT) : iz][::-1], new[max(0, ib - CONTEXT) : ib][::-1])[::-1]
    after = _shared(base[zmatch : zmatch + CONTEXT], new[bmatch : bmatch + CONTEXT])
    old_n = len(before) + (zmatch - iz) + len(after)
    new_n = len(before) + (bmatch - ib) + len(after)
    old_start = iz - len(before) + (1 if old_n else 0)
    new_start = ib - len(before) + (1 if new_n else 0)
    lines = [f"@@ -{old_start},{old_n} +{new_start},{new_n} @@\n".encode()]
    lines.extend(_prefixed(b" ", before))
    lines.extend(_prefixed(b"-", base[iz:zmatch]))
    lines.extend(_prefixed(b"+", new[ib:bmatch]))
    lines.extend(_prefixed(b" ", after))
    return b"".join(lines)


def _shared(left: list[bytes], right: list[bytes]) -> list[bytes]:
    """The leading lines two sequences have in common (context must be true of both files)."""
    shared = []
    for one, other in zip(left, right, strict=False):
        if one != other:
            break
        shared.append(one)
    return shared


def _prefixed(mark: bytes, lines: list[bytes]) -> Iterator[bytes]:
    for line in lines:
        if line.endswith((b"\n", b"\r")):
            yield mark + line
        else:
            yield mark + line + b"\n\\ No newline at end of file\n"


def _reject(path: str, hunks: list[bytes]) -> bytes:
    header = (
        f"# opgen regen: the spec changed these lines of {path} where you had edited them too.\n"
        f"# Your version was kept; apply what you need by hand, then delete this file.\n"
        f"--- a/{path}\t(generated before)\n"
        f"+++ b/{path}\t(generated now)\n"
    )
    return header.encode() + b"".join(hunks)
