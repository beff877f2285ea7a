"""The host tiling driver: a gtest case of opgen's own that reads tiling requests from a file in its working dir, hands
each to ops-nn's tiling executor and prints one `opgen-tiling` line per request.

The driver's text depends on the op (its tensors, dtype combinations, attrs, compile info), never on the requests:
one executable per tree and SoC serves every set of launches (`host_tiling.py` keeps it), and a request is a line of
`requests_text`: the dtype combination, the absent input's index (-1: none), the core count and UB size, each present
tensor's rank and dims, then each attr's value (a float in Python's shortest repr, which strtof reads to the float the
C++ literal names; a string in hex).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...plan import RenderPlan
from ...plan.registry.attrs import AttrValue
from ...plan.testcases.attr_cases import ANY_VALUE_TYPES
from .launch import Shapes

REQUESTS = "opgen_tiling_requests.txt"
MARK = "opgen-tiling "


@dataclass(frozen=True)
class TilingRequest:
    """One launch's host inputs: the dtype combination, the input shapes (outputs: their broadcast), the attrs."""

    combination: int
    shapes: Shapes
    attrs: tuple[tuple[str, AttrValue], ...]

    @staticmethod
    def of(combination: int, shapes: Shapes, attrs: Mapping[str, AttrValue]) -> TilingRequest:
        return TilingRequest(combination, shapes, tuple(sorted(attrs.items())))


def requests_text(plan: RenderPlan, requests: Sequence[TilingRequest], cores: int, ub_bytes: int) -> str:
    return "".join(_request_line(plan, r, cores, ub_bytes) + "\n" for r in requests)


def _request_line(plan: RenderPlan, request: TilingRequest, cores: int, ub_bytes: int) -> str:
    names = [t.name for t in plan.inputs]
    absent = names.index(request.shapes.absent) if request.shapes.absent else -1
    ins = iter(request.shapes.inputs)
    shapes = [next(ins) if t.role == "input" else request.shapes.output for t in plan.tensors]
    present = [s for t, s in zip(plan.tensors, shapes, strict=True) if t.name != request.shapes.absent]
    values = dict(request.attrs)
    return " ".join([str(request.combination), str(absent), str(cores), str(ub_bytes),
                     *(" ".join(map(str, (len(s), *s))) for s in present),
                     *(_attr_token(a.kind, values[a.name]) for a in plan.attrs)])


def _attr_token(kind: str, value: AttrValue) -> str:
    if kind == "bool":
        return "1" if value else "0"
    if kind == "float":
        return repr(float(value))
    if kind == "string":
        return str(value).encode().hex() or "-"
    return str(int(value))


# the op's TilingParse run on a platform of the request's cores and UB, as ops-nn's own tiling UTs run it
PARSE_HEADERS = ("test_cube_util.h", "tiling_parse_context_faker.h", "register/op_impl_registry.h")
PARSE_FUNCTION = (
    "void OpgenParse(const char* opType, void* compileInfo, uint64_t cores, uint64_t ub)", "{",
    '    std::string info = "{\\"hardware_info\\": {\\"UB_SIZE\\": " + std::to_string(ub) + ", \\"CORE_NUM\\": " +',
    '                       std::to_string(cores) + "}}";',
    "    std::map<std::string, std::string> socInfos;", "    std::map<std::string, std::string> aicoreSpec;",
    "    std::map<std::string, std::string> intrinsics;",
    "    GetPlatFormInfos(info.c_str(), socInfos, aicoreSpec, intrinsics);",
    "    fe::PlatFormInfos platformInfo;", "    platformInfo.Init();",
    "    auto holder = gert::KernelRunContextFaker()", "                      .KernelIONum(2, 1)",
    "                      .Inputs({const_cast<char*>(info.c_str()), reinterpret_cast<void*>(&platformInfo)})",
    "                      .Outputs({compileInfo})", "                      .Build();",
    "    auto* context = holder.GetContext<gert::TilingParseContext>();",
    '    context->GetPlatformInfo()->SetPlatformRes("SoCInfo", socInfos);',
    '    context->GetPlatformInfo()->SetPlatformRes("AICoreSpec", aicoreSpec);',
    '    context->GetPlatformInfo()->SetCoreNumByCoreType("AICore");',
    '    context->GetPlatformInfo()->SetPlatformRes("AICoreintrinsicDtypeMap", intrinsics);',
    "    auto impl = gert::OpImplRegistry::GetInstance().GetOpImpl(opType);",
    "    if (impl != nullptr && impl->tiling_parse != nullptr) {",
    "        impl->tiling_parse(holder.GetContext<gert::KernelContext>());", "    }", "}", "")


def driver_source(op_dir: Path, plan: RenderPlan, framework_headers: Sequence[str], headers: Sequence[str],
                  compile_info: str, parses: bool = False) -> str:
    """`headers`: op-relative; without them the driver declares the compile info itself (a classic tiling reads
    none). `parses`: the op's TilingParse fills the compile info first, as the op's own tiling UT runs it (upstream
    glu_grad: cores and UB come from there)."""
    include = [*(f'#include "{h}"' for h in framework_headers), *(f'#include "{op_dir / h}"' for h in headers)]
    include += [f'#include "{h}"' for h in PARSE_HEADERS if parses and h not in framework_headers]
    local = [] if headers else [f"namespace {{\nstruct {compile_info} {{}};\n}} // namespace"]
    columns = len(plan.tensors[0].dtypes)  # every column of the def, as a request names it (a cut plan keeps them)
    dtypes = ",\n".join("    {" + ", ".join(f"ge::{t.dtypes[c].ge}" for t in plan.tensors) + "}"
                        for c in range(columns))
    tensors = []
    for k, tensor in enumerate(plan.tensors):
        if tensor.role == "input":
            tensors.append(f"        if (absent != {k}) {{\n"
                           f"            inputs.push_back(OpgenTensor(in, dtypes[{k}]));\n        }}")
        else:
            tensors.append(f"        outputs.push_back(OpgenTensor(in, dtypes[{k}]));")
    attrs = "".join(f'            {{"{a.name}", Ops::NN::AnyValue::CreateFrom<{ANY_VALUE_TYPES[a.kind]}>('
                    f"OpgenValue<{ANY_VALUE_TYPES[a.kind]}>(in))}},\n" for a in plan.attrs)
    with_attrs = "attrs, " if plan.attrs else ""
    instances = ", ".join(f"absent == {k} ? 0u : 1u" for k in range(len(plan.inputs)))
    outputs = ", ".join("1u" for _ in plan.outputs)
    return "\n".join([
        "// opgen's host tiling driver (opgen/check/kernel/host_driver.py): not part of the tree.",
        "#include <cstdio>", "#include <cstdlib>", "#include <fstream>", "#include <string>", "#include <vector>",
        "#include <gtest/gtest.h>", '#include "tiling_case_executor.h"', *include, *local, "",
        "namespace {",
        f"const ge::DataType kOpgenDtypes[][{len(plan.tensors)}] = {{\n{dtypes}}};", "",
        "gert::TilingContextPara::TensorDescription OpgenTensor(std::istream& in, ge::DataType dtype)", "{",
        "    size_t rank = 0;", "    in >> rank;", "    gert::StorageShape shape;",
        "    for (size_t i = 0; i < rank; ++i) {", "        int64_t dim = 0;", "        in >> dim;",
        "        shape.MutableOriginShape().AppendDim(dim);", "        shape.MutableStorageShape().AppendDim(dim);",
        "    }", "    return gert::TilingContextPara::TensorDescription(shape, dtype, ge::FORMAT_ND);", "}", "",
        "template <typename T>", "T OpgenValue(std::istream& in)", "{", "    T value{};", "    in >> value;",
        "    return value;", "}", "",
        "template <>", "float OpgenValue<float>(std::istream& in)", "{", "    std::string text;", "    in >> text;",
        "    return std::strtof(text.c_str(), nullptr);", "}", "",
        "template <>", "std::string OpgenValue<std::string>(std::istream& in)", "{", "    std::string hex;",
        "    std::string text;", "    in >> hex;", '    for (size_t i = 0; hex != "-" && i + 1 < hex.size(); i += 2) {',
        "        text.push_back(static_cast<char>(std::strtol(hex.substr(i, 2).c_str(), nullptr, 16)));", "    }",
        "    return text;", "}", "",
        *(PARSE_FUNCTION if parses else ()),
        "void OpgenEmit(const gert::TilingContextPara& para)", "{",
        "    TilingInfo info;",
        "    bool done = ExecuteTiling(para, info);",
        f'    std::printf("{MARK}%s %lld %zu ", done ? "ok" : "fail", (long long)info.tilingKey, info.blockNum);',
        "    for (size_t i = 0; i < info.workspaceSizes.size(); ++i) {",
        '        std::printf("%s%lld", i ? "," : "", (long long)info.workspaceSizes[i]);', "    }",
        '    std::printf(" ");',
        "    for (size_t i = 0; done && i < info.tilingDataSize; ++i) {",
        '        std::printf("%02x", info.tilingData[i]);', "    }",
        '    std::printf("\\n");', "    std::fflush(stdout);", "}", "} // namespace", "",
        "TEST(OpgenHostTiling, Cases)", "{",
        f'    std::ifstream in("{REQUESTS}");',
        "    size_t combination = 0;", "    long long absent = -1;", "    uint64_t cores = 0;", "    uint64_t ub = 0;",
        "    while (in >> combination >> absent >> cores >> ub) {",
        "        if (combination >= sizeof(kOpgenDtypes) / sizeof(kOpgenDtypes[0])) {",
        "            break;  // no such column: the lines missing from the output say so", "        }",
        "        const ge::DataType* dtypes = kOpgenDtypes[combination];",
        "        std::vector<gert::TilingContextPara::TensorDescription> inputs;",
        "        std::vector<gert::TilingContextPara::TensorDescription> outputs;",
        *tensors,
        *([f"        std::vector<gert::TilingContextPara::OpAttr> attrs = {{\n{attrs}        }};"]
          if plan.attrs else []),
        f"        {compile_info} compileInfo;",
        *([f'        OpgenParse("{plan.op_type}", &compileInfo, cores, ub);'] if parses else []),
        "        if (absent >= 0) {",
        f'            gert::TilingContextPara para("{plan.op_type}", inputs, outputs, {with_attrs}{{{instances}}}, '
        f"{{{outputs}}}, &compileInfo, cores, ub);",
        "            OpgenEmit(para);",
        "        } else {",
        f'            gert::TilingContextPara para("{plan.op_type}", inputs, outputs, {with_attrs}&compileInfo, cores, '
        "ub);",
        "            OpgenEmit(para);", "        }", "    }", "}", ""])
