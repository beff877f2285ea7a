"""The third_party dir build.sh takes as `--cann_3rd_lib_path`: what is found there is not downloaded.

ops-nn's cmake/third_party/fetch_cann_cmake.cmake takes `cann-cmake` from it, and cann-cmake's json.cmake
takes `lib_cache/json`; both are plain copies of the sources dir. gtest and protobuf (built with ABI 0)
are not laid out here yet.
"""

from __future__ import annotations

import shutil
from pathlib import Path


def lay_out_copies(cann_src: Path, third_party: Path) -> None:
    """Copy cann-cmake and json's headers into `third_party` where ops-nn's cmake looks; kept if present."""
    if not (third_party / "cann-cmake").exists():
        shutil.copytree(cann_src / "cmake", third_party / "cann-cmake", symlinks=True)
    json_include = third_party / "lib_cache" / "json" / "include"
    if not json_include.exists():
        shutil.copytree(cann_src / "json" / "include", json_include, symlinks=True)
