"""Headers tier: SKIPPED without include dirs; with a stub include dir it really runs g++ and reports each
host file, a failing one with its first error."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from opgen.check.headers import first_error, headers_tier, host_files, resolve_include_dirs
from opgen.errors import OpgenError

from .trees import GELU, RELU, by_item, copy_sample

# Just enough of graph/operator_reg.h for a REG_OP(...) chain to compile.
OPERATOR_REG_STUB = """\
#pragma once
#include <initializer_list>
namespace ge {
enum DataType { DT_FLOAT, DT_FLOAT16, DT_BF16, DT_INT8, DT_INT32, DT_UINT8, DT_UINT1 };
struct TensorType {
    TensorType(std::initializer_list<DataType>) {}
    static TensorType RealNumberType() { return {DT_FLOAT}; }
};
struct OpReg {
    OpReg& Input(const char*, TensorType) { return *this; }
    OpReg& Output(const char*, TensorType) { return *this; }
    int End() { return 0; }
};
}  // namespace ge
#define REG_OP(x) static int reg_##x = ge::OpReg()
#define INPUT(n, t) Input(#n, t)
#define OUTPUT(n, t) Output(#n, t)
#define OP_END_FACTORY_REG(x) End();
"""


def test_skipped_without_include_dirs(tmp_path: Path) -> None:
    [item] = headers_tier(copy_sample(tmp_path, RELU), [])
    assert item.status == "skip"
    assert "OPGEN_CANN_SRC" in item.reason and "--cann-src" in item.reason


def test_host_files_are_def_infershape_tiling_proto_and_op_api(tmp_path: Path) -> None:
    files = dict(host_files(copy_sample(tmp_path, RELU)))
    assert files == {
        "op_host/arch35/relu_grad_v2_tiling_arch35.cpp": "tiling",
        "op_host/arch35/relu_grad_v2_tiling_arch35.h": "tiling",
        "op_host/relu_grad_v2_def.cpp": "proto", "op_host/relu_grad_v2_infershape.cpp": "proto",
        "op_graph/relu_grad_v2_proto.h": "proto",  # no op_api: ReluGradV2 has no aclnn API
    }
    files = dict(host_files(copy_sample(tmp_path, GELU)))
    assert {rel: role for rel, role in files.items() if role == "op_api"} == {
        "op_host/op_api/aclnn_gelu_backward.cpp": "op_api", "op_host/op_api/aclnn_gelu_backward.h": "op_api",
        "op_host/op_api/gelu_grad.cpp": "op_api", "op_host/op_api/gelu_grad.h": "op_api",
    }


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_compiles_against_the_given_dirs_and_reports_the_first_error(tmp_path: Path) -> None:
    op_dir = copy_sample(tmp_path, RELU)
    stubs = tmp_path / "stubs"
    (stubs / "graph").mkdir(parents=True)
    (stubs / "graph" / "operator_reg.h").write_text(OPERATOR_REG_STUB)
    items = headers_tier(op_dir, [stubs])
    assert len(items) == len(host_files(op_dir)) == 5
    assert by_item(items, "op_graph/relu_grad_v2_proto.h (proto)").status == "pass"
    failed = by_item(items, "op_host/relu_grad_v2_def.cpp (proto)")
    assert failed.status == "fail"
    assert failed.reason == ("op_host/relu_grad_v2_def.cpp:11: register/op_def_registry.h: "
                             "No such file or directory")


def test_include_dirs_come_as_dirs_joined_lists_or_a_file(tmp_path: Path) -> None:
    a, b, c = (tmp_path / n for n in "abc")
    for d in (a, b, c):
        d.mkdir()
    listing = tmp_path / "dirs.txt"
    listing.write_text(f"# CANN headers\n{b}\n\n{c}\n")
    assert resolve_include_dirs([a, listing, Path(f"{c}{os.pathsep}{a}")]) == [a, b, c, c, a]
    with pytest.raises(OpgenError, match="is not a directory"):
        resolve_include_dirs([tmp_path / "nowhere"])


def test_first_error_points_back_into_the_op(tmp_path: Path) -> None:
    op_dir = tmp_path / "op"
    (op_dir / "op_api").mkdir(parents=True)
    output = (f"In file included from {op_dir}/op_api/aclnn_x.cpp:12:\n"
              "/cann/include/opdev/common_types.h:45:20: error: reference to 'N' is ambiguous\n"
              f"{op_dir}/op_api/aclnn_x.cpp:40:3: error: 'f' was not declared\n")
    assert first_error(output, op_dir) == ("/cann/include/opdev/common_types.h:45: reference to 'N' is ambiguous "
                                           "(included from op_api/aclnn_x.cpp:12) [2 errors in all]")
