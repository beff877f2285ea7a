"""Validate's build stages with no toolkit: ops-nn's own build.sh run against the toolkit-shaped prefix opgen
builds from the open sources (`--cann-src`, opgen/cann_prefix). The prefix holds what `build.sh -u --ophost` and
`--opapi` need, and `--opkernel` with the tikicpulib stand-in made of opgen's CPU model (check/kernel/tikicpulib.py,
prepared with the prefix); a step it cannot serve is SKIPPED naming what is missing, never run half-equipped."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from ..cann_prefix import layout, workspace
from ..cann_prefix.build import PREFIX_LAYOUT, Prefix, build_prefix
from ..cann_sources import CannSources, cache_root, resolve_sources
from ..check.kernel import tikicpulib
from ..locks import held_lock
from ..plan import build_plan
from ..record import SPEC_COPY, find_record
from ..spec.load import load_spec
from .stages import Stage, Step

NEEDS_TOOLKIT = "needs a CANN toolkit (--cann)"
# build.sh selector -> what the prefix lacks for it
UNSERVED = {
    "--pkg": f"the package build compiles kernels with the toolkit's bisheng and packs them: {NEEDS_TOOLKIT}",
    "--opgraph": f"op_graph UTs were never built against the prefix: {NEEDS_TOOLKIT}",
    "--run_example": f"the example runs the installed op package on an NPU: {NEEDS_TOOLKIT} and a device",
}


@dataclass(frozen=True)
class SourcesBuild:
    """build.sh's environment from the prefix of these sources (built by `build`, on the first build step)."""

    sources: CannSources
    prefix: Prefix

    @property
    def home(self) -> Path:
        return self.prefix.ascend_home

    @property
    def scratch(self) -> Path:
        """validate's own scratch copy of ops-nn, apart from the ops-nn-ut tier's (the check stage may run it)."""
        return self.prefix.root / "validate"

    def unserved(self, step: Step) -> str | None:
        """Why this step cannot run against the prefix; None when it can."""
        return next((why for flag, why in UNSERVED.items() if flag in step.build_args), None)

    def build(self, op_dir: Path, soc: str, kernel_uts: bool) -> Prefix:
        """The prefix, and with `kernel_uts` the tikicpulib stand-in for the SoC, declaring what the op's kernel
        calls when its spec is found (its record)."""
        prefix = build_prefix(self.sources, cache_root())
        if kernel_uts:
            record = find_record(op_dir)
            if record is not None and (record / SPEC_COPY).is_file():
                spec = load_spec(record / SPEC_COPY).spec
                tikicpulib.declare_kernel(self.sources, build_plan(spec, SPEC_COPY), op_dir, soc)
            tikicpulib.prepare(self.sources, tikicpulib.kernel_ut_socs(soc), prefix.c_sec)
        return prefix

    def command(self, build_args: tuple[str, ...]) -> list[str]:
        env = self.prefix.build_sh_env()
        if "--opkernel" in build_args:
            env |= tikicpulib.build_sh_env(self._targets(build_args))
        return ["env", *(f"{key}={value}" for key, value in env.items()), "bash", "build.sh", *build_args,
                *self.prefix.build_sh_flags]

    def display(self, build_args: tuple[str, ...]) -> str:
        """The command as a user would type it (the library path left out: it only adds the prefix's lib64; so is
        the kernel UTs' PATH, which only puts opgen's python3 first)."""
        targets = [f"{tikicpulib.ENV}={self._targets(build_args)}"] if "--opkernel" in build_args else []
        return shlex.join([f"ASCEND_HOME_PATH={self.home}", *targets, "bash", "build.sh", *build_args,
                           *self.prefix.build_sh_flags])

    def _targets(self, build_args: tuple[str, ...]) -> Path:
        """The tikicpulib stand-in's targets file for the --soc of a kernel UT step."""
        soc = next(a.removeprefix("--soc=") for a in build_args if a.startswith("--soc="))
        return tikicpulib.targets_file(self.sources, tikicpulib.kernel_ut_socs(soc))

    def scratch_checkout(self) -> Path:
        """A scratch git copy of the sources' ops-nn with its neighbours, made once and reused."""
        with held_lock(self.scratch.with_suffix(".lock")):
            return workspace.make_workspace(self.sources.root, self.scratch)

    @contextmanager
    def around_builds(self, ops_nn: Path) -> Iterator[list[Path]]:
        """The scratch copy locked, or opbase and ops-tensor lent beside a user's checkout; yields what was lent."""
        with ExitStack() as stack:
            if ops_nn.is_relative_to(self.scratch):
                stack.enter_context(held_lock(self.scratch.with_suffix(".lock")))
                yield []
            else:
                yield stack.enter_context(workspace.lent_neighbours(self.sources.root, ops_nn))


def sources_build(cann_src: Path) -> SourcesBuild:
    """OpgenError (exit 2) naming every missing source repo with how to get it, before anything is written."""
    sources = resolve_sources(cann_src=cann_src)
    assert sources is not None
    layout.check_sources(sources.root)
    root = layout.prefix_dir(cache_root(), sources.root, PREFIX_LAYOUT)
    return SourcesBuild(sources, Prefix(root, 0.0))


def runnable(build: SourcesBuild, steps: tuple[Step, ...]) -> bool:
    """Whether any build step can run against the prefix (a run of nothing but SKIPs proves nothing)."""
    return any(build.unserved(s) is None for s in steps if s.stage is not Stage.CHECK)
