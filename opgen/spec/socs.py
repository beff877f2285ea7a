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
    vector_cores: int  # AIV cores (runtime's platform_config ini: vector_core_cnt, ai_core_cnt on 310P and 910)
    ub_bytes: int  # unified buffer per core: ub_size of the platform ini, TOTAL_UB_SIZE of asc-devkit
    # the top of the UB asc-devkit's basic API keeps for its own temporaries (TOTAL_UB_SIZE - TMP_UB_OFFSET: Select
    # duplicates its scalar there); a tile reaching it is overwritten mid-Compute of a kernel that selects
    ub_scratch_bytes: int


SOCS: dict[str, Soc] = {
    s.name: s
    for s in (
        Soc("ascend910b", "arch22", "ascend910b1", "Ascend910B", 2201, 48, 192 * KIB, 8 * KIB),
        Soc("ascend910", "arch22", None, "Ascend910", 1001, 32, 256 * KIB, 8 * KIB),
        Soc("ascend910_93", "arch22", "ascend910_9391", "Ascend910_93", 2201, 48, 192 * KIB, 8 * KIB),
        Soc("ascend310p", "arch22", "ascend310p1", "Ascend310P", 2002, 10, 256 * KIB, 8 * KIB),
        Soc("ascend310b", None, None, "Ascend310B", 3002, 1, 248 * KIB, 0),
        Soc("ascend950", "arch35", "ascend950pr_9599", "Ascend950", 3510, 72, 248 * KIB, 0),
        Soc("ascend350", "arch35", None, "Ascend350", 3510, 32, 248 * KIB, 0),
    )
}

# Atlas training (dav_c100, impl/basic_api/dav_c100): no DataCopyPad, no Compares, and Select only in
# SELMODE::VSEL_CMPMASK_SPR, whose mask register takes one repeat's bits from a 32-byte aligned address; its classic
# keys copy whole blocks and compare and select a repeat at a time, scalar operands kept as constant repeats
BY_REPEAT_ARCHES = frozenset({1001})

# dtypes a SoC's vector core has no instructions for: Atlas training (dav_c100) and Atlas inference (dav_m200)
# convert and compute no bfloat16 (asc-devkit impl/basic_api/dav_c100 and dav_m200/kernel_operator_vec_vconv_impl.h
# have no bf16 conversion); the aclnn wrapper and l0 op refuse it there as upstream's (ACLNN_ERR_PARAM_INVALID)
LACKING_DTYPES = {"ascend910": frozenset({"bfloat16"}), "ascend310p": frozenset({"bfloat16"})}

# platform_ascendc reports these SoCs to a tiling as another SoC's SocVersion (asc-devkit
# impl/utils/tiling/platform/platform_ascendc.cpp: "Ascend910_93" -> SocVersion::ASCEND910B)
TILING_SOC_ALIASES = {"ascend910_93": "ascend910b"}
