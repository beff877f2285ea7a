"""How to compile one AscendC kernel variant on a plain x86 CPU: the build facts the kernel tier (compile level,
`tier.py`) and the run level share. Nothing here runs a compiler; it computes what to compile and how.

API
- `SOC_ARCH` / `soc_arch(soc)`: the NPU arch a SoC's kernels are built for (`KernelArch`: `__NPU_ARCH__`,
  `__CCE_AICORE__`, the `__DAV_*__` vector-core defines), or None with `unmapped_reason(soc)` saying why.
- `kernel_variants(plan)`: one `KernelVariant` per (SoC, dtype combination) - the binaries the op compiler
  builds from the binary JSON - with its defines (`DTYPE_<T>`, `ORIG_DTYPE_<T>`, `FORMAT_<T>`) and the
  instantiations that variant compiles (each `ASCENDC_TPL_SEL` combination of its dtype, or each tiling key).
- `kernel_sources(op_dir)`: the op_kernel translation units (the `.cpp` files directly under op_kernel).
- `wrapper_source(plan, tu, variant)`: the translation unit the op compiler would build: `__global__` made
  inline, `GET_TILING_DATA*` defined to copy the real tiling struct (so a wrong field fails), the kernel
  included, and every instantiation odr-used (a template kernel that is only parsed checks no API call).
- `compile_command(...)`: the g++ CPU-debug command line (`-fsyntax-only` for the compile level; the run
  level passes its own `mode` flags), with the intrinsic declarations dir first
  (`intrinsics.intrinsic_dir`), then `CannSources.kernel_include_dirs()`, then the op's dirs.

Facts (KERNEL-CHECK.md, asc-devkit's own tests/api/adv_api/CMakeLists.txt and
cmake/asc/legacy_modules/host_config.cmake): ascend910b/910_93 build c220 (2201), ascend950/350 c310 (3510),
ascend310p m200 (2002), ascend310b m300 (3002); SoC names of ops-nn map to asc-devkit's products by
cmake/asc/fwk_modules/util/const_var.py (`SOC_MAP_EXT`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...cann_sources import CannSources
from ...plan import RenderPlan
from ...plan.families import KernelFamily
from ...plan.registry.tensors import DtypeCombination
from ...spec.socs import SOCS

COMMON_DEFINES = ("-D_GLIBCXX_USE_CXX11_ABI=0", "-DASCENDC_CPU_DEBUG=1", "-DASCENDC_DEBUG=1", "-DASCENDC_DUMP=0",
                  "-D__CCE_KT_TEST__=1", "-DASCENDC_TPL_KERNEL")
BASE_FLAGS = ("-std=c++17", "-fno-diagnostics-color", "-w", "-ftemplate-backtrace-limit=0")
SYNTAX_ONLY = ("-fsyntax-only",)


@dataclass(frozen=True)
class KernelArch:
    """One NPU arch as asc-devkit's headers branch on it (vector core: the op's kernels are AIV-only)."""

    npu_arch: int
    aicore: int
    dav: str  # the __DAV_<dav>__ family define
    vector_defines: tuple[str, ...]  # what marks a vector-core compile on this arch

    @property
    def defines(self) -> tuple[str, ...]:
        return (f"-D__CCE_AICORE__={self.aicore}", f"-D__DAV_{self.dav}__",
                *(f"-D{d}" for d in self.vector_defines), f"-D__NPU_ARCH__={self.npu_arch}")


ARCHES: dict[int, KernelArch] = {
    a.npu_arch: a
    for a in (
        KernelArch(2201, 220, "C220", ("__DAV_C220_VEC__", "__DAV_VEC__")),
        KernelArch(3510, 310, "C310", ("__DAV_C310_VEC__", "__DAV_VEC__")),
        KernelArch(1001, 100, "C100", ()),
        KernelArch(2002, 200, "M200", ()),
        KernelArch(3002, 300, "M300", ()),
    )
}
# every SoC of opgen/spec/socs.py, by the __NPU_ARCH__ recorded there; an arch missing from ARCHES is reported by
# unmapped_reason, never compiled blind
SOC_ARCH: dict[str, int] = {name: soc.npu_arch for name, soc in SOCS.items()}


def soc_arch(soc: str) -> KernelArch | None:
    npu_arch = SOC_ARCH.get(soc)
    return None if npu_arch is None else ARCHES[npu_arch]


def unmapped_reason(soc: str) -> str:
    return (f"{soc} has no NPU arch in opgen's map (asc-devkit cmake/asc/legacy_modules/host_config.cmake "
            "lists the build mode of each SoC); its kernels are not compiled")


@dataclass(frozen=True)
class KernelVariant:
    """One binary the op compiler builds: a SoC and one dtype combination (column of the def)."""

    soc: str
    arch: KernelArch
    combination: DtypeCombination
    defines: tuple[str, ...]
    instantiations: tuple[str, ...]  # C++ expressions naming each kernel entry this variant compiles
    family: KernelFamily  # the kernel family serving this SoC: its entry is the unit compiled

    @property
    def dtype_label(self) -> str:
        """The combination as the table shows it: the key dtype, or every distinct dtype when they differ."""
        names = tuple(dict.fromkeys(self.combination.names))
        return self.combination.key.name if len(names) == 1 else "/".join(names)

    @property
    def label(self) -> str:
        return f"{self.soc} {self.dtype_label}"


def variant_defines(plan: RenderPlan, combination: DtypeCombination) -> tuple[str, ...]:
    """What the op compiler defines for one binary JSON entry: each tensor's C type, GE dtype and format."""
    defines: list[str] = []
    for tensor, dtype in zip(plan.tensors, combination.dtypes, strict=True):
        upper = tensor.name.upper()
        defines += [f"-DDTYPE_{upper}={dtype.kernel}", f"-DORIG_DTYPE_{upper}={dtype.ge}",
                    f"-DFORMAT_{upper}=FORMAT_{tensor.formats[combination.index]}"]
    return tuple(defines)


def instantiations(plan: RenderPlan, family: KernelFamily, combination: DtypeCombination) -> tuple[str, ...]:
    """split: the entry template at each shape mode of this dtype; arch35 DAG: the entry template at each
    ASCENDC_TPL_SEL (schMode, dType[, choice]) of this dtype (dType: each path, an absent optional input's included;
    choice: each value of a string attr choosing the math); classic: the one entry, whose TILING_KEY_IS branches all
    compile in one unit (one expression per tiling key)."""
    if family.is_split and plan.split is not None:
        element = plan.split.split.dtypes[combination.index].kernel
        return tuple(f"&{plan.name}<{element}, {mode}>" for mode, _ in plan.split.shape_modes)
    if family.is_dag:
        return tuple(f"&{plan.name}<TPL_SCH_MODE_{mode}, {b.tpl_args}>" for b in plan.dag_branches
                     if b.combination == combination.index for mode in plan.sch_modes)
    keys = plan.classic.variants if plan.classic is not None else ()
    return tuple(f"&{plan.name} /* tiling key {v.tiling_key} */" for v in keys) or (f"&{plan.name}",)


def kernel_variants(plan: RenderPlan) -> list[KernelVariant | tuple[str, str]]:
    """A KernelVariant per (SoC, combination the SoC supports); (soc, reason) for a SoC that cannot be compiled."""
    found: list[KernelVariant | tuple[str, str]] = []
    family_of = {soc.name: f for f in plan.families for soc in f.socs}
    for soc in plan.socs:
        arch = soc_arch(soc.name)
        if arch is None:
            found.append((soc.name, unmapped_reason(soc.name)))
            continue
        family = family_of[soc.name]
        for combination in soc.combinations:
            found.append(KernelVariant(soc.name, arch, combination, variant_defines(plan, combination),
                                       instantiations(plan, family, combination), family))
    return found


def kernel_sources(op_dir: Path) -> list[Path]:
    """The op_kernel translation units ops-nn's build hands to the op compiler."""
    return sorted(p for p in (op_dir / "op_kernel").rglob("*.cpp") if p.is_file())


def wrapper_source(plan: RenderPlan, tu: Path, variant: KernelVariant, default_struct: str | None = None) -> str:
    """The unit g++ compiles for one variant: the kernel included the way the op compiler wraps it. It names the arch,
    not the SoC: SoCs of one arch (910B and 910_93) share its compiles and executables."""
    uses = "\n".join(f"    reinterpret_cast<void*>({expr})," for expr in variant.instantiations)
    default_struct = default_struct or ("EleBaseTilingDataV2" if variant.family.is_dag else f"{plan.op_type}TilingData")
    return f"""// opgen kernel check: arch {variant.arch.npu_arch} {variant.dtype_label}, {tu.name}
#include "kernel_operator.h"
#undef __global__
#define __global__ inline

template <typename T>
__aicore__ inline void OpgenCopyTiling(const __gm__ uint8_t* src, T* dst)
{{
    uint8_t* bytes = reinterpret_cast<uint8_t*>(dst);
    for (size_t i = 0; i < sizeof(T); ++i) {{
        bytes[i] = src[i];
    }}
}}
#undef GET_TILING_DATA
#undef GET_TILING_DATA_WITH_STRUCT
#undef GET_TILING_DATA_MEMBER
#undef GET_TILING_DATA_PTR_WITH_STRUCT
#define GET_TILING_DATA_WITH_STRUCT(tiling_struct, tiling_data, tiling_arg) \\
    tiling_struct tiling_data;                                              \\
    OpgenCopyTiling<tiling_struct>(tiling_arg, &tiling_data);
#define GET_TILING_DATA(tiling_data, tiling_arg) GET_TILING_DATA_WITH_STRUCT({default_struct}, tiling_data, tiling_arg)
#define GET_TILING_DATA_MEMBER(tiling_type, member, var, tiling)                                  \\
    decltype(((tiling_type*)0)->member) var;                                                      \\
    OpgenCopyTiling<decltype(var)>((tiling) + (size_t)(&((tiling_type*)0)->member), &var);
#define __tiling_data_ptr__ const
#define GET_TILING_DATA_PTR_WITH_STRUCT(tiling_struct, dst_ptr, tiling_ptr) \\
    const tiling_struct* dst_ptr = reinterpret_cast<const __gm__ tiling_struct*>(tiling_ptr);

#include "{tu}"

void* const opgen_kernel_instantiations[] = {{
{uses}
}};
"""


def op_include_dirs(op_dir: Path) -> list[Path]:
    """The op's own dirs as ops-nn's kernel build puts them (op_kernel, its arch dirs, the op and its parent)."""
    kernel = op_dir / "op_kernel"
    return [kernel, *sorted(p for p in kernel.iterdir() if p.is_dir()), op_dir, op_dir.parent] if kernel.is_dir() \
        else [op_dir, op_dir.parent]


def compile_command(compiler: str, wrapper: Path, variant: KernelVariant, sources: CannSources, op_dir: Path,
                    intrinsics: Path | None, mode: Sequence[str] = SYNTAX_ONLY) -> list[str]:
    """g++ for one variant: CPU-debug defines, the arch, the variant's dtypes, then the include dirs in the
    order KERNEL-CHECK measured (intrinsic declarations first, op dirs last)."""
    dirs = [*([intrinsics] if intrinsics is not None else []), *sources.kernel_include_dirs(),
            *op_include_dirs(op_dir)]
    return [compiler, *BASE_FLAGS, *mode, *COMMON_DEFINES, *variant.arch.defines, *variant.defines,
            *(f"-I{d}" for d in dirs), str(wrapper)]
