"""Kernel families: each platform's `kernel:` names one; an op dir holds one kernel per family it uses.

A family fixes where its kernel and host tiling live, which blueprint set renders them, which vector ops
its kernel has natively (the lowering dialect), its C++ namespace and its ST arch dir. ops-nn keeps several
families in one op dir (activation/hard_swish_grad_v2: a classic kernel for 910b-class SoCs and an arch35
one for 950), so the plan carries a tuple of families, in the order the spec first names them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..spec.models import OpSpec
from .registry.family_paths import SHAPES, family_op_file, family_paths
from .registry.platforms import SocPlan
from .testcases.kernel_ut import KernelUtPlan
from .testcases.ophost_tests import OPS_NN_UT_DIRS, OphostUtPlan

# the family's unit tests, from its dialect, SoCs, kernel entry and kernel dir (both relative to tests/ut/op_kernel/)
UtBuilder = Callable[[str, tuple[SocPlan, ...], str, str], tuple[KernelUtPlan, OphostUtPlan]]


@dataclass(frozen=True)
class KernelFamily:
    name: str  # the spec's `kernel:` value
    blueprint: str
    dialect: str
    socs: tuple[SocPlan, ...]  # the SoCs this family's kernel serves, in spec order
    kernel_entry: str  # op-dir relative path of the kernel's entry source
    kernel_dir: str  # op-dir relative dir of the kernel's headers
    kernel_include: str  # how the entry includes the kernel's header
    op_file: str  # the def's ExtendCfgInfo("opFile.value") for its SoCs; empty: the default <op>.cpp
    tiling_source: str  # op-dir relative path of the host tiling
    tiling_ut: str  # op-dir relative path of the host tiling's UT
    kernel_ut_file: str  # op-dir relative path of the kernel UT
    namespace: str
    st_arch: str
    kernel_ut: KernelUtPlan
    ophost_ut: OphostUtPlan

    @property
    def is_dag(self) -> bool:
        return self.dialect == "arch35"

    @property
    def is_split(self) -> bool:
        return self.dialect == "split"

    @property
    def soc_names(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.socs)

    @property
    def tiling_dir(self) -> str:
        return self.tiling_source.rsplit("/", 1)[0]

    @property
    def kernel_entry_name(self) -> str:
        return self.kernel_entry.rsplit("/", 1)[1]

    @property
    def kernel_ut_name(self) -> str:
        return self.kernel_ut_file.rsplit("/", 1)[1]


def kernel_families(spec: OpSpec, socs: tuple[SocPlan, ...], tests: UtBuilder) -> tuple[KernelFamily, ...]:
    """One family per distinct `kernel:` value, each with the SoCs that name it."""
    names = list(dict.fromkeys(p.kernel for p in spec.platforms))
    families = []
    for name in names:
        shape = SHAPES[name]
        members = tuple(s for s, p in zip(socs, spec.platforms, strict=True) if p.kernel == name)
        arches = [s.arch for s in members if s.arch]
        paths = family_paths(spec.snake_name, name, several=len(names) > 1, op_file=family_op_file(spec, name))
        # beside the tiling of the SoCs with a UT dir (a SoC without one adds that dir to its build: cmake.py)
        if {OPS_NN_UT_DIRS.get(s.name) for s in members} - {None} == {"arch22"}:
            paths["tiling_ut"] = f"tests/ut/op_host/arch22/test_{spec.snake_name}_tiling.cpp"
        kernel_dirs = {OPS_NN_UT_DIRS.get(s.name) for s in members if s.kernel_ut_soc}  # SoCs with kernel UTs
        if len(names) > 1 and len(kernel_dirs) == 1 and None not in kernel_dirs:
            # AddOpTestCase compiles tests/ut/op_kernel/test_<op>*.cpp and its SoC's arch dir with that SoC's
            # kernel: another family's UT at the top level would run against this family's kernel
            ut_name = paths["kernel_ut_file"].rsplit("/", 1)[1]
            paths["kernel_ut_file"] = f"tests/ut/op_kernel/{kernel_dirs.pop()}/{ut_name}"
        up = "../" * paths["kernel_ut_file"].count("/")
        kernel_ut, ophost_ut = tests(shape.dialect, members, f"{up}{paths['kernel_entry']}",
                                   f"{up}{paths['kernel_dir']}")
        families.append(KernelFamily(
            name=name, blueprint=shape.blueprint, dialect=shape.dialect, socs=members, **paths,
            namespace=shape.namespace_pattern.format(op=spec.op_type),
            st_arch=arches[0] if arches else shape.default_st_arch, kernel_ut=kernel_ut, ophost_ut=ophost_ut,
        ))
    return tuple(families)

