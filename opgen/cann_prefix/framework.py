"""Build ops-nn's op_host UT framework from the open CANN sources, once per sources content, with
`_GLIBCXX_USE_CXX11_ABI=0` as ops-nn's build.sh forces it: the objects of the prefix's toolkit libraries
(`libraries.py`) and what the kernel tier's host tiling driver links (`check/kernel/host_build.py`).

What an op_host UT executable of ops-nn links (its `tests/ut/op_host/CMakeLists.txt`): metadef (with
exe_graph and the op registry), ge's graph library and its protos, the platform-infos library, the error
manager, mmpa, libboundscheck, `PlatformAscendC`, opbase's op_common objects, googletest, and ops-nn's
`tests/ut/common` (context fakers, case executors). All are open; each part below compiles one of them
into a static archive under `cann_sources.cache_root()`. Three bridges, as `OPHOST-UT.md` measured:
logging (dlog) is a small stand-in printing to stderr; protobuf is 3.21.12, the system protoc's version (every
`.pb.cc` is regenerated with it, compiled against its headers and linked with the ABI-0 build of the same
version, `protobuf.py`; a forced-include header aliases CANN's `ascend_private` to `google`);
asc-devkit's headers sit at their install paths in the shared stage dir.

A build is incremental within one sources content: objects land in `<key>.build/` as they finish, so an
interrupted first build resumes; the finished tree is renamed to `<key>/` and never touched again.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
import shutil
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from .. import progress
from ..cann_sources import CannSources, cache_root
from ..check.bounded import run_bounded
from ..errors import OpgenError
from ..jobs import JOBS
from ..locks import held_lock

REPOS = ("metadef", "ge", "runtime", "opbase", "asc-devkit", "libboundscheck", "googletest", "ops-nn", "json")
COMPILE_TIMEOUT = 900.0
FRAMEWORK_LAYOUT = "2"  # bump when the archives or their members change
DEFINES = ("-DLOG_CPP", '-DOP_SUBMOD_NAME="OPS_NN"', "-DOS_TYPE=0", "-DFMK_SUPPORT_DUMP",
           "-DNO_METADEF_ABI_COMPATIABLE")
CXX_FLAGS = ("-std=c++17", "-O0", "-fPIC", "-w", "-fno-diagnostics-color", "-fexceptions")
TILING_EXECUTOR = "tiling_case_executor.cpp"  # built per SoC: it bakes BUILD_SOC_VERSION in
# the op_kernel headers an op's host sources include (tiling data, the arch35 DAGs): the only kernel files a host
# build reads
HOST_READ_KERNEL_HEADERS = re.compile(r"tiling|dag", re.I)
_EXECUTOR_SOC = re.compile(r'\{"(ascend\w+|kirin\w+|mc\d+)",\s*"')
ALIAS_HEADER = "opgen_ascend_private.h"
# CANN names its private protobuf copy `ascend_private`; the system's lives in `google`
ALIAS_TEXT = ("#pragma once\n#ifdef __cplusplus\nnamespace google {}\n"
              "namespace ascend_private = google;\n#endif\n")
DLOG_SOURCE = "opgen_dlog.cpp"
# dlog's API, answered on stderr by ASCEND_GLOBAL_LOG_LEVEL (0 debug .. 3 error; default: errors only)
DLOG_TEXT = """#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include "base/dlog_pub.h"

#ifdef __cplusplus
#ifndef LOG_CPP
extern "C" {
#endif
#endif
static int OpgenLogLevel()
{
    const char* level = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
    return level == nullptr ? 3 : std::atoi(level);
}
int32_t dlog_getlevel(int32_t, int32_t* enableEvent)
{
    if (enableEvent != nullptr) {
        *enableEvent = 0;
    }
    return OpgenLogLevel();
}
int32_t dlog_setlevel(int32_t, int32_t, int32_t) { return 0; }
int32_t CheckLogLevel(int32_t, int32_t logLevel) { return logLevel >= OpgenLogLevel() ? 1 : 0; }
int32_t DlogSetAttr(LogAttr) { return 0; }
void DlogVaList(int32_t, int32_t level, const char* fmt, va_list list)
{
    if (level >= OpgenLogLevel()) {
        std::vfprintf(stderr, fmt, list);
        std::fputc('\\n', stderr);
    }
}
void DlogFlush(void) { std::fflush(stderr); }
void DlogRecord(int32_t moduleId, int32_t level, const char* fmt, ...)
{
    va_list list;
    va_start(list, fmt);
    DlogVaList(moduleId, level, fmt, list);
    va_end(list);
}
#ifdef __cplusplus
#ifndef LOG_CPP
}
#endif
#endif
"""


@dataclass(frozen=True)
class Unit:
    """One source compiled into one object of an archive; `flags` are extra to the framework's own."""

    source: Path
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Framework:
    """A finished framework build: the archives to link (in order), the objects to link whole (gtest main,
    registrations), and the include dirs and flags a UT source compiles with."""

    root: Path
    archives: tuple[Path, ...]
    whole_objects: tuple[Path, ...]
    include_dirs: tuple[Path, ...]
    flags: tuple[str, ...]
    seconds: float  # how long the build took; 0 when it came from the cache
    sources_root: Path  # the CANN sources the staged include dirs link into (a compile may open headers there)


ABI0 = "-D_GLIBCXX_USE_CXX11_ABI=0"  # libstdc++'s old string ABI, which ops-nn's build.sh forces


def executor_socs(executor: Path) -> set[str]:
    """The SoCs ops-nn's tiling executor has a platform for (its SoC table)."""
    return set(_EXECUTOR_SOC.findall(executor.read_text(encoding="utf-8", errors="replace")))


def framework_dir(sources: CannSources) -> Path:
    """Keyed by the sources' content and by what the builder compiles them with."""
    recipe = "\0".join((FRAMEWORK_LAYOUT, *DEFINES, ABI0, *CXX_FLAGS, ALIAS_TEXT, DLOG_TEXT,
                        TILING_EXECUTOR))
    builder = hashlib.sha256(recipe.encode()).hexdigest()[:8]
    return cache_root() / "ophost-ut" / f"{sources.content_key(*REPOS)}-{builder}-abi0"


def include_dirs(sources: CannSources, generated: Path) -> list[Path]:
    """Every header dir the framework's sources and the UTs include, the generated protos first."""
    r = sources.root
    md, ge, rt = r / "metadef", r / "ge", r / "runtime"
    return [
        generated, generated / "proto",
        *sources.host_include_dirs(op_api=False),
        md, md / "base", *(md / d for d in ("inc/external/base", "inc/base", "inc/external/base/context_builder",
                                           "inc/external/exe_graph/runtime", "inc/common", "inc/external/graph")),
        ge / "graph_metadef", ge / "graph_metadef/graph", ge / "graph_metadef/third_party/transformer/inc",
        ge / "graph_metadef/third_party/transformer/src", ge / "inc/graph_metadef/graph",
        ge / "inc/graph_metadef/common", ge / "inc/graph_metadef/external/graph", ge / "inc",
        rt / "src/platform", rt / "pkg_inc/mmpa", rt / "pkg_inc/mmpa/sub_inc", rt / "pkg_inc/base",
        rt / "include/external/acl", rt / "src/dfx/error_manager", rt / "include/dfx/base", rt / "pkg_inc/platform",
        r / "asc-devkit/include/utils/tiling/platform",
        r / "googletest/googletest/include",
        r / "ops-nn/tests/ut/common",
        r / "opbase/src/op_common", r / "opbase/src",
    ]


def units(sources: CannSources, generated: Path) -> dict[str, list[Unit]]:
    """archive name -> its compile units, in link order (users before what they use)."""
    r = sources.root
    ge_graph = r / "ge/graph_metadef/graph"
    graph_lists = ("GRAPH_BASE_SOURCE_LIST", "GRAPH_SOURCE_LIST", "FAST_GRAPH_SOURCE_LIST")
    graph_sources = [p for name in graph_lists
                     for p in cmake_list(ge_graph / "CMakeLists.txt", name,
                                         {"GE_METADEF_DIR": r / "ge/graph_metadef"}, ge_graph)]
    ut_common = sorted(p for p in (r / "ops-nn/tests/ut/common").glob("*.cpp") if p.name != TILING_EXECUTOR)
    return {
        "ut_common": [Unit(p, ("-fno-access-control",)) for p in ut_common],
        "op_common": [Unit(p) for p in sorted((r / "opbase/src/op_common").rglob("*.cpp"))],
        "tiling_api": [Unit(r / "asc-devkit/impl/utils/tiling/platform/platform_ascendc.cpp")],
        "graph": [Unit(p) for p in graph_sources if p.is_file()],
        "protos": [Unit(p) for p in sorted((generated / "proto").rglob("*.pb.cc"))],
        "metadef": [Unit(p) for p in sorted((r / "metadef/base").rglob("*.cc"))],
        "platform": [Unit(p) for p in sorted((r / "runtime/src/platform").glob("*.cpp"))],
        "error_manager": [Unit(r / "runtime/src/dfx/error_manager/error_manager.cc")],
        "dlog": [Unit(generated / DLOG_SOURCE), Unit(generated / DLOG_SOURCE, ("-ULOG_CPP", "-DOPGEN_C_LINKAGE"))],
        "mmpa": [Unit(p) for p in sorted((r / "runtime/src/mmpa/src").glob("mmpa_linux*.c"))],
        "c_sec": [Unit(p) for p in sorted((r / "libboundscheck/src").glob("*.c"))],
        "gtest": [Unit(r / "googletest/googletest/src/gtest-all.cc", (f"-I{r / 'googletest/googletest'}",))],
    }


def cmake_list(cmake_file: Path, name: str, variables: dict[str, Path], base: Path) -> list[Path]:
    """The files of `set(NAME ...)` in a CMakeLists, `${VAR}` expanded, relative entries under `base`."""
    text = cmake_file.read_text(encoding="utf-8", errors="replace")
    match = re.search(rf"\bset\(\s*{re.escape(name)}\b(?P<body>[^)]*)\)", text, re.I)
    if match is None:
        raise OpgenError(f"{cmake_file}: no set({name} ...) list; this ge version is not one opgen knows")
    found = []
    for entry in re.findall(r'"([^"]+)"|(\S+)', match.group("body")):
        value = entry[0] or entry[1]
        for var, path in variables.items():
            value = value.replace(f"${{{var}}}", str(path))
        found.append(Path(value) if os.path.isabs(value) else base / value)
    return found


def build_framework(sources: CannSources, *, jobs: int = JOBS, compiler: str = "g++",
                    cc: str = "gcc") -> Framework:
    """The cached framework for these sources, building it first when absent (about 390 s of CPU at -O0)."""
    final = framework_dir(sources)
    if (final / "done").is_file():  # finished: read without the lock, which only a build holds
        return _framework(sources, final, 0.0)
    final.parent.mkdir(parents=True, exist_ok=True)
    with held_lock(final.with_suffix(".lock")):
        if not (final / "done").is_file():
            start = time.perf_counter()
            _build(sources, final, jobs=jobs, compiler=compiler, cc=cc)
            return _framework(sources, final, time.perf_counter() - start)
    return _framework(sources, final, 0.0)


def _framework(sources: CannSources, root: Path, seconds: float) -> Framework:
    generated = root / "generated"
    archives = tuple(root / "lib" / f"lib{name}.a" for name in units(sources, generated) if name != "ut_common")
    return Framework(root, (root / "lib/libut_common.a", *archives), (root / "lib/test_op_host_main.o",),
                     tuple(include_dirs(sources, generated)), framework_flags(root), seconds, sources.root)


def framework_flags(root: Path) -> tuple[str, ...]:
    return (*CXX_FLAGS, *DEFINES, ABI0, "-include", str(root / "generated" / ALIAS_HEADER))


def _build(sources: CannSources, final: Path, *, jobs: int, compiler: str, cc: str) -> None:
    work = final.with_suffix(".build")
    generated = work / "generated"
    (work / "lib").mkdir(parents=True, exist_ok=True)
    _generate(sources, generated)
    flags = framework_flags(work)
    dirs = [f"-I{d}" for d in include_dirs(sources, generated)]
    plan = units(sources, generated)
    main = Unit(sources.root / "ops-nn/tests/ut/op_host/test_op_host_main.cpp")
    todo = [(name, unit) for name, group in plan.items() for unit in group] + [("main", main)]
    objects = compile_units(todo, work, flags, dirs, what="the op_host UT framework", jobs=jobs, compiler=compiler,
                            cc=cc)
    by_archive: dict[str, list[Path]] = {}
    for (name, _), obj in zip(todo, objects, strict=True):
        by_archive.setdefault(name, []).append(obj)
    for name, objs in by_archive.items():
        if name == "main":
            shutil.copyfile(objs[0], work / "lib/test_op_host_main.o")
            continue
        archive = work / "lib" / f"lib{name}.a"
        archive.unlink(missing_ok=True)
        run_command(["ar", "rcs", str(archive), *map(str, objs)], f"archiving {name}")
    (work / "done").write_text("built\n", encoding="utf-8")
    shutil.rmtree(work / "obj", ignore_errors=True)
    _retarget(work, final)


def _retarget(work: Path, final: Path) -> None:
    """Move the finished build into place; the forced-include path in the flags names the final dir."""
    shutil.rmtree(final, ignore_errors=True)
    work.rename(final)


def find_protoc() -> str:
    protoc = shutil.which("protoc")
    if protoc is None:
        raise OpgenError("protoc not found: install protobuf-compiler and libprotobuf-dev (Debian/Ubuntu: "
                         "apt-get install protobuf-compiler libprotobuf-dev) to build the toolkit-shaped prefix")
    return protoc


def _generate(sources: CannSources, generated: Path) -> None:
    """The protos regenerated with the system's protoc, the alias header and the dlog stand-in."""
    protoc = find_protoc()
    out = generated / "proto"
    out.mkdir(parents=True, exist_ok=True)
    (generated / ALIAS_HEADER).write_text(ALIAS_TEXT, encoding="utf-8")
    (generated / DLOG_SOURCE).write_text(DLOG_TEXT, encoding="utf-8")
    ge_protos = sources.root / "ge/graph_metadef/proto"
    names = cmake_list(sources.root / "ge/graph_metadef/proto/CMakeLists.txt", "METADEF_GRAPH_PROTO_SRCS",
                       {"CMAKE_BINARY_DIR": Path("/build")}, Path("/build"))
    wanted = [ge_protos / p.relative_to("/build/proto/metadef_protos/proto").with_suffix("").with_suffix(".proto")
              for p in names] + [ge_protos / "attr_group_base.proto"]
    run_command([protoc, f"-I{ge_protos}", f"--cpp_out={out}", *(str(p.relative_to(ge_protos)) for p in wanted)],
                "protoc (ge protos)", cwd=ge_protos)
    platform_proto = sources.root / "runtime/src/platform/proto/platform_infos.proto"
    run_command([protoc, f"-I{platform_proto.parent}", f"--cpp_out={out}", str(platform_proto)],
                "protoc platform_infos")


def compile_units(todo: Sequence[tuple[str, Unit]], work: Path, flags: Sequence[str], dirs: Sequence[str], *,
                  what: str, jobs: int = JOBS, compiler: str = "g++", cc: str = "gcc") -> list[Path]:
    """The object of each (group, unit), in order, under `work/obj/<group>/`, `jobs` at a time; objects already
    there are kept, so an interrupted build resumes. Every failure is raised at once, the first ones quoted."""
    count = itertools.count(1)

    def one(job: tuple[str, Unit]) -> Path | str:
        result = _compile(job[0], job[1], work, flags, dirs, compiler, cc)
        shown.detail = f"{next(count)}/{len(todo)} sources"
        return result

    with progress.step(f"compile {what}") as shown, ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        results = list(pool.map(one, todo))
    failed = [r for r in results if isinstance(r, str)]
    if failed:
        raise OpgenError(f"{what} did not build ({len(failed)} sources failed): " + " || ".join(failed[:3]))
    return [r for r in results if isinstance(r, Path)]


def _compile(archive: str, unit: Unit, work: Path, flags: Sequence[str], dirs: Sequence[str],
             compiler: str, cc: str) -> Path | str:
    """The object, or the compiler's first errors."""
    tag = "c" if "-DOPGEN_C_LINKAGE" in unit.flags else ""
    obj = work / "obj" / archive / f"{unit.source.stem}{tag}.o"
    if obj.is_file():
        return obj
    obj.parent.mkdir(parents=True, exist_ok=True)
    command = [cc, "-O0", "-fPIC", "-w", *DEFINES, *dirs] if unit.source.suffix == ".c" else [compiler, *flags, *dirs]
    part = obj.with_suffix(f".part{os.getpid()}")
    try:
        run_command(["nice", "-n", "10", *command, *unit.flags, "-c", str(unit.source), "-o", str(part)],
                    f"compiling {unit.source}")
    except OpgenError as error:
        return str(error)
    part.rename(obj)
    return obj


def run_command(command: Sequence[str], what: str, cwd: Path | None = None) -> None:
    """Run one build tool; a failure is an OpgenError quoting its first errors."""
    done = run_bounded(command, cwd=cwd, timeout=COMPILE_TIMEOUT, env={**os.environ, "LC_ALL": "C"})
    if done.timed_out:
        raise OpgenError(f"{what}: took more than {COMPILE_TIMEOUT:.0f}s")
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if "error" in line] or done.stderr.splitlines()
        raise OpgenError(f"{what}: " + (" | ".join(errors[:3]) or f"exit code {done.returncode}"))

