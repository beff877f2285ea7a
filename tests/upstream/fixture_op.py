"""A small hand-written op dir (not upstream text) exercising each form the upstream parser reads."""

from __future__ import annotations

from pathlib import Path

PROTO = b"""
#include "graph/operator_reg.h"
namespace ge {
// a comment the parser must skip
REG_OP(FooGrad)
    .INPUT(dy, "T")
    .OPTIONAL_INPUT(x, TensorType::RealNumberType())
    .DYNAMIC_INPUT(xs, TensorType({DT_FLOAT, TensorType::FloatingDataType()}))
    .OUTPUT(z, TensorType({DT_BF16,
                           DT_FLOAT16}))
    .DATATYPE(T, TensorType({DT_FLOAT16, DT_FLOAT}))
    .REQUIRED_ATTR(mode, String)
    .ATTR(alpha, Float, 1.0f / 6.0f)
    .ATTR(tag, String, "none")
    .OP_END_FACTORY_REG(FooGrad)
}
"""

DEF = b"""
#include "register/op_def_registry.h"
namespace ops {
static const std::vector<ge::DataType> kDy = {ge::DT_FLOAT16, ge::DT_FLOAT};
class FooGrad : public OpDef {
public:
    explicit FooGrad(const char* name) : OpDef(name)
    {
        this->Input("dy").ParamType(REQUIRED).DataType(kDy)
            .Format({ge::FORMAT_ND, ge::FORMAT_ND}).UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND})
            .AutoContiguous();
        this->Input("x").ParamType(OPTIONAL).DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND}).ValueDepend(OPTIONAL);
        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_FLOAT16, ge::DT_FLOAT})
            .Format({ge::FORMAT_ND, ge::FORMAT_ND}).UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
        this->Attr("mode").AttrType(REQUIRED).String();
        this->Attr("alpha").AttrType(OPTIONAL).Float(1.0f / 6.0f);
        this->Attr("tag").String("none");
        this->AICore().AddConfig("ascend910b").AddConfig("ascend910_93");
        OpAICoreConfig small;
        small.Input("dy").ParamType(REQUIRED).DataType({ge::DT_FLOAT}).Format({ge::FORMAT_ND});
        small.DynamicCompileStaticFlag(true).PrecisionReduceFlag(false);
        this->AICore().AddConfig("ascend910", small);
        OpAICoreConfig big;
        big.DynamicCompileStaticFlag(true)
            .ExtendCfgInfo("opFile.value", "foo_grad_apt")
            .ExtendCfgInfo("opInterface.value", "foo_grad");
        this->AICore().AddConfig("ascend950", big);
        big.PrecisionReduceFlag(true);  // after its AddConfig: not part of ascend950's config
        this->AICore().SetCheckSupport(CheckFoo);
    }
};
OP_ADD(FooGrad);
}
"""

INFERSHAPE = b"""
namespace ops {
static ge::graphStatus InferDtypeFoo(gert::InferDataTypeContext* context) { return ge::GRAPH_SUCCESS; }
IMPL_OP_INFERSHAPE(FooGrad).InferShape(Ops::Base::InferShape4Elewise).InferDataType(InferDtypeFoo);
}
"""

TILING = b"""
namespace optiling {
IMPL_OP_OPTILING(FooGrad).Tiling(TilingFoo).TilingParse<FooCompileInfo>(TilingPrepareFoo);
}
"""

ACLNN = b"""
#include "aclnn/aclnn_base.h"
#ifdef __cplusplus
extern "C" {
#endif
/* doc */
ACLNN_API aclnnStatus aclnnFooBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclScalar *alpha,
                                                       char* mode, bool flag, aclTensor* out,
                                                       uint64_t* workspaceSize, aclOpExecutor** executor);
aclnnStatus aclnnFooBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                             const aclrtStream stream);
#ifdef __cplusplus
}
#endif
"""

CMAKE_ROOT = b"""
set(SUPPORT_COMPUTE_UNIT "ascend910b" "ascend950")
set(SUPPORT_TILING_DIR arch22 arch35)
set(OTHER x)
add_modules_sources(HOSTNAME ${OPHOST_NAME} MODE PRIVATE DIR ${CMAKE_CURRENT_SOURCE_DIR} OPTYPE foo_grad
    ACLNNTYPE aclnn_exclude COMPUTE_UNIT ${SUPPORT_COMPUTE_UNIT} TILING_DIR ${SUPPORT_TILING_DIR}
    DISABLE_IN_OPP TRUE)  # trailing comment
if(ENABLE_TEST)
    add_subdirectory(tests)
endif()
"""

CMAKE_KERNEL = b"""
add_kernel_sources(COMPUTE_UNITS ascend910b)
if(X)
  add_kernel_sources(KERNEL_SRC arch35/foo_grad.cpp COMPUTE_UNITS ascend950 AUTO_SYNC false OPTIONS "--a=1" "--b")
endif()
"""

README = """# FooGrad

## 产品支持情况

| 产品 | 是否支持 |
| :--- | :---: |
| <term>Ascend 950PR / Ascend 950DT</term> | \u221a |
| Atlas A2 训练系列产品/Atlas A2 推理系列产品 | \u00d7 |

## 功能说明

| not | \u221a |
"""

DOC = """# aclnnFooBackward

## 产品支持情况

- <term>Ascend 950PR/Ascend 950DT</term>\uff1a支持
- <term>Atlas 训练系列产品</term>: 不支持

## 函数原型
"""

FILES: dict[str, bytes] = {
    "CMakeLists.txt": CMAKE_ROOT,
    "README.md": README.encode(),
    "docs/aclnnFooBackward.md": DOC.encode(),
    "op_graph/foo_grad_proto.h": PROTO,
    "op_host/foo_grad_def.cpp": DEF,
    "op_host/foo_grad_infershape.cpp": INFERSHAPE,
    "op_host/arch35/foo_grad_tiling.cpp": TILING,
    "op_host/op_api/aclnn_foo_backward.h": ACLNN,
    "op_kernel/CMakeLists.txt": CMAKE_KERNEL,
    "op_kernel/foo_grad.cpp": b"// kernel\n",
}


def write_op(root: Path, files: dict[str, bytes] = FILES) -> Path:
    for rel, data in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    return root
