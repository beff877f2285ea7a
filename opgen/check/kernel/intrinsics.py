"""The compiler intrinsics' declarations (`stub_fun.h`) a CPU-debug kernel build needs.

asc-devkit's headers call the AscendC compiler's intrinsics (`vadd`, `copy_gm_to_ubuf`, `set_flag`, ...) and name
their enum types (`pipe_t`, `event_t`); the header declaring them ships only in a closed tarball. A toolkit has
it (then `intrinsic_dir` returns None: `CannSources.kernel_include_dirs()` already holds its dir). Without one,
opgen derives a stand-in: compile, read g++'s "not declared" diagnostics whose location is inside asc-devkit (or
asc-tools' cpudebug headers; never inside the op's files, so no kernel error is learned away), declare each name,
repeat (`learn`).

- a type becomes an enum of its own (`enum pipe_t : int64_t {}`), so overloads on distinct types stay distinct;
- an enumerator becomes a label (a `Label` constant that converts to any enum or integer type, so
  `set_flag(PIPE_S, PIPE_V, EVENT_ID0)`, `case PIPE_V:` and `template <pipe_t P>` all work);
- an intrinsic becomes a variadic template, declared and never defined (on arch 3510, whose asc-devkit passes
  vector/predicate registers and post-updated addresses, with forwarding references: `REFERENCE_ARCHES`). Where
  asc-devkit's per-type c_api wrappers (`impl/c_api/instr_impl/npu_arch_<arch>`) show which element types an
  intrinsic takes, it is declared for exactly those pointer types instead (`vexp(half*, half*, ...)`,
  `vexp(float*, float*, ...)`), so an API called with a dtype the chip lacks (`Exp` on int32 for 2201) fails at
  compile time as it would on the NPU.

The learned names are cached per (asc-devkit content, arch) in the user's cache dir and only grow.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ...cann_sources import CannSources, cache_root
from ...locks import held_lock
from .build import KernelArch

HEADER = "stub_fun.h"
FORMAT = 5  # bump when render_header changes: the cached header is rebuilt
# the event ids of set_flag / wait_flag: asc-devkit's own headers name only some, kernels name any of the eight
# (EVENT_ID0..EVENT_ID7 are the ones asc-devkit, asc-tools and ops-nn use), so learning one declares them all
EVENT_IDS = frozenset(f"EVENT_ID{k}" for k in range(8))
# arches whose asc-devkit passes vector and predicate registers (and post-updated addresses) to the intrinsics by
# reference: their declarations take forwarding references, so the CPU model can write the caller's registers
REFERENCE_ARCHES = frozenset({3002, 3510})
_DIAGNOSTIC = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): error: (?P<message>.*)$", re.M)
# g++ quotes names with ' under LC_ALL=C and with U+2018/U+2019 under a UTF-8 locale: both are read
_MEMBER = re.compile(r"['\u2018](?P<member>\w+)['\u2019] is not a member of ['\u2018](?:::)?(?P<type>\w+)['\u2019]")
_CONVERT = re.compile(r"could not convert ['\u2018](\w+)[<(].*['\u2019] from ['\u2018]int64_t['\u2019]")
_CAST = re.compile(r"\((\w+)\)\s*$")
_NAME = re.compile(r"['\u2018](?:::)?(?P<name>[A-Za-z_][A-Za-z0-9_]*)['\u2019]")
_UNDECLARED = ("was not declared in this scope", "does not name a type", "has not been declared",
               "there are no arguments to")


@dataclass
class Names:
    """What the derivation learned: types, labels (enumerators) and intrinsics (functions)."""

    types: set[str] = field(default_factory=set)
    labels: set[str] = field(default_factory=set)
    functions: set[str] = field(default_factory=set)
    members: set[tuple[str, str]] = field(default_factory=set)  # (enum type, enumerator) named as T::E
    valued: set[str] = field(default_factory=set)  # intrinsics whose result initialises a register or enum type

    def all(self) -> set[str]:
        return self.types | self.labels | self.functions

    def new_in(self, known: Names) -> Names:
        """What self has that `known` lacks."""
        return Names(self.types - known.types - known.functions, self.labels - known.all(),
                     self.functions - known.functions - known.types, self.members - known.members,
                     self.valued - known.valued)

    def merge(self, other: Names) -> None:
        self.types |= other.types | {t for t, _ in other.members}
        self.functions |= other.functions
        # a name first seen as a value and later as a type or a call is that type or call
        self.labels = (self.labels | other.labels) - self.functions - self.types
        self.members |= other.members
        self.valued |= other.valued

    def to_json(self) -> str:
        data: dict[str, list[str] | list[list[str]]] = {
            k: sorted(getattr(self, k)) for k in ("types", "labels", "functions")}
        data["members"] = [list(m) for m in sorted(self.members)]
        data["valued"] = sorted(self.valued)
        return json.dumps(data, indent=1)

    @classmethod
    def from_json(cls, text: str) -> Names:
        data = json.loads(text)
        return cls(set(data["types"]), set(data["labels"]), set(data["functions"]),
                   {(t, e) for t, e in data.get("members", [])}, set(data.get("valued", [])))


def stub_root(sources: CannSources, arch: KernelArch) -> Path:
    return cache_root() / "kernel-intrinsics" / f"{sources.content_key('asc-devkit')}-{arch.npu_arch}-v{FORMAT}"


def intrinsic_dir(sources: CannSources, arch: KernelArch) -> Path | None:
    """The dir holding stub_fun.h for `arch`: None for a toolkit (its own is on the include path)."""
    if sources.kind == "toolkit":
        return None
    root = stub_root(sources, arch)
    if not (root / HEADER).is_file():
        with held_lock(root / ".lock"):
            if not (root / HEADER).is_file():
                _write(root, sources, arch, _load(root))
    return root


def declarations_digest(header: bytes) -> str:
    """What a cached compile or build remembers of the declarations it saw: a failure stands only under the same
    ones, as a name declared since may make it compile; a pass stands under any later, larger set."""
    return hashlib.sha256(header).hexdigest()[:16]


def learn(sources: CannSources, arch: KernelArch, output: str) -> bool:
    """Declare every name g++ reported undeclared inside asc-devkit; True when something new was learned
    (the caller recompiles), False when the failure is not a missing declaration."""
    if sources.kind == "toolkit":
        return False
    found = undeclared(output, sources.repo("asc-devkit"), sources.repo("asc-tools"))
    root = stub_root(sources, arch)
    with held_lock(root / ".lock"):
        names = _load(root)
        new = found.new_in(names)
        if not new.all() and not new.members and not new.valued:
            return False
        names.merge(new)
        _write(root, sources, arch, names)
    return True


def undeclared(output: str, *roots: Path) -> Names:
    """The names g++ says are undeclared at a location inside `roots` (asc-devkit, and asc-tools' cpudebug
    headers that use the same intrinsic types), sorted into kinds by how the source uses them there."""
    names = Names()
    base = tuple(str(root.resolve()) + os.sep for root in roots)
    texts: dict[str, list[str]] = {}
    for match in _DIAGNOSTIC.finditer(output):
        message, path = match.group("message"), os.path.abspath(match.group("file"))
        if not path.startswith(base):
            continue  # the op's own files (or the wrapper): never learned from
        if path not in texts:
            texts[path] = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
        row, col = int(match.group("line")) - 1, int(match.group("col")) - 1
        member, converted = _MEMBER.match(message), _CONVERT.match(message)
        name_match = _NAME.search(message)
        if member is not None:
            names.members.add((member.group("type"), member.group("member")))
        elif converted is not None:
            names.valued.add(converted.group(1))
        elif message.startswith(("expected ')' before", "expected \u2018)\u2019 before")):
            # `(Name)0`: a C-style cast to an undeclared type parses as a parenthesised expression
            cast = _CAST.search(texts[path][row][:col]) if row < len(texts[path]) else None
            if cast is not None:
                names.types.add(cast.group(1))
        elif any(marker in message for marker in _UNDECLARED) and name_match is not None:
            _classify(names, name_match.group("name"), message, _after(texts[path], row, col, name_match.group("name")))
    return names


def _classify(names: Names, name: str, message: str, after: str) -> None:
    """A call (or a name g++ says needs a declaration for a call) is an intrinsic, unless it names a type
    (`_t`: a functional cast); a name used as a type is a type; anything else is an enumerator."""
    if "there are no arguments to" in message or "argument-dependent lookup" in message or after.startswith("("):
        (names.types if name.endswith("_t") else names.functions).add(name)
    elif "does not name a type" in message or "has not been declared" in message or name.endswith("_t"):
        names.types.add(name)
    else:
        names.labels.add(name)


def _after(lines: list[str], row: int, col: int, name: str) -> str:
    """The source text after the name g++ points at (its first whole-word use from that line on), up to a
    few lines further: a call's `(` may sit on the next line."""
    text = "\n".join(lines[row:row + 4])
    word = re.compile(rf"\b{re.escape(name)}\b")
    found = word.search(text, col) or word.search(text)
    return text[found.end():].lstrip() if found else ""


def _load(root: Path) -> Names:
    path = root / "names.json"
    return Names.from_json(path.read_text(encoding="utf-8")) if path.is_file() else Names()


def _write(root: Path, sources: CannSources, arch: KernelArch, names: Names) -> None:
    from .typed import typed_signatures

    typed = typed_signatures(sources.repo("asc-devkit"), arch.npu_arch)
    text = render_header(names, typed, references=arch.npu_arch in REFERENCE_ARCHES)
    for name, data in (("names.json", names.to_json()), (HEADER, text)):
        part = root / f"{name}.part{os.getpid()}"
        part.write_text(data, encoding="utf-8")
        part.replace(root / name)


LABEL_TYPE = """namespace opgen_stub {
// an enumerator whose enum is not known: a distinct constant that becomes any enum or integer type
struct Label {
    long long value;
    template <typename T, typename = std::enable_if_t<std::is_enum_v<T> || std::is_integral_v<T>>>
    constexpr operator T() const { return static_cast<T>(value); }
};
// the result of an intrinsic that initialises a register or enum value: becomes whatever it initialises
struct Value {
    template <typename T>
    operator T() const;
};
template <typename T>
constexpr bool kLabelOperand = std::is_enum_v<T> || std::is_integral_v<T>;
#define OPGEN_LABEL_COMPARE(op)                                                                 \\
    template <typename T, typename = std::enable_if_t<kLabelOperand<T>>>                        \\
    constexpr bool operator op(Label a, T v) { return static_cast<T>(a.value) op v; }           \\
    template <typename T, typename = std::enable_if_t<kLabelOperand<T>>>                        \\
    constexpr bool operator op(T v, Label a) { return v op static_cast<T>(a.value); }           \\
    constexpr bool operator op(Label a, Label b) { return a.value op b.value; }
OPGEN_LABEL_COMPARE(==)
OPGEN_LABEL_COMPARE(!=)
OPGEN_LABEL_COMPARE(<)
OPGEN_LABEL_COMPARE(>)
OPGEN_LABEL_COMPARE(<=)
OPGEN_LABEL_COMPARE(>=)
#undef OPGEN_LABEL_COMPARE
} // namespace opgen_stub
"""


def render_header(names: Names, typed: dict[str, list[tuple[str, ...]]], *, references: bool = False) -> str:
    """stub_fun.h: enum types, labels, then intrinsics (typed where asc-devkit shows the types; with `references`
    the trailing arguments are forwarding references)."""
    rest = "Args&&... args" if references else "Args... args"
    out = ["// Intrinsic declarations derived by opgen from asc-devkit's diagnostics (see kernel/intrinsics.py).",
           "#ifndef OPGEN_STUB_FUN_H", "#define OPGEN_STUB_FUN_H", "#include <cstdint>", "#include <type_traits>",
           LABEL_TYPE]
    enumerators = {e for _, e in names.members}
    value = 1000
    for name in sorted(names.types | {t for t, _ in names.members}):
        members = sorted(e for t, e in names.members if t == name)
        body = ", ".join(f"{e} = {value + i}" for i, e in enumerate(members))
        value += len(members)
        out.append(f"enum {name} : int64_t {{{body}}};")
    labels = names.labels | (EVENT_IDS if names.labels & EVENT_IDS else frozenset())
    for name in sorted(labels - enumerators - names.types - names.functions):
        out.append(f"constexpr opgen_stub::Label {name}{{{value}}};")
        value += 1
    for name in sorted(names.functions):
        result = "opgen_stub::Value" if name in names.valued else "int64_t"
        signatures = typed.get(name)
        if not signatures:
            out.append(f"template <typename... Args> {result} {name}({rest});")
            continue
        for params in signatures:
            out.append(f"template <typename... Args> {result} {name}({', '.join(params)}, {rest});")
    out.append("#endif // OPGEN_STUB_FUN_H")
    return "\n".join(out) + "\n"
