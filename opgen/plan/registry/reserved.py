"""Identifiers the blueprints emit besides the spec's own names, and the forms spec names take in the tree.

The spec is validated against these sets (a tensor named `workspace` would duplicate the kernel's own
`workspace` parameter); a test renders the samples and proves every name listed here really appears.
This module imports nothing from opgen, so the spec layer can use it.
"""

from __future__ import annotations

import keyword
import re

CPP_KEYWORDS = frozenset((
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
    "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr", "constinit",
    "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return", "short",
    "signed", "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
    "thread_local", "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual",
    "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "final", "override", "import", "module"
))
PY_KEYWORDS = frozenset(keyword.kwlist)

# lowercase C++ identifiers of the generated files (variables, parameters, namespaces, types), none from the spec
CPP_NAMES = frozenset((
    "aclCreateTensor", "aclDataType", "aclDestroyTensor", "aclFinalize", "aclFormat", "aclInit", "aclnnStatus",
    "aclOpExecutor", "aclRet", "aclrtCreateStream", "aclrtDestroyStream", "aclrtFree", "aclrtMalloc", "aclrtMemcpy",
    "aclrtResetDevice", "aclrtSetDevice", "aclrtStream", "aclrtSynchronizeStream", "aclTensor", "ascendcPlatform",
    "bfloat16_t", "bitsPerElement", "blockFormer", "blockIdx", "blockTail", "broadcastShape", "budget", "budgetRow",
    "buf", "compileInfo", "cond", "context", "coreDataNum", "coreNum", "count", "cout", "dataType", "deviceAddr",
    "deviceId", "dimNum", "dims", "dimsArray", "dimSize", "dst", "dtype", "dType", "elements", "elewiseBaseTiling",
    "endl", "executor", "expectOutputShape", "fe", "firstRepeat", "ge", "gert", "globalOptions", "graph", "graphId",
    "graphOutputs", "half", "hostData", "i", "infershapeContextPara", "inputs", "inputShape", "inputTensors",
    "int32_t", "int64_t", "int8_t", "kernel", "kernel_ut", "keyOutput", "keyOutputShape", "l0op", "l0Result",
    "l0ResultCast", "lastDimShape", "main", "maybe_unused", "message", "name", "node", "offset", "op", "opExecutor",
    "ops", "optiling", "outputDtype", "path", "perCore", "perRepeat", "pipe", "platform_ascendc", "platformInfo",
    "printf", "progress", "promoteType", "repeatNum", "repeatParams", "repeatsLeft", "repeatTotal", "results", "ret",
    "return_expr", "sch", "schMode", "session", "sessionOptions", "shape", "size", "size_t", "socVersion", "src",
    "src0", "src1", "std", "stream", "strides", "string", "tensor", "testing", "tileDataNum", "tileNum", "tiling",
    "tilingContext", "tilingContextPara", "tilingData", "tilingInfo", "tilingKey", "tilingStatus", "totalNum",
    "ubAlign", "ubFixedBytes", "ubSize", "uint1_t", "uint32_t", "uint64_t", "uint8_t", "uniqueExecutor", "usedCores",
    "ut", "viewCopyResult", "workspace", "workspaceAddr", "workspaces", "workspaceSize",
    "args", "make_tuple", "supportList",  # the aclnn UT's null-executor call, the wrapper's per-SoC dtype list
))
# Python names of tests/assets/golden.py and gen_data.py (module names, functions, locals)
PY_NAMES = frozenset((
    "np", "numpy", "ml_dtypes", "importlib", "sys", "spec", "module", "golden", "load_golden", "numpy_dtype",
    "gen_data", "rng", "dtype", "dtype_name", "count", "inputs", "shape", "seed", "variant", "out_dtype", "_outputs",
    "cdt", "kwargs", "packed", "bits", "_unpack_mask", "_VARIANTS", "__golden__", "Path", "GOLDEN_REL", "DTYPES", "int",
    "tuple", "len", "print", "getattr", "all"
))
# op types the blueprints already use in the op's namespaces (ops, l0op, ge): `class OpDef : public OpDef`
OP_TYPE_NAMES = frozenset((
    "OpDef", "OpAICoreConfig", "Contiguous", "Cast", "ViewCopy", "BroadcastTo", "DataType", "TensorType"
))
# suffixes the blueprints append to a tensor's or aclnn parameter's lowerCamel name (xGm, xLocal, selfContiguous...)
NAME_SUFFIXES = ("Gm", "Local", "Value", "Bytes", "Desc", "Shape", "Host", "Device", "Data", "Pad", "Params",
                 "Contiguous", "Result")
# prefixes put before a tensor's UpperCamel name (inQueueX, outQueueZ, castBufX)
NAME_PREFIXES = ("inQueue", "outQueue", "castBuf")
# the arch35 DAG names a recipe value `OpCalc<UpperCamel>`, and a select's fill node `OpCalc<UpperCamel>Fill`
DAG_VALUE_PREFIX = "OpCalc"
DAG_FILL_SUFFIX = "Fill"


def lower_camel(snake: str) -> str:
    """x_1 -> x1, grad_output -> gradOutput: how C++ variables spell a spec name."""
    head, *rest = snake.split("_")
    return head + "".join(part.capitalize() for part in rest)


def upper_camel(name: str) -> str:
    """a_1 -> A1, gradOutput -> GradOutput: how the DAG and queue names spell a spec name."""
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def upper_snake(name: str) -> str:
    """grad_output and gradOutput -> GRAD_OUTPUT: how macros spell a spec name."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).upper()


def cpp_forms(name: str) -> tuple[str, ...]:
    """Every C++ identifier the blueprints derive from one tensor or aclnn parameter name."""
    camel = lower_camel(name)
    upper = upper_camel(name)
    suffixed = (stem + s for stem in dict.fromkeys((name, camel)) for s in NAME_SUFFIXES)  # aclnn uses the raw name
    forms = (name, camel, *suffixed, *(p + upper for p in NAME_PREFIXES))
    return tuple(dict.fromkeys(forms))
