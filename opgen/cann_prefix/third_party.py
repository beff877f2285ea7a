"""The third_party dir build.sh takes as `--cann_3rd_lib_path`: what is found there is not downloaded.

ops-nn's cmake/third_party/fetch_cann_cmake.cmake takes `cann-cmake` from it, and cann-cmake's json.cmake
takes `lib_cache/json`; both are plain copies of the sources dir. gtest and protobuf (built with ABI 0)
are built: gtest by `build_gtest`; protobuf not yet.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from ..check.bounded import run_tool
from ..jobs import JOBS
from .protobuf import RELEASE_FLAGS


def lay_out_copies(cann_src: Path, third_party: Path) -> None:
    """Copy cann-cmake and json's headers into `third_party` where ops-nn's cmake looks; kept if present."""
    if not (third_party / "cann-cmake").exists():
        shutil.copytree(cann_src / "cmake", third_party / "cann-cmake", symlinks=True)
    json_include = third_party / "lib_cache" / "json" / "include"
    if not json_include.exists():
        shutil.copytree(cann_src / "json" / "include", json_include, symlinks=True)


ABI0 = "-D_GLIBCXX_USE_CXX11_ABI=0"


def build_gtest(cann_src: Path, third_party: Path, work: Path, jobs: int = JOBS) -> Path:
    """Build googletest with ABI 0 (ops-nn forces it on every UT object) into `lib_cache/gtest`, where
    cann-cmake's gtest.cmake finds it; a present libgmock_main.a means it is done."""
    dest = third_party / "lib_cache" / "gtest"
    if (dest / "lib" / "libgmock_main.a").is_file():
        return dest
    build = work / "gtest"
    run_tool(["cmake", "-S", str(cann_src / "googletest"), "-B", str(build), "-G", "Ninja",
              "-DCMAKE_BUILD_TYPE=Release", f"-DCMAKE_CXX_FLAGS={ABI0} -fPIC -O1", RELEASE_FLAGS,
              f"-DCMAKE_INSTALL_PREFIX={dest}", "-DCMAKE_INSTALL_LIBDIR=lib", "-DBUILD_SHARED_LIBS=OFF"])
    run_tool(["ninja", "-C", str(build), f"-j{jobs}", "install"])
    return dest
