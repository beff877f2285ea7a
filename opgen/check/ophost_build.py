"""One op's op_host build against ops-nn's UT framework: its host sources (def, infershape, tiling, each SoC's tiling
dir) and UT sources compiled once, ops-nn's tiling executor once per SoC, linked per SoC. Shared by the ut tier
(the op's own UTs) and the kernel tier's host tiling driver (the op's tiling run for a kernel launch)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..spec.socs import SOCS
from .bounded import compile_memory, compile_timeout, run_bounded
from .confined import compile_confined
from .headers import first_error
from .items import CheckItem, bad, ok
from .ophost_ut_framework import TILING_EXECUTOR, Framework

TIMEOUT = 600.0
_EXECUTOR_SOC = re.compile(r'\{"(ascend\w+|kirin\w+|mc\d+)",\s*"')


def executor_socs(executor: Path) -> set[str]:
    """The SoCs ops-nn's tiling executor has a platform for (its SoC table)."""
    return set(_EXECUTOR_SOC.findall(executor.read_text(encoding="utf-8", errors="replace")))


@dataclass(frozen=True)
class Source:
    rel: str  # relative to the op dir
    flags: tuple[str, ...]



def ophost_sources(op_dir: Path, tiling_dir: str | None) -> tuple[list[Source], list[Source]]:
    """(host sources, UT sources) ops-nn compiles into the op_host UT of a compute unit with `tiling_dir`."""
    host_dirs = [op_dir / "op_host", *([op_dir / "op_host" / tiling_dir] if tiling_dir else [])]
    ut_root = op_dir / "tests/ut/op_host"
    ut_dirs = [ut_root, *([ut_root / tiling_dir] if tiling_dir else [])]
    host = []
    for folder in host_dirs:
        for path in sorted(folder.glob("*.cpp")):
            role = "OP_TILING" if "tiling" in path.name else "OP_PROTO"
            host.append(Source(path.relative_to(op_dir).as_posix(),
                               (f'-DOPS_UTILS_LOG_SUB_MOD_NAME="{role}"', "-DDISABLE_COMPILE_V1")))
    tests = [Source(p.relative_to(op_dir).as_posix(), ("-fno-access-control",))
             for folder in ut_dirs for pattern in ("test_*_tiling.cpp", "test_*_infershape.cpp")
             for p in sorted(folder.glob(pattern))]
    return host, tests


class OphostBuild:
    """One op's op_host UT build: every source compiled once (host and UT objects do not depend on the SoC),
    ops-nn's tiling executor once per SoC, then one executable per SoC."""

    def __init__(self, op_dir: Path, framework: Framework, executor_source: Path, work: Path, jobs: int) -> None:
        self.op_dir, self.framework, self.executor_source, self.work, self.jobs = (
            op_dir, framework, executor_source, work, jobs)
        own = [op_dir / "op_host", op_dir / "op_graph", op_dir, op_dir.parent]
        self.base = [*framework.flags, *(f"-I{d}" for d in (*own, *framework.include_dirs))]
        self.objects: dict[str, Path | None] = {}

    def compile_all(self, socs: Sequence[str], *, tests: bool = True) -> list[CheckItem]:
        """Every host source (and, with `tests`, UT source) of the SoCs, and the executor once per SoC."""
        groups = [ophost_sources(self.op_dir, SOCS[soc].arch)[: 2 if tests else 1] for soc in socs]
        sources = {s.rel: s for found in groups for group in found for s in group}
        jobs: list[tuple[str, list[str]]] = [
            (rel, [*self.base, *s.flags, "-c", str(self.op_dir / rel)]) for rel, s in sources.items()]
        jobs += [(f"{TILING_EXECUTOR}@{soc}", [*self.base, f"-DBUILD_SOC_VERSION={soc}", "-fno-access-control",
                                               "-c", str(self.executor_source)]) for soc in socs]
        with ThreadPoolExecutor(max_workers=max(self.jobs, 1)) as pool:
            errors = list(pool.map(lambda job: self._compile(*job), jobs))
        items = []
        for (key, _), error in zip(jobs, errors, strict=True):
            label = f"{key.replace('@', ' (')})" if "@" in key else key
            items.append(ok(f"{label} compiles") if error is None else bad(f"{label} compiles", error))
        return items

    def compile_extra(self, key: str, source: Path) -> str | None:
        """A source of opgen's own next to the tree's (the host tiling driver), compiled as a UT is; it may include
        the tree's headers and its own dir."""
        return self._compile(key, [*self.base, "-fno-access-control", f"-I{source.parent}", "-c", str(source)])

    def _compile(self, key: str, command: list[str]) -> str | None:
        out = self.work / (key.replace("/", "__") + ".o")
        error = gxx_error(["g++", *command, "-o", str(out)], None if "@" in key else self.op_dir,
                          self.framework.sources_root)
        self.objects[key] = out if error is None else None
        return error

    def keys(self, soc: str, *, tests: bool) -> list[str]:
        """The objects of one SoC's executable: its host sources, with `tests` its UT sources, the executor."""
        host, uts = ophost_sources(self.op_dir, SOCS[soc].arch)
        return [s.rel for s in (*host, *(uts if tests else ()))] + [f"{TILING_EXECUTOR}@{soc}"]

    def link(self, keys: Sequence[str], name: str) -> tuple[Path | None, str]:
        """(the executable, "") or (None, why not): the objects against the framework."""
        objects = [self.objects.get(key) for key in keys]
        if any(obj is None for obj in objects):
            return None, "not linked: a source above did not compile"
        exe = self.work / name
        link = ["g++", "-o", str(exe), *map(str, self.framework.whole_objects), *map(str, objects),
                # metadef and graph each carry AscendString/TypeUtils (two shared libraries upstream, where
                # the first loaded wins); as archives the first definition wins the same way
                "-Wl,--allow-multiple-definition",
                # whole archives: graph and error-manager functions are referenced weakly, which never pulls
                # a member out of an archive (shared libraries upstream resolve them at load time)
                "-Wl,--whole-archive", *map(str, self.framework.archives), "-Wl,--no-whole-archive",
                "-lprotobuf", "-lpthread", "-ldl"]
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


