"""The host side of a kernel run: the op's generated tiling code, run for the run's own shapes, dtypes and attr values.

The tree's op_host sources are compiled against the prefix's ABI-0 op_host UT libraries (`host_build`) next
to a driver of opgen's own that hands each case to ops-nn's tiling executor (`ExecuteTiling` of
tests/ut/common/tiling_case_executor.cpp, the SoC baked in as `build.sh -u --soc` does) and prints what the host would
hand the launch: the tiling key, the block dim, the workspace sizes and the tiling data bytes. The kernel run takes
those, so a tiling that disagrees with its kernel (a field, a key, a UB split) shows as wrong numbers or an overrun.

The driver (`host_driver.py`) reads its requests from a file, so one executable per tree and SoC serves every set of
launches: it is kept under `cache_root()` by the driver text and the content of the files the host compile reads
from the tree (op_host, op_graph, and op_kernel's tiling and DAG headers, which the arch35 host tiling instantiates),
and each set of requests' results by that key and the requests. A kernel-body edit reuses both.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...cann_prefix import layout, protobuf
from ...cann_prefix.framework import TILING_EXECUTOR, Framework, build_framework, executor_socs
from ...cann_sources import CannSources, cache_root, keep_file
from ...errors import OpgenError
from ...jobs import JOBS
from ...plan import RenderPlan
from ...plan.families import KernelFamily
from ...plan.registry.attrs import AttrValue, shown_attrs
from ...plan.registry.platforms import SocPlan
from ...spec.models import OpSpec
from ..trust import run_tree_code
from .build import KernelVariant
from .host_build import OphostBuild, tree_digest
from .host_driver import MARK, REQUESTS, TilingRequest, driver_source, requests_text
from .launch import Launch, Shapes

DRIVER = "opgen_host_tiling.cpp"
WORKSPACE_LIMIT = 1 << 30  # a workspace the executor reports above this is its uint32 -1 (no NpuArch)
RUN_TIMEOUT = 300.0
DRIVER_DAYS = 7
FORMAT = 1  # bump when the driver or its output changes: cached results are recomputed
UT_TO_OP = "../../../../"  # from tests/ut/op_host/<arch>/ to the op dir
_INCLUDE = re.compile(r'^#include "([^"]+)"', re.M)
_OP_PATH = re.compile(r"^(?:\.\./)+(?=(?:op_host|op_graph|op_kernel)/)")
_TILING_PARSE = re.compile(r"\.TilingParse<\s*([\w:]+)\s*>")
_COMPILE_INFO = re.compile(r"^\s*([\w:]*CompileInfo)\s+\w+\s*;", re.M)


@dataclass(frozen=True)
class HostTiling:
    """What the host tiling gave one request (`succeeded` false: it returned a failure)."""

    succeeded: bool
    key: int
    block_dim: int
    workspaces: tuple[int, ...]
    data: bytes


Wanted = tuple[Shapes, Mapping[str, AttrValue]]  # a launch's shapes and attr values


@dataclass(frozen=True)
class TilingHarness:
    """What the driver includes from the op (op-relative headers) and from the UT framework, and the compile info
    it hands the tiling."""

    headers: tuple[str, ...]
    compile_info: str
    framework_headers: tuple[str, ...] = ()
    parses: bool = False  # the op's TilingParse fills the compile info first, on the request's cores and UB

    @staticmethod
    def planned(family: KernelFamily) -> TilingHarness:
        """A generated tree's, as its plan wrote its tiling UT (classic: a driver-local empty compile info)."""
        ut = family.ophost_ut
        return TilingHarness((ut.tiling_header.removeprefix(UT_TO_OP),) if ut.tiling_header else (), ut.compile_info)

    @staticmethod
    def of_tests(op_dir: Path, arch_dir: str) -> TilingHarness | None:
        """An existing op's, as its own tiling UT has it (tests/ut/op_host/<arch_dir>/ first, then the top dir):
        the op_host / op_graph headers it includes and the compile info it declares."""
        base = op_dir / "tests/ut/op_host"
        for test in [*sorted((base / arch_dir).glob("test_*tiling*.cpp")), *sorted(base.glob("test_*tiling*.cpp"))]:
            text = test.read_text(errors="replace")
            info = _COMPILE_INFO.search(text)
            if info:
                included = _INCLUDE.findall(text)
                own = tuple(_OP_PATH.sub("", h) for h in included if _OP_PATH.match(h))
                return TilingHarness(own, info.group(1), tuple(h for h in included if not _OP_PATH.match(h)),
                                     "tiling_parse" in text)
        return TilingHarness.of_sources(op_dir)

    @staticmethod
    def of_sources(op_dir: Path) -> TilingHarness | None:
        """An op without a tiling UT: the compile info its tiling registers (`TilingParse<...>`), from the op_host
        header declaring it, else declared by the driver (the tiling then declares it in its .cpp and reads none)."""
        for source in sorted((op_dir / "op_host").rglob("*.cpp")):
            registered = _TILING_PARSE.search(source.read_text(errors="replace"))
            if registered is None:
                continue
            name = registered.group(1).rsplit("::", 1)[-1]
            declares = re.compile(rf"\bstruct\s+{name}\b")
            for header in sorted((op_dir / "op_host").rglob("*.h")):
                if declares.search(header.read_text(errors="replace")):
                    return TilingHarness((header.relative_to(op_dir).as_posix(),), registered.group(1))
            return TilingHarness((), name)
        return None


@dataclass(frozen=True)
class HostLaunches:
    """The launches of the wanted (shape, attrs) as the host code sets them up; else why not: the host code could
    not run (`problem`) or its tiling refused one (`refused`). `note`: what the row adds to the tiling's source."""

    launches: tuple[Launch, ...] = ()
    note: str = ""
    problem: str = ""
    refused: str = ""


@dataclass(frozen=True)
class HostTilings:
    """Every request's result, or why the host code could not be run (`problem`, with `results` empty)."""

    results: Mapping[TilingRequest, HostTiling]
    problem: str = ""


def host_tilings(op_dir: Path, plan: RenderPlan, harness: TilingHarness, soc: SocPlan, cores: int, ub_bytes: int,
                 requests: Sequence[TilingRequest], sources: CannSources) -> HostTilings:
    """Run the tree's host tiling for each request on the SoC (the caller holds `--allow-exec`)."""
    executor = sources.repo("ops-nn") / "tests/ut/common" / TILING_EXECUTOR
    if soc.name not in executor_socs(executor):
        return HostTilings({}, f"ops-nn's {TILING_EXECUTOR} knows no {soc.name}: no platform to run its tiling on")
    unique = list(dict.fromkeys(requests))
    driver = driver_source(op_dir, plan, harness.framework_headers, harness.headers, harness.compile_info,
                           harness.parses)
    try:
        framework = build_framework(sources)
        pb = protobuf.build_protobuf(layout.protobuf_dir(cache_root()))
    except (OpgenError, OSError, subprocess.SubprocessError) as failure:
        return HostTilings({}, f"the op_host UT framework did not build: {failure}")
    key = _cache_key(op_dir, driver, soc, str(framework.root), executor)
    asked = requests_text(plan, unique, cores, ub_bytes)
    cached = results_file(hashlib.sha256(f"{key}\0{asked}".encode()).hexdigest()[:24])
    if cached.is_file():
        return _parsed(json.loads(cached.read_text(encoding="utf-8")), unique)
    exe = cache_root() / "kernel-host-tiling" / f"{key}.driver"
    if exe.is_file():
        exe.touch()  # in use: _prune keeps it
    else:
        problem = _build_driver(op_dir, driver, soc, framework, executor, protobuf.library(pb), exe)
        if problem:
            return HostTilings({}, problem)
        _prune(exe.parent)
    done = run_tree_code([str(exe)], timeout=RUN_TIMEOUT, files={REQUESTS: asked.encode()})
    lines = [line.removeprefix(MARK) for line in done.stdout.splitlines() if line.startswith(MARK)]
    if done.failure is not None or len(lines) != len(unique):  # a cut output is no answer, even a full one
        tail = done.failure or (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        return HostTilings({}, f"the host tiling driver ended (exit {done.returncode}) after {len(lines)} of "
                               f"{len(unique)} cases: {tail}")
    cached.parent.mkdir(parents=True, exist_ok=True)
    part = cached.with_suffix(f".part{id(lines)}")
    part.write_text(json.dumps(lines), encoding="utf-8")
    part.replace(cached)
    return _parsed(lines, unique)


def _build_driver(op_dir: Path, driver: str, soc: SocPlan, framework: Framework, executor: Path, protobuf_lib: Path,
                  target: Path) -> str:
    """The driver linked with the tree's host sources for the SoC, kept at `target`; else why not."""
    with tempfile.TemporaryDirectory(prefix="opgen-host-tiling-") as scratch:
        work = Path(scratch)
        (work / "driver").mkdir()
        (work / "driver" / DRIVER).write_text(driver, encoding="utf-8")
        build = OphostBuild(op_dir, framework, executor, work, JOBS, protobuf_lib)
        failed = [item for item in build.compile_all([soc.name]) if item.status == "fail"]
        error = build.compile_extra(DRIVER, work / "driver" / DRIVER)
        if failed or error is not None:
            return (f"the host tiling did not compile: {failed[0].item}: {failed[0].reason}" if failed
                    else f"the host tiling driver did not compile: {error}")
        exe, problem = build.link([*build.keys(soc.name), DRIVER], "opgen_host_tiling")
        if exe is None:
            return f"the host tiling did not link: {problem}"
        keep_file(exe, target)
    return ""


def _prune(folder: Path) -> None:
    """Drivers (25 MB each: the framework is linked whole) of trees no run has used for DRIVER_DAYS go; a tree
    iterated on leaves one per edit of its host files."""
    cutoff = time.time() - DRIVER_DAYS * 86400
    for old in folder.glob("*.driver"):
        try:
            if old.stat().st_mtime < cutoff:
                old.unlink()
        except OSError:  # another run pruned it first
            continue


def results_file(key: str) -> Path:
    return cache_root() / "kernel-host-tiling" / f"{key}.json"


def host_launches(op_dir: Path, spec: OpSpec, plan: RenderPlan, variant: KernelVariant, soc: SocPlan, cores: int,
                  ub_bytes: int, sources: CannSources, wanted: Sequence[Wanted],
                  harness: TilingHarness | None = None) -> HostLaunches:
    """`host_tilings` for the variant's dtype combination, as launches (`harness`: default the plan's)."""
    requests = [TilingRequest.of(variant.combination.index, shapes, attrs) for shapes, attrs in wanted]
    host = host_tilings(op_dir, plan, harness or TilingHarness.planned(variant.family), soc, cores, ub_bytes,
                        requests, sources)
    if host.problem:
        return HostLaunches(problem=host.problem)
    launches, unsized = [], False
    for (shapes, attrs), request in zip(wanted, requests, strict=True):
        got = host.results[request]
        if not got.succeeded:
            shown = shown_attrs(spec, attrs)
            return HostLaunches(refused=f"the host tiling refused {shapes.label}" +
                                (f" with {shown}" if shown else ""))
        workspace = sum(got.workspaces)
        usable = 0 <= workspace <= WORKSPACE_LIMIT
        unsized |= not usable
        launches.append(Launch(got.block_dim, got.key, got.data, workspace if usable else None))
    note = (f"; workspace from the plan: the executor reported none usable on {soc.name} (no NpuArch there, "
            "GetLibApiWorkSpaceSize gives -1)") if unsized else ""
    return HostLaunches(tuple(launches), note)


def _cache_key(op_dir: Path, driver: str, soc: SocPlan, framework: str, executor: Path) -> str:
    digest = hashlib.sha256(f"{FORMAT}\0{driver.replace(str(op_dir), '<op>')}\0{soc.name}\0{framework}".encode())
    digest.update(executor.read_bytes())
    digest.update(tree_digest(op_dir).encode())
    return digest.hexdigest()[:24]


def _parsed(lines: Sequence[str], requests: Sequence[TilingRequest]) -> HostTilings:
    results = {}
    for request, line in zip(requests, lines, strict=True):
        status, key, blocks, spaces, *data = line.split(" ")
        results[request] = HostTiling(status == "ok", int(key), int(blocks),
                                      tuple(int(w) for w in spaces.split(",") if w), bytes.fromhex("".join(data)))
    return HostTilings(results)
