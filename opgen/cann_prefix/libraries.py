"""The toolkit libraries ops-nn's op_host UT links, made from the objects of `framework.py` (ABI 0): one
source list, two users (these libraries and the kernel tier's host tiling driver).

A toolkit ships each as a shared library; here they are one, libopgen_cann.so, made of the framework's
whole archives and the ABI-0 protobuf (it links with --no-undefined), and each toolkit name links to it.
Where ge's graph and metadef both define a symbol (AscendString, TypeUtils: two copies of one code) the
first in link order is kept; a group of static archives instead failed ops-nn's link on exactly those
duplicates. c_sec is also a real library of its own: ops-nn's Findsecurec imports libc_sec.so and
libc_sec.a by path."""

from __future__ import annotations

import shutil
from pathlib import Path

from ..cann_sources import CannSources
from ..check.bounded import run_tool
from ..jobs import JOBS
from . import protobuf
from .framework import Framework, build_framework

C_SEC_LIBRARY = "libc_sec.so"

# the framework's archives that stand for toolkit libraries, in link order (users before what they use)
CORE_ARCHIVES = ("tiling_api", "graph", "protos", "metadef", "platform", "error_manager", "mmpa", "c_sec", "dlog")
SHARED = "libopgen_cann.so"
# names in ops-nn's link lines (tests/ut/op_host, tests/ut/common, cmake/ut.cmake) all served by libopgen_cann.so
GROUPED_NAMES = ("metadef", "opp_registry", "rt2_registry", "error_manager", "graph_base", "graph", "platform",
                 "tiling_api", "mmpa", "ascend_protobuf")
LOG_NAMES = ("dlog", "ascendalog")  # answered by stub_libs' sink, libunified_dlog.so


def install_libraries(sources: CannSources, protobuf_entry: Path, lib_dir: Path, jobs: int = JOBS) -> Framework:
    """Build (or reuse) the ABI-0 framework and lay its libraries out in `lib_dir`; returns the framework."""
    framework = build_framework(sources, jobs=jobs)
    lib_dir.mkdir(parents=True, exist_ok=True)
    archives = [str(framework.root / "lib" / f"lib{name}.a") for name in CORE_ARCHIVES]
    run_tool(["g++", "-shared", f"-Wl,-soname,{SHARED}", "-o", str(lib_dir / SHARED),
              "-Wl,--allow-multiple-definition", "-Wl,--no-undefined", "-Wl,--whole-archive", *archives,
              str(protobuf.library(protobuf_entry)), "-Wl,--no-whole-archive", "-lpthread", "-ldl", "-lrt"])
    for name in GROUPED_NAMES:
        _link(lib_dir / f"lib{name}.so", SHARED)
    shutil.copyfile(framework.root / "lib" / "libc_sec.a", lib_dir / "libc_sec.a")
    run_tool(["gcc", "-shared", f"-Wl,-soname,{C_SEC_LIBRARY}", "-o", str(lib_dir / C_SEC_LIBRARY),
              "-Wl,--whole-archive", str(lib_dir / "libc_sec.a"), "-Wl,--no-whole-archive"])
    for name in LOG_NAMES:
        _link(lib_dir / f"lib{name}.so", "libunified_dlog.so")
    return framework


def _link(link: Path, target: str) -> None:
    link.unlink(missing_ok=True)
    link.symlink_to(target)
