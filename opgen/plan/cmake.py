"""Which CMakeLists.txt files an op dir has and what they list, from its kernel families.

ops-nn writes an op with one family whose tiling is under op_host/arch35/ as a root CMakeLists.txt
registering the modules with each SoC's tiling dir; a classic-only op as a root that adds its subdirs and an
op_host/CMakeLists.txt registering the modules; an op with several families (activation/hard_swish_grad_v2)
as the latter with the SoC lists in op_host/, plus an op_kernel/CMakeLists.txt naming each family's kernel
source and SoCs.
A file name left empty makes the renderer skip that file.
"""

from __future__ import annotations

from dataclasses import dataclass

from .families import KernelFamily
from .testcases.ophost_tests import ut_dir_of

LISTS = "CMakeLists.txt"


@dataclass(frozen=True)
class KernelSources:
    """One add_kernel_sources call: a family's entry (relative to op_kernel/) and the SoCs it builds for."""

    kernel_src_arg: str  # `KERNEL_SRC <file> `, empty for the default `<op>.cpp`
    compute_units: str


@dataclass(frozen=True)
class CmakePlan:
    root_modules: str  # LISTS when the root CMakeLists.txt registers the modules, else ""
    root_subdirs: str  # LISTS when the root only adds its subdirs, else ""
    op_host_modules: str  # LISTS when op_host/CMakeLists.txt registers the modules, else ""
    op_kernel_sources: str  # LISTS when op_kernel/CMakeLists.txt lists each family's kernel, else ""
    support_lists: bool  # SUPPORT_COMPUTE_UNIT / SUPPORT_TILING_DIR are set and passed
    kernel_sources: tuple[KernelSources, ...]
    ut_guard: str  # the tiling suites' SoC macro without the SoC (ut_soc_guard), defined per build
    # (SoC, dir under tests/ut/op_host/) for a tiling suite in a dir its SoC's UT build does not glob (910 in arch22)
    ut_extra_dirs: tuple[tuple[str, str], ...]

    @property
    def op_api_dir(self) -> str:
        """Where the aclnn sources go: add_modules_sources builds `<DIR>/op_api/*.cpp`, DIR being the folder of
        the CMakeLists.txt that calls it (ops-nn cmake/func.cmake)."""
        return "op_api" if self.root_modules else "op_host/op_api"

    @property
    def modules_args(self) -> str:
        """add_modules_sources' SoC arguments, when the SoC lists are set."""
        return " COMPUTE_UNIT ${SUPPORT_COMPUTE_UNIT} TILING_DIR ${SUPPORT_TILING_DIR}" if self.support_lists else ""


def cmake_plan(name: str, families: tuple[KernelFamily, ...]) -> CmakePlan:
    several = len(families) > 1
    support = several or any(f.tiling_dir != "op_host" for f in families)
    root_modules = support and not several
    return CmakePlan(
        root_modules=LISTS if root_modules else "", root_subdirs="" if root_modules else LISTS,
        op_host_modules="" if root_modules else LISTS, op_kernel_sources=LISTS if several else "",
        support_lists=support,
        kernel_sources=tuple(KernelSources(_kernel_src_arg(name, f), " ".join(f.soc_names)) for f in families),
        ut_guard=f"{name.upper()}_UT_SOC_", ut_extra_dirs=tuple(_ut_extra_dirs(families)),
    )


def _ut_extra_dirs(families: tuple[KernelFamily, ...]) -> list[tuple[str, str]]:
    extra = []
    for family in families:
        folder = family.tiling_ut.removeprefix("tests/ut/op_host/").rpartition("/")[0]
        extra += [(s.soc, folder) for s in family.ophost_ut.tiling_suites if folder not in ("", ut_dir_of(s.soc))]
    return extra


def _kernel_src_arg(name: str, family: KernelFamily) -> str:
    source = family.kernel_entry.removeprefix("op_kernel/")
    return "" if source == f"{name}.cpp" else f"KERNEL_SRC {source} "
