"""Facts about Ascend SoCs as ops-nn's CMake and test kit name them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Soc:
    name: str
    arch: str | None  # op_host/<arch> tiling dir (cmake/func.cmake); None: no tiling dir
    kernel_ut_soc: str | None  # SoC name AddOpTestCase takes
    short_version: str  # what platform info reports, used in UT and golden kwargs
    vector_cores: int  # AIV cores (runtime's platform_config ini: vector_core_cnt, ai_core_cnt on 310P)
    ub_bytes: int  # unified buffer per core (ub_size)


SOCS: dict[str, Soc] = {
    s.name: s
    for s in (
        Soc("ascend910b", "arch22", "ascend910b1", "Ascend910B", 48, 196608),
        Soc("ascend910_93", "arch22", "ascend910_9391", "Ascend910_93", 48, 196608),
        Soc("ascend310p", "arch22", "ascend310p1", "Ascend310P", 10, 262144),
        Soc("ascend310b", None, None, "Ascend310B", 1, 253952),
        Soc("ascend950", "arch35", "ascend950pr_9599", "Ascend950", 72, 253952),
        Soc("ascend350", "arch35", None, "Ascend350", 32, 253952),
    )
}
