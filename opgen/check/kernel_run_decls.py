"""Declarations of the AscendC compiler intrinsics for a CPU-debug kernel build, derived from asc-devkit.

The header that declares them (`stub_fun.h`) ships only in a closed tarball. Compiling a kernel against
asc-devkit and reading g++'s "not declared" diagnostics located inside asc-devkit (never inside the op's
files, so no kernel error is learned away) gives every name the headers use: functions become variadic
templates (defined, for a run, by opgen's CPU model), types become enums, and bare labels become
enumerators of the enum their prefix names. What is learned is kept per asc-devkit content and arch, and grows
when a kernel reaches a name not seen before.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..cann_sources import CannSources, cache_root

HEADER = "stub_fun.h"
NAMES = "names.json"
RETURN_TYPE = "int64_t"  # every intrinsic returns a value: asc-devkit reads some (get_ctrl, sff0, ...)
MAX_ROUNDS = 40
_DIAGNOSTIC = re.compile(
    r"^(?P<path>\S+?):(?P<line>\d+):(?P<col>\d+): error: (?:there are no arguments to )?'(?P<name>\w+)' "
    r"(?P<kind>was not declared|has not been declared|does not name a type|that depend|cannot be used as a function)",
    re.M)
_CAST = re.compile(r"^(?P<path>\S+?):(?P<line>\d+):(?P<col>\d+): error: expected '\)' before", re.M)
_MEMBER = re.compile(r"error: '(\w+)' is not a member of '(\w+)'")
_OWNERS = (("PIPE_", "pipe_t"), ("EVENT_ID", "event_t"))


@dataclass
class _Names:
    functions: set[str] = field(default_factory=set)
    types: set[str] = field(default_factory=set)
    labels: set[str] = field(default_factory=set)
    members: set[tuple[str, str]] = field(default_factory=set)

    def header(self) -> str:
        labels = sorted(self.labels - self.functions - self.types - {m for _, m in self.members})
        owned: dict[str, list[str]] = {}
        for label in labels:
            owner = next((t for prefix, t in _OWNERS if label.startswith(prefix) and t in self.types),
                         "opgen_label_t")
            owned.setdefault(owner, []).append(label)
        for enum, member in self.members:
            owned.setdefault(enum, []).append(member)
        lines = ["// Derived by opgen from asc-devkit's use of the compiler intrinsics; not CANN's stub_fun.h.",
                 "#pragma once", "#include <cstdint>"]
        for enum in sorted(self.types | set(owned)):
            body = ", ".join(f"{m} = {k + 1}" for k, m in enumerate(sorted(owned.get(enum, []))))
            lines.append(f"enum {enum} : int32_t {{ {body} }};")
        lines += [f"template <typename... Args> {RETURN_TYPE} {n}(Args... args);" for n in sorted(self.functions)]
        return "\n".join(lines) + "\n"


def declarations_dir(sources: CannSources, arch: str) -> Path:
    """The dir holding the derived `stub_fun.h` for `arch` (what has been learned so far)."""
    target = cache_root() / "kernel-decls" / f"{sources.content_key('asc-devkit', 'asc-tools')}-{arch}"
    if not (target / HEADER).is_file():
        _save(target, _Names())
    return target


def compile_learning(decls: Path, argv: Sequence[str], timeout: float) -> subprocess.CompletedProcess[str]:
    """Run the compile `argv` (with `decls` on its include path); while it fails only for names asc-devkit
    uses undeclared, declare them and compile again. The last result is returned."""
    names = _load(decls)
    if (decls / HEADER).read_text() != names.header():
        _save(decls, names)
    for _ in range(MAX_ROUNDS):
        done = subprocess.run(list(argv), capture_output=True, text=True, errors="replace", timeout=timeout,
                              check=False, env={**os.environ, "LC_ALL": "C"})  # plain quotes in diagnostics
        if done.returncode == 0 or not _learn(names, done.stderr, decls):
            return done
        _save(decls, names)
    return done


def _load(decls: Path) -> _Names:
    try:
        data = json.loads((decls / NAMES).read_text())
    except (OSError, ValueError):
        return _Names()
    return _Names(set(data["functions"]), set(data["types"]), set(data["labels"]),
                  {(a, b) for a, b in data["members"]})


def _save(decls: Path, names: _Names) -> None:
    decls.mkdir(parents=True, exist_ok=True)
    data = {"functions": sorted(names.functions), "types": sorted(names.types), "labels": sorted(names.labels),
            "members": sorted(names.members)}
    for name, text in ((NAMES, json.dumps(data)), (HEADER, names.header())):
        part = decls / f"{name}.part{os.getpid()}"
        part.write_text(text)
        part.replace(decls / name)


def _learn(names: _Names, stderr: str, work: Path) -> bool:
    before = (len(names.functions), len(names.types), len(names.labels), len(names.members))
    for match in _MEMBER.finditer(stderr):
        if match.group(2) in names.types:
            names.members.add((match.group(2), match.group(1)))
    for match in _CAST.finditer(stderr):  # `(undeclared_type)0`: g++ names no name, the text before does
        if "asc-devkit" in match.group("path"):
            cast = re.search(r"\((\w+)\)\s*$", _text_before(match))
            if cast:
                names.functions.discard(cast.group(1))
                names.types.add(cast.group(1))
    for match in _DIAGNOSTIC.finditer(stderr):
        path, name, kind = match.group("path"), match.group("name"), match.group("kind")
        if "asc-devkit" not in path and not path.startswith(str(work)):
            continue  # the op's own file: a real error, never learned away
        if kind in ("has not been declared", "does not name a type") or name.endswith("_t"):
            names.functions.discard(name)
            names.types.add(name)
        elif kind in ("that depend", "cannot be used as a function") or _called(match):
            names.functions.add(name)
        else:
            names.labels.add(name)
    return before != (len(names.functions), len(names.types), len(names.labels), len(names.members))


def _text_before(match: re.Match[str]) -> str:
    try:
        text = Path(match.group("path")).read_text(errors="replace").splitlines()[int(match.group("line")) - 1]
    except (OSError, IndexError):
        return ""
    return text[: int(match.group("col")) - 1]


def _called(match: re.Match[str]) -> bool:
    """Whether the name at the diagnostic's location is followed by a call (`name(` or `name<...>(`)."""
    try:
        text = Path(match.group("path")).read_text(errors="replace").splitlines()[int(match.group("line")) - 1]
    except (OSError, IndexError):
        return True
    return re.match(r"\w+\s*(<[^;]*?>)?\s*\(", text[int(match.group("col")) - 1:]) is not None
