"""The op_host paths a maintainer compares with upstream's: the empty tensor in the tiling, the tiling key each
SoC's UT build sees, and the SoC branch of an infershape (issue 36's sample blockers)."""

from __future__ import annotations

import re

from conftest import SAMPLES

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
