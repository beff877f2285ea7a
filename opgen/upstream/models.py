"""The facts an ops-nn op dir registers and exports, as frozen models: one shape for an upstream dir and for a
tree opgen generated, so the two compare fact by fact (and serialise to the committed JSON facts).

Values are kept as written (whitespace normalised, `ge::` dropped from enumerators) and interpreted only where
the meaning is fixed: a proto type's expanded dtype set, a docs row's supported flag.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Fact(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# ---------------------------------------------------------------- op_graph/<op>_proto.h
class ProtoType(Fact):
    """A REG_OP tensor's type: the text as written, what it names, and the ge::DataType set it admits."""

    written: str  # `TensorType({DT_FLOAT, DT_BF16})`, `TensorType::RealNumberType()`, `"T"`
    symbol: str | None = None  # `T` where the tensor is written `"T"`: the rest is its `.DATATYPE(T, ...)`
    listed: tuple[str, ...] = ()  # DT_* enumerators listed, in written order
    classes: tuple[str, ...] = ()  # TensorType classes named (`RealNumberType`), in written order
    dtypes: tuple[str, ...]  # the expanded set, sorted

    @property
    def form(self) -> str:
        """`list`, `class` or `mixed`: how the admitted set is written."""
        return "mixed" if self.listed and self.classes else "class" if self.classes else "list"


class ProtoTensor(Fact):
    kind: str  # INPUT, OPTIONAL_INPUT, DYNAMIC_INPUT, OUTPUT, DYNAMIC_OUTPUT
    name: str
    type: ProtoType


class ProtoAttr(Fact):
    kind: str  # ATTR or REQUIRED_ATTR
    name: str
    type: str  # Float, Bool, String, Int, ListInt, ...
    default: str | None  # as written; None for REQUIRED_ATTR


class Proto(Fact):
    op_type: str
    tensors: tuple[ProtoTensor, ...]
    attrs: tuple[ProtoAttr, ...]
    datatypes: dict[str, ProtoType] = {}  # `.DATATYPE(T, ...)` symbol -> its type


# ---------------------------------------------------------------- op_host/<op>_def.cpp
class DefTensor(Fact):
    direction: str  # Input or Output
    name: str
    param_type: str | None  # REQUIRED, OPTIONAL, DYNAMIC
    data_type: tuple[str, ...] | None  # DT_* per column
    format: tuple[str, ...] | None  # FORMAT_* per column
    unknown_shape_format: tuple[str, ...] | None
    flags: dict[str, str] = {}  # every other call: `AutoContiguous` -> "", `ValueDepend` -> "OPTIONAL"


class DefAttr(Fact):
    name: str
    attr_type: str | None  # REQUIRED or OPTIONAL, None when not called
    type: str | None  # Float, Bool, String, Int, ListInt, ...
    default: str | None  # the type call's argument as written
    flags: dict[str, str] = {}


class AICoreConfig(Fact):
    """An OpAICoreConfig as it stood when added: its flag calls and its own tensor columns."""

    variable: str
    initializer: str | None = None  # `GetKirinCoreConfig()` where the variable is initialised from a call
    flags: dict[str, str] = {}  # DynamicCompileStaticFlag -> "true", ...
    extend_cfg_info: dict[str, str] = {}  # ExtendCfgInfo key -> value, e.g. opFile.value -> relu_grad_v2_apt
    tensors: tuple[DefTensor, ...] = ()


class OpDef(Fact):
    op_type: str
    tensors: tuple[DefTensor, ...]
    attrs: tuple[DefAttr, ...]
    socs: dict[str, AICoreConfig | None]  # AddConfig's SoC -> its config; None: the op's default config
    other_calls: tuple[str, ...] = ()  # any other `this->...` statement, as written


# ---------------------------------------------------------------- IMPL_OP_* registrations
class Registration(Fact):
    file: str
    macro: str  # IMPL_OP_INFERSHAPE, IMPL_OP_OPTILING, IMPL_OP
    op_type: str
    calls: tuple[tuple[str, str], ...]  # (method, arguments as written): ("InferShape", "InferShape4Elewise")

    def call(self, method: str) -> str | None:
        """The argument text of the first `.method(...)` call, None when not chained."""
        return next((args for name, args in self.calls if name == method), None)


# ---------------------------------------------------------------- CMakeLists.txt
class CMakeCall(Fact):
    command: str  # add_modules_sources, add_kernel_sources, add_graph_plugin_sources, ...
    args: dict[str, tuple[str, ...]]  # keyword -> values, `${VAR}` of the file's set() expanded; "" positional


class CMakeFile(Fact):
    file: str
    variables: dict[str, tuple[str, ...]] = {}  # set(SUPPORT_... ...) values
    calls: tuple[CMakeCall, ...] = ()


# ---------------------------------------------------------------- aclnn headers
class AclnnParam(Fact):
    type: str  # `const aclTensor*`, `bool`, `aclOpExecutor**`
    name: str


class AclnnFunction(Fact):
    name: str
    return_type: str
    params: tuple[AclnnParam, ...]
    aclnn_api: bool  # declared with ACLNN_API


class AclnnHeader(Fact):
    file: str
    functions: tuple[AclnnFunction, ...]

    def function(self, name: str) -> AclnnFunction | None:
        return next((f for f in self.functions if f.name == name), None)


# ---------------------------------------------------------------- docs
class ProductRow(Fact):
    product: str  # `<term>` dropped, no spaces around `/`
    supported: bool


class DocProducts(Fact):
    file: str
    rows: tuple[ProductRow, ...]


# ---------------------------------------------------------------- the op dir
class OpFacts(Fact):
    """Everything one op dir registers and exports; paths are relative to the op dir."""

    files: tuple[str, ...]
    protos: tuple[Proto, ...] = ()
    definition: OpDef | None = None
    registrations: tuple[Registration, ...] = ()
    cmake: tuple[CMakeFile, ...] = ()
    aclnn: tuple[AclnnHeader, ...] = ()
    docs: tuple[DocProducts, ...] = ()

    @property
    def proto(self) -> Proto | None:
        """The REG_OP of the def's op type (else the only one)."""
        named = [p for p in self.protos if self.definition and p.op_type == self.definition.op_type]
        return next(iter(named or self.protos), None)
