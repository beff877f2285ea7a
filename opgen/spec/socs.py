"""Facts about Ascend SoCs as ops-nn's CMake and test kit name them."""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024


@dataclass(frozen=True)
class Soc:
    name: str
    arch: str | None  # op_host/<arch> tiling dir (cmake/func.cmake); None: no tiling dir
    kernel_ut_soc: str | None  # SoC name AddOpTestCase takes
    short_version: str  # what platform info reports, used in UT and golden kwargs
    npu_arch: int  # __NPU_ARCH__ of its AI core (asc-devkit platform_ascendc.cpp)
    ub_bytes: int  # TOTAL_UB_SIZE for that __NPU_ARCH__ (asc-devkit kernel_utils_constants.h)


SOCS: dict[str, Soc] = {
    s.name: s
    for s in (
        Soc("ascend910b", "arch22", "ascend910b1", "Ascend910B", 2201, 192 * KIB),
        Soc("ascend910_93", "arch22", "ascend910_9391", "Ascend910_93", 2201, 192 * KIB),
        Soc("ascend310p", "arch22", "ascend310p1", "Ascend310P", 2002, 256 * KIB),
        Soc("ascend310b", None, None, "Ascend310B", 3002, 248 * KIB),
        Soc("ascend950", "arch35", "ascend950pr_9599", "Ascend950", 3510, 248 * KIB),
        Soc("ascend350", "arch35", None, "Ascend350", 3510, 248 * KIB),
    )
}
