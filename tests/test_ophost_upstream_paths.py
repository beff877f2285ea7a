"""The op_host paths a maintainer compares with upstream's: the empty tensor in the tiling, the tiling key each
SoC's UT build sees, and the SoC branch of an infershape (issue 36's sample blockers)."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import SAMPLES, SCHEMAS, copy_spec

from opgen.plan.kernel.classic_tiling import classic_tiling

SWISH = SAMPLES / "activation/hard_swish_grad_v2"


def _test_body(text: str, suite: str, name: str) -> str:
    match = re.search(rf"TEST_F\({suite}, {name}\)\n\{{\n(.*?)\n\}}\n", text, re.S)
    assert match is not None, f"no {suite}.{name}"
    return match.group(1)


def test_an_empty_tensor_tiles_on_one_block_in_the_classic_families_as_upstream() -> None:
    """Upstream's hand-written classic tilings (hard_swish_grad_v2 arch22 and arch35) succeed on an empty tensor
    with one block; the generated ones refused it with GRAPH_FAILED. Both the arch22 (classic) and the arch35
    (classic_arch35) tiling of HardSwishGradV2 now take it, and their UTs assert it."""
    assert classic_tiling(0, 193, 48, 196608, 8192).used_cores == 1
    assert classic_tiling(0, 193, 48, 196608, 8192).fields[:3] == (0, 0, 0)
    for tiling in ("arch22/hard_swish_grad_v2_tiling.cpp", "arch35/hard_swish_grad_v2_tiling_arch35.cpp"):
        source = (SWISH / "op_host" / tiling).read_text(encoding="utf-8")
        assert "totalNum == 0, " not in source  # no refusal
        assert "uint64_t usedCores = totalNum == 0 ? 1 : " in source
    ut = (SWISH / "tests/ut/op_host/arch22/test_hard_swish_grad_v2_tiling.cpp").read_text(encoding="utf-8")
    body = _test_body(ut, "HardSwishGradV2TilingAscend910b", "tiling_empty_tensor")
    assert "{{{0, 1024}, {0, 1024}}, ge::DT_BF16, ge::FORMAT_ND}" in body
    assert 'ExecuteTestCase(tilingContextPara, ge::GRAPH_SUCCESS, 0, "0 0 0 7680 ", {16777216});' in body
    assert "EXPECT_EQ(tilingInfo.blockNum, 1U);" in body
    ut35 = (SWISH / "tests/ut/op_host/arch35/test_hard_swish_grad_v2_tiling.cpp").read_text(encoding="utf-8")
    body = _test_body(ut35, "HardSwishGradV2TilingAscend950", "tiling_empty_tensor")
    assert "ge::GRAPH_SUCCESS, 2, \"0 0 0 " in body and "EXPECT_EQ(tilingInfo.blockNum, 1U);" in body


def test_an_empty_tensor_is_refused_by_an_atvoss_tiling_as_upstreams_uts_assert() -> None:
    """opbase's ElewiseTiling refuses a 0 dim, and ops-nn's UTs of its atvoss ops assert GRAPH_FAILED for an
    empty tensor (elu_grad_v2 test_tiling_failed_empty_tensor_006): the arch35_dag UT keeps that case."""
    ut = (SAMPLES / "activation/elu_grad_v2/tests/ut/op_host/arch35/test_elu_grad_v2_tiling.cpp").read_text(
        encoding="utf-8")
    body = _test_body(ut, "EluGradV2TilingAscend950", "tiling_empty_tensor")
    assert body.rstrip().endswith("ExecuteTestCase(tilingContextPara, ge::GRAPH_FAILED);")


def test_an_infershape_broadcasts_only_on_the_socs_whose_kernel_broadcasts_when_the_spec_names_a_copied_input() -> None:
    """Upstream GeluGradV2 broadcasts on Ascend950 alone and gives x's shape elsewhere; the generated infershape
    broadcast on every SoC. With `infershape.input: x` it prints the SoC branch (the broadcasting SoCs come from
    the platforms whose kernel broadcasts), and its UT runs both branches, each with a case the other would fail."""
    op = SAMPLES / "activation/gelu_grad_v2"
    source = (op / "op_host/gelu_grad_v2_infershape.cpp").read_text(encoding="utf-8")
    assert "GetPlatformInfoWithOutSocVersion(platformInfo, optionalInfo)" in source
    assert ('    if (socVersion == "Ascend950") {\n'
            "        return Ops::Base::InferShape4Broadcast(context, BROADCAST_INPUT_NUM);\n    }\n"
            "    const gert::Shape* inputShape = context->GetInputShape(1);\n") in source
    ut = (op / "tests/ut/op_host/test_gelu_grad_v2_infershape.cpp").read_text(encoding="utf-8")
    body = _test_body(ut, "GeluGradV2Infershape", "infershape_broadcast_dy_row")
    assert body.startswith('    SetShortSocVersion("Ascend950");')
    body = _test_body(ut, "GeluGradV2Infershape", "infershape_ascend910b_x_shape_not_broadcast")
    assert body.startswith('    SetShortSocVersion("Ascend910B");')
    assert "{{{4, 1024}, {4, 1024}}, ge::DT_BF16" in body and "{1, 1024},\n    };" in body  # x's, not (4, 1024)
    # without the input, a broadcast infershape has no branch (upstream LeakyReluGrad broadcasts everywhere)
    leaky = (SAMPLES / "activation/leaky_relu_grad/op_host/leaky_relu_grad_infershape.cpp").read_text("utf-8")
    assert "socVersion" not in leaky
    assert "return Ops::Base::InferShape4Broadcast(context, BROADCAST_INPUT_NUM);" in leaky


def test_a_broadcast_infershape_input_must_name_an_input(run, tmp_path: Path) -> None:
    spec = copy_spec(SCHEMAS / "gelu_grad_v2.yaml", tmp_path, lambda s: s.replace("  input: x\n", "  input: z\n"))
    result = run("gen", spec, "-o", tmp_path / "out")
    assert result.code == 2
    assert "infershape.input" in result.err and "not an input: one of dy, x" in result.err
    assert not (tmp_path / "out").exists()


def _suites(text: str) -> dict[str, tuple[str, set[int]]]:
    """Per guarded tiling suite: its class and the tiling keys its successful cases expect."""
    found = {}
    for guard, body in re.findall(r"#if defined\((\w+)\)\n(.*?)#endif // \1\n", text, re.S):
        suite = re.search(r"^class (\w+) ", body, re.M)
        assert suite is not None
        keys = {int(k) for k in re.findall(r"ExecuteTestCase\(tilingContextPara, ge::GRAPH_SUCCESS, (\d+),", body)}
        found[guard] = (suite.group(1), keys)
    return found


def test_each_socs_tiling_suite_compiles_in_its_own_build_alone_expecting_its_own_key() -> None:
    """HardSwishGradV2's arch22 UT held the 910B and 910_93 suites unguarded, so each SoC's build ran both against
    its own platform, and 910 (no UT dir: its build globs the top level alone) had none. Now every suite sits
    under its SoC's macro, which tests/ut/op_host/CMakeLists.txt defines for the build's SoC, 910's build adds
    arch22/, and each suite expects the key its SoC's tiling selects (910_93 reports itself as ASCEND910B to
    platform_ascendc, so 910B's key; 910: 3; 950: 2)."""
    ut = SWISH / "tests/ut/op_host"
    arch22 = _suites((ut / "arch22/test_hard_swish_grad_v2_tiling.cpp").read_text(encoding="utf-8"))
    assert arch22 == {
        "HARD_SWISH_GRAD_V2_UT_SOC_ASCEND910B": ("HardSwishGradV2TilingAscend910b", {0}),
        "HARD_SWISH_GRAD_V2_UT_SOC_ASCEND910_93": ("HardSwishGradV2TilingAscend91093", {0}),
        "HARD_SWISH_GRAD_V2_UT_SOC_ASCEND910": ("HardSwishGradV2TilingAscend910", {3}),
    }
    arch35 = _suites((ut / "arch35/test_hard_swish_grad_v2_tiling.cpp").read_text(encoding="utf-8"))
    assert arch35 == {"HARD_SWISH_GRAD_V2_UT_SOC_ASCEND950": ("HardSwishGradV2TilingAscend950", {2})}
    cmake = (ut / "CMakeLists.txt").read_text(encoding="utf-8")
    assert ('    if("${ASCEND_COMPUTE_UNIT}" STREQUAL "ascend910")\n        add_modules_ut_sources(HOSTNAME '
            "${OP_TILING_MODULE_NAME} MODE PRIVATE DIR ${CMAKE_CURRENT_SOURCE_DIR}/arch22)\n") in cmake
    assert ('        foreach(unit IN LISTS ASCEND_COMPUTE_UNIT)\n            string(TOUPPER "${unit}" unit_upper)\n'
            "            target_compile_definitions(${OP_TILING_MODULE_NAME}_cases_obj PRIVATE "
            "HARD_SWISH_GRAD_V2_UT_SOC_${unit_upper})\n") in cmake
