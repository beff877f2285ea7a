"""The aclnn two-phase wrapper and l0 op: parameter checks and the Contiguous → Cast/BroadcastTo →
l0 → Cast → ViewCopy chain, as C++ statements derived from the spec's aclnn section."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TypeVar

from ...spec.models import OpSpec, camel_to_snake
from ..kernel.split import SplitKernel
from ..registry.attrs import AttrPlan
from ..registry.platforms import SocPlan
from ..registry.soc_columns import SocDtypeList, gated_socs, soc_dtype_lists
from ..registry.tensors import DtypeCombination, TensorPlan
from .aclnn_attrs import AclnnAttrs, AclnnParam, AclnnScalarPlan, aclnn_attrs
from .aclnn_mixed import l0_output_dtype, mixed_dtype_checks, mixed_output
from .aclnn_order import in_api_order
from .aclnn_split import split_shape_checks
from .aclnn_ut import AclnnUtCase, aclnn_ut_cases, ut_params
from .l0 import L0Plan, registered

SHARED_MAX_DIMS = (8, "MAX_SUPPORT_DIMS_NUMS")  # ops-nn common/inc/op_api/op_api_def_nn.h
RETURN_CODES = (
    ("ACLNN_SUCCESS", 0, "Success."),
    ("ACLNN_ERR_PARAM_NULLPTR", 161001, "A tensor argument (or a required aclScalar), workspaceSize or executor is "
     "a null pointer."),
    ("ACLNN_ERR_PARAM_INVALID", 161002, "A dtype, format or shape is not supported (see the tables and constraints)."),
)
INVALID_VALUE = "A dtype, format or shape is not supported, or a scalar is below its bound (see the tables and " \
    "constraints)."
NULL_STRING = "A tensor argument (or a required aclScalar, or a char*), workspaceSize or executor is a null pointer."
INVALID_STRING = "A dtype, format or shape is not supported, {}a char* is none of its values (see the tables and " \
    "constraints)."


def return_codes(attrs: AclnnAttrs) -> tuple[tuple[str, int, str], ...]:
    """What GetWorkspaceSize returns and why: the causes name the scalars' rules and the strings' values."""
    success, null, invalid = RETURN_CODES
    if attrs.strings:
        below = "a scalar is below its bound, or " if attrs.refuses_below else "or "
        return success, (null[0], null[1], NULL_STRING), (invalid[0], invalid[1], INVALID_STRING.format(below))
    return (success, null, (invalid[0], invalid[1], INVALID_VALUE)) if attrs.refuses_below else RETURN_CODES


T = TypeVar("T")

@dataclass(frozen=True)
class AclnnParts:
    """Path parts of the files only an op with an aclnn API has; an empty part makes copier skip the file."""

    op_api: str  # the UT's op_api folder (tests/ut/<op_api>)
    sources: str  # where the wrapper and l0 op go (CmakePlan.op_api_dir)
    l0_h: str  # <l0 file stem>.h
    l0_cpp: str
    docs: str
    example: str  # examples/test_aclnn_<api>.cpp
    wrapper_h: str  # aclnn_<api>.h
    wrapper_cpp: str


def aclnn_parts(aclnn: AclnnPlan | None, l0: L0Plan | None, sources: str) -> AclnnParts:
    """`l0`: the op's l0 op, with its own aclnn API or without (spec l0_op); None: it ships none."""
    l0_files = (f"{l0.file_stem}.h", f"{l0.file_stem}.cpp") if l0 else ("", "")
    if aclnn is None:
        return AclnnParts("", sources if l0 else "", *l0_files, "", "", "", "")
    stem = aclnn.file_stem
    return AclnnParts("op_api", sources, *l0_files, "docs", f"test_{stem}.cpp", f"{stem}.h", f"{stem}.cpp")


@dataclass(frozen=True)
class AclnnParamPlan:
    name: str
    tensor: TensorPlan
    unused: bool = False  # only checked non-null, feeds nothing


@dataclass(frozen=True)
class AclnnPlan:
    api: str  # e.g. GeluBackward
    function: str  # aclnnGeluBackward
    file_stem: str  # aclnn_gelu_backward
    inputs: tuple[AclnnParamPlan, ...]
    outputs: tuple[AclnnParamPlan, ...]
    max_rank: int
    includes: tuple[str, ...]
    null_checks: tuple[str, ...]
    dtype_checks: tuple[str, ...]
    shape_checks: tuple[str, ...]
    empty_condition: str
    prepare: tuple[str, ...]  # statements from the API tensors to the l0 call's arguments
    l0_args: tuple[str, ...]  # variables feeding each op input, in def order
    finish: tuple[str, ...]  # statements from the l0 result to the user's output
    mask_lists: tuple[tuple[str, str], ...]  # (list name, op::DataType enumerators) of mask inputs
    uses_broadcast: bool
    name_constant: str  # the API name for the structured error logs
    max_dims: str  # the rank limit: ops-nn's shared constant, or a local one
    max_dims_decl: str  # the local constant's declaration, "" with the shared one
    return_codes: tuple[tuple[str, int, str], ...]  # what GetWorkspaceSize returns, and why
    ut_include: str  # the wrapper header, relative to tests/ut/op_api
    ut_cases: tuple[AclnnUtCase, ...]
    l0_mixed_dtype: str  # the l0 output's dtype expression for mixed-precision columns, "" without
    attrs: AclnnAttrs  # the scalar parameters and the attrs the l0 op launches with
    soc_dtype_lists: tuple[SocDtypeList, ...] = ()  # SoCs taking fewer dtypes: the checks pick the list per SoC
    leading_order: tuple[int, ...] = ()  # the inputs and scalars (indices into inputs + scalars) in API order
    stream_type: str = "aclrtStream"  # the second phase's stream parameter as upstream declares it
    output_type: str = "aclTensor*"  # the API's output parameters as upstream declares them
    axis_param: str = ""  # the scalar holding the axis of an op split along it: the shape checks read it too

    @property
    def ut_class(self) -> str:
        return f"l2_{self.file_stem.removeprefix('aclnn_')}_test"

    @property
    def uses_name_constant(self) -> bool:
        return any(self.name_constant in line for line in self.dtype_checks + self.shape_checks)

    @property
    def ut_uses_soc(self) -> bool:
        return any(c.soc_enum for c in self.ut_cases)

    @property
    def used_inputs(self) -> tuple[AclnnParamPlan, ...]:
        return tuple(p for p in self.inputs if not p.unused)

    def _leading(self, leading: list[T]) -> list[T]:
        return [leading[k] for k in self.leading_order] if self.leading_order else leading

    @property
    def leading_params(self) -> list[AclnnParamPlan | AclnnParam]:
        """The tensor inputs and the scalars in the API's order, for the header's and the docs' parameter lists."""
        return self._leading([*self.inputs, *self.attrs.scalars])

    @property
    def params_text(self) -> str:
        """Every API parameter: the inputs and scalars (in the API's order), then the outputs."""
        leading = [*(f"const aclTensor* {p.name}" for p in self.inputs), *(s.declaration for s in self.attrs.scalars)]
        return ", ".join([*self._leading(leading), *(f"{self.output_type} {p.name}" for p in self.outputs)])

    @property
    def null_params_text(self) -> str:
        """What CheckNotNull looks at: the tensors, the required aclScalars and the strings (no unused parameters)."""
        return self._with_tensors([s.check_declaration for s in self.attrs.null_checked], "const aclTensor* ")

    @property
    def null_names_text(self) -> str:
        return self._with_tensors([s.name for s in self.attrs.null_checked], "")

    @property
    def checked_params_text(self) -> str:
        """What CheckParams looks at: the tensors, every aclScalar (their dtypes are checked), what the value
        rules read and the axis the shape checks read."""
        return self._with_tensors([s.check_declaration for s in self.attrs.checked] + self._axis("int64_t "),
                                  "const aclTensor* ")

    @property
    def checked_names_text(self) -> str:
        return self._with_tensors([s.name for s in self.attrs.checked] + self._axis(""), "")

    def _axis(self, prefix: str) -> list[str]:
        """The axis parameter, where the scalars checked do not already hold it."""
        checked = {s.name for s in self.attrs.checked}
        return [f"{prefix}{self.axis_param}"] if self.axis_param and self.axis_param not in checked else []

    def _with_tensors(self, scalars: list[str], tensor_type: str) -> str:
        return ", ".join([*(f"{tensor_type}{p.name}" for p in self.inputs), *scalars,
                          *(f"{tensor_type}{p.name}" for p in self.outputs)])

    @property
    def tensor_params_text(self) -> str:
        """The tensor parameters the dtype and shape checks look at (not the unused ones)."""
        return ", ".join(f"const aclTensor* {p.name}" for p in self.used_inputs + self.outputs)

    @property
    def tensor_names_text(self) -> str:
        return ", ".join(p.name for p in self.used_inputs + self.outputs)

    @property
    def shape_params_text(self) -> str:
        """CheckShape's parameters: the tensors, and the axis of an op split along it."""
        return self.tensor_params_text + (f", int64_t {self.axis_param}" if self.axis_param else "")

    @property
    def shape_names_text(self) -> str:
        return self.tensor_names_text + (f", {self.axis_param}" if self.axis_param else "")

    @property
    def dfx_in(self) -> str:
        return ", ".join(self._leading([*(p.name for p in self.inputs), *(s.name for s in self.attrs.scalars)]))

    @property
    def dfx_out(self) -> str:
        return ", ".join(p.name for p in self.outputs)


def aclnn_plan(spec: OpSpec, by_name: dict[str, TensorPlan], combos: tuple[DtypeCombination, ...],
               socs: tuple[SocPlan, ...], op_api_dir: str, attrs: tuple[AttrPlan, ...],
               split: SplitKernel | None = None) -> AclnnPlan:
    """`split`: the op splits an input along an axis, which an API scalar holds (the shape checks read it)."""
    a = spec.aclnn
    assert a is not None
    axis_param = next((s.name for s in a.scalars if split is not None and s.attr == split.axis), "")
    name_constant = f"ACLNN_{camel_to_snake(a.api).upper()}_NAME"
    rank = spec.constraints.max_rank
    max_dims = SHARED_MAX_DIMS[1] if rank == SHARED_MAX_DIMS[0] else f"{camel_to_snake(a.api).upper()}_MAX_DIMS"
    inputs = tuple(AclnnParamPlan(p.name, by_name[p.tensor], p.unused) for p in a.inputs)
    outputs = tuple(AclnnParamPlan(p.name, by_name[p.tensor]) for p in a.outputs)
    used = tuple(p for p in inputs if not p.unused)
    data = [p for p in used if not p.tensor.is_mask]
    scalars = aclnn_attrs(spec, attrs)
    if split is not None:  # the docs say which values the axis takes, as the shape checks refuse the others
        x = next(p.name for p in a.inputs if p.tensor == split.split.name)
        scalars = dataclasses.replace(scalars, scalars=tuple(
            dataclasses.replace(s, axis_of=x) if isinstance(s, AclnnScalarPlan) and s.name == axis_param else s
            for s in scalars.scalars))
    out = outputs[0].name
    ret = "return false"

    mixed = None if a.promotion else mixed_output([p.tensor for p in data], outputs[0].tensor, combos)
    gated = gated_socs(registered(socs), combos)
    soc_lists = soc_dtype_lists(tuple((s.soc_enum, s.combinations) for s in gated), combos)
    support = "supportList" if soc_lists else "DTYPE_SUPPORT_LIST"
    dtype_checks = [f"const std::initializer_list<op::DataType>& {support} = SocDtypeSupportList();"] \
        if soc_lists else []
    dtype_checks += [f"OP_CHECK_DTYPE_NOT_SUPPORT({p.name}, {support}, {ret});" for p in data]
    for p in used:
        if p.tensor.is_mask:
            dtype_checks.append(f"OP_CHECK_DTYPE_NOT_SUPPORT({p.name}, MASK_DTYPE_SUPPORT_LIST_{p.name.upper()}, "
                                f"{ret});")
    if a.promotion:
        dtype_checks.append(_promote_expr(data, "promoteType"))
        names = ", ".join(p.name for p in data)
        dtype_strings = ' + ", " + '.join(
            f"std::string(op::ToString({p.name}->GetDataType()).GetString())" for p in data)
        dtype_checks.append(
            f"OP_CHECK(CheckType(promoteType, {support}), OP_LOGE_FOR_INVALID_DTYPES_WITH_REASON("
            f"{name_constant}, \"{names}\", {dtype_strings}, "
            f"\"the dtype the inputs promote to is not supported\"), {ret});")
        dtype_checks.append(f"OP_CHECK_RESULT_DTYPE_CAST_FAILED(promoteType, {out}->GetDataType(), {ret});")
    elif mixed is not None:
        dtype_checks += mixed_dtype_checks([p.name for p in data], out, mixed, ret)
    elif a.output_cast:
        dtype_checks.extend(f"OP_CHECK_DTYPE_NOT_SAME({p.name}, {data[0].name}, {ret});" for p in data[1:])
        dtype_checks.append(f"OP_CHECK_RESULT_DTYPE_CAST_FAILED({data[0].name}->GetDataType(), {out}->GetDataType(), "
                            f"{ret});")
    else:
        dtype_checks.extend(f"OP_CHECK_DTYPE_NOT_SAME({p.name}, {out}, {ret});" for p in data)

    shape_checks = [f"OP_CHECK_MAX_DIM({p.name}, {max_dims}, {ret});" for p in used + outputs]
    if a.broadcast and len(data) > 1:
        shape_checks.append("op::Shape broadcastShape;")
        shape_checks.append(f"OP_CHECK_BROADCAST_AND_INFER_SHAPE({data[0].name}, {data[1].name}, broadcastShape, "
                            f"{ret});")
        for p in data[2:]:
            shape_checks.append(f"OP_CHECK_BROADCAST_AND_INFER_SHAPE({p.name}, {data[0].name}, broadcastShape, "
                                f"{ret});")
        shape_checks.append(f"OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE({out}, broadcastShape, {ret});")
    elif split is not None:
        shape_checks += split_shape_checks(split, {p.tensor.name: p.name for p in used + outputs}, axis_param,
                                           name_constant, ret)
    else:
        shape_checks.extend(f"OP_CHECK_SHAPE_NOT_EQUAL({out}, {p.name}, {ret});" for p in used)
    rule = spec.constraints.last_dim_multiple_of
    if rule:
        param = next((p.name for p in used + outputs if p.tensor.name == rule.tensor), out)
        shape_checks.extend([
            f"size_t dimNum = {param}->GetViewShape().GetDimNum();",
            f"if (dimNum == 0 || {param}->GetViewShape().GetDim(dimNum - 1) % {rule.multiple} != 0) {{",
            f"OP_LOGE_FOR_INVALID_SHAPE_WITH_REASON({name_constant}, \"{param}\", "
            f"op::ToString({param}->GetViewShape()).GetString(), "
            f"\"the last dimension of {param} must be a multiple of {rule.multiple}\");",
            "return false;",
            "}",
        ])

    prepare: list[str] = []
    feeds: dict[str, str] = {}
    if a.promotion:
        prepare.append(_promote_expr(data, "promoteType"))
    for p in used:
        var = f"{p.name}Contiguous"
        prepare += [f"auto {var} = l0op::Contiguous({p.name}, opExecutor);",
                    f"CHECK_RET({var} != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
        if a.broadcast and not p.tensor.is_mask and len(data) > 1:
            prepare += [f"{var} = BroadcastIfNeeded({var}, broadcastShape, opExecutor);",
                        f"CHECK_RET({var} != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
        if a.promotion and not p.tensor.is_mask:
            prepare += [f"{var} = l0op::Cast({var}, promoteType, opExecutor);",
                        f"CHECK_RET({var} != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
        feeds[p.tensor.name] = var
    for name, source in a.unused_inputs.items():
        feeds[name] = "nullptr" if source is None else f"{source}Contiguous"
    if a.broadcast and len(data) > 1:
        prepare.insert(0, "op::Shape broadcastShape;")
        prepare.insert(1, f"BroadcastInferShape({data[0].name}->GetViewShape(), {data[1].name}->GetViewShape(), "
                          "broadcastShape);")
    result = "l0Result"
    finish = []
    if a.promotion or a.output_cast:
        finish += [f"auto l0ResultCast = l0op::Cast({result}, {out}->GetDataType(), opExecutor);",
                   "CHECK_RET(l0ResultCast != nullptr, ACLNN_ERR_INNER_NULLPTR);"]
        result = "l0ResultCast"
    finish += [f"auto viewCopyResult = l0op::ViewCopy({result}, {out}, opExecutor);",
               "CHECK_RET(viewCopyResult != nullptr, ACLNN_ERR_INNER_NULLPTR);"]

    includes = ["aclnn_kernels/contiguous.h", "aclnn_kernels/common/op_error_check.h", "log/log.h"]
    if max_dims == SHARED_MAX_DIMS[1]:
        includes.append("op_api/op_api_def_nn.h")
    if a.promotion or a.output_cast:
        includes.append("aclnn_kernels/cast.h")
    if a.broadcast:
        includes.append("level0/broadcast_to.h")
    if soc_lists:
        includes.append("opdev/platform.h")
    l0_args = tuple(feeds[t.name] for t in spec.inputs)
    file_stem = a.file or f"aclnn_{camel_to_snake(a.api)}"
    return AclnnPlan(
        api=a.api, function=f"aclnn{a.api}", file_stem=file_stem, inputs=inputs,
        outputs=outputs,
        max_rank=rank, includes=tuple(includes), null_checks=(
            *(f"OP_CHECK_NULL({p.name}, {ret});" for p in inputs), *scalars.null_checks,
            *(f"OP_CHECK_NULL({p.name}, {ret});" for p in outputs)),
        dtype_checks=tuple(dtype_checks), shape_checks=tuple(shape_checks),
        empty_condition=" || ".join(f"{p.name}->IsEmpty()" for p in used), prepare=tuple(prepare),
        l0_args=l0_args, finish=tuple(finish),
        mask_lists=tuple(  # the dtypes the kernel registers (the def), not the wider proto
            (f"MASK_DTYPE_SUPPORT_LIST_{p.name.upper()}",
             ", ".join(dict.fromkeys(f"op::DataType::{d.ge}" for d in p.tensor.dtypes)))
            for p in used if p.tensor.is_mask
        ),
        uses_broadcast=a.broadcast and len(data) > 1, name_constant=name_constant, max_dims=max_dims,
        max_dims_decl="" if max_dims == SHARED_MAX_DIMS[1] else f"static constexpr size_t {max_dims} = {rank};",
        return_codes=return_codes(scalars),
        ut_include=f"../../../{op_api_dir}/{file_stem}.h",
        ut_cases=aclnn_ut_cases(spec, ut_params([(p.name, p.tensor, p.unused) for p in inputs]),
                                ut_params([(p.name, p.tensor, False) for p in outputs]), combos, socs, scalars,
                                gated[len(socs):], split),
        l0_mixed_dtype=l0_output_dtype([p.tensor.name for p in data], mixed) if mixed else "", attrs=scalars,
        soc_dtype_lists=soc_lists, leading_order=tuple(in_api_order(a, range(len(inputs) + len(scalars.scalars)))),
        stream_type="const aclrtStream" if a.const_stream else "aclrtStream",
        output_type="const aclTensor*" if a.const_outputs else "aclTensor*",
        axis_param=axis_param,
    )


def _promote_expr(data: list[AclnnParamPlan], var: str) -> str:
    expr = f"{data[0].name}->GetDataType()"
    for p in data[1:]:
        expr = f"op::PromoteType({expr}, {p.name}->GetDataType())"
    return f"auto {var} = {expr};"
