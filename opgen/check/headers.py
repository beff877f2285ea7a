"""Headers tier: every host-side file (def, infershape, tiling, proto, op_api) compiles with
`g++ -std=c++17 -fsyntax-only` against real CANN include dirs the user gives (listed in docs/check.md); with the
open sources, the aclnn UTs (tests/ut/op_api) too, against ops-nn's op_api UT framework, until build.sh -u --opapi
can link them (the ops-nn-ut tier runs the op_host UTs).

The flags are ops-nn's own (cmake/func.cmake): `-Dgoogle=ascend_private -DLOG_CPP -DOP_SUBMOD_NAME="OPS_NN"`,
and for infershape/proto/def and tiling objects `-DOPS_UTILS_LOG_SUB_MOD_NAME="OP_PROTO"|"OP_TILING"
-DDISABLE_COMPILE_V1`. The op's own dirs and its parent come first, as ops-nn's CMake puts them.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..cann_sources import CannSources, enable_hint
from ..errors import OpgenError
from .confined import compile_confined
from .items import CheckItem, bad, ok, skipped

TIER = "headers"
HOST_DIRS = ("op_host", "op_graph", "op_api")
BASE_FLAGS = ("-std=c++17", "-fsyntax-only", "-fno-diagnostics-color", "-fmax-errors=10",
              "-Dgoogle=ascend_private", "-DLOG_CPP", '-DOP_SUBMOD_NAME="OPS_NN"')
ROLE_FLAGS = {
    "op_api": ("-DACLNN_LOG_FMT_CHECK", "-DOP_LOG_LIBOPAPI_ONLY"),  # as func.cmake compiles ${OPHOST_NAME}_opapi_obj
    "proto": ('-DOPS_UTILS_LOG_SUB_MOD_NAME="OP_PROTO"', "-DDISABLE_COMPILE_V1"),
    "tiling": ('-DOPS_UTILS_LOG_SUB_MOD_NAME="OP_TILING"', "-DDISABLE_COMPILE_V1"),
}
TIMEOUT = 300.0
_ERROR = re.compile(r"^(?P<where>[^:\n]+):(?P<line>\d+)(?::\d+)?:\s*(?:fatal )?error:\s*(?P<message>.*)$", re.M)
_INCLUDED = re.compile(r"^(?:In file included|\s+) from (?P<where>[^:\n]+):(?P<line>\d+)", re.M)


def resolve_include_dirs(values: Sequence[Path]) -> list[Path]:
    """Each value is a dir, several joined by os.pathsep, or a file listing dirs one a line (# comments)."""
    dirs: list[Path] = []
    for value in values:
        if value.is_file():
            lines = value.read_text(encoding="utf-8").splitlines()
            parts = [Path(s.strip()) for s in lines if s.strip() and not s.lstrip().startswith("#")]
        else:
            parts = [Path(p) for p in str(value).split(os.pathsep) if p]
        for part in parts:
            if not part.is_dir():
                raise OpgenError(f"--cann-headers: {part} is not a directory (docs/check.md lists them)")
            dirs.append(part.resolve())
    return dirs


def host_files(op_dir: Path) -> list[tuple[str, str]]:
    """(relative path, role) of the .cpp/.h files ops-nn compiles on the host, skipping tests and kernels."""
    found = []
    for top in HOST_DIRS:
        for path in sorted((op_dir / top).rglob("*")):
            if path.suffix not in (".cpp", ".h") or not path.is_file():
                continue
            rel = path.relative_to(op_dir).as_posix()
            role = "op_api" if "op_api" in rel.split("/") else "tiling" if "tiling" in path.name else "proto"
            found.append((rel, role))
    return found


@dataclass(frozen=True)
class Compiled:
    rel: str
    role: str
    passed: bool
    error: str
    seconds: float


def compile_command(compiler: str, op_dir: Path, rel: str, role: str, include_dirs: Sequence[Path]) -> list[str]:
    own = [op_dir / "op_host", op_dir / "op_graph", op_dir, op_dir.parent]
    command = [compiler, *BASE_FLAGS, *ROLE_FLAGS[role]]
    command += [f"-I{d}" for d in (*own, *include_dirs)]
    if rel.endswith(".h"):
        command += ["-x", "c++"]
    return [*command, str(op_dir / rel)]


def first_error(output: str, op_dir: Path) -> str:
    """The first error line, paths inside the op dir made relative; where it is in a CANN header, also the
    line of the op's file that led there."""
    match = _ERROR.search(output)
    if not match:
        lines = [line for line in output.splitlines() if line.strip()]
        return lines[-1] if lines else "failed without a message"
    where = op_relative(match.group("where"), op_dir)
    text = f"{where}:{match.group('line')}: {match.group('message').strip()}"
    if not inside_op_dir(match.group("where"), op_dir):
        ours = [m for m in _INCLUDED.finditer(output[: match.start()]) if inside_op_dir(m.group("where"), op_dir)]
        if ours:
            text += f" (included from {op_relative(ours[-1].group('where'), op_dir)}:{ours[-1].group('line')})"
    count = len(_ERROR.findall(output))
    return text + (f" [{count} errors in all]" if count > 1 else "")


def inside_op_dir(where: str, op_dir: Path) -> bool:
    """Whether a compiler's path names a file of the op dir."""
    return os.path.abspath(where).startswith(str(op_dir.resolve()) + os.sep)


def op_relative(where: str, op_dir: Path) -> str:
    """A compiler's path relative to the op dir when it is inside it, else as the compiler gave it."""
    full = os.path.abspath(where)
    base = str(op_dir.resolve()) + os.sep
    return full[len(base):] if full.startswith(base) else where


def compile_one(compiler: str, op_dir: Path, rel: str, role: str, include_dirs: Sequence[Path],
                allowed: Sequence[Path] = ()) -> Compiled:
    """`allowed`: dirs besides the op dir and `include_dirs` its includes may reach (the sources' root)."""
    start = time.perf_counter()
    command = compile_command(compiler, op_dir, rel, role, include_dirs)
    done = compile_confined(command, compiler, [op_dir, *include_dirs, *allowed], timeout=TIMEOUT)
    if done.refusal is not None:
        return Compiled(rel, role, False, f"{rel}: {done.refusal}", time.perf_counter() - start)
    error = "" if done.passed else first_error(done.stderr, op_dir)
    return Compiled(rel, role, done.passed, error, time.perf_counter() - start)


def headers_tier(op_dir: Path, include_dirs: Sequence[Path], sources: CannSources | None = None, *,
                 compiler: str = "g++", jobs: int | None = None) -> list[CheckItem]:
    """`include_dirs` (--cann-headers) when given, else the dirs `sources` derive per file role."""
    if not include_dirs and sources is None:
        return [skipped("host files compile", enable_hint(TIER))]
    exe = shutil.which(compiler)
    if exe is None:
        return [skipped("host files compile", f"{compiler} not found on PATH")]
    files = host_files(op_dir)
    if not files:
        return [skipped("host files compile", "no .cpp/.h under op_host, op_graph or op_api (see structure)")]
    op_dir = op_dir.resolve()
    def dirs(role: str) -> Sequence[Path]:
        if include_dirs or sources is None:
            return include_dirs
        return sources.host_include_dirs(op_api=role == "op_api")

    units = [(rel, role, dirs(role)) for rel, role in files]
    if sources is not None and sources.kind == "src" and not sources.missing("ut"):
        units += [(f.relative_to(op_dir).as_posix(), "op_api", op_api_ut_dirs(sources))
                  for f in sorted((op_dir / "tests/ut/op_api").glob("test_*.cpp"))]
    roots = [sources.root] if sources is not None else []
    with ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 2) as pool:
        results = list(pool.map(lambda u: compile_one(exe, op_dir, u[0], u[1], u[2], roots), units))
    items = []
    for r in results:
        label = f"{r.rel} ({'op_api UT' if r.rel.startswith('tests/') else r.role})"
        seconds = round(r.seconds, 2)
        items.append(ok(label, "compiles", seconds=seconds) if r.passed else bad(label, r.error, seconds=seconds))
    return items


def op_api_ut_dirs(sources: CannSources) -> list[Path]:
    """Include dirs of ops-nn's op_api UT target: its stub dir first (opdev/platform.h with SocVersionManager),
    then the UT framework, googletest and the real op_api headers."""
    common = sources.repo("ops-nn") / "tests/ut/op_api"
    return [common / "stub", common / "op_api_ut_common/inc", common,
            sources.repo("googletest") / "googletest/include", *sources.host_include_dirs(op_api=True)]
