"""The kernel tier's host build: the op's host sources (def, infershape, tiling, the SoC's tiling dir) compiled as
ops-nn's op_host UT compiles them, against the ABI-0 libraries the prefix is made of (`cann_prefix/framework.py`),
with ops-nn's tiling executor built for the SoC, linked with the host tiling driver (`host_tiling.py`).

Each object is kept under `cache_root()`, keyed by its command (the op dir's place left out) and, for the tree's
sources, the content of every file the host compile reads from the tree (`host_read_files`): a kernel fault
recompiles nothing, a driver of other text only itself. The executor compiles with the framework's include dirs
alone (it is ops-nn's, and no tree header may stand in for one of its includes), so every op shares it per SoC.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ...cann_prefix.framework import HOST_READ_KERNEL_HEADERS, TILING_EXECUTOR, Framework
from ...cann_sources import cache_root, keep_file
from ...spec.socs import SOCS
from ...upstream.cmake import read_cmake
from ..bounded import compile_memory, compile_timeout, run_bounded
from ..confined import compile_confined
from ..headers import first_error
from ..items import CheckItem, bad, ok

TIMEOUT = 600.0
OBJECTS_FORMAT = "1"  # bump when what an object is compiled from changes outside its command


@dataclass(frozen=True)
class Source:
    rel: str  # relative to the op dir
    flags: tuple[str, ...]



def ophost_sources(op_dir: Path, tiling_dir: str | None) -> list[Source]:
    """The host sources ops-nn compiles into the op_host UT of a compute unit with `tiling_dir`: the op's, then
    those of each op its add_modules_sources names as DEPENDENCIES (upstream swi_glu_grad's tiling is registered in
    swi_glu's op_host; cmake/ut.cmake builds a dependency's sources beside the op's)."""
    host = []
    for owner in (op_dir, *dependency_dirs(op_dir)):
        host_dirs = [owner / "op_host", *([owner / "op_host" / tiling_dir] if tiling_dir else [])]
        for folder in host_dirs:
            for path in sorted(folder.glob("*.cpp")):
                role = "OP_TILING" if "tiling" in path.name else "OP_PROTO"
                host.append(Source(Path(os.path.relpath(path, op_dir)).as_posix(),
                                   (f'-DOPS_UTILS_LOG_SUB_MOD_NAME="{role}"', "-DDISABLE_COMPILE_V1")))
    return host


def dependency_dirs(op_dir: Path) -> list[Path]:
    """The sibling op dirs the op's CMakeLists.txt files name in add_modules_sources' DEPENDENCIES."""
    named = []
    for lists in (op_dir / "CMakeLists.txt", op_dir / "op_host" / "CMakeLists.txt"):
        if lists.is_file():
            calls = read_cmake(lists.read_bytes(), lists.name).calls
            named += [dep for call in calls if call.command == "add_modules_sources"
                      for dep in call.args.get("DEPENDENCIES", ())]
    return [op_dir.parent / dep for dep in dict.fromkeys(named) if (op_dir.parent / dep / "op_host").is_dir()]


def host_read_files(op_dir: Path) -> list[Path]:
    """The tree's files a host compile may read: op_host and op_graph whole, op_kernel's tiling and DAG headers."""
    read = sorted(p for d in ("op_host", "op_graph") for p in (op_dir / d).rglob("*") if p.is_file())
    kernel = sorted(p for p in (op_dir / "op_kernel").rglob("*") if p.is_file())
    return read + [p for p in kernel if HOST_READ_KERNEL_HEADERS.search(p.name)]


def tree_digest(op_dir: Path) -> str:
    digest = hashlib.sha256()
    for path in host_read_files(op_dir):
        digest.update(path.relative_to(op_dir).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class OphostBuild:
    """One op's host build: every source compiled once (its objects do not depend on the SoC), ops-nn's tiling
    executor once per SoC, then one executable per SoC."""

    def __init__(self, op_dir: Path, framework: Framework, executor_source: Path, work: Path, jobs: int,
                 protobuf_lib: Path) -> None:
        self.op_dir, self.framework, self.executor_source, self.work, self.jobs = (
            op_dir, framework, executor_source, work, jobs)
        self.protobuf = protobuf_lib  # ABI 0, as every library linked
        own = [op_dir / "op_host", op_dir / "op_graph", op_dir, op_dir.parent]
        self.common = [*framework.flags, *(f"-I{d}" for d in framework.include_dirs)]
        self.base = [*framework.flags, *(f"-I{d}" for d in (*own, *framework.include_dirs))]
        self.objects: dict[str, Path | None] = {}
        self.tree = tree_digest(op_dir)

    def compile_all(self, socs: Sequence[str]) -> list[CheckItem]:
        """Every host source of the SoCs, and the executor once per SoC."""
        sources = {s.rel: s for soc in socs for s in ophost_sources(self.op_dir, SOCS[soc].arch)}
        jobs: list[tuple[str, list[str]]] = [
            (rel, [*self.base, *s.flags, "-c", str(self.op_dir / rel)]) for rel, s in sources.items()]
        jobs += [(f"{TILING_EXECUTOR}@{soc}", [*self.common, f"-DBUILD_SOC_VERSION={soc}", "-fno-access-control",
                                               "-c", str(self.executor_source)]) for soc in socs]
        with ThreadPoolExecutor(max_workers=max(self.jobs, 1)) as pool:
            errors = list(pool.map(lambda job: self._compile(*job), jobs))
        items = []
        for (key, _), error in zip(jobs, errors, strict=True):
            label = f"{key.replace('@', ' (')})" if "@" in key else key
            items.append(ok(f"{label} compiles") if error is None else bad(f"{label} compiles", error))
        return items

    def compile_extra(self, key: str, source: Path) -> str | None:
        """A source of opgen's own next to the tree's (the host tiling driver), compiled as ops-nn compiles a UT;
        it may include the tree's headers, its own dir and, as the tiling UT it stands for, paths relative to
        tests/ut/op_host. Never kept: its text is the requests'."""
        ut_dir = self.op_dir / "tests" / "ut" / "op_host"
        return self._compile(key, [*self.base, "-fno-access-control", f"-I{source.parent}", f"-I{ut_dir}", "-c",
                                   str(source)], kept=False)

    def _compile(self, key: str, command: list[str], kept: bool = True) -> str | None:
        kept_object = self._kept_object(command) if kept else None
        if kept_object is not None and kept_object.is_file():
            self.objects[key] = kept_object
            return None
        out = self.work / (key.replace("/", "__") + ".o")
        error = gxx_error(["g++", *command, "-o", str(out)], None if "@" in key else self.op_dir,
                          self.framework.sources_root)
        self.objects[key] = out if error is None else None
        if error is None and kept_object is not None:
            keep_file(out, kept_object)
        return error

    def _kept_object(self, command: list[str]) -> Path:
        place = str(self.op_dir)
        text = "\0".join(command)
        digest = hashlib.sha256(f"{OBJECTS_FORMAT}\0{text.replace(place, '<op>')}".encode())
        if place in text:
            digest.update(self.tree.encode())
        return cache_root() / "kernel-host-objects" / f"{digest.hexdigest()[:24]}.o"

    def keys(self, soc: str) -> list[str]:
        """The objects of one SoC's executable: its host sources and the executor."""
        return [s.rel for s in ophost_sources(self.op_dir, SOCS[soc].arch)] + [f"{TILING_EXECUTOR}@{soc}"]

    def link(self, keys: Sequence[str], name: str) -> tuple[Path | None, str]:
        """(the executable, "") or (None, why not): the objects against the framework."""
        objects = [self.objects.get(key) for key in keys]
        if any(obj is None for obj in objects):
            return None, "not linked: a source above did not compile"
        exe = self.work / name
        link = ["g++", "-s", "-o", str(exe), *map(str, self.framework.whole_objects), *map(str, objects),
                # metadef and graph each carry AscendString/TypeUtils (two shared libraries upstream, where
                # the first loaded wins); as archives the first definition wins the same way
                "-Wl,--allow-multiple-definition",
                # whole archives: graph and error-manager functions are referenced weakly, which never pulls
                # a member out of an archive (shared libraries upstream resolve them at load time)
                "-Wl,--whole-archive", *map(str, self.framework.archives), "-Wl,--no-whole-archive",
                str(self.protobuf), "-lpthread", "-ldl"]
        linked = gxx_error(link, self.op_dir, self.framework.sources_root)
        return (None, linked) if linked is not None else (exe, "")


def gxx_error(command: Sequence[str], op_dir: Path | None, sources_root: Path) -> str | None:
    """None when the compiler succeeded, else its first error (op-relative `file:line: message`)."""
    if op_dir is not None:  # a compile of tree files: bounded, its includes confined to the tree, the sources, -I dirs
        done = compile_confined(["nice", "-n", "10", *command], "g++", [op_dir, sources_root], timeout=TIMEOUT)
        if done.refusal is not None:
            return done.refusal
        if done.returncode == 0:
            return None
        output = done.stderr
    else:
        run = run_bounded(["nice", "-n", "10", *command], timeout=compile_timeout(TIMEOUT), memory=compile_memory(),
                          env={**os.environ, "LC_ALL": "C"})
        if run.failure is not None:
            return f"g++ {run.failure}"
        if run.returncode == 0:
            return None
        output = run.stderr
    output = output.replace(" -Werror", "")
    if op_dir is None:
        return first_error(output, Path("/nonexistent"))
    linker = [line.split(": ", 1)[-1] for line in output.splitlines()
              if "undefined reference" in line or "multiple definition" in line]
    if linker:
        return f"{linker[0]} [{len(linker)} linker errors in all]"
    return first_error(output, op_dir)


