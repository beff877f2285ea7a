"""A launcher for a kernel entry that is a template over `ASCENDC_TPL_ARGS_DECL` arguments (upstream's own kernels,
whose TPL names and argument lists opgen's plan does not know).

The host code encodes its tiling key with asc-devkit's `EncodeTilingKey` (impl/utils/tiling/template_argument.cpp):
the arguments in declaration order, each in its declared bit width from bit 0 up; a UINT argument as the index of
its value in the declared list (ranges expanded), a DTYPE / FORMAT / BOOL argument as its value. The launcher decodes
each key the host code gave into the template arguments of the entry and instantiates just those. The declaration is
read through the preprocessor with the kernel build's own include dirs, so macros in it (`TPL_NONE`,
`BRC_TEMP_SCH_MODE_KEY_DECL(schMode)`, `ASCENDC_TPL_UI_LIST`) are expanded as the compiler expands them.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...cann_sources import CannSources
from ...plan.kernel.broadcast import SCH_MODE_ONE_DIM_ADVANCE
from ...spec.dtypes import DTYPES
from ..bounded import BoundedRun, compile_memory, compile_timeout, run_bounded
from .build import KernelVariant, compile_command
from .intrinsics import intrinsic_dir

_DECL_CALL = "ASCENDC_TPL_ARGS_DECL"
_MARK = "opgen_tpl_args"
SCH_MODE_ARG = "schMode"  # the argument opbase's BRC_TEMP_SCH_MODE_KEY_DECL(schMode) declares, as upstream names it
# each declaration kind, redefined to print its kind, name, bit width (template_argument.h's) and values
_KINDS = ("ASCENDC_TPL_UINT_DECL(x, bw, ...) [UINT x bw __VA_ARGS__]",
          "ASCENDC_TPL_DTYPE_DECL(x, ...) [DTYPE x ASCENDC_TPL_8_BW __VA_ARGS__]",
          "ASCENDC_TPL_DATATYPE_DECL(x, ...) [DTYPE x ASCENDC_TPL_8_BW __VA_ARGS__]",
          "ASCENDC_TPL_FORMAT_DECL(x, ...) [FORMAT x ASCENDC_TPL_8_BW __VA_ARGS__]",
          "ASCENDC_TPL_BOOL_DECL(x, ...) [BOOL x ASCENDC_TPL_1_BW __VA_ARGS__]")
_ARG = re.compile(r"\[\s*(UINT|DTYPE|FORMAT|BOOL)\s+(\w+)\s+\(?\s*(\d+)\s*\)?\s*([^\]]*)\]")
_ENTRY = re.compile(r"(?:template\s*<(?P<params>[^>]*)>\s*)?__global__\s+__aicore__\s+void\s+(?P<name>\w+)\s*\(")
_UI = re.compile(r"opgen_ui\s+(\d+)\s+(\d+)\s+(\d+)")  # ASCENDC_TPL_UI_RANGE, _LIST, _MIX
_TILING_DEF = re.compile(r"BEGIN_TILING_DATA_DEF\((\w+)\)(.*?)END_TILING_DATA_DEF", re.S)
_TILING_FIELD = re.compile(r"TILING_DATA_FIELD_DEF(?:_ARR)?\(\s*(\w+)\s*,\s*(?:(\w+)\s*,\s*)?(\w+)\s*\)")
_CONSTANT = re.compile(r"(?:constexpr\s+[\w:]+\s+|#define\s+)(\w+)\s*=?\s*(\d+)\b")
C_TYPES = "inc/external/graph/c_types.h"  # metadef: the dtype numbers a DATATYPE argument holds


@dataclass(frozen=True)
class TplArg:
    """One declared template argument: `values` are a UINT's selectable values, in declaration order."""

    name: str
    kind: str
    bits: int
    values: tuple[int, ...]


def declaration(kernel_dir: Path, entry: Path) -> Path | None:
    """The header declaring the entry's TPL arguments: the one the entry names, else the only one."""
    found = [p for p in sorted(kernel_dir.rglob("*.h")) if _DECL_CALL in p.read_text(errors="replace")]
    named = [p for p in found if p.name in entry.read_text(errors="replace")]
    return (named or found)[0] if len(named) == 1 or len(found) == 1 else None


def read_args(sources: CannSources, variant: KernelVariant, op_dir: Path, entry: Path,
              header: Path) -> tuple[TplArg, ...] | str:
    """The declared arguments, in order, or why they could not be read (the entry is preprocessed first: the
    header may use macros only the entry's other includes define)."""
    call = _call_text(header.read_text(errors="replace"))
    if call is None:
        return f"{header.name}: no {_DECL_CALL}(...)"
    probe = "\n".join([f'#include "{entry}"', f'#include "{header}"',
                       f"#undef {_DECL_CALL}", f"#define {_DECL_CALL}(name, ...) {_MARK} __VA_ARGS__",
                       *(f"#undef {d.split('(')[0]}\n#define {d}" for d in _KINDS),
                       "opgen_ui ASCENDC_TPL_UI_RANGE ASCENDC_TPL_UI_LIST ASCENDC_TPL_UI_MIX", call, ""])
    done = _preprocessed(sources, variant, op_dir, probe)
    if done.failure is not None:
        return f"{header.name}: the preprocessor {done.failure}"
    if done.returncode != 0:
        return f"{header.name}: the preprocessor failed: {done.stderr.strip()[:300]}"
    text = done.stdout[done.stdout.rfind("opgen_ui"):]
    modes = _UI.search(text)
    args = _ARG.findall(text[text.find(_MARK):])
    if modes is None or not args:
        return f"{header.name}: {_DECL_CALL}(...) did not expand to arguments opgen reads"
    ui_range, ui_list, ui_mix = (int(v) for v in modes.groups())
    read = []
    for kind, name, bits, rest in args:
        numbers = [int(v, 0) for v in re.findall(r"0[xX][0-9a-fA-F]+|\d+", rest)]
        values = _uint_values(numbers, ui_range, ui_list, ui_mix) if kind == "UINT" else ()
        read.append(TplArg(name, kind, int(bits), values))
    return tuple(read)


@dataclass(frozen=True)
class EntryForm:
    """The kernel entry the compile takes (after `#ifdef __CCE_KT_TEST__` and the like): its name, and for a template
    which of its parameters are types."""

    name: str
    template: bool
    type_params: tuple[bool, ...]


def entry_form(sources: CannSources, variant: KernelVariant, op_dir: Path, entry: Path) -> EntryForm | str:
    """The entry's form as the kernel build sees it: directives run (macros unexpanded), the last entry defined."""
    done = _preprocessed(sources, variant, op_dir, f'#include "{entry}"\n', "-fdirectives-only")
    if done.failure is not None:
        return f"{entry.name}: the preprocessor {done.failure}"
    if done.returncode != 0:
        return f"{entry.name}: the preprocessor failed: {done.stderr.strip()[:300]}"
    found = list(_ENTRY.finditer(done.stdout))
    if not found:
        return f"{entry.name}: no __global__ __aicore__ entry"
    last = found[-1]
    params = last.group("params")
    return EntryForm(last.group("name"), params is not None,
                     tuple(p.split()[0] in ("typename", "class") for p in params.split(",")) if params else ())


def _preprocessed(sources: CannSources, variant: KernelVariant, op_dir: Path, unit_text: str,
                  *mode: str) -> BoundedRun:
    """g++ -E of a unit with the kernel build's defines and include dirs, bounded as every preprocess is."""
    with tempfile.TemporaryDirectory(prefix="opgen-tpl-") as scratch:
        unit = Path(scratch) / "probe.cpp"
        unit.write_text(unit_text)
        command = compile_command("g++", unit, variant, sources, op_dir, intrinsic_dir(sources, variant.arch),
                                  ("-E", "-P", *mode))
        return run_bounded(command, timeout=compile_timeout(), memory=compile_memory())


def template_arguments(args: Sequence[TplArg], key: int) -> tuple[int, ...] | None:
    """The entry's template arguments a tiling key selects (None: it selects no declared value)."""
    chosen, shift = [], 0
    for arg in args:
        field = (key >> shift) & ((1 << arg.bits) - 1)
        shift += arg.bits
        if arg.kind == "UINT":
            if field >= len(arg.values):
                return None
            chosen.append(arg.values[field])
        else:
            chosen.append(field)
    return tuple(chosen) if key >> shift == 0 else None


@dataclass(frozen=True)
class TplLauncher:
    """The launcher source and the instantiations it odr-uses (the compile wrapper lists them)."""

    source: str
    instantiations: tuple[str, ...]


def dtype_types(sources: CannSources) -> dict[int, str]:
    """ge's dtype numbers (metadef's c_types.h `C_DT_*`) -> the AscendC type a kernel computes them in."""
    text = (sources.repo("metadef") / C_TYPES).read_text(errors="replace")
    by_ge = {d.ge: d.kernel for d in DTYPES.values()}
    return {int(number): by_ge[f"DT_{name}"] for name, number in re.findall(r"\bC_DT_(\w+)\s*=\s*(\d+)", text)
            if f"DT_{name}" in by_ge}


def tpl_launcher(entry: str, arg_count: int, args: Sequence[TplArg], keys: Iterable[int],
                 type_params: Sequence[bool] = (), types: Mapping[int, str] | None = None) -> TplLauncher:
    """`opgen_launch` dispatching each key the host code gave to the entry instantiation it decodes to (a key that
    decodes to none reaches the launcher's "no kernel path"). A type parameter gets the type of its dtype number."""
    call = ", ".join(f"args[{k}]" for k in range(arg_count))
    cases, named = [], []
    for key in sorted(set(keys)):
        chosen = template_arguments(args, key)
        if chosen is not None:
            shown = [(types or {}).get(v, f"opgen_unknown_dtype_{v}") if k < len(type_params) and type_params[k]
                     else f"{v}ULL" for k, v in enumerate(chosen)]
            named.append(f"{entry}<{', '.join(shown)}>")
            mode = dict(zip((a.name for a in args), chosen, strict=True)).get(SCH_MODE_ARG)
            cases.append(f"    case {key}ULL: {launch_call(named[-1], call, mode)} return;")
    return TplLauncher("\n".join(dispatch_lines(cases)), tuple(f"&{n}" for n in dict.fromkeys(named)))


def entry_launcher(op_dir: Path, variant: KernelVariant, sources: CannSources, arg_count: int,
                   keys: Sequence[int]) -> TplLauncher | str:
    """The launcher of the op dir's entry of the variant's family: a plain call, or for a template over the op's own
    TPL arguments the instantiations the keys decode to; or why it cannot be made."""
    entry = op_dir / variant.family.kernel_entry
    if not entry.is_file():
        return f"no {variant.family.kernel_entry}"
    form = entry_form(sources, variant, op_dir, entry)
    if isinstance(form, str):
        return form
    if not form.template:
        return plain_launcher(form.name, arg_count)
    header = declaration(op_dir / "op_kernel", entry)
    if header is None:
        return "its entry is a template, and no one header under op_kernel declares its ASCENDC_TPL_ARGS_DECL"
    args = read_args(sources, variant, op_dir, entry, header)
    if isinstance(args, str):
        return args
    return tpl_launcher(form.name, arg_count, args, keys, form.type_params, dtype_types(sources))


@dataclass(frozen=True)
class UpstreamEntry:
    """How ops-nn's own kernel builds in the harness: its launcher, the kernel-side structs of the tiling data its
    host declares (`kernel_tiling_structs`) and the one its host registers for the op, which `GET_TILING_DATA`
    fills (`registered_tiling_struct`)."""

    launcher: TplLauncher
    tiling_structs: str
    tiling_default: str | None


def kernel_tiling_structs(op_dir: Path) -> str:
    """The plain structs the op compiler derives for the kernel from op_host's `BEGIN_TILING_DATA_DEF(Name)` ...
    `END_TILING_DATA_DEF` (fields in order, as ops-nn's kernel UTs spell them out by hand), for each struct the
    kernel sources use and do not define themselves."""
    kernel = "\n".join(p.read_text(errors="replace") for p in sorted((op_dir / "op_kernel").rglob("*"))
                       if p.suffix in (".h", ".cpp"))
    structs = []
    for header in sorted((op_dir / "op_host").rglob("*.h")):
        text = header.read_text(errors="replace")
        constants = dict(_CONSTANT.findall(text))  # array sizes named by the header's constants
        for name, body in _TILING_DEF.findall(text):
            if not re.search(rf"\b{name}\b", kernel) or re.search(rf"\bstruct\s+{name}\b", kernel):
                continue
            fields = [f"    {kind} {field}{f'[{constants.get(count, count)}]' if count else ''};"
                      for kind, count, field in _TILING_FIELD.findall(body)]
            structs.append("\n".join([f"struct {name} {{", *fields, "};"]))
    return "\n".join(["#include <cstdint>", *structs]) if structs else ""


def registered_tiling_struct(op_dir: Path, op_type: str, entry: Path) -> str | None:
    """The tiling struct `GET_TILING_DATA` fills: the entry's `REGISTER_TILING_DEFAULT(Struct)`, else the one op_host
    registers for the op (`REGISTER_TILING_DATA_CLASS(OpType, Struct)`), if any."""
    if found := re.search(r"REGISTER_TILING_DEFAULT\(\s*([\w:]+)\s*\)", entry.read_text(errors="replace")):
        return found.group(1)
    pattern = re.compile(rf"REGISTER_TILING_DATA_CLASS\(\s*{op_type}\s*,\s*(\w+)\s*\)")
    for header in sorted((op_dir / "op_host").rglob("*.h")):
        if found := pattern.search(header.read_text(errors="replace")):
            return found.group(1)
    return None


def launch_call(instance: str, call: str, sch_mode: int | None) -> str:
    """One launch of an entry instantiation. schMode 202 (`BroadcastOneDimAdvanceSch`) builds no TPipe: it addresses
    UB from 0 itself. An API popping a temporary from the TPipe stack there (`Erf`) reads a pipe the NPU does not
    have, and CPU-debug asserts. That launch gets an empty TPipe in its place, so the popped temporary is the whole
    UB, over the schedule's own buffers: a result that depends on the temporary is clobbered and fails; one that does
    not (3510's `Erf` takes it for its checks only) computes as on the NPU."""
    if sch_mode == SCH_MODE_ONE_DIM_ADVANCE:
        return f"{{ AscendC::TPipe opgen_absent_pipe; {instance}({call}); }}"
    return f"{instance}({call});"


def plain_launcher(entry: str, arg_count: int) -> TplLauncher:
    """`opgen_launch` calling a plain (`extern "C"`) entry, which branches on the tiling key itself."""
    call = ", ".join(f"args[{k}]" for k in range(arg_count))
    return TplLauncher(f'extern "C" void opgen_launch(uint8_t* const* args) {{ {entry}({call}); }}', (f"&{entry}",))


def dispatch_lines(cases: Sequence[str]) -> list[str]:
    """`opgen_launch`: a switch on the tiling key over `cases`; a key no case takes exits 4 saying so."""
    return ['extern "C" void opgen_launch(uint8_t* const* args)', "{", "    switch (g_tilingKey) {", *cases, "    }",
            '    std::fprintf(stderr, "opgen: no kernel path for tiling key %llu\\n",',
            "                 (unsigned long long)g_tilingKey);", "    std::exit(4);", "}"]


def _call_text(text: str) -> str | None:
    """The first `ASCENDC_TPL_ARGS_DECL(...)` call, parentheses balanced."""
    start = text.find(_DECL_CALL + "(")
    if start < 0:
        return None
    depth = 0
    for at in range(start + len(_DECL_CALL), len(text)):
        depth += {"(": 1, ")": -1}.get(text[at], 0)
        if depth == 0:
            return text[start:at + 1]
    return None


def _uint_values(numbers: list[int], ui_range: int, ui_list: int, ui_mix: int) -> tuple[int, ...]:
    """A UINT declaration's values: a list as written; ranges (count, then lo/hi pairs) expanded, a mix's list after."""
    flag, rest = numbers[0], numbers[1:]
    if flag == ui_list:
        return tuple(rest)
    count, values = rest[0], list[int]()
    for k in range(count):
        values.extend(range(rest[1 + 2 * k], rest[2 + 2 * k] + 1))
    if flag == ui_mix:
        values.extend(rest[1 + 2 * count:])
    elif flag != ui_range:
        return ()
    return tuple(values)
