"""What a tree must not hold before the tiers read it: a FIFO, socket or device (opening one blocks, or reads a
device), and C/C++ text that asks the preprocessor about paths outside the tree (`__has_include("/etc/shadow")`
would let a tree learn from PASS or FAIL whether any path exists on the checker's machine).

Both are found by reading only the tree's regular files, opened without blocking; the runner then refuses the
tiers that would read (or preprocess) the tree, and the structure tier names each finding.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .cpp_includes import included_names, paste_message, pasted_probe, scan
from .items import CheckItem, bad

# a file compiled or included as C/C++ by its name; any other tree file a C/C++ file #includes is read as C/C++ too
C_SUFFIXES = frozenset({".h", ".hh", ".hpp", ".hxx", ".h++", ".inc", ".inl", ".ipp", ".tcc", ".tpp", ".c", ".cc",
                        ".cp", ".cpp", ".cxx", ".c++", ".cu", ".asc"})
KINDS = {stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
         stat.S_IFBLK: "a block device"}


def special_files(op_dir: Path) -> list[tuple[str, str]]:
    """(relative path, what it is) of every tree entry that is neither a regular file, a dir nor a symlink to one;
    found from the entries' metadata alone."""
    root = op_dir.resolve()
    found: list[tuple[str, str]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in (*dirnames, *filenames):
            path = Path(dirpath) / name
            try:
                mode = path.stat().st_mode
            except OSError:  # a dangling link: the link check names it
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                found.append((path.relative_to(root).as_posix(), KINDS.get(stat.S_IFMT(mode), "not a regular file")))
    return sorted(found)


def special_items(op_dir: Path) -> list[CheckItem]:
    return [bad(f"special file {rel}", f"{what}, not a regular file: no tier opens it (a read could block or reach "
                "a device); remove it from the tree") for rel, what in special_files(op_dir)]


def read_regular(path: Path) -> bytes | None:
    """The file's bytes, or None when it is not a regular file (checked on the open file, so a FIFO never blocks)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        return handle.read() if stat.S_ISREG(os.fstat(fd).st_mode) else None


def probe_items(op_dir: Path) -> list[CheckItem]:
    """One FAIL per tree file whose C/C++ text could test or read a path outside the tree."""
    root = op_dir.resolve()
    texts: dict[Path, str] = {}
    for dirpath, _dirnames, filenames in os.walk(root):
        for name in filenames:
            data = read_regular(Path(dirpath) / name)
            if data is not None:
                texts[Path(dirpath) / name] = data.decode("utf-8", errors="replace")
    as_cpp = {path for path in texts if path.suffix.lower() in C_SUFFIXES}
    while True:  # the files those include by name are preprocessed too, whatever their suffix
        named = {name for path in as_cpp for name in included_names(texts[path])}
        more = {path for path in texts if path.name in named} - as_cpp
        if not more:
            break
        as_cpp |= more
    items = []
    seen: dict[str, str] = {}  # each identifier of the files, with where it first appears
    for path in sorted(as_cpp):
        rel = path.relative_to(root).as_posix()
        scanned = scan(texts[path], path, root)
        for word, line in scanned.identifiers.items():
            seen.setdefault(word, f"{rel}:{line}")
        if scanned.findings:
            items.append(bad(f"preprocessor probe {rel}", "; ".join(f"{rel}:{line}: {message}"
                                                                    for line, message in scanned.findings)))
    if pieces := pasted_probe(seen):  # the pieces may sit in different files
        where = " (" + ", ".join(seen[p] for p in pieces) + ")"
        items.append(bad("preprocessor probe (pasted)", paste_message(pieces, where)))
    return items
