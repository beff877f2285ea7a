"""The syntax tier: CANN-style C++ parses once its macros are expanded, and injected
errors are reported at their line in the original file. Snippets only, no upstream files."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest
import tree_sitter_cpp
from tree_sitter import Language, Parser

from opgen.check.syntax import (
    CANN_MACROS,
    SyntaxFinding,
    cmake_errors,
    cpp_syntax_errors,
    csv_errors,
    json_errors,
    python_errors,
)
from opgen.check.trust import Trust

needs_cpp = pytest.mark.skipif(
    not any(shutil.which(name) for name in ("gcc", "cc", "clang", "cpp")), reason="no C preprocessor"
)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def line_of(path: Path, marker: str) -> int:
    """1-based line of the first line containing `marker`."""
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if marker in text:
            return number
    raise AssertionError(f"{marker!r} not in {path}")


def break_line(path: Path, marker: str, old: str, new: str) -> int:
    """Replace `old` by `new` on the line holding `marker`; return that line."""
    lines = path.read_text(encoding="utf-8").split("\n")
    number = line_of(path, marker)
    assert old in lines[number - 1]
    lines[number - 1] = lines[number - 1].replace(old, new, 1)
    path.write_text("\n".join(lines), encoding="utf-8")
    return number


PROTO_H = """
    #ifndef OPS_OP_PROTO_FOO_GRAD_H_
    #define OPS_OP_PROTO_FOO_GRAD_H_
    #include "graph/operator_reg.h"

    namespace ge {
    /**
     * @brief FooGrad.
     */
    REG_OP(FooGrad)
        .INPUT(dy, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
        .INPUT(x, TensorType::RealNumberType())
        .OPTIONAL_INPUT(bias, TensorType({DT_FLOAT}))
        .DYNAMIC_INPUT(extra, TensorType::ALL())
        .OUTPUT(dx, TensorType({DT_FLOAT, DT_FLOAT16, DT_BF16}))
        .ATTR(alpha, Float, 1.0)
        .ATTR(axes, ListInt, {})
        .ATTR(mode, String, "mean")
        .REQUIRED_ATTR(beta, Float)
        .OP_END_FACTORY_REG(FooGrad)
    } // namespace ge

    #endif // OPS_OP_PROTO_FOO_GRAD_H_
"""

DEF_CPP = """
    #include "register/op_def_registry.h"

    namespace ops {
    class FooGrad : public OpDef {
    public:
        explicit FooGrad(const char* name) : OpDef(name)
        {
            this->Input("dy")
                .ParamType(REQUIRED)
                .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
                .Format({ge::FORMAT_ND, ge::FORMAT_ND})
                .UnknownShapeFormat({ge::FORMAT_ND, ge::FORMAT_ND});
            this->Output("dx")
                .ParamType(REQUIRED)
                .DataType({ge::DT_FLOAT, ge::DT_FLOAT16})
                .Format({ge::FORMAT_ND, ge::FORMAT_ND});
            this->Attr("alpha").AttrType(OPTIONAL).Float(1.0);
            OpAICoreConfig aicoreConfig;
            aicoreConfig.DynamicCompileStaticFlag(true).ExtendCfgInfo("opFile.value", "foo_grad_apt");
            this->AICore().AddConfig("ascend950", aicoreConfig);
        }
    };

    OP_ADD(FooGrad);
    } // namespace ops
"""

TILING_CPP = """
    #include "foo_grad_tiling_arch35.h"
    #include "log/log.h"

    namespace optiling {
    ge::graphStatus FooGradTiling::RunTiling()
    {
        auto inputDesc = tilingContext->GetInputDesc(0);
        OP_CHECK_NULL_WITH_CONTEXT(tilingContext, inputDesc);
        OP_CHECK_IF(inputDesc->GetDataType() != ge::DT_FLOAT,
                    OP_LOGE_FOR_INVALID_DTYPE(tilingContext->GetNodeName(), "dy",
                                              ge::TypeUtils::DataTypeToSerialString(inputDesc->GetDataType()),
                                              "DT_FLOAT"),
                    return ge::GRAPH_FAILED);
        OP_CHECK_IF(CheckShape() != ge::GRAPH_SUCCESS, OP_LOGE(tilingContext, "Check shape failed."),
                    return ge::GRAPH_FAILED);
        OP_LOGD(tilingContext->GetNodeName(), "tiling key %lu", schMode);
        const uint64_t tilingKey = GET_TPL_TILING_KEY(schMode, dType);
        tilingContext->SetTilingKey(tilingKey);
        return ge::GRAPH_SUCCESS;
    }

    static ge::graphStatus TilingForFooGrad(gert::TilingContext* context)
    {
        FooGradTiling tiling(context);
        return tiling.RunTiling();
    }

    static ge::graphStatus TilingPrepareForFooGrad(gert::TilingParseContext* context)
    {
        auto compileInfo = context->GetCompiledInfo<FooGradCompileInfo>();
        OP_CHECK_NULL_WITH_CONTEXT(context, compileInfo);
        return ge::GRAPH_SUCCESS;
    }

    IMPL_OP_OPTILING(FooGrad).Tiling(TilingForFooGrad).TilingParse<FooGradCompileInfo>(TilingPrepareForFooGrad);
    } // namespace optiling
"""

INFERSHAPE_CPP = """
    #include "register/op_impl_registry.h"

    using namespace ge;
    namespace ops {
    IMPL_OP_INFERSHAPE(FooGrad).InferShape(Ops::Base::InferShape4Elewise);
    } // namespace ops
"""

TILING_STRUCT_H = """
    #ifndef FOO_GRAD_TILING_STRUCT_H
    #define FOO_GRAD_TILING_STRUCT_H
    #include "ascendc/host_api/tiling/template_argument.h"

    namespace FooGradNs {
    #define TPL_FP16 1
    #define TPL_FP32 3
    #define TPL_SCH_MODE_0 0

    ASCENDC_TPL_ARGS_DECL(FooGrad, ASCENDC_TPL_UINT_DECL(schMode, 1, ASCENDC_TPL_UI_LIST, TPL_SCH_MODE_0),
                          ASCENDC_TPL_DTYPE_DECL(dType, TPL_FP16, TPL_FP32));

    ASCENDC_TPL_SEL(ASCENDC_TPL_ARGS_SEL(ASCENDC_TPL_UINT_SEL(schMode, ASCENDC_TPL_UI_LIST, TPL_SCH_MODE_0),
                                         ASCENDC_TPL_DTYPE_SEL(dType, TPL_FP16, TPL_FP32)));
    } // namespace FooGradNs
    #endif
"""

KERNEL_CPP = """
    #include "kernel_operator.h"
    #include "arch35/foo_grad_dag.h"

    using namespace AscendC;

    template <uint64_t schMode, uint64_t dType>
    __global__ __aicore__ void foo_grad(GM_ADDR dy, GM_ADDR x, GM_ADDR dx, GM_ADDR workspace, GM_ADDR tiling)
    {
        KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
        REGISTER_TILING_DEFAULT(EleBaseTilingDataV2);
        GET_TILING_DATA_WITH_STRUCT(EleBaseTilingDataV2, tilingData, tiling);
        TPipe pipe;
        if (TILING_KEY_IS(1)) {
            ElementwiseSch<schMode, FooGradDag<half>::OpDag> sch(&tilingData, &pipe);
            sch.Init(dy, x, dx);
            sch.Process();
        } else if constexpr (dType == TPL_FP32) {
            __gm__ float* out = reinterpret_cast<__gm__ float*>(dx);
            ASSERT(out != nullptr && "dx must be set");
        }
    }

    template <typename T>
    class KernelFoo {
    public:
        __aicore__ inline KernelFoo() {}
        __aicore__ inline void Process(__ubuf__ T* buf)
        {
            __VEC_SCOPE__
            {
                buf[0] = 0;
            }
            inQueue.template EnQue(local);
            (this->*compute)(buf);
        }
    };
"""

DAG_H = """
    #ifndef FOO_GRAD_DAG_H
    #define FOO_GRAD_DAG_H
    #include "atvoss/util/dag.h"

    namespace FooGradNs {
    using namespace Ops::Base;

    template <typename T>
    struct FooGradDag {
        using ConstValue = MAKE_CONST(float, 0.5);
        using OpCopyIn0 = Bind<Vec::CopyIn<T>, Placeholder::In0<T>>;
        using OpCopyIn1 = Bind<Vec::CopyIn<T>, Placeholder::In1<T>>;
        using OpMul = Bind<Vec::Mul<float>, OpCopyIn0, OpCopyIn1>;
        using OpMuls = Bind<Vec::Muls<float>, OpMul, ConstValue>;
        using OpCopyOut = Bind<Vec::CopyOut<T>, Placeholder::Out0<T>, OpMuls>;
        using Outputs = Elems<OpCopyOut>;
        using OpDag = DAGSch<Outputs, void, MemOptCfg<MemLevel::LEVEL_2>>;
    };
    } // namespace FooGradNs
    #endif
"""

ACLNN_H = """
    #ifndef OP_API_INC_FOO_BACKWARD_H_
    #define OP_API_INC_FOO_BACKWARD_H_
    #include "aclnn/aclnn_base.h"

    #ifdef __cplusplus
    extern "C" {
    #endif

    ACLNN_API aclnnStatus aclnnFooBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                           aclTensor* gradInput, uint64_t* workspaceSize,
                                                           aclOpExecutor** executor);

    ACLNN_API aclnnStatus aclnnFooBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor,
                                           aclrtStream stream);
    #ifdef __cplusplus
    }
    #endif
    #endif
"""

ACLNN_CPP = """
    #include "aclnn_foo_backward.h"
    #include "opdev/op_dfx.h"
    #include "aclnn_kernels/common/op_error_check.h"

    using namespace op;

    static const std::initializer_list<DataType> DTYPE_SUPPORT_LIST = {DataType::DT_FLOAT, DataType::DT_FLOAT16};

    static bool CheckNotNull(const aclTensor* gradOutput, const aclTensor* self, const aclTensor* gradInput)
    {
        OP_CHECK_NULL(gradOutput, return false);
        OP_CHECK_NULL(self, return false);
        OP_CHECK_DTYPE_NOT_SUPPORT(self, DTYPE_SUPPORT_LIST, return false);
        OP_CHECK_MAX_DIM(self, 8, return false);
        op::Shape shape;
        OP_CHECK_BROADCAST_AND_INFER_SHAPE(gradOutput, self, shape, return false);
        OP_CHECK_SHAPE_NOT_EQUAL(gradInput, self, return false);
        return true;
    }

    aclnnStatus aclnnFooBackwardGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                                 aclTensor* gradInput, uint64_t* workspaceSize,
                                                 aclOpExecutor** executor)
    {
        L2_DFX_PHASE_1(aclnnFooBackward, DFX_IN(gradOutput, self), DFX_OUT(gradInput));
        auto uniqueExecutor = CREATE_EXECUTOR();
        CHECK_RET(uniqueExecutor.get() != nullptr, ACLNN_ERR_INNER_CREATE_EXECUTOR);
        CHECK_RET(CheckNotNull(gradOutput, self, gradInput), ACLNN_ERR_PARAM_NULLPTR);
        *workspaceSize = uniqueExecutor->GetWorkspaceSize();
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }

    aclnnStatus aclnnFooBackward(void* workspace, uint64_t workspaceSize, aclOpExecutor* executor, aclrtStream stream)
    {
        L2_DFX_PHASE_2(aclnnFooBackward);
        return CommonOpExecutorRun(workspace, workspaceSize, executor, stream);
    }
"""

L0_CPP = """
    #include "foo_grad.h"
    #include "opdev/make_op_executor.h"

    namespace l0op {
    OP_TYPE_REGISTER(FooGrad);

    const aclTensor* FooGrad(const aclTensor* dy, const aclTensor* x, aclTensor* dx, aclOpExecutor* executor)
    {
        L0_DFX(FooGrad, dy, x, dx);
        auto ret = ADD_TO_LAUNCHER_LIST_AICORE(FooGrad, OP_INPUT(dy, x), OP_OUTPUT(dx), OP_ATTR(1.0f));
        if (ret != ACLNN_SUCCESS) {
            OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "FooGrad ADD_TO_LAUNCHER_LIST_AICORE failed.");
            return nullptr;
        }
        return dx;
    }
    } // namespace l0op
"""

GTEST_CPP = """
    #include <gtest/gtest.h>
    #include "tikicpulib.h"

    extern "C" __global__ __aicore__ void foo_grad(GM_ADDR dy, GM_ADDR x, GM_ADDR dx, GM_ADDR workspace,
                                                   GM_ADDR tiling);

    class foo_grad_test : public testing::Test {
    protected:
        static void SetUpTestCase() {}
    };

    TEST_F(foo_grad_test, test_case_fp32)
    {
        uint8_t* dy = (uint8_t*)AscendC::GmAlloc(256);
        ASSERT_NE(dy, nullptr);
        ICPU_SET_TILING_KEY(1);
        ICPU_RUN_KF(foo_grad, 1, dy, dy, dy, dy, dy);
        EXPECT_EQ(dy[0], 0) << "first element";
        EXPECT_TRUE(true);
        ASSERT_EQ(Compute(dy), ge::GRAPH_SUCCESS);
        AscendC::GmFree(dy);
    }

    TEST(FooGradPlain, Near) { EXPECT_NEAR(1.0, 1.0001, 1e-3); }
"""

OP_API_UT_CPP = """
    #include "gtest/gtest.h"
    #include "op_api_ut_common/op_api_ut.h"

    class l2_foo_backward_test : public testing::Test {};

    TEST_F(l2_foo_backward_test, case_1)
    {
        auto selfDesc = TensorDesc({2, 3}, ACL_FLOAT, ACL_FORMAT_ND);
        auto ut = OP_API_UT(aclnnFooBackward, INPUT(selfDesc, selfDesc), OUTPUT(selfDesc));
        uint64_t workspaceSize = 0;
        EXPECT_EQ(ut.TestGetWorkspaceSize(&workspaceSize), ACL_SUCCESS);
    }
"""

GOOD_CPP = {
    "op_graph/foo_grad_proto.h": PROTO_H,
    "op_host/foo_grad_def.cpp": DEF_CPP,
    "op_host/arch35/foo_grad_tiling_arch35.cpp": TILING_CPP,
    "op_host/foo_grad_infershape.cpp": INFERSHAPE_CPP,
    "op_kernel/arch35/foo_grad_tiling_struct.h": TILING_STRUCT_H,
    "op_kernel/foo_grad_apt.cpp": KERNEL_CPP,
    "op_kernel/arch35/foo_grad_dag.h": DAG_H,
    "op_api/aclnn_foo_backward.h": ACLNN_H,
    "op_api/aclnn_foo_backward.cpp": ACLNN_CPP,
    "op_api/foo_grad.cpp": L0_CPP,
    "tests/ut/op_kernel/test_foo_grad.cpp": GTEST_CPP,
    "tests/ut/op_api/test_aclnn_foo_backward.cpp": OP_API_UT_CPP,
}


def test_macro_header_ships_beside_the_module() -> None:
    assert CANN_MACROS.is_file()
    assert "#define OP_CHECK_IF(condition, log, return_expr)" in CANN_MACROS.read_text(encoding="utf-8")


@needs_cpp
@pytest.mark.parametrize("name", sorted(GOOD_CPP))
def test_cann_idioms_parse_cleanly(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, name, GOOD_CPP[name])
    assert cpp_syntax_errors(path) == []


@pytest.mark.parametrize("name", ["op_graph/foo_grad_proto.h", "op_host/arch35/foo_grad_tiling_arch35.cpp"])
def test_raw_tree_sitter_cannot_parse_cann_code(tmp_path: Path, name: str) -> None:
    """Why the macro layer exists: the same text, unexpanded, is full of ERROR nodes."""
    path = write(tmp_path, name, GOOD_CPP[name])
    tree = Parser(Language(tree_sitter_cpp.language())).parse(path.read_bytes())
    assert tree.root_node.has_error


@needs_cpp
def test_check_writes_nothing_next_to_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "op_host/foo_grad_def.cpp", DEF_CPP)
    before = path.read_bytes()
    cpp_syntax_errors(path)
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["foo_grad_def.cpp", "op_host"]
    assert path.read_bytes() == before


@needs_cpp
def test_missing_semicolon_is_reported_at_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "op_api/aclnn_foo_backward.cpp", ACLNN_CPP)
    line = break_line(path, "*workspaceSize = uniqueExecutor", ";", "")
    findings = cpp_syntax_errors(path)
    assert findings
    assert {f.line for f in findings} == {line}
    assert any("`;`" in f.message for f in findings)
    assert str(findings[0]).startswith(f"{path}:{line}: ")


@needs_cpp
def test_missing_semicolon_after_a_macro_statement(tmp_path: Path) -> None:
    """OP_CHECK_IF expands to do { } while (0): it needs its `;` like the real macro."""
    path = write(tmp_path, "op_host/arch35/foo_grad_tiling_arch35.cpp", TILING_CPP)
    lines = path.read_text(encoding="utf-8").split("\n")
    end = next(i for i, text in enumerate(lines) if 'OP_LOGE(tilingContext, "Check shape failed.")' in text) + 1
    lines[end] = lines[end].replace("return ge::GRAPH_FAILED);", "return ge::GRAPH_FAILED)")
    path.write_text("\n".join(lines), encoding="utf-8")
    findings = cpp_syntax_errors(path)
    # gcc puts a multi-line macro call on its first line; the error is at that call.
    assert [f.line for f in findings] == [end]
    assert findings[0].message == "missing `;`"


@needs_cpp
def test_extra_closing_brace_is_reported_at_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "op_kernel/foo_grad_apt.cpp", KERNEL_CPP)
    line = break_line(path, "sch.Process();", "sch.Process();", "sch.Process(); }")
    findings = cpp_syntax_errors(path)
    assert findings
    assert findings[0].line >= line
    assert all(f.line >= line for f in findings)


@needs_cpp
def test_missing_closing_brace_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "op_graph/foo_grad_proto.h", PROTO_H)
    line = break_line(path, "} // namespace ge", "}", "")
    findings = cpp_syntax_errors(path)
    assert [f.message for f in findings] == ["missing `}`"]
    assert findings[0].line == line - 1  # the last line that has code


@needs_cpp
def test_bad_token_is_reported_at_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "op_kernel/arch35/foo_grad_dag.h", DAG_H)
    line = break_line(path, "using OpMul =", "OpCopyIn1>;", "OpCopyIn1> @;")
    findings = cpp_syntax_errors(path)
    assert [f.line for f in findings] == [line]
    assert "`@`" in findings[0].message


@needs_cpp
def test_error_inside_a_reg_op_chain_points_at_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "op_graph/foo_grad_proto.h", PROTO_H)
    line = break_line(path, ".INPUT(x, TensorType::RealNumberType())", "RealNumberType())", "RealNumberType() +)")
    findings = cpp_syntax_errors(path)
    assert [(f.line, f.message) for f in findings] == [(line, "syntax error near `+`")]


@needs_cpp
def test_unbalanced_parenthesis_in_a_macro_call(tmp_path: Path) -> None:
    """The preprocessor cannot find the end of the call; it says so (at the end of the file)."""
    path = write(tmp_path, "op_graph/foo_grad_proto.h", PROTO_H)
    break_line(path, ".INPUT(x, TensorType::RealNumberType())", "RealNumberType())", "RealNumberType(()")
    findings = cpp_syntax_errors(path)
    assert any("unterminated argument list invoking macro" in f.message for f in findings)


@needs_cpp
def test_broken_code_inside_a_macro_argument_is_seen(tmp_path: Path) -> None:
    """The statement argument of OP_CHECK_IF is parsed, not swallowed."""
    path = write(tmp_path, "op_host/arch35/foo_grad_tiling_arch35.cpp", TILING_CPP)
    line = break_line(path, "OP_CHECK_IF(CheckShape()", "CheckShape() != ", "CheckShape() != != ")
    findings = cpp_syntax_errors(path)
    assert [f.line for f in findings] == [line]


@needs_cpp
def test_wrong_macro_arity_is_a_preprocessor_finding(tmp_path: Path) -> None:
    path = write(tmp_path, "op_api/aclnn_foo_backward.cpp", ACLNN_CPP)
    line = break_line(path, "OP_CHECK_NULL(self, return false);", "self, return false", "self")
    findings = cpp_syntax_errors(path)
    assert any(f.line == line and f.message.startswith("preprocessor: ") for f in findings)


@needs_cpp
def test_error_in_a_macro_defined_by_the_file_points_at_its_use(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "x.cpp",
        """
        #define NAME(a) tiling_##a
        int NAME(x) = 1;

        int NAME("y") = 2;
        """,
    )
    findings = cpp_syntax_errors(path)
    assert findings
    assert all(f.line in (1, 4) for f in findings)
    assert any(f.line == 4 for f in findings)


@needs_cpp
def test_device_only_branch_is_checked_too(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "k.h",
        """
        #ifdef __CCE_AICORE__
        __aicore__ inline void Device() { int a = 1 }
        #else
        inline void Host() {}
        #endif
        """,
    )
    findings = cpp_syntax_errors(path)
    assert [(f.line, f.message) for f in findings] == [(2, "missing `;`")]


@needs_cpp
def test_line_numbers_survive_removed_includes_and_multiline_macros(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "a.cpp",
        """
        #include "a.h"
        #include <vector>
        #include \\
            "continued.h"
        void F()
        {
            OP_CHECK_IF(a == 1,
                        OP_LOGE("a", "b"),
                        return);
            CHECK_RET(a == 2,
                      ACLNN_ERR_PARAM_NULLPTR);
            int broken = ;
        }
        """,
    )
    findings = cpp_syntax_errors(path)
    assert [f.line for f in findings] == [line_of(path, "int broken")]


# ---------------------------------------------------------------- JSON


def test_json(tmp_path: Path) -> None:
    good = write(tmp_path, "good.json", '{"binList": [{"simplifiedKey": ["a"]}]}\n')
    assert json_errors(good) == []
    bad = write(tmp_path, "bad.json", '{\n  "binList": [\n    {"a": 1,}\n  ]\n}\n')
    [finding] = json_errors(bad)
    assert finding.line == 3
    assert finding.message.startswith("invalid JSON")


# ---------------------------------------------------------------- CSV

CSV_HEADER = (
    "testcase_name,op_name,input_dtypes,input_ori_shapes,attributes,precision_tolerances,input_data_ranges,remark"
)
GOOD_ROWS = [
    """foo_1,foo,"('float16',)","((2, 3),)",{},,"((-1, 1, nan, -0.0, inf),)",inf/nan boundary""",
    """foo_2,foo,"('float32',)","((4,),)","{'alpha': 1.0}",1e-3,"((-inf, 1),)",""",
]


def test_csv_good(tmp_path: Path) -> None:
    path = write(tmp_path, "st.csv", "\n".join([CSV_HEADER, *GOOD_ROWS]) + "\n")
    assert csv_errors(path, ["testcase_name", "input_dtypes"]) == []


def test_csv_bad_cell_missing_column_and_ragged_row(tmp_path: Path) -> None:
    rows = [
        """foo_1,foo,"('float16',","((2, 3),)",{},1e-3.5,,""",  # unclosed tuple, a bad number
        "foo_2,foo,x",  # too few cells
    ]
    path = write(tmp_path, "st.csv", "\n".join([CSV_HEADER, *rows]) + "\n")
    findings = csv_errors(path, ["testcase_name", "output_dtypes"])
    messages = [(f.line, f.message) for f in findings]
    assert (1, "missing column(s): output_dtypes") in messages
    assert any(line == 2 and "input_dtypes" in message for line, message in messages)
    assert any(line == 2 and "precision_tolerances" in message for line, message in messages)
    assert any(line == 3 and "cells" in message for line, message in messages)


# ---------------------------------------------------------------- CMake


def test_cmake(tmp_path: Path) -> None:
    good = write(
        tmp_path,
        "good/CMakeLists.txt",
        """
        add_modules_sources(OPTYPE foo_grad ACLNNTYPE aclnn)
        if (BUILD_WITH_INSTALLED_DEPENDENCY_CANN_PKG)
            add_subdirectory(tests)
        endif()
        """,
    )
    assert cmake_errors(good) == []
    bad = write(
        tmp_path,
        "bad/CMakeLists.txt",
        """
        add_modules_sources(OPTYPE foo_grad ACLNNTYPE aclnn)
        add_subdirectory(tests
        """,
    )
    findings = cmake_errors(bad)
    assert findings
    assert findings[0].line == 2


# ---------------------------------------------------------------- Python

GOLDEN = """
    import math

    __golden__ = {"kernel": {"foo_grad": "foo_grad_golden"}}


    def foo_grad_golden(dy, x, **kwargs):
        return dy * math.e
"""


def test_python_syntax(tmp_path: Path) -> None:
    assert python_errors(write(tmp_path, "gen_data.py", "import sys\nprint(sys.argv)\n")) == []
    [finding] = python_errors(write(tmp_path, "bad.py", "def f(:\n    pass\n"))
    assert finding.line == 1
    assert finding.message.startswith("invalid Python")


def test_golden_good(tmp_path: Path) -> None:
    path = write(tmp_path, "tests/assets/golden.py", GOLDEN)
    assert python_errors(path) == []
    assert not list(path.parent.glob("__pycache__"))


def test_golden_names_a_missing_function(tmp_path: Path) -> None:
    path = write(tmp_path, "golden.py", GOLDEN.replace('"foo_grad_golden"}', '"foo_grad_golden", "x": "nope"}'))
    [finding] = python_errors(path)
    assert finding.line == line_of(path, "__golden__ =")
    assert "'nope'" in finding.message


def test_golden_without_table_or_failing_import(tmp_path: Path) -> None:
    [missing] = python_errors(write(tmp_path, "a/golden.py", "def f():\n    return 1\n"))
    assert "__golden__" in missing.message
    table = '__golden__ = {"kernel": {"foo": "f"}}\n'
    broken = write(tmp_path, "b/golden.py", "import no_such_module_opgen\ndef f():\n    return 1\n" + table)
    assert python_errors(broken) == []  # read, not run: its imports are not tried
    [failed] = python_errors(broken, trust=Trust(allow_exec=True))
    assert "import failed" in failed.message
    assert "no_such_module_opgen" in failed.message


def test_golden_is_imported_only_with_allow_exec_and_then_in_a_scratch_dir(tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    source = f"import os\nopen({str(marker)!r}, 'w').write(os.getcwd())\n" + textwrap.dedent(GOLDEN)
    path = write(tmp_path, "tests/assets/golden.py", source)
    assert python_errors(path) == [] and not marker.exists()
    assert python_errors(path, trust=Trust(allow_exec=True)) == []
    assert marker.read_text() != str(path.parent) and not Path(marker.read_text()).exists()


def test_golden_table_must_name_top_level_functions(tmp_path: Path) -> None:
    [finding] = python_errors(write(tmp_path, "golden.py", 'f = print\n__golden__ = {"kernel": {"foo": "f"}}\n'))
    assert "'f', not a function defined at the module's top level" in finding.message


def test_python_golden_flag_overrides_the_name(tmp_path: Path) -> None:
    path = write(tmp_path, "helpers.py", "def f():\n    return 1\n")
    assert python_errors(path) == []
    assert python_errors(path, golden=True) != []


def test_finding_is_frozen_and_prints_as_file_line() -> None:
    finding = SyntaxFinding(Path("a/b.cpp"), 3, "missing `;`")
    assert str(finding) == "a/b.cpp:3: missing `;`"
    with pytest.raises(AttributeError):
        finding.line = 4  # type: ignore[misc]
