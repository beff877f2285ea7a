"""A tikicpulib stand-in made of opgen's CPU model, so ops-nn's own `build.sh -u --opkernel` builds and runs kernel UTs
with no toolkit.

A toolkit's tikicpulib is a CMake package of `tikicpulib::<soc>` targets: the CPU-debug defines of the SoC's arch, the
headers, and libraries holding the intrinsic bodies and the launch framework (`ICPU_RUN_KF` forks one process per
core). Its open half is asc-tools' `cpudebug` (the headers and `src/regfwk`); the closed half (the intrinsic bodies,
`stub_fun.h`, a few launch functions) is what the kernel tier's CPU model stands for. Per arch the stand-in holds:

- a prelude force-included into the units of the UT's object library (the kernel and the test cases; not the UT
  exe's main, which includes metadef's graph types that clash with the CPU-debug headers): kernel_operator.h, the
  closed launch declarations, the model's intrinsic definitions and the bindings of each declared intrinsic to them
  (`run_build.bindings_source`);
- a static library: regfwk's four sources, the model's closed symbols (`cpu_model/closed_symbols.cpp`) and the
  closed launch functions (`cpu_model/tikicpulib.cpp`);
- the declarations are the kernel tier's derived `stub_fun.h` (`intrinsics.intrinsic_dir`), which grows as kernels
  are compiled: `prepare` refreshes the prelude's bindings from it on every run.

`prepare(...)` writes a targets file defining `tikicpulib::<soc>` for the SoCs asked; the prefix's
tikicpulib config includes the file `OPGEN_TIKICPULIB_TARGETS` names (see cann_prefix/toolkit.py).
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from ... import progress
from ...cann_sources import CannSources, cache_root
from ...errors import OpgenError
from ...locks import held_lock
from ...plan import RenderPlan
from ...spec.socs import SOCS
from ..bounded import run_bounded, run_tool
from .build import BASE_FLAGS, COMMON_DEFINES, KernelArch, KernelVariant, kernel_sources, kernel_variants, soc_arch
from .intrinsics import HEADER, intrinsic_dir, learn
from .run_build import (
    BINDINGS,
    MAX_ROUNDS,
    OPTIMIZE,
    REGISTER_MODEL,
    bindings_source,
    model_dir,
    model_key,
)
from .tier import compile_variant, kernel_tier

ENV = "OPGEN_TIKICPULIB_TARGETS"  # the targets file the prefix's tikicpulib config includes
PRELUDE = "opgen_tikicpulib_prelude.h"
LIBRARY = "libopgen_tikicpulib.a"
# kern_fwk.h's npu checks (AscendCKernelBegin ...) are closed tikicpulib functions: off, as asc-tools allows
DEFINES = ("ASCENDC_NPUCHK_OFF",)
REGFWK = ("stub_base.cpp", "stub_reg.cpp", "stub_backtrace.cpp", "kernel_print_lock.cpp")
MODEL_UNITS = ("closed_symbols.cpp", "tikicpulib.cpp")
TIMEOUT = 900


def targets_file(sources: CannSources, socs: dict[str, KernelArch]) -> Path:
    """Where `prepare` writes the targets of these SoCs (known before it runs: a command line can name it)."""
    return _root(sources) / f"tikicpulib-targets-{'-'.join(sorted(socs))}.cmake"


def prepare(sources: CannSources, socs: dict[str, KernelArch], c_sec: Path) -> Path:
    """The targets file defining `tikicpulib::<soc>` for each SoC (its kernel-UT name -> its arch), each arch's
    library built first when absent (cached by model, sources and arch)."""
    blocks = []
    for soc, arch in sorted(socs.items()):
        arch_dir = _arch_dir(sources, arch, _root(sources) / str(arch.npu_arch))
        blocks.append(_target(soc, arch, sources, arch_dir, c_sec))
    targets = targets_file(sources, socs)
    _write_if_changed(targets, "# opgen's tikicpulib stand-in: one target per SoC (opgen/check/kernel/tikicpulib.py)\n"
                      + "".join(blocks))
    return targets


def kernel_ut_socs(soc: str) -> dict[str, KernelArch]:
    """The kernel-UT SoC name ops-nn's AddOpTestCase takes for `soc` -> its arch (empty when it has none)."""
    known, arch = SOCS.get(soc), soc_arch(soc)
    return {known.kernel_ut_soc: arch} if known is not None and known.kernel_ut_soc and arch is not None else {}


def build_sh_env(targets: Path) -> dict[str, str]:
    """What `build.sh -u --opkernel` needs beside the prefix's environment: the targets, and `python3` being opgen's
    interpreter (the UTs' gen_data.py and compare_data.py need numpy, bfloat16 goldens torch)."""
    return {ENV: str(targets), "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}


def _root(sources: CannSources) -> Path:
    return cache_root() / "tikicpulib" / f"{model_key()}-{sources.content_key('asc-devkit', 'asc-tools')}"


def declare_kernel(sources: CannSources, plan: RenderPlan, op_dir: Path, soc: str) -> list[str]:
    """Compile the op's kernel for `soc` as the kernel tier's compile level does (cached), so the declarations the
    stand-in's prelude binds hold every intrinsic it calls; the rows of the variants that did not compile."""
    only_soc = dataclasses.replace(plan, socs=tuple(s for s in plan.socs if s.name == soc))
    return [f"{row.item}: {row.reason}" for row in kernel_tier(op_dir, only_soc, sources) if row.status != "pass"]


def declare_upstream_kernel(sources: CannSources, plan: RenderPlan, upstream_dir: Path, soc: str) -> None:
    """Compile upstream's kernel units for `soc` (the first of its variants) so the declarations hold what they call
    beyond the generated kernel (HardSwishGradV2's reaches matmul helpers); a unit that does not compile here still
    declared what it could, and its UT build says the rest."""
    variant = next((v for v in kernel_variants(plan) if isinstance(v, KernelVariant) and v.soc == soc), None)
    compiler = shutil.which("g++")
    if variant is None or compiler is None:
        return
    for unit in kernel_sources(upstream_dir):
        compile_variant(compiler, upstream_dir, plan, unit, variant, sources, "upstream")


def _arch_dir(sources: CannSources, arch: KernelArch, arch_dir: Path) -> Path:
    if intrinsic_dir(sources, arch) is None:
        raise OpgenError("the tikicpulib stand-in is built from the open sources (--cann-src); a toolkit has its own")
    include = arch_dir / "include"
    register = REGISTER_MODEL.get(arch.npu_arch)
    prelude = "\n".join([
        "// opgen's tikicpulib stand-in, force-included into each unit of a kernel UT (check/kernel/tikicpulib.py)",
        "#pragma once", '#include "kernel_operator.h"', '#include "tikicpulib_closed.h"', '#include "intrinsics.h"',
        *([f'#include "{register}.h"'] if register else []), f'#include "{BINDINGS}"', ""])
    with held_lock(arch_dir.with_suffix(".lock")):
        library = arch_dir / LIBRARY
        if not library.is_file():
            with progress.step(f"CPU model: tikicpulib stand-in for arch {arch.npu_arch}"):
                _build_library(sources, arch, library)
        # after the library's compiles, which may have declared more (the launch framework's intrinsics)
        _write_if_changed(include / PRELUDE, prelude)
        _write_if_changed(include / BINDINGS, bindings_source((_stubs(sources, arch) / HEADER).read_text(),
                                                              arch.npu_arch))
    return arch_dir


def _stubs(sources: CannSources, arch: KernelArch) -> Path:
    stubs = intrinsic_dir(sources, arch)
    assert stubs is not None  # _arch_dir refused a toolkit
    return stubs


def _include_dirs(sources: CannSources, arch: KernelArch, arch_dir: Path) -> list[Path]:
    return [_stubs(sources, arch), *sources.kernel_include_dirs(), model_dir(), arch_dir / "include"]


def _build_library(sources: CannSources, arch: KernelArch, library: Path) -> None:
    """regfwk and the model's closed symbols for `arch`, declaring what asc-devkit and asc-tools' headers call as the
    kernel tier does (`intrinsics.learn`)."""
    regfwk = sources.repo("asc-tools") / "cpudebug/src/regfwk"
    units = [*(regfwk / name for name in REGFWK), *(model_dir() / name for name in MODEL_UNITS)]
    flags = [*BASE_FLAGS, "-c", "-fPIC", OPTIMIZE, *COMMON_DEFINES, *arch.defines, *(f"-D{d}" for d in DEFINES),
             *(f"-I{d}" for d in _include_dirs(sources, arch, library.parent))]
    with tempfile.TemporaryDirectory(prefix="opgen-tikicpulib-") as scratch:
        objects = [Path(scratch) / f"{unit.stem}.o" for unit in units]
        for unit, obj in zip(units, objects, strict=True):
            for _ in range(MAX_ROUNDS):
                done = run_bounded(["nice", "-n", "10", "g++", *flags, str(unit), "-o", str(obj)], timeout=TIMEOUT)
                if done.failure is not None:
                    raise OpgenError(f"the tikicpulib stand-in's {unit.name}: g++ {done.failure}")
                if done.returncode == 0 or not learn(sources, arch, done.stderr):
                    break
            if done.returncode != 0:
                error = next((line for line in done.stderr.splitlines() if "error" in line), done.stderr[-400:])
                raise OpgenError(f"the tikicpulib stand-in's {unit.name} did not compile for arch {arch.npu_arch}: "
                                 f"{error}")
        library.parent.mkdir(parents=True, exist_ok=True)
        part = library.with_name(f"{library.name}.part{os.getpid()}")
        run_tool(["ar", "rcs", str(part), *map(str, objects)])
        part.replace(library)


def _target(soc: str, arch: KernelArch, sources: CannSources, arch_dir: Path, c_sec: Path) -> str:
    defines = [d.removeprefix("-D") for d in (*COMMON_DEFINES, *arch.defines)] + list(DEFINES)
    return f"""
if(NOT TARGET tikicpulib::{soc})
    add_library(tikicpulib::{soc} INTERFACE IMPORTED)
    set_target_properties(tikicpulib::{soc} PROPERTIES
        INTERFACE_INCLUDE_DIRECTORIES "{_cmake_list(_include_dirs(sources, arch, arch_dir))}"
        INTERFACE_COMPILE_DEFINITIONS "{_cmake_list(defines)}"
        INTERFACE_COMPILE_OPTIONS "-w;$<$<STREQUAL:$<TARGET_PROPERTY:TYPE>,OBJECT_LIBRARY>:SHELL:-include {
            arch_dir / "include" / PRELUDE}>"
        INTERFACE_LINK_LIBRARIES "{_cmake_list([arch_dir / LIBRARY, c_sec, 'pthread', 'dl'])}")
endif()
"""


def _cmake_list(items: Iterable[object]) -> str:
    return ";".join(str(item) for item in items)


def _write_if_changed(path: Path, text: str) -> None:
    """Unchanged files keep their mtime, so ops-nn's build does not recompile every kernel UT on each run."""
    if path.is_file() and path.read_bytes() == text.encode():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f"{path.name}.part{os.getpid()}")
    part.write_text(text, encoding="utf-8")
    part.replace(path)
