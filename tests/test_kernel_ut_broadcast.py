"""Kernel UTs of broadcasting DAG ops: BroadcastSch does nothing for the elementwise tiling data and schMode 0, so
each case hands the kernel the one-dim schedule BroadcastBaseTiling picks for same-shape inputs (201 with the
DAG's scalars, 202 without), in the struct that schedule reads, with a block split that covers the shape."""

from __future__ import annotations

import re
from math import ceil

import pytest
from conftest import SAMPLES

TEST = re.compile(r"TEST_F\(\w+, (\w+)\)\n\{(.*?)\n\}", re.S)


def _cases(op: str) -> list[tuple[str, str]]:
    ut = (SAMPLES / "activation" / op / "tests/ut/op_kernel" / f"test_{op}_apt.cpp").read_text(encoding="utf-8")
    return TEST.findall(ut)


def _fields(body: str) -> dict[str, int]:
    return {k: int(v) for k, v in re.findall(r"tilingData->(\w+) = (-?\d+);", body)}


def _blocks(body: str) -> int:
    return int(re.search(r"ICPU_RUN_KF\(kernel, (\d+),", body).group(1))  # type: ignore[union-attr]


def _elements(body: str) -> int:
    return int(re.search(r"RunGenData\(\"[^\"]+\", \{\"'\((\d+),\)'\"", body).group(1))  # type: ignore[union-attr]


@pytest.mark.parametrize(("op", "mode", "scalars"), [("leaky_relu_grad", 201, 1), ("softplus_grad", 202, 0),
                                                    ("gelu_grad_v2", 202, 0)])
def test_each_case_runs_the_one_dim_schedule_over_exactly_the_shape(op: str, mode: int, scalars: int) -> None:
    cases = _cases(op)
    assert cases
    for name, body in cases:
        assert re.search(rf"::{op}<{mode}, TPL_\w+(, \w+)?>\(", body), name
        struct = "BroadcastOneDimTilingData" if mode == 201 else "BroadcastOneDimTilingDataAdvance"
        assert f"reinterpret_cast<{struct}*>(tiling)" in body, name
        f, n = _fields(body), _elements(body)
        blocks = _blocks(body)
        assert f["blockNum"] == blocks and f["scalarFlag"] == 0, name
        if mode == 202:  # the kernel derives the split (broadcast_sch_one_dim_advance.h)
            outer = ceil(f["dimLen"] / f["tileNum"])
            former = ceil(outer / blocks)
            assert f["dimLen"] == n and 1 <= outer - (blocks - 1) * former <= former, name
        else:  # the host hands it over (broadcast_sch_one_dim.h)
            assert 1 <= f["blockTail"] <= f["blockFormer"] and 1 <= f["ubTail"] <= f["ubFormer"], name
            tiles = (blocks - 1) * f["blockFormer"] + f["blockTail"]
            assert (tiles - 1) * f["ubFormer"] + f["ubTail"] == n, name
        assert len(re.findall(r"tilingData->scalarData \+ \d+", body)) == scalars, name
    assert any(_blocks(body) > 1 for _, body in cases)
