"""The `#include` lines of a C++ file, read as the preprocessor reads them: the syntax tier blanks them (it
checks a file without its headers) and refuses those that leave the tree before anything runs."""

from __future__ import annotations

import bisect
import os
import re
from collections.abc import Collection, Sequence
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


# What a tree may not do with the preprocessor: learn whether a path exists on the checker's machine. A
# `__has_include("/etc/shadow")` (or `#include` of it) would turn that into PASS or FAIL, so every spelling that
# can reach a path outside the tree is refused before anything compiles: an absolute or climbing target, a
# computed one (a macro names the path), and identifiers that `##` could paste together into `__has_include`.
PROBES = ("__has_include", "__has_include_next")
_PROBE = re.compile(r"(?<![\w$])(__has_include_next|__has_include)(?![\w$])")
_PROBE_ARG = re.compile(r'[ \t]*\([ \t]*(?:"([^"\n]*)"|<([^>\n]*)>)[ \t]*\)')
_HEADER_NAME = re.compile(r'(?:[ \t\f\v]|/\*.*?\*/)*(?:"([^"\n]*)"|<([^>\n]*)>)', re.S)
_NAMED = re.compile(r"\b(?:include|import)(?:_next)?" + _HEADER_NAME.pattern, re.S)
_TOKEN = re.compile(r"""
    (?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\\s"]{0,16})\(.*?\)(?P=delim)")
  | (?P<str>(?:u8|u|U|L)?"(?:\\.|[^"\\\n])*"?)
  | (?P<chr>(?:u8|u|U|L)?'(?:\\.|[^'\\\n])*'?)
  | (?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))
  | (?P<num>\.?\d(?:[eEpP][+-]|'[\w]|[\w.$])*)
  | (?P<ident>[A-Za-z_$\x80-\U0010ffff][\w$\x80-\U0010ffff]*)
  | (?P<hash>%:|\#)
  | (?P<nl>\n)
  | (?P<other>.)
""", re.X | re.S)


@dataclass(frozen=True)
class Scan:
    """One file read as the preprocessor reads it: what in it reaches outside the tree, and its identifiers."""

    findings: list[tuple[int, str]]  # (line, message)
    identifiers: dict[str, int]  # outside comments and literals, each with the line it first appears on


def scan(text: str, path: Path, root: Path | None, *, includes: bool = True) -> Scan:
    """`text`, a file at `path` in the tree `root`: every spelling that can test or read a path outside the tree
    (`includes=False` leaves `#include` lines to the caller), read with lines spliced (the ISO trigraph `??/` too),
    comments and raw strings as the preprocessor has them, erring towards refusal."""
    found: dict[tuple[int, str], None] = {}
    identifiers: dict[str, int] = {}
    for variant in dict.fromkeys((text, text.replace("??/", "\\"))):
        spliced, starts = _splice(variant)
        uses, offsets = _token_uses(spliced, path, root, includes)
        for offset, message in [*_has_include_uses(spliced, path, root), *uses]:
            found[(bisect.bisect_right(starts, offset), message)] = None
        for word, offset in offsets.items():
            identifiers.setdefault(word, bisect.bisect_right(starts, offset))
    return Scan(sorted(found), identifiers)


def probe_findings(text: str, path: Path, root: Path | None, *, includes: bool = True) -> list[tuple[int, str]]:
    """`scan`'s findings for one file read alone, and its identifiers that could be pasted into a probe."""
    scanned = scan(text, path, root, includes=includes)
    pieces = pasted_probe(scanned.identifiers)
    return sorted([*scanned.findings, *([(scanned.identifiers[pieces[0]], paste_message(pieces))] if pieces else [])])


def paste_message(pieces: Sequence[str], where: str = "") -> str:
    return (f"the identifiers {', '.join(map(repr, pieces))}{where} could be pasted (##) into {''.join(pieces)}, "
            "which probes paths outside the tree: refused (rename one of them)")


def pasted_probe(identifiers: Collection[str]) -> tuple[str, ...]:
    """Two or more of `identifiers` that, pasted in this order, spell `__has_include` (or `_next`); () if none do.
    A pasted name is made of tokens the source spells, so a tree lacking such pieces cannot build one."""
    for target in PROBES:
        spelled: list[tuple[str, ...] | None] = [()] + [None] * len(target)  # [n]: pieces spelling target[:n]
        for end in range(1, len(target) + 1):
            for start in range(end):
                before, piece = spelled[start], target[start:end]
                if before is not None and piece in identifiers and (start, end) != (0, len(target)):
                    spelled[end] = (*before, piece)
                    break
        if found := spelled[-1]:
            return found
    return ()


def included_names(text: str) -> set[str]:
    """The last path part of every header an include (or a mention of one, in a comment too) names."""
    spliced = "\n".join(_splice(variant)[0] for variant in (text, text.replace("??/", "\\")))
    return {_target(m).rsplit("/", 1)[-1] for m in _NAMED.finditer(spliced)}


def _splice(text: str) -> tuple[str, list[int]]:
    """`text` with backslash-newlines (and a backslash, blanks, newline) removed; the offset each line starts at."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[str] = []
    starts: list[int] = []
    size = 0
    for n, line in enumerate(lines):
        starts.append(size)
        stripped = line.rstrip(" \t\f\v")
        piece = stripped[:-1] if stripped.endswith("\\") and n + 1 < len(lines) else line + "\n"
        out.append(piece)
        size += len(piece)
    return "".join(out), starts


def _has_include_uses(spliced: str, path: Path, root: Path | None) -> list[tuple[int, str]]:
    """Every `__has_include` anywhere (comments and strings too): a literal in-tree argument or refused."""
    uses = []
    for match in _PROBE.finditer(spliced):
        name = match.group(1)
        arg = _PROBE_ARG.match(spliced, match.end())
        if arg is None:
            uses.append((match.start(), f'{name} without a literal "file.h" or <file.h> argument (a macro could '
                                        "name any path): refused"))
        elif leaves_tree(Include(0, _target(arg), arg.group(1) is not None), path, root):
            uses.append((match.start(), f"{name}({_target(arg)!r}) probes a path outside the tree (an absolute "
                                        "path or a `..` out of it): refused"))
    return uses


def _token_uses(spliced: str, path: Path, root: Path | None, includes: bool) -> tuple[list[tuple[int, str]],
                                                                                      dict[str, int]]:
    """Include directives leaving the tree (or computed), and the first offset of each identifier."""
    uses = []
    identifiers: dict[str, int] = {}
    pos, line_start, directive = 0, True, False
    while (token := _TOKEN.match(spliced, pos)) is not None:
        kind, word = token.lastgroup, token.group()
        pos = token.end()
        if kind == "nl":
            line_start, directive = True, False
            continue
        if kind == "comment" or (kind == "other" and word.isspace()):
            continue
        if kind == "ident":
            identifiers.setdefault(word, token.start())
        if kind == "hash" and line_start:
            directive = True
        elif directive and kind == "ident" and word in ("include", "include_next", "import"):
            header = _HEADER_NAME.match(spliced, pos)
            if header is None and includes:
                uses.append((token.start(), f"#{word} of a computed name (a macro could name any path): refused"))
            elif header is not None:
                pos = header.end()
                target = _target(header)
                if includes and leaves_tree(Include(0, target, header.group(1) is not None), path, root):
                    uses.append((token.start(), f"#{word} {target!r} leaves the tree (an absolute path or a `..` "
                                                "out of it): refused"))
        line_start, directive = False, directive and kind == "hash"
    return uses, identifiers


def _target(match: re.Match[str]) -> str:
    return match.group(1) if match.group(1) is not None else match.group(2)
