"""Per-SoC facts of an op: AICore config, tiling key, compute variant, binary JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace

from ...spec.models import OpSpec, PlatformSpec
from ...spec.socs import SOCS, TILING_SOC_ALIASES
from .family_paths import op_file_value
from .soc_columns import ConfigTensor, config_columns, supported
from .tensors import DtypeCombination, TensorPlan

AICORE_METHODS = (
    ("dynamic_compile_static", "DynamicCompileStaticFlag"),
    ("dynamic_format", "DynamicFormatFlag"),
    ("dynamic_rank_support", "DynamicRankSupportFlag"),
    ("dynamic_shape_support", "DynamicShapeSupportFlag"),
    ("need_check_support", "NeedCheckSupportFlag"),
    ("precision_reduce", "PrecisionReduceFlag"),
)


@dataclass(frozen=True)
class SocPlan:
    name: str
    arch: str | None
    kernel_ut_soc: str | None
    short_version: str
    soc_enum: str
    aicore_flags: tuple[tuple[str, str], ...]  # (OpAICoreConfig method, "true"/"false")
    extend_cfg: tuple[tuple[str, str], ...]  # ExtendCfgInfo key/value pairs
    config_var: str  # the OpAICoreConfig variable in the def
    tiling_key: int | None
    selected_key: int | None  # the key a classic SelectTilingKey picks on this SoC (TILING_SOC_ALIASES)
    variant: str
    binary_json: str
    combinations: tuple[DtypeCombination, ...]  # the combinations this SoC supports (soc_columns)
    def_columns: tuple[ConfigTensor, ...]  # its OpAICoreConfig's own columns; empty: the def's main columns
    declares_config: bool = True  # False: it adds another SoC's identical config (share_configs)

    @property
    def has_config(self) -> bool:
        """The def registers this SoC with an OpAICoreConfig: flags of its own, or columns of its own."""
        return bool(self.aicore_flags or self.def_columns)


def soc_plan(spec: OpSpec, platform: PlatformSpec, all_combos: tuple[DtypeCombination, ...],
             tensors: tuple[TensorPlan, ...]) -> SocPlan:
    combos = supported(platform, all_combos)
    soc = SOCS[platform.soc]
    flags: tuple[tuple[str, str], ...] = ()
    extend: tuple[tuple[str, str], ...] = ()
    if platform.aicore is not None:
        values = platform.aicore.model_dump()
        flags = tuple((method, "true" if values[field] else "false") for field, method in AICORE_METHODS
                      if values[field] is not None)
    op_file = op_file_value(spec, platform.kernel)
    if op_file:
        extend = (("opFile.value", op_file),)
    document = {"op_type": spec.op_type, "op_list": [{"bin_filename": c.bin_filename, **c.binary_entry}
                                                     for c in combos]}
    return SocPlan(
        name=soc.name, arch=soc.arch, kernel_ut_soc=soc.kernel_ut_soc, short_version=soc.short_version,
        soc_enum=soc.name.upper(), aicore_flags=flags, extend_cfg=extend,
        config_var="config" + "".join(part.capitalize() for part in soc.name.split("_")),
        tiling_key=platform.tiling_key, selected_key=_selected_key(spec, platform),
        variant=platform.compute_variant, binary_json=json.dumps(document, indent=4) + "\n",
        combinations=combos, def_columns=config_columns(tensors, all_combos, combos),
    )


def share_configs(socs: tuple[SocPlan, ...]) -> tuple[SocPlan, ...]:
    """SoCs with the same own columns (and the same flags) add one OpAICoreConfig, the first one's, as ops-nn
    adds config950 for both mc62 and ascend950; SoCs taking the main columns keep a config each."""
    first: dict[tuple[object, ...], str] = {}
    shared = []
    for soc in socs:
        if not soc.def_columns:
            shared.append(soc)
            continue
        key = (soc.def_columns, soc.aicore_flags, soc.extend_cfg)
        owner = first.setdefault(key, soc.config_var)
        shared.append(soc if owner == soc.config_var else replace(soc, config_var=owner, declares_config=False))
    return tuple(shared)


def _selected_key(spec: OpSpec, platform: PlatformSpec) -> int | None:
    alias = TILING_SOC_ALIASES.get(platform.soc)
    twin = next((p for p in spec.platforms if p.soc == alias and p.tiling_key is not None), None)
    return twin.tiling_key if twin is not None else platform.tiling_key
