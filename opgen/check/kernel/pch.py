"""kernel_operator.h precompiled once per arch and compile mode, so each kernel compile parses only the op's code.

Half or more of a kernel compile is g++ parsing asc-devkit. Every wrapper (build.wrapper_source) includes
`kernel_operator.h` first, with nothing but command-line defines before it; the variants' dtype defines
(`DTYPE_X`, `ORIG_DTYPE_X`, `FORMAT_X`) appear nowhere in asc-devkit, so one precompiled header serves every variant
of an arch (GCC: a macro defined before the include must not appear in the header). `pch_dir` builds
`kernel_operator.h.gch` next to a `kernel_operator.h` that includes the real one, in a dir the compile puts first:
g++ takes the .gch for the first include and the stub, guarded, for any later one. A .gch g++ cannot use for a unit
(the oracle's wrapper starts with a typedef) is passed over for the real header, as without one.

Keyed by the command (flags, arch defines, include dirs), the compiler and the sources' content, and the learned
intrinsic declarations (the header embeds them: a name learned since needs a new one). Built confined like any
compile; a build that fails leaves no .gch, and the compiles go on without one.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from ...cann_sources import CannSources, cache_root
from ...locks import held_lock, try_lock
from ..confined import compile_confined
from .build import BASE_FLAGS, COMMON_DEFINES, KernelVariant
from .intrinsics import HEADER, declarations_digest

HEADER_NAME = "kernel_operator.h"
TIMEOUT = 600


def pch_dir(compiler: str, variant: KernelVariant, sources: CannSources, stubs: Path | None,
            mode: Sequence[str] = ()) -> Path | None:
    """The dir to put first on a variant's include path, or None (a toolkit, or the header would not build).
    `mode`: the flags of the compile that change what the header means (`-O1`, leading `-I` dirs)."""
    if stubs is None:
        return None
    command = [compiler, *BASE_FLAGS, *mode, *COMMON_DEFINES, *variant.arch.defines,
               *(f"-I{d}" for d in [stubs, *sources.kernel_include_dirs()])]
    digest = hashlib.sha256("\0".join([*command, _version(compiler), sources.content_key("asc-devkit", "asc-tools"),
                                       declarations_digest((stubs / HEADER).read_bytes())]).encode())
    family = f"{variant.arch.npu_arch}-{hashlib.sha256(' '.join(mode).encode()).hexdigest()[:8]}"
    target = cache_root() / "kernel-pch" / f"{family}-{digest.hexdigest()[:16]}"
    if (target / f"{HEADER_NAME}.gch").is_file():
        return target
    if (target / "failed").is_file():
        return None
    try:
        with held_lock(target.with_suffix(".lock")):
            if not (target / f"{HEADER_NAME}.gch").is_file() and not (target / "failed").is_file():
                _build(command, compiler, target, [sources.root, stubs])
                _remove_older(target, family)
    except OSError:  # the cache dir went away under it: compile without one, as where none builds
        return None
    return target if (target / f"{HEADER_NAME}.gch").is_file() else None


def _remove_older(target: Path, family: str) -> None:
    """The same arch and mode's headers of older declarations; one another thread or process is still building
    (its lock held) stays."""
    for lock in target.parent.glob(f"{family}-*.lock"):
        if lock == target.with_suffix(".lock"):
            continue
        handle = try_lock(lock)
        if handle is None:
            continue
        with handle:
            shutil.rmtree(lock.with_suffix(""), ignore_errors=True)
            lock.unlink(missing_ok=True)


def _build(command: list[str], compiler: str, target: Path, allowed: list[Path]) -> None:
    target.mkdir(parents=True, exist_ok=True)
    source = target / "pch_source.h"
    source.write_text(f'#include "{HEADER_NAME}"\n', encoding="utf-8")
    part = target / f"{HEADER_NAME}.gch.part"
    done = compile_confined([*command, "-x", "c++-header", str(source), "-o", str(part)], compiler,
                            [*allowed, target], timeout=TIMEOUT)
    if done.passed:
        (target / HEADER_NAME).write_text(f'#include_next "{HEADER_NAME}"\n', encoding="utf-8")
        part.rename(target / f"{HEADER_NAME}.gch")
        return
    part.unlink(missing_ok=True)
    if not done.bounded:  # an interrupted build is tried again; a failing one is not, under the same key
        (target / "failed").write_text(done.refusal or done.stderr[-2000:], encoding="utf-8")


def with_pch(command: Sequence[str], pch: Path | None) -> list[str]:
    """The compile command with the precompiled header's dir first among its include dirs."""
    if pch is None:
        return list(command)
    first = next((k for k, arg in enumerate(command) if arg.startswith("-I")), len(command))
    return [*command[:first], f"-I{pch}", *command[first:]]


@cache
def _version(compiler: str) -> str:
    done = subprocess.run([compiler, "--version"], capture_output=True, text=True, check=False)
    return done.stdout.splitlines()[0] if done.stdout else compiler
