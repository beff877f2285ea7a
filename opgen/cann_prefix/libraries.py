"""The toolkit libraries ops-nn's op_host UT links, made from the objects of opgen's op_host UT framework
(`check.ophost_ut_framework`, built with ABI 0): one source list, two users.

A toolkit ships each as a shared library; here each name is a linker script grouping the framework's
archives, so the UT executable pulls exactly the members it uses (as the framework's own link does) and a
member with a dependency nobody builds costs nothing. c_sec is a real library: ops-nn's Findsecurec imports
libc_sec.so and libc_sec.a by path."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ..cann_sources import CannSources
from ..check.ophost_ut_framework import build_framework
from . import protobuf

# the framework's archives that stand for toolkit libraries, in link order (users before what they use)
CORE_ARCHIVES = ("tiling_api", "graph", "protos", "metadef", "platform", "error_manager", "mmpa", "c_sec", "dlog")
# names in ops-nn's link lines (tests/ut/op_host, tests/ut/common, cmake/ut.cmake) served by the group
GROUPED_NAMES = ("metadef", "opp_registry", "rt2_registry", "error_manager", "graph_base", "graph", "platform",
                 "tiling_api", "mmpa", "ascend_protobuf")
LOG_NAMES = ("dlog", "ascendalog")  # answered by stub_libs' sink, libunified_dlog.so


def install_libraries(sources: CannSources, protobuf_entry: Path, lib_dir: Path, jobs: int = 2) -> Path:
    """Build (or reuse) the ABI-0 framework and lay its libraries out in `lib_dir`; returns the framework root."""
    framework = build_framework(sources, jobs=jobs, abi=0)
    lib_dir.mkdir(parents=True, exist_ok=True)
    members = []
    for name in CORE_ARCHIVES:
        copy = lib_dir / f"libopgen_{name}.a"
        shutil.copyfile(framework.root / "lib" / f"lib{name}.a", copy)
        members.append(copy)
    pb = lib_dir / "libopgen_protobuf.a"
    shutil.copyfile(protobuf.library(protobuf_entry), pb)
    members.append(pb)
    script = "/* opgen cann_prefix: the toolkit library, as opgen's ABI-0 archives */\nGROUP ( " \
        + " ".join(str(m) for m in members) + " -lpthread )\n"
    for name in GROUPED_NAMES:
        (lib_dir / f"lib{name}.so").write_text(script)
    shutil.copyfile(framework.root / "lib" / "libc_sec.a", lib_dir / "libc_sec.a")
    subprocess.run(["gcc", "-shared", "-Wl,-soname,libc_sec.so", "-o", str(lib_dir / "libc_sec.so"),
                    "-Wl,--whole-archive", str(lib_dir / "libc_sec.a"), "-Wl,--no-whole-archive"],
                   check=True, capture_output=True)
    for name in LOG_NAMES:
        link = lib_dir / f"lib{name}.so"
        link.unlink(missing_ok=True)
        link.symlink_to("libunified_dlog.so")
    return framework.root
