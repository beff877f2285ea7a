"""`build_prefix`: everything ops-nn's `build.sh -u --ophost` and `--opapi` need instead of a toolkit, built
once per sources state. The entry holds `ascend/` (ASCEND_HOME_PATH) and `third_party/` (--cann_3rd_lib_path); its
BUILT stamp is written last, so an interrupted build is resumed, never taken for a finished one."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from .. import progress
from ..cann_sources import CannSources, stage_dir
from ..errors import OpgenError
from ..jobs import JOBS
from ..locks import held_lock
from . import headers, layout, libraries, nnopbase, opbuild, protobuf, stub_libs, third_party, toolkit
from .libraries import C_SEC_LIBRARY

PREFIX_LAYOUT = "5"  # bump when what a prefix holds changes
# what a cold build cost on 2 cores at -j2, told before it starts: 6.4 min at load 2 on 2026-12-07 (protobuf 45 s,
# ops-nn's UT framework 214 s, nnopbase 111 s, the rest under 15 s)
ESTIMATE = ("about 6-10 min on 2 otherwise idle cores (protobuf ~1 min, ops-nn's UT framework ~4 min, nnopbase "
            "~2 min, the rest ~1 min), much longer on a busy machine")


@dataclass(frozen=True)
class Prefix:
    root: Path
    seconds: float  # the build's wall time; 0 for a cache hit

    @property
    def ascend_home(self) -> Path:
        return self.root / "ascend"

    @property
    def third_party(self) -> Path:
        return self.root / "third_party"

    @property
    def lib_dir(self) -> Path:
        return self.ascend_home / "x86_64-linux" / "lib64"

    @property
    def c_sec(self) -> Path:
        """libboundscheck as the toolkit ships it (libraries.py builds it), which the tikicpulib stand-in links."""
        return self.lib_dir / C_SEC_LIBRARY

    def build_sh_env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """What build.sh needs set instead of a sourced set_env.sh (LC_ALL=C: its log is read in English)."""
        base = os.environ if base is None else base
        libs = os.pathsep.join(filter(None, (str(self.ascend_home / "lib64"), base.get("LD_LIBRARY_PATH"))))
        return {"ASCEND_HOME_PATH": str(self.ascend_home), "LD_LIBRARY_PATH": libs, "LC_ALL": "C"}

    @property
    def build_sh_flags(self) -> tuple[str, ...]:
        """build.sh's own flag for the third_party dir, so cann-cmake, json, gtest and protobuf are not fetched."""
        return (f"--cann_3rd_lib_path={self.third_party}",)


def build_prefix(sources: CannSources, cache_dir: Path, jobs: int = JOBS) -> Prefix:
    """The prefix for these sources under `cache_dir`, built first when absent; missing sources are named
    with how to get them before anything is written."""
    if sources.kind != "src":
        raise OpgenError(f"the toolkit-shaped prefix is built from open sources (--cann-src), not {sources.origin}")
    src = sources.root
    layout.check_sources(src)
    root = layout.prefix_dir(cache_dir, src, PREFIX_LAYOUT)
    if layout.is_built(root):  # a finished prefix is only read: no lock, so readers never queue behind each other
        return Prefix(root, 0.0)
    root.mkdir(parents=True, exist_ok=True)
    with held_lock(root.with_suffix(".lock")):  # held only while building; a second run waits, then reads
        if layout.is_built(root):
            return Prefix(root, 0.0)
        start = time.perf_counter()
        prefix = Prefix(root, 0.0)
        work = root / "work"
        with progress.step("prefix: protobuf (ABI 0)"):
            pb = protobuf.build_protobuf(layout.protobuf_dir(cache_dir), jobs)
        with progress.step("prefix: headers, toolkit layout, cann-cmake, json"):
            headers.lay_out_headers(src, prefix.ascend_home)
            headers.link_kernel_tiling(stage_dir(sources), prefix.ascend_home)
            toolkit.lay_out_toolkit(src, prefix.ascend_home)
            third_party.lay_out_copies(src, prefix.third_party)
        with progress.step("prefix: googletest (ABI 0)"):
            third_party.build_gtest(src, prefix.third_party, work, jobs)
        with progress.step("prefix: stub libraries"):
            stub_libs.build_stub_libraries(prefix.lib_dir, work / "stubs")
        with progress.step("prefix: ops-nn's UT framework and libopgen_cann.so"):
            framework = libraries.install_libraries(sources, pb, prefix.lib_dir, jobs)
        with progress.step("prefix: op_build"):
            opbuild.build_op_build(sources, framework, prefix.ascend_home, work / "opbuild", jobs)
        with progress.step("prefix: libnnopbase"):
            nnopbase.build_nnopbase(sources, framework, protobuf.include_dir(pb), prefix.ascend_home,
                                    work / "nnopbase", jobs)
        (root / "BUILT").write_text("built\n")
        return Prefix(root, time.perf_counter() - start)
