"""op_build, asc-devkit's generator of the aclnn sources and op info from ops' OpDefs (`tools/build/opbuild`).
ops-nn's op_api UT build runs it at configure time (`OP_BUILD_TOOL` in its cmake/variables.cmake) on the ops'
host library; a toolkit ships it at `tools/opbuild/op_build`. Built here with the framework's flags (ABI 0)
and linked against the prefix's libraries. Its objects are linked in the CMake source order: op_build's
generators register in static initialisers, and another order crashed here before main."""

from __future__ import annotations

import re
from pathlib import Path

from ..cann_sources import CannSources
from ..errors import OpgenError
from .framework import Framework, Unit, compile_units, run_command

SOURCE_DIR = "asc-devkit/tools/build/opbuild"
INSTALLED = "tools/opbuild/op_build"  # under ASCEND_HOME_PATH, where ops-nn's cmake looks
LIBRARIES = ("metadef", "opp_registry", "error_manager", "unified_dlog", "mmpa", "c_sec")


def executable_sources(cmake_file: Path, target: str) -> list[Path]:
    """The sources of `add_executable(<target> ...)`, in the order written."""
    text = cmake_file.read_text(encoding="utf-8", errors="replace")
    match = re.search(rf"\badd_executable\(\s*{re.escape(target)}\s+(?P<body>[^)]*)\)", text)
    if match is None:
        raise OpgenError(f"{cmake_file}: no add_executable({target} ...); this asc-devkit is not one opgen knows")
    return [cmake_file.parent / name for name in match.group("body").split()]


def build_op_build(sources: CannSources, framework: Framework, ascend_home: Path, work: Path, jobs: int) -> Path:
    """`<ascend_home>/tools/opbuild/op_build`, linked against `<ascend_home>/lib64` (found through its rpath)."""
    src = sources.root / SOURCE_DIR
    extra = ("-DNO_OPERATOR_IMPL", f"-I{src}", f"-I{src.parent / 'common'}")
    units = [("op_build", Unit(path, extra)) for path in executable_sources(src / "CMakeLists.txt", "op_build")]
    objects = compile_units(units, work, framework.flags, [f"-I{d}" for d in framework.include_dirs],
                            what="op_build", jobs=jobs)
    exe = ascend_home / INSTALLED
    exe.parent.mkdir(parents=True, exist_ok=True)
    lib_dir = ascend_home / "lib64"
    run_command(["g++", "-pie", "-o", str(exe), *map(str, objects), f"-L{lib_dir}",
                 *(f"-l{name}" for name in LIBRARIES), "-ldl", "-Wl,-rpath,$ORIGIN/../../lib64"], "linking op_build")
    return exe
