"""`kernel_tiling/kernel_tiling.h` as an installed toolkit has it, derived by opgen from asc-devkit's
`*tilingdata.h` headers instead of by running the sources' own generator script: a sources dir (a tarball, an
OPGEN_CANN_SRC set by a repo's env file) is data to check against, never code `opgen check` runs.

The headers declare host tiling structs with macros (BEGIN_TILING_DATA_DEF(Name), TILING_DATA_FIELD_DEF(type, name),
..._ARR(type, count, name), ..._STRUCT(type, name), END_TILING_DATA_DEF); a kernel sees them as plain packed
structs in namespace AscendC::tiling. The bytes written match the install's generator on the same headers.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from .errors import OpgenError

NAMESPACE = "AscendC::tiling"
# structs kernels written before the namespace still name unqualified: the header re-exports them with `using`
UNQUALIFIED_STRUCTS = frozenset({
    "LogSoftMaxTiling", "SoftMaxTiling", "TConv3DApiTiling", "TConv3DBpFilterTiling", "Conv3DBpFilterParams",
    "TConv3DBpFilterBasicBlockTiling", "Conv3DBackpropFilterTilingData", "TConv3DBackpropInputTiling",
    "Conv3DBackpropInputTilingData", "Mc2ServerCfg", "Mc2HcommCfg", "Mc2InitTiling", "Mc2CcTiling", "TCubeTiling",
    "BatchNormTiling", "DeepNormTiling", "GroupNormTiling", "LayerNormGradBetaTiling", "LayerNormGradTiling",
    "LayerNormTiling", "LayerNormSeparateTiling", "RmsNormTiling", "UnPadTiling", "PadTiling", "TopkTiling",
    "ConfusionTransposeTiling",
})
_ARGS = re.compile(r"\((.*)\)", re.S)  # first "(" to last ")" of the line: the macro's whole argument list
_HEAD = "#ifndef __TIKCFW_KERNEL_TILING_H_\n#define __TIKCFW_KERNEL_TILING_H_\n\n" \
        "#if defined(ASCENDC_CPU_DEBUG)\n#include <cstdint>\n#include <cstring>\n#endif\n\n" \
        "namespace AscendC {\nnamespace tiling {\n"
_TAIL = "} // namespace tiling\n} // namespace AscendC\n\n"


def kernel_tiling_header(adv_api: Path) -> str:
    """The header's text for asc-devkit's `include/adv_api` dir: every `*tilingdata.h` under it, in path order."""
    structs: list[str] = []
    exports: list[str] = []
    for path in _tiling_headers(adv_api):
        for line in read_regular(path).split("\n"):
            structs.append(_translate(line.strip(), path, exports))
    return _HEAD + "".join(structs) + _TAIL + "".join(exports) + "#endif\n"


def write_kernel_tiling_header(adv_api: Path, dest: Path) -> None:
    dest.write_text(kernel_tiling_header(adv_api), encoding="utf-8")


def _tiling_headers(adv_api: Path) -> list[str]:
    """Paths (as strings, sorted as strings: the generator's order) of the headers, not descending linked dirs."""
    found = [os.path.join(top, name) for top, _dirs, names in os.walk(adv_api) for name in names
             if name.endswith("tilingdata.h")]
    return sorted(found)


def _translate(line: str, path: str, exports: list[str]) -> str:
    """One stripped header line as its plain-struct text ("" for a line that is no tiling macro)."""
    if line.startswith("END_TILING_DATA_DEF"):
        return "};\n#pragma pack(pop)\n"
    for macro in ("BEGIN_TILING_DATA_DEF", "TILING_DATA_FIELD_DEF_ARR", "TILING_DATA_FIELD_DEF_STRUCT",
                  "TILING_DATA_FIELD_DEF"):
        if line.startswith(macro):
            break
    else:
        return ""
    args = _ARGS.search(line)
    parts = [part.strip() for part in args.group(1).split(",")] if args else []
    if macro == "BEGIN_TILING_DATA_DEF" and args:
        name = args.group(1)
        if name in UNQUALIFIED_STRUCTS:
            exports.append(f"using {NAMESPACE}::{name};\n")
        return f"#pragma pack(push, 8)\nstruct {name} {{\n"
    if macro == "TILING_DATA_FIELD_DEF_ARR" and len(parts) >= 3:
        return f"    {parts[0]} {parts[2]}[{parts[1]}] = {{}};\n"
    if macro == "TILING_DATA_FIELD_DEF_STRUCT" and len(parts) >= 2:
        return f"    {parts[0]} {parts[1]};\n"
    if macro == "TILING_DATA_FIELD_DEF" and len(parts) >= 2:
        return f"    {parts[0]} {parts[1]} = 0;\n"
    raise OpgenError(f"asc-devkit's {path}: cannot read the tiling macro in {line[:120]!r}; "
                     "the sources may be damaged: re-clone asc-devkit")


def read_regular(path: str) -> str:
    """An asc-devkit file's text; a FIFO, device or socket under that name is refused without blocking on it."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        raise OpgenError(f"asc-devkit's {path}: cannot read it ({err.strerror}); re-clone asc-devkit") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OpgenError(f"asc-devkit's {path} is not a regular file; re-clone asc-devkit")
        data = handle.read()
    try:
        return data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError:
        raise OpgenError(f"asc-devkit's {path} is not UTF-8 text; re-clone asc-devkit") from None
