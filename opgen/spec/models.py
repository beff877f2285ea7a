"""The op spec: frozen pydantic models, field-level validation only.

Cross-field rules live in `semantics.py` so that each can name the exact YAML field it is about.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    FiniteFloat,
    PlainSerializer,
    PlainValidator,
    PrivateAttr,
    ValidationInfo,
    WithJsonSchema,
)

from .dtypes import DTYPES, PROTO_DTYPES, PROTO_TYPE_CLASSES, canonical_dtype, canonical_proto_dtype
from .formats import GE_FORMATS, canonical_format
from .formula import parse_formula
from .recipe import Step, parse_step
from .socs import SOCS

SNAKE_PATTERN = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")
_CAMEL = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_LOWER_CAMEL = re.compile(r"^[a-z][a-z0-9]*([A-Z][a-z0-9]*)+$")
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_NAME_LENGTH = 64
MAX_TILING_KEY = (1 << 32) - 1  # the classic kernel takes its tiling key as a uint32_t template argument
MAX_SCH_MODE = 255
MAX_LICENSE_CHARS = 8192
WINDOWS_DEVICE_NAMES = frozenset(["con", "prn", "aux", "nul"] + [f"{d}{i}" for d in ("com", "lpt") for i in range(10)])


def _some_dtype(value: tuple[str, ...]) -> tuple[str, ...]:
    if not value:
        raise ValueError("lists no dtype; give one dtype per combination, or a single dtype for all")
    return value


def _snake(value: str) -> str:
    if len(value) > MAX_NAME_LENGTH or not SNAKE_PATTERN.match(value):
        raise ValueError(f"{value!r} must be snake_case ASCII (like relu_grad_v2), at most {MAX_NAME_LENGTH} chars")
    if value in WINDOWS_DEVICE_NAMES:
        raise ValueError(f"{value!r} is a reserved device name on Windows; pick another name")
    return value


def _tensor_name(value: str) -> str:
    """snake_case or lowerCamelCase (upstream's gradOutput): the IR name as upstream registers it."""
    if len(value) > MAX_NAME_LENGTH or not (SNAKE_PATTERN.match(value) or _LOWER_CAMEL.match(value)):
        raise ValueError(f"{value!r} must be a snake_case or lowerCamelCase ASCII name (like grad_output or "
                         f"gradOutput), at most {MAX_NAME_LENGTH} chars")
    return value


def _camel(value: str) -> str:
    if len(value) > MAX_NAME_LENGTH or not _CAMEL.match(value):
        raise ValueError(f"{value!r} must be CamelCase ASCII (like ReluGradV2), at most {MAX_NAME_LENGTH} chars")
    return value


def _ident(value: str) -> str:
    if len(value) > MAX_NAME_LENGTH or not _IDENT.match(value):
        raise ValueError(f"{value!r} must be a C identifier of at most {MAX_NAME_LENGTH} chars")
    return value


def _dtype(value: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"dtype must be a string, got {value!r}")
    return canonical_dtype(value)


def _proto_dtype(value: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"dtype must be a string, got {value!r}")
    return canonical_proto_dtype(value)


def _formula(value: str) -> str:
    parse_formula(value)
    return value


def _step(value: object, info: ValidationInfo) -> Step:
    if isinstance(value, Step):
        return value
    if not isinstance(value, str):
        raise ValueError(f"a recipe step is a string like 'z = mul(a, b)', got {value!r}")
    return parse_step(value, (info.context or {}).get("attrs"))


SnakeName = Annotated[str, AfterValidator(_snake)]


def _wrapper_stem(value: str) -> str:
    if not value.startswith("aclnn_"):
        raise ValueError(f"{value!r} must start with aclnn_: ops-nn installs op_api/aclnn_*.h as the API's headers "
                         "and builds tests/ut/op_api/test_aclnn_*.cpp (cmake/func.cmake, cmake/ut.cmake)")
    return value


WrapperStem = Annotated[str, AfterValidator(_snake), AfterValidator(_wrapper_stem)]
IrName = Annotated[str, AfterValidator(_tensor_name)]
CamelName = Annotated[str, AfterValidator(_camel)]
Identifier = Annotated[str, AfterValidator(_ident)]
DtypeName = Annotated[str, AfterValidator(_dtype), WithJsonSchema({"enum": sorted(DTYPES)})]
FormatName = Annotated[str, AfterValidator(canonical_format), WithJsonSchema({"enum": sorted(GE_FORMATS)})]
ProtoDtypeName = Annotated[str, AfterValidator(_proto_dtype), WithJsonSchema({"enum": sorted(PROTO_DTYPES)})]
RecipeStep = Annotated[
    Step,
    PlainValidator(_step),
    PlainSerializer(str),
    WithJsonSchema({"type": "string", "pattern": r"^\s*\w+\s*=\s*[a-z_][a-z0-9_]*\(.*\)\s*$"}),
]
FormulaText = Annotated[str, AfterValidator(_formula)]
SocName = Literal["ascend910b", "ascend910", "ascend910_93", "ascend310p", "ascend310b", "ascend950",
                  "ascend350"]
assert set(SocName.__args__) == set(SOCS)  # type: ignore[attr-defined]


ProtoTypeClass = Literal[
    "RealNumberType", "NumberType", "BasicType", "OrdinaryType", "FloatingDataType", "IntegerDataType",
    "SignedDataType", "UnsignedDataType", "IndexNumberType", "UnaryDataType", "FLOAT", "ALL",
]
assert set(ProtoTypeClass.__args__) == set(PROTO_TYPE_CLASSES)  # type: ignore[attr-defined]


DefCall = Literal["AutoContiguous", "IgnoreContiguous"]  # argumentless calls on a def Input/Output

class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, str_strip_whitespace=True)


class TensorSpec(Model):
    """An input or output; `dtypes[k]` of every tensor together make supported combination k."""

    name: IrName
    dtypes: Annotated[tuple[DtypeName, ...], AfterValidator(_some_dtype)] | DtypeName = Field(
        description="one dtype per supported combination, or one dtype for all combinations"
    )
    formats: tuple[FormatName, ...] | FormatName = Field(
        "ND", description="one ge::Format per combination (ND, NCHW, NHWC, NC1HWC0, ...), or one for all")
    param_type: Literal["required", "optional"] = "required"
    proto_dtypes: tuple[ProtoTypeClass | ProtoDtypeName, ...] | ProtoTypeClass | None = Field(
        None, description="dtypes the graph proto admits (a superset of dtypes): a list, a named ge::TensorType "
        "class such as RealNumberType, or a list mixing both as upstream writes `TensorType({FloatingDataType, "
        "DT_BF16})`; default: dtypes"
    )
    proto_name: IrName | None = Field(
        None, description="the REG_OP name where upstream's proto names the tensor otherwise than its def (upstream "
        "ThresholdGradV2D: gradients in the proto, gradOutput in the def); default: name")
    def_calls: tuple[DefCall, ...] = Field(
        (), description="further calls on the def's Input/Output, as upstream's def makes them (AutoContiguous: the "
        "framework makes a non-contiguous tensor contiguous before the kernel)")
    proto_narrower: bool = Field(
        False, description="proto_dtypes may lack dtypes of dtypes, as upstream ThresholdV2's proto does: graph mode "
        "refuses those dtypes, aclnn still takes them")
    unknown_shape_format: bool = Field(
        True, description="the def repeats the formats as UnknownShapeFormat, as most of upstream's defs do; false "
        "leaves it out (upstream activation/logsigmoid_grad)")
    domain: tuple[float, float] | None = Field(
        None, description="[low, high]: the values the op is defined for, e.g. [0, 1] for a sigmoid's output; "
        "the numerics check draws this input from it and tries no edge values outside it (NaN still)"
    )
    doc: str = ""

    def dtype_column(self, count: int) -> tuple[str, ...]:
        """The dtype of this tensor in each of `count` combinations."""
        return self.dtypes if isinstance(self.dtypes, tuple) else (self.dtypes,) * count

    def format_column(self, count: int) -> tuple[str, ...]:
        return self.formats if isinstance(self.formats, tuple) else (self.formats,) * count


class AttrSpec(Model):
    name: IrName
    type: Literal["int", "float", "bool", "string"]
    default: bool | int | float | str = Field(description="the OpDef (def.cpp) default, which the kernel and aclnn use")
    proto_default: bool | int | float | str | None = Field(
        None, description="the REG_OP (proto) default where upstream registers another value; default: default")
    values: tuple[str, ...] = Field((), description="string attrs: the values the op accepts, each picking the "
                                    "compute variant of the same name")
    variants: dict[bool, Identifier] = Field(
        default_factory=dict, description="a bool attr choosing the math: the compute variant each value picks, "
        "{false: <variant>, true: <variant>}")
    check_value: bool | int | float | None = Field(
        None, description="the non-default value the numerics check also runs the recipe with (default: derived)")
    attr_type: Literal["optional", "required"] | None = Field(
        "optional", description="the def's AttrType: required makes the tiling refuse a context without the attr "
        "(as upstream hardtanh_grad's def); null: not called, as upstream HardShrinkGrad's def")
    min: FiniteFloat | None = Field(None, description="float and int attrs: the smallest value the tiling takes; a "
                                    "smaller one fails it with a log, as upstream EluGradV2's alpha")
    min_when: IrName | None = Field(None, description="min applies only while this bool attr, the one choosing the "
                                    "math, is true (upstream EluGradV2: alpha >= 0 when is_result)")
    proto_only: bool = Field(False, description="registered in the proto only (REG_OP ATTR), as upstream "
                             "SigmoidGrad's complex_conj: the def, tiling, kernel and aclnn never see it")
    if_absent: Literal["default", "error"] = Field(
        "default", description="what the tiling does with a context holding no value for the attr: take the def "
        "default, or fail (as upstream GeluGradV2's approximate and HardShrinkGrad's lambd); required attrs fail")
    doc: str = ""


class AICoreFlags(Model):
    """OpAICoreConfig flags (`<op>_def.cpp`); each null is a flag the def does not call, as upstream's config of
    HardSwishGradV2's ascend910 sets three flags only and some ops leave PrecisionReduceFlag."""

    dynamic_compile_static: bool | None = True
    dynamic_format: bool | None = False
    dynamic_rank_support: bool | None = True
    dynamic_shape_support: bool | None = True
    need_check_support: bool | None = False
    precision_reduce: bool | None = True


class PlatformSpec(Model):
    soc: SocName
    kernel: Literal["arch35_dag", "classic", "classic_arch35", "arch35_split"] = Field(
        description="the kernel family of this SoC; one op may mix families. arch35_dag: atvoss DAG kernel "
        "(op_kernel/<op>_apt.cpp + arch35/<op>_dag.h); classic: TPipe/TQue kernel (op_kernel/<op>.cpp); "
        "classic_arch35: a TPipe/TQue kernel for arch35 SoCs under op_kernel/arch35/; arch35_split: a recipe "
        "splitting an input in halves along an axis (GLU grads), one register loop per tile of rows"
    )
    aicore: AICoreFlags | None = Field(None, description="OpAICoreConfig; arch35 ops need one")
    tiling_key: int | None = Field(None, ge=0, le=MAX_TILING_KEY, description="classic: the tiling key that selects "
                                   "this SoC's math (the kernel's uint32_t TILING_KEY template argument)")
    compute_variant: Identifier = "default"
    op_file: SnakeName | None = Field(
        None, description="arch35 families: the kernel entry's stem (op_kernel/<op_file>.cpp) and the def's "
        "opFile.value, where upstream does not name it <op>_apt")
    combinations: tuple[int, ...] | None = Field(
        None, description="the dtype combinations (0-based column indices of the tensors' dtypes lists) this SoC "
        "supports, when only some: the def registers them in an OpAICoreConfig of its own; default: all")


class LastDimRule(Model):
    tensor: IrName
    multiple: int = Field(ge=2, le=1024)


class Constraints(Model):
    same_shape: tuple[IrName, ...] = ()
    same_dtype: tuple[IrName, ...] = ()
    last_dim_multiple_of: LastDimRule | None = None
    broadcast: tuple[IrName, ...] = ()
    max_rank: int = Field(8, ge=1, le=8)


class InferShapeSpec(Model):
    rule: Literal["elementwise", "same_as_input", "broadcast"]
    input: IrName | None = Field(
        None, description="same_as_input: the input whose shape the outputs take; broadcast: the input whose shape "
        "they take on the SoCs whose kernel does not broadcast, the infershape branching on the SoC (as upstream "
        "GeluGradV2 broadcasts on Ascend950 alone and copies x elsewhere); broadcast without it: on every SoC")
    datatype_from: IrName | None = Field(
        None, description="also register InferDataType: every output takes this input's dtype (as upstream "
        "HardSwishGradV2 and SoftsignGrad register it); default: no InferDataType")


class TilingSpec(Model):
    sch_modes: tuple[Annotated[int, Field(ge=0, le=MAX_SCH_MODE)], ...] = Field(
        (0, 1), max_length=16, description="arch35: values of the schMode template argument"
    )
    workspace_bytes: int = Field(0, ge=0, le=1 << 32, description="fixed workspace the tiling requests")
    buffer_num: int = Field(2, ge=1, le=2, description="classic: queue depth (2 = double buffering)")


class ComputeSpec(Model):
    """The kernel math, per variant, as vector steps; platforms pick a variant."""

    dtype: Literal["float32", "native"] = Field(
        description="float32: cast inputs in (CAST_NONE) and outputs back (CAST_RINT); native: compute in I/O dtype"
    )
    native_dtypes: tuple[Literal["float16"], ...] = Field(
        (), description="with dtype float32, the key dtypes a classic kernel computes in their own type, no casts "
        "(upstream's arch35 hard_shrink_grad.h computes half directly and casts only bfloat16)"
    )
    variants: dict[Identifier, tuple[RecipeStep, ...]] = Field(min_length=1)
    absent: dict[IrName, tuple[RecipeStep, ...]] = Field(
        default_factory=dict, description="per optional input the recipe reads: the steps that compute its value "
        "when it is absent, from the other inputs; the last step assigns the input's name"
    )
    lowering: Literal["fused", "per_step"] = Field(
        "fused", description="arch35_dag: fused binds one custom node per chain of register steps (a MicroAPI loop, "
        "as upstream's arch35 kernels); per_step binds one Vec:: node per step (ops it cannot fuse fall back to it)"
    )


class AclnnParam(Model):
    name: Identifier
    tensor: IrName = Field(description="the op tensor the parameter carries; an unused one takes its dtype and "
                              "shape in UTs and examples")
    unused: bool = Field(False, description="inputs only: a tensor the API takes and only checks non-null, feeding "
                         "nothing (upstream aclnnLogSigmoidBackward's buffer)")


class AclnnScalar(Model):
    """An API parameter carrying an attr's value to the l0 op (upstream aclnnHardshrinkBackward's `lambd`), or,
    without `attr`, a bool flag only a rule reads (upstream aclnnLeakyReluBackward's `selfIsResult`)."""

    name: Identifier
    attr: IrName | None = Field(None, description="the op attr the value sets; none: a bool flag that sets no "
                                   "attr and switches another scalar's rule on (`when`)")
    type: Literal["aclScalar", "double", "float", "int64_t", "bool", "char*"] = Field(
        "aclScalar", description="the C++ parameter: aclScalar (const aclScalar*, for float, int and bool attrs), "
        "double or float (float attrs), int64_t (int attrs), bool (bool attrs), char* (string attrs: the wrapper "
        "refuses nullptr and a value not among the attr's values, as upstream aclnnGeluBackwardV2's approximate)")
    optional: bool = Field(False, description="aclScalar only: the caller may pass nullptr for the attr's def "
                           "default (upstream aclnnSwishBackward's betaOptional); a char* is always required")
    min: FiniteFloat | None = Field(None, description="float and int attrs: the smallest value the wrapper takes "
                                    "(upstream aclnnSoftshrinkBackward's lambd >= 0)")
    on_violation: Literal["error", "clamp"] | None = Field(
        None, description="what a value below min does: error (the default; ACLNN_ERR_PARAM_INVALID with a log, as "
        "aclnnSoftshrinkBackward) or clamp (the l0 op gets min, as aclnnHardshrinkBackward)")
    when: Identifier | None = Field(None, description="min applies only while this bool parameter is true "
                                    "(upstream's negativeSlope >= 0 when selfIsResult)")
    doc: str = Field("", description="the docs' description; default: the attr's doc")


class AclnnSpec(Model):
    api: CamelName = Field(description="aclnn<Api>: the two-phase API name without the aclnn prefix")
    file: WrapperStem | None = Field(
        None, description="the wrapper's file stem (op_api/<file>.h, .cpp; its UT test_<file>.cpp; its example); "
        "default aclnn_<api in snake_case>; upstream names some otherwise (aclnn_logsigmoid_backward)")
    inputs: tuple[AclnnParam, ...]
    scalars: tuple[AclnnScalar, ...] = Field(
        (), description="attr parameters, after the inputs and before the outputs as upstream; an attr no scalar "
        "sets reaches the l0 op at its def default")
    outputs: tuple[AclnnParam, ...]
    unused_inputs: dict[IrName, Identifier | None] = Field(
        default_factory=dict, description="op inputs the API does not take, each fed from the named API input; "
        "null: an optional input the l0 op gets as nullptr (absent)"
    )
    promotion: bool = False
    broadcast: bool = False
    output_cast: bool = Field(False, description="the output may have any dtype the result casts to (the inputs "
                              "still agree), as upstream aclnnEluBackward; implied by promotion")
    order: tuple[Identifier, ...] = Field(
        (), description="the input and scalar parameters in the API's order, where upstream's is not inputs then "
        "scalars (aclnnEluBackward: gradOutput, alpha, scale, inputScale, isResult, selfOrResult); outputs come last")
    const_stream: bool = Field(False, description="declare the second phase's `const aclrtStream stream`, as "
                               "some upstream headers do")
    const_outputs: bool = Field(False, description="declare the outputs `const aclTensor*`, as upstream's "
                                "experimental GeluGrad header does (default `aclTensor*`, as most do)")


class Tolerance(Model):
    rtol: float = Field(ge=0, le=1)
    atol: float = Field(ge=0, le=1)


class ReferenceSpec(Model):
    """The independent reference: the forward function (its gradient by autograd) or, for gradients that
    are no derivative (a mask select), the output itself. Neither: the numerics are unchecked."""

    forward: FormulaText | None = Field(None, description="forward function of the op this gradient belongs "
                                        "to, over input and attr names, e.g. x * sigmoid(x)")
    wrt: IrName | None = Field(None, description="forward: the input the gradient is taken for")
    grad: IrName | None = Field(None, description="the input holding the incoming gradient (forward: required; "
                                   "direct: optional, the formula then being linear in it)")
    direct: FormulaText | None = Field(None, description="the output as a formula (no derivative), e.g. "
                                       "where(mask, gradients, 0)")
    nan: Literal["select", "passthrough"] = Field(
        "select", description="what a NaN in grad gives where the derivative (or the selected branch) is 0: "
        "select: 0, as torch's backwards and a select kernel; passthrough: NaN, as a kernel that multiplies "
        "(mask * grad)")


LegacyReference = Literal["gelu_tanh_backward", "mask_select", "none"]


class LicenseFrom(Model):
    """Where license_header_from reads: files of a checkout whose leading comment is copied verbatim."""

    checkout: str = Field(max_length=4096, description="the checkout's root (absolute, or relative to the spec)")
    cpp: str = Field(max_length=4096, description="a C/C++ file in it whose header heads C/C++ files")
    cmake: str = Field("CMakeLists.txt", max_length=4096, description="a file whose leading `#` lines head CMake "
                       "files")
    python: str = Field(max_length=4096, description="a Python file whose leading `#` lines head Python files")


class GoldenSpec(Model):
    reference: ReferenceSpec | LegacyReference = Field(
        ReferenceSpec(), description="independent reference the numerics check compares the recipe against; "
        "the names gelu_tanh_backward and mask_select are read as their formulas"
    )
    tolerances: dict[DtypeName, Tolerance]


TestShape = tuple[Annotated[int, Field(ge=1, le=1 << 16)], ...]


class AxisCase(Model):
    """A test shape with the axis attr at another value than its default (a middle axis, the first)."""

    shape: TestShape
    axis: int = Field(ge=-8, le=7, description="the axis attr's value, negative from the last axis")


class TestsSpec(Model):
    shapes: tuple[TestShape, ...] = Field(min_length=1, max_length=64, description="an op along an axis: the "
                                          "shapes of the split input (or of every tensor), at the axis attr's default")
    axis_cases: tuple[AxisCase, ...] = Field((), max_length=64, description="an op along an axis: more shapes, "
                                             "each with its own value of the axis attr")
    value_range: tuple[FiniteFloat, FiniteFloat] = (-1.0, 1.0)


class Product(Model):
    name: str
    supported: bool


class DocsSpec(Model):
    description: str
    formula: str
    products: tuple[Product, ...] = ()
    notes: tuple[str, ...] = ()


# a listed difference must say where its reason comes from: an upstream file:line, the seed document or a URL
_CITATION = re.compile(r"[\w./-]+\.\w+:\d+|\bseed\b|https?://\S+")
# the IR (op type, tensor and attr names and order): never listable; the upstream tier also refuses any listing
# of a changed or missing upstream aclnn function (`aclnn.<function>`), whatever pattern matches it
_UNLISTABLE = re.compile(r"^(op_type|proto\.tensors|proto\.attrs)$")


def _cited(value: str) -> str:
    if not _CITATION.search(value):
        raise ValueError("the reason cites no source: name an upstream file:line (op_host/x_def.cpp:31), the seed "
                         "document ('seed: ...') or a URL")
    return value


def _listable(value: str) -> str:
    if _UNLISTABLE.match(value):
        raise ValueError(f"{value!r} is the IR, which cannot differ from upstream: use upstream's names, or a new "
                         "op type")
    return value


# upstream_differences facts about what upstream's kernel computes (`kernel.nonfinite`, `kernel.<soc>.<dtype>`): the
# kernel run's oracle row judges them, not the upstream tier
KERNEL_FACT_PREFIX = "kernel."


class UpstreamDifference(Model):
    """A fact of the generated tree that differs from ops-nn's own op on purpose (`opgen check`'s upstream tier)."""

    fact: Annotated[str, AfterValidator(_listable)] = Field(
        min_length=1, max_length=200, description="the tier's key (proto.attr.alpha, def.soc.ascend950.flags, "
        "file.tests/...); `*` matches any run of characters")
    reason: Annotated[str, AfterValidator(_cited)] = Field(min_length=1, max_length=1000)


class OpSpec(Model):
    """One operator, everything opgen needs to write its ops-nn tree."""

    op_type: CamelName
    name: SnakeName | None = Field(None, description="snake_case dir and file name; default derived from op_type")
    category: SnakeName
    experimental: bool = False
    disable_in_opp: bool = Field(False, description="CMake DISABLE_IN_OPP TRUE: the op also exists as a legacy "
                                 "built-in, so its tiling stays out of the opp package (as ops-nn's relu_grad_v2)")
    l0_op: bool = Field(False, description="write the l0 op (op_api/<op>.h, .cpp) without an aclnn API of this "
                        "op's own, for an API declared elsewhere (upstream activation/relu_grad); aclnn implies it")
    l0_file: SnakeName | None = Field(
        None, description="the l0 op's file stem (op_api/<l0_file>.h, .cpp); default: the op's name; upstream names "
        "some otherwise (hardshrink_grad)")
    aclnn_type: Literal["aclnn_exclude", "aclnn", "aclnn_inner", "no_need_aclnn"] = Field(
        "aclnn_exclude", description="CMake ACLNNTYPE: aclnn_exclude (no API generated from the def: the op's own "
        "op_api, or none), aclnn / aclnn_inner (ops-nn's build generates one from the def), no_need_aclnn")
    brief: str
    license_header: str | None = Field(
        None, max_length=MAX_LICENSE_CHARS, description="header text put atop every file; default: opgen's"
    )
    license_header_file: str | None = Field(
        None, max_length=4096, description="a text file (relative to the spec, inside its folder) whose text is put "
        "atop every file instead of license_header, in each file type's comment syntax"
    )
    generated_by_line: bool = Field(
        False, description="add a 'Generated by opgen' line to license_header / license_header_file text"
    )
    license_header_from: LicenseFrom | None = Field(
        None, description="copy, at gen time, the header of a named file per file type from the target repo's "
        "checkout (the record keeps the text, so regen and check need no checkout)")
    _license_blocks: dict[str, str] | None = PrivateAttr(None)  # what license_header_from read (set by the loader)
    inputs: tuple[TensorSpec, ...] = Field(min_length=1)
    outputs: tuple[TensorSpec, ...] = Field(min_length=1)
    attrs: tuple[AttrSpec, ...] = ()
    platforms: tuple[PlatformSpec, ...] = Field(min_length=1)
    constraints: Constraints = Constraints()
    infershape: InferShapeSpec
    tiling: TilingSpec = TilingSpec()
    compute: ComputeSpec
    aclnn: AclnnSpec | None = Field(None, description="the op's own aclnn API (op_api wrapper, l0 op, doc, example, "
                                     "UT); absent: no aclnn API, as ops-nn ships none for many graph-only ops")
    golden: GoldenSpec
    tests: TestsSpec
    docs: DocsSpec
    proto_symbol: Identifier | None = Field(
        None, description="write every tensor of the proto as this DATATYPE symbol (`.INPUT(x, \"T\")` ... "
        "`.DATATYPE(T, TensorType(...))`), as upstream's GeluGradV2; the tensors' proto types must then be equal")
    upstream_differences: tuple[UpstreamDifference, ...] = Field(
        (), description="facts that differ from ops-nn's own op of the same path, each with a cited reason")

    @property
    def snake_name(self) -> str:
        return self.name or camel_to_snake(self.op_type)

    @property
    def def_attrs(self) -> tuple[AttrSpec, ...]:
        """The attrs the def registers (and tiling, kernel and aclnn see): all but the proto-only ones."""
        return tuple(a for a in self.attrs if not a.proto_only)

    @property
    def tensors(self) -> tuple[TensorSpec, ...]:
        return self.inputs + self.outputs

    @property
    def combination_count(self) -> int:
        """How many dtype combinations the op supports: the longest dtype list (all must agree)."""
        return max((len(t.dtypes) for t in self.tensors if isinstance(t.dtypes, tuple)), default=1)


def camel_to_snake(camel: str) -> str:
    """ReluGradV2 -> relu_grad_v2, the way ops-nn names op dirs."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", camel).lower()
