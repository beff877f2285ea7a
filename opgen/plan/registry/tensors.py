"""Tensors and dtype combinations as every file of the tree spells them."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from ...spec.dtypes import (
    DTYPES,
    MASK_DTYPES,
    PROTO_DTYPES,
    PROTO_TYPE_CLASSES,
    Dtype,
    expanded_proto_dtypes,
    proto_admits,
)
from ...spec.models import OpSpec, TensorSpec
from .mixed import combination_tpl, dag_typings, is_mixed
from .reserved import lower_camel, upper_snake
from .text import SpecText


@dataclass(frozen=True)
class TensorPlan:
    name: str
    role: str  # "input" | "output"
    index: int  # position among the op's inputs or outputs
    dtypes: tuple[Dtype, ...]  # one per combination
    formats: tuple[str, ...]
    proto_dtypes: tuple[Dtype, ...]  # the proto's list when it names no class
    proto_class: str | None  # a named ge::TensorType class (RealNumberType, ...) the proto uses instead
    proto_entries: tuple[str, ...]  # the proto's TensorType({...}) list as written: DT_* and class names
    doc: SpecText
    camel: str  # lowerCamel for C++ variables
    macro: str  # DTYPE_<NAME> the build defines for classic kernels
    type_param: str  # TYPE_<NAME> template parameter of the classic kernel class
    dag_type: str  # C++ type in the arch35 DAG: "T", another type parameter (mixed columns) or a fixed type
    dag_param: bool  # dag_type is a template parameter of the DAG
    is_mask: bool  # a bit/byte mask that only select reads
    read_by_kernel: bool
    optional: bool
    def_calls: tuple[str, ...] = ()  # further def calls (AutoContiguous)
    unknown_shape_format: bool = True  # the def repeats the formats as UnknownShapeFormat
    proto_lacks: tuple[str, ...] = ()  # dtypes of the def the proto does not admit (spec proto_narrower)
    proto_name: str = ""  # the REG_OP name (the def's name unless the spec gives another)

    @property
    def param_type(self) -> str:
        return "OPTIONAL" if self.optional else "REQUIRED"

    @property
    def def_method(self) -> str:
        return "Input" if self.role == "input" else "Output"

    @property
    def proto_macro(self) -> str:
        kind = "INPUT" if self.role == "input" else "OUTPUT"
        return f"OPTIONAL_{kind}" if self.optional else kind

    @property
    def def_dtypes(self) -> tuple[str, ...]:
        return tuple(f"ge::{d.ge}" for d in self.dtypes)

    @property
    def def_formats(self) -> tuple[str, ...]:
        return tuple(f"ge::FORMAT_{f}" for f in self.formats)

    @property
    def def_lists(self) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The def's column calls in upstream's order: DataType, Format and, unless left out, UnknownShapeFormat."""
        return def_lists(self.def_dtypes, self.def_formats, self.unknown_shape_format)

    @property
    def doc_dtypes(self) -> str:
        return ", ".join(dict.fromkeys(d.name.upper() for d in self.dtypes))

    @property
    def doc_formats(self) -> str:
        return ", ".join(dict.fromkeys(self.formats))

    @property
    def desc_getter(self) -> str:
        optional = "Optional" if self.optional else ""
        return f"Get{optional}{self.role.capitalize()}Desc({self.index})"

    @property
    def shape_getter(self) -> str:
        return f"Get{self.role.capitalize()}Shape({self.index})"

    @property
    def element_type(self) -> str:
        """Element type in the classic kernel; 1-bit masks move as bytes."""
        return "uint8_t" if self.is_bits else self.type_param

    @property
    def queue(self) -> str:
        kind = "in" if self.role == "input" else "out"
        return f"{kind}Queue{self.camel[0].upper()}{self.camel[1:]}"

    def scaled(self, elements: str) -> str:
        """An element count or offset of this tensor in units of its element_type."""
        return f"({elements}) / 8" if self.is_bits else elements

    def byte_size(self, elements: str) -> str:
        return f"({elements}) / 8" if self.is_bits else f"{elements} * sizeof({self.element_type})"

    @property
    def proto_type_list(self) -> str:
        """The proto's dtypes as the doxygen block names them."""
        return self.proto_class or ", ".join(self.proto_entries)

    @property
    def proto_tensor_type(self) -> str:
        if self.proto_class:
            return f"TensorType::{self.proto_class}()"
        return f"TensorType({{{self.proto_type_list}}})"

    @property
    def is_bits(self) -> bool:
        return self.dtypes[0].size_bits == 1


@dataclass(frozen=True)
class SameDtype:
    """constraints.same_dtype as the tiling checks it: each other member against one anchor, the first output when
    it is a member (the tiling reads its dtype anyway), else the first required member."""

    anchor: TensorPlan | None
    checked: tuple[TensorPlan, ...]

    @property
    def reads_anchor(self) -> bool:
        return self.anchor is not None and self.anchor.role == "input"

    @property
    def anchor_dtype(self) -> str:
        return f"{self.anchor.camel}Desc->GetDataType()" if self.anchor and self.reads_anchor else "outputDtype"


def same_dtype(group: tuple[TensorPlan, ...]) -> SameDtype:
    anchor = next((t for t in group if t.role == "output" and t.index == 0), None) or next(
        (t for t in group if not t.optional), None)
    return SameDtype(anchor, tuple(t for t in group if t is not anchor))


@dataclass(frozen=True)
class DtypeCombination:
    """Column k of the def: one dtype per tensor, and what selects its kernel."""

    index: int
    dtypes: tuple[Dtype, ...]  # inputs then outputs, def order
    key: Dtype  # the first output's dtype: what tiling and kernel dispatch on
    bin_filename: str
    binary_entry: dict[str, Any]
    tpl: str  # the TPL macro selecting this combination's kernel: the key's, or its own when mixed
    tpl_code: int
    label: str  # names tests and cases: the key dtype, or every tensor's dtype when mixed
    dag_args: str  # the DAG's template arguments for this combination
    dispatch: str  # the host tiling's condition selecting this combination

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(d.name for d in self.dtypes)


def tensor_plans(spec: OpSpec, recipe_args: set[str]) -> tuple[TensorPlan, ...]:
    count = spec.combination_count
    typings = dag_typings({t.name: t.dtype_column(count) for t in spec.tensors}, spec.outputs[0].dtype_column(count))
    plans = []
    for role, items in (("input", spec.inputs), ("output", spec.outputs)):
        for index, tensor in enumerate(items):
            read = tensor.name in recipe_args or role == "output"
            typing = typings[tensor.name]
            plans.append(_tensor(tensor, role, index, count, read, typing.dag_type, typing.is_param))
    return tuple(plans)


def def_lists(dtypes: tuple[str, ...], formats: tuple[str, ...],
              unknown_shape_format: bool) -> tuple[tuple[str, tuple[str, ...]], ...]:
    lists = (("DataType", dtypes), ("Format", formats))
    return (*lists, ("UnknownShapeFormat", formats)) if unknown_shape_format else lists


def _tensor(t: TensorSpec, role: str, index: int, count: int, read: bool, dag_type: str, param: bool) -> TensorPlan:
    column = t.dtype_column(count)
    proto_class = t.proto_dtypes if isinstance(t.proto_dtypes, str) else None
    written = t.proto_dtypes if isinstance(t.proto_dtypes, tuple) else tuple(dict.fromkeys(column))
    proto = column if proto_class else expanded_proto_dtypes(written)
    camel = lower_camel(t.name)
    return TensorPlan(
        name=t.name, role=role, index=index, dtypes=tuple(DTYPES[d] for d in column),
        formats=t.format_column(count), proto_dtypes=tuple(PROTO_DTYPES[d] for d in dict.fromkeys(proto)),
        proto_class=proto_class, doc=SpecText(t.doc),
        proto_entries=tuple(e if e in PROTO_TYPE_CLASSES else PROTO_DTYPES[e].ge for e in written),
        camel=camel, macro=f"DTYPE_{t.name.upper()}", type_param=f"TYPE_{upper_snake(t.name)}", dag_type=dag_type,
        dag_param=param,
        is_mask=role == "input" and set(column) <= MASK_DTYPES and "uint1" in column, read_by_kernel=read,
        optional=t.param_type == "optional", def_calls=t.def_calls,
        unknown_shape_format=t.unknown_shape_format,
        proto_lacks=tuple(c for c in dict.fromkeys(column) if t.proto_narrower
                          and DTYPES[c].ge not in proto_admits(t.proto_dtypes or written)),
        proto_name=t.proto_name or t.name,
    )


def combinations(spec: OpSpec, tensors: tuple[TensorPlan, ...]) -> tuple[DtypeCombination, ...]:
    result = []
    params = dag_params(tensors)
    first_output = next(t for t in tensors if t.role == "output")
    columns = [(tuple(t.dtypes[k] for t in tensors), first_output.dtypes[k]) for k in range(spec.combination_count)]
    checked = dispatch_tensors(tensors)
    for k, (dtypes, key) in enumerate(columns):
        entry = _binary_entry(spec, tensors, k)
        digest = hashlib.md5(json.dumps(entry, sort_keys=True).encode(), usedforsecurity=False).hexdigest()
        tpl, code, label = combination_tpl(k, dtypes, key, is_mixed(dtypes, key, tuple(t.dag_type for t in tensors)))
        kernel_types = {t.dag_type: t.dtypes[k].kernel for t in tensors if t.dag_param}
        dispatch = " && ".join([f"{t.camel}Dtype == ge::{t.dtypes[k].ge}" for t in checked]
                               + [f"outputDtype == ge::{key.ge}"])
        result.append(DtypeCombination(
            index=k, dtypes=dtypes, key=key, bin_filename=f"{spec.op_type}_{digest}", binary_entry=entry,
            tpl=tpl, tpl_code=code, label=label, dag_args=", ".join(kernel_types[p] for p in params),
            dispatch=dispatch,
        ))
    return tuple(result)


def dispatch_tensors(tensors: tuple[TensorPlan, ...]) -> tuple[TensorPlan, ...]:
    """Tensors besides the first output whose dtype the tiling reads to pick a combination: one per varying
    column other than the output's (none for same-dtype ops)."""
    seen: dict[str, TensorPlan] = {}
    for t in tensors:
        if t.dag_param and t.dag_type != "T":
            seen.setdefault(t.dag_type, t)
    return tuple(seen.values())


def dag_params(tensors: tuple[TensorPlan, ...]) -> tuple[str, ...]:
    """The arch35 DAG's type parameters: T (the first output's column), then each other varying column's."""
    return tuple(dict.fromkeys(["T", *(t.dag_type for t in tensors if t.dag_param)]))


def _binary_entry(spec: OpSpec, tensors: tuple[TensorPlan, ...], k: int) -> dict[str, Any]:
    """One op_list entry; attrs with no value: the binary serves every value (as upstream's entries)."""
    def io(role: str) -> list[dict[str, Any]]:
        return [
            {"name": t.name, "index": t.index, "dtype": t.dtypes[k].name, "format": t.formats[k],
             "paramType": t.param_type.lower(), "shape": [-2], "format_match_mode": "FormatAgnostic"}
            for t in tensors if t.role == role
        ]

    attrs = [{"name": a.name, "dtype": a.type, "value": None} for a in spec.def_attrs]
    return {"inputs": io("input"), "outputs": io("output"), **({"attrs": attrs} if attrs else {})}
