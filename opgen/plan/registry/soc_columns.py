"""Per SoC, the dtype combinations it supports, and the def columns of a SoC that supports only some.

The def's main `this->Input/Output(...)` columns list every combination; a SoC whose spec names a subset
(`platforms[i].combinations`) gets an OpAICoreConfig with exactly its columns, as ops-nn registers ascend910
for activation/hard_swish_grad_v2. Its tiling UT, kernel UT, ST rows, binary JSON and aclnn dtype list use
only those combinations.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...spec.models import PlatformSpec
from ...spec.socs import LACKING_DTYPES, SOCS
from .tensors import DtypeCombination, TensorPlan, def_lists


@dataclass(frozen=True)
class ConfigTensor:
    """One tensor's registration inside a SoC's OpAICoreConfig, restricted to that SoC's columns."""

    def_method: str  # Input | Output
    name: str
    param_type: str
    def_lists: tuple[tuple[str, tuple[str, ...]], ...]  # DataType, Format (, UnknownShapeFormat) of its columns
    def_calls: tuple[str, ...]  # the op's own further calls (AutoContiguous), repeated in the config


def supported(platform: PlatformSpec, combos: tuple[DtypeCombination, ...]) -> tuple[DtypeCombination, ...]:
    """The combinations a platform's SoC supports, in def order: its `combinations`, else all."""
    if platform.combinations is None:
        return combos
    chosen = set(platform.combinations)
    return tuple(c for c in combos if c.index in chosen)


def config_columns(tensors: tuple[TensorPlan, ...], all_combos: tuple[DtypeCombination, ...],
                   mine: tuple[DtypeCombination, ...]) -> tuple[ConfigTensor, ...]:
    """The OpAICoreConfig tensors of a SoC supporting `mine`; none when that is every combination."""
    if len(mine) == len(all_combos):
        return ()
    return tuple(
        ConfigTensor(t.def_method, t.name, t.param_type, def_lists(
            tuple(t.def_dtypes[c.index] for c in mine), tuple(t.def_formats[c.index] for c in mine),
            t.unknown_shape_format), t.def_calls)
        for t in tensors
    )


@dataclass(frozen=True)
class GatedSoc:
    """A SoC the host side accepts only some combinations on: one the spec registers with a subset, or one it does
    not register whose vector core lacks a dtype of the op (upstream's aclnn refuses bf16 on ascend910 with
    ACLNN_ERR_PARAM_INVALID, activation/elu_grad_v2/op_api/aclnn_elu_backward.cpp)."""

    name: str
    soc_enum: str  # op::SocVersion enumerator
    combinations: tuple[DtypeCombination, ...]


def gated_socs(registered: tuple[GatedSoc, ...], combos: tuple[DtypeCombination, ...]) -> tuple[GatedSoc, ...]:
    """The registered SoCs, then each SoC the spec does not register that lacks a dtype some combination uses
    (socs.LACKING_DTYPES), with the combinations it can run: what the aclnn wrapper and the l0 op check per SoC."""
    names = {s.name for s in registered}
    unregistered = []
    for name, lacking in LACKING_DTYPES.items():
        able = tuple(c for c in combos if not lacking & set(c.names))
        if name not in names and len(able) < len(combos):
            unregistered.append(GatedSoc(name, name.upper(), able))
    return (*registered, *unregistered)


@dataclass(frozen=True)
class SocDtypeList:
    """The aclnn wrapper's dtype list on one SoC whose key dtypes are fewer than the op's."""

    soc_enum: str  # op::SocVersion enumerator
    name: str  # the C++ list's name
    dtypes: str  # op::DataType enumerators, comma separated
    shown: str  # the docs' sentence: on which SoC the data tensors take which dtypes


def soc_dtype_lists(socs: tuple[tuple[str, tuple[DtypeCombination, ...]], ...],
                    combos: tuple[DtypeCombination, ...]) -> tuple[SocDtypeList, ...]:
    """One list per (SoC enum, its combinations) whose first-output dtypes are not the op's; () for most ops."""
    every = tuple(dict.fromkeys(c.key.ge for c in combos))
    lists = []
    for soc_enum, mine in socs:
        keys = tuple(dict.fromkeys(c.key.ge for c in mine))
        if keys != every:
            names = ", ".join(dict.fromkeys(c.key.name for c in mine)) or "no dtype"
            lists.append(SocDtypeList(soc_enum, f"{soc_enum}_DTYPE_SUPPORT_LIST",
                                      ", ".join(f"op::DataType::{k}" for k in keys),
                                      f"On {SOCS[soc_enum.lower()].short_version} the data tensors take {names} only"))
    return tuple(lists)


def combination_series(platforms: tuple[PlatformSpec, ...], combos: tuple[DtypeCombination, ...]) -> dict[int, str]:
    """Per combination that not every SoC supports, an ST row's soc_series: the SoCs that do (short versions)."""
    series = {}
    for combo in combos:
        having = [SOCS[p.soc].short_version for p in platforms if combo in supported(p, combos)]
        if len(having) < len(platforms):
            series[combo.index] = repr(tuple(dict.fromkeys(having)))
    return series


def host_dtype_lists(registered: tuple[GatedSoc, ...],
                     combos: tuple[DtypeCombination, ...]) -> tuple[SocDtypeList, ...]:
    """The per-SoC dtype lists the aclnn wrapper and the l0 op print: registered subsets and lacking SoCs."""
    return soc_dtype_lists(tuple((s.soc_enum, s.combinations) for s in gated_socs(registered, combos)), combos)
