"""The l0 op (`l0op::<Op>` in op_api/<op>.h, .cpp, or the spec's l0_file): the piece that puts the AICore kernel on
the launcher list.
An op with an aclnn API calls it from its wrapper; an l0-only op (spec `l0_op`, upstream activation/relu_grad)
ships it for an aclnn API declared in another op's dir."""

from __future__ import annotations

from dataclasses import dataclass

from ..registry.attrs import AttrPlan
from ..registry.platforms import SocPlan
from ..registry.soc_columns import GatedSoc, SocDtypeList, host_dtype_lists
from ..registry.tensors import DtypeCombination

L0_TYPES = {"float": "float", "int": "int64_t", "bool": "bool", "string": "const char*"}


@dataclass(frozen=True)
class L0Plan:
    file_stem: str  # op_api/<file_stem>.h, .cpp
    support_dtypes: tuple[str, ...]  # op::DataType enumerators the kernel takes
    attr_params: tuple[str, ...]  # the attr parameters after the tensors, in def attr order
    attr_names: tuple[str, ...]  # their names: L0_DFX and OP_ATTR arguments
    soc_dtype_lists: tuple[SocDtypeList, ...] = ()  # SoCs taking fewer dtypes: the AICore check picks per SoC

    @property
    def attr_params_text(self) -> str:
        """`, float lambd` for the signature after its tensors, empty without attrs."""
        return "".join(f", {p}" for p in self.attr_params)

    @property
    def dfx_text(self) -> str:
        return "".join(f", {n}" for n in self.attr_names)

    @property
    def op_attr(self) -> str:
        """The launcher's attr argument: `, OP_ATTR(lambd)`, empty without attrs."""
        return f", OP_ATTR({', '.join(self.attr_names)})" if self.attr_names else ""


def registered(socs: tuple[SocPlan, ...]) -> tuple[GatedSoc, ...]:
    """The SoCs the def registers, with the combinations each supports."""
    return tuple(GatedSoc(s.name, s.soc_enum, s.combinations) for s in socs)


def l0_plan(file_stem: str, attrs: tuple[AttrPlan, ...], combos: tuple[DtypeCombination, ...],
            socs: tuple[SocPlan, ...]) -> L0Plan:
    return L0Plan(file_stem=file_stem, support_dtypes=tuple(dict.fromkeys(f"op::DataType::{c.key.ge}" for c in combos)),
                  attr_params=tuple(f"{L0_TYPES[a.kind]} {a.field}" for a in attrs),
                  attr_names=tuple(a.field for a in attrs), soc_dtype_lists=host_dtype_lists(registered(socs), combos))
