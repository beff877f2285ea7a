"""What a kernel family's name fixes: its blueprint set and lowering dialect, and where each of its files
lives in the op dir (no plan imports: the SoC plan and the UB budget need it too)."""

from __future__ import annotations

from dataclasses import dataclass

from ...spec.models import OpSpec


@dataclass(frozen=True)
class FamilyShape:
    """What a family's name fixes, before the op's name and SoCs are known."""

    blueprint: str  # blueprints/<blueprint>: the family's own files
    dialect: str  # lowering.NATIVE key: the vector ops its kernel has natively
    under_arch35: bool  # its kernel headers and host tiling live in the arch35/ subdirs
    namespace_pattern: str  # {op}: the op type
    default_st_arch: str  # tests/st/<arch>, for SoCs without a tiling dir


SHAPES: dict[str, FamilyShape] = {
    "classic": FamilyShape("classic", "classic", False, "Ns{op}", "arch22"),
    "arch35_dag": FamilyShape("arch35", "arch35", True, "{op}Ns", "arch35"),
    # a TPipe/TQue kernel for 950 under op_kernel/arch35/ (activation/softsign_grad, hard_shrink_grad)
    "classic_arch35": FamilyShape("classic", "classic", True, "Ns{op}", "arch35"),
    # halves of an input along an axis, a register loop per tile (activation/glu_grad, swi_glu_grad's arch35)
    "arch35_split": FamilyShape("arch35_split", "split", True, "{op}Ns", "arch35"),
}


def family_paths(op: str, name: str, several: bool, op_file: str | None = None) -> dict[str, str]:
    """Where upstream puts each file of the family: with several families in one op dir the classic tiling
    moves to op_host/arch22/ and a classic-under-arch35 entry to op_kernel/arch35/<op>.cpp
    (activation/hard_swish_grad_v2); alone, that entry is op_kernel/<op>_apt.cpp (activation/softsign_grad).
    `op_file` renames an arch35 entry (and so its opFile.value) as upstream does (op_kernel/logsigmoid_grad.cpp)."""
    if name == "classic":
        host = "op_host/arch22" if several else "op_host"
        ut = "tests/ut/op_host/arch22" if several else "tests/ut/op_host"
        return {"kernel_entry": f"op_kernel/{op}.cpp", "kernel_dir": "op_kernel", "kernel_include": f"{op}.h",
                "op_file": "", "tiling_source": f"{host}/{op}_tiling.cpp", "tiling_ut": f"{ut}/test_{op}_tiling.cpp",
                "kernel_ut_file": f"tests/ut/op_kernel/test_{op}.cpp"}
    if name == "arch35_split":  # activation/glu_grad: the host tiling in op_host/, the entry renamed by op_file
        entry = f"op_kernel/{op_file or op + '_apt'}.cpp"
        return {"kernel_entry": entry, "kernel_dir": "op_kernel/arch35", "kernel_include": f"arch35/{op}.h",
                "op_file": entry.rsplit("/", 1)[1].removesuffix(".cpp"), "tiling_source": f"op_host/{op}_tiling.cpp",
                "tiling_ut": f"tests/ut/op_host/test_{op}_tiling.cpp",
                "kernel_ut_file": _kernel_ut(f"test_{op}.cpp", entry)}
    entry = f"op_kernel/arch35/{op}.cpp" if several and name == "classic_arch35" else f"op_kernel/{op}_apt.cpp"
    if op_file is not None:
        entry = f"{entry.rsplit('/', 1)[0]}/{op_file}.cpp"
    return {"kernel_entry": entry, "kernel_dir": "op_kernel/arch35",
            "kernel_include": f"{op}.h" if entry.startswith("op_kernel/arch35/") else f"arch35/{op}.h",
            "op_file": entry.rsplit("/", 1)[1].removesuffix(".cpp"),
            "tiling_source": f"op_host/arch35/{op}_tiling_arch35.cpp",
            "tiling_ut": f"tests/ut/op_host/arch35/test_{op}_tiling.cpp",
            "kernel_ut_file": _kernel_ut(f"test_{op}_apt.cpp", entry)}


def _kernel_ut(usual: str, entry: str) -> str:
    """The kernel UT's path: ops-nn's kernel UT build compiles tests/ut/op_kernel/test_<kernel entry stem>*.cpp
    (cmake/ut.cmake), so the name after the op is kept only where it begins so (an op_file renaming the entry to
    another stem, as `opgen new --like` does, gets test_<op_file>.cpp)."""
    stem = entry.rsplit("/", 1)[1].removesuffix(".cpp")
    return f"tests/ut/op_kernel/{usual if usual.startswith(f'test_{stem}') else f'test_{stem}.cpp'}"


def op_file_value(spec: OpSpec, kernel: str) -> str:
    """The def's opFile.value for a SoC of this family; empty for the default op_kernel/<op>.cpp."""
    several = len({p.kernel for p in spec.platforms}) > 1
    return family_paths(spec.snake_name, kernel, several, family_op_file(spec, kernel))["op_file"]


def family_op_file(spec: OpSpec, kernel: str) -> str | None:
    """The `op_file` a family's platforms give (the spec check makes them agree)."""
    return next((p.op_file for p in spec.platforms if p.kernel == kernel and p.op_file), None)


def dialect_of(kernel: str) -> str:
    """The lowering dialect of a platform's `kernel:` value."""
    return SHAPES[kernel].dialect
